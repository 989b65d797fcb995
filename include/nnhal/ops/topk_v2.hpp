// TOPK_V2 kernels; contract in types/signatures/topk_v2.hpp. Each row of the last
// dimension is ranked with std::partial_sort on (value descending, index descending):
// equal values list the larger index first, as types.hal states and the AOSP reference
// does (it sorts (value, index) pairs ascending and reverses them). The comparison is a
// strict weak order even with NaN, which ranks above +infinity; -0 and +0 tie.
// Quantized values compare as stored (outputs keep the input's scale and zero point).
// On AVX-512 (every type) a row is scanned 16 elements at a time against the k-th
// best so far, and only the few that can enter go through a heap of k: the same
// order, so the same result as the reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::topk_v2 {

/// The ranking key of one element: float for float types, the stored integer otherwise.
template <types::element E>
using key_t = std::conditional_t<types::float_element<E>, float, std::int32_t>;

template <types::element E>
key_t<E> key_of(typename E::storage x) noexcept {
  if constexpr (types::float_element<E>) return kernels::load_float(x);
  else return x;
}

/// a ranks strictly above b by value alone (NaN above everything else).
template <class K>
bool value_above(K a, K b) noexcept {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

/// An element with its index, and the ranking: a ranks above b by value, and equal
/// values list the larger index first.
template <class K>
struct entry {
  K key;
  std::int32_t index;
};
template <class K>
bool ranks_above(const entry<K>& a, const entry<K>& b) noexcept {
  if (value_above(a.key, b.key)) return true;
  if (value_above(b.key, a.key)) return false;
  return a.index > b.index;
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto values = io.output<E>(0);
  auto indices = io.output<types::i32>(1);
  const std::size_t n = in.dims.back();
  const auto k = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const std::size_t rows = n == 0 ? 0 : in.size() / n;
  if (k == 0 || k > n) return;  // rejected by shape inference
  std::vector<key_t<E>> keys(n);
  std::vector<std::int32_t> order(n);
  for (std::size_t r = 0; r < rows; ++r) {
    const S* row = in.data + r * n;
    for (std::size_t i = 0; i < n; ++i) keys[i] = key_of<E>(row[i]);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&keys](std::int32_t a, std::int32_t b) {
                        return ranks_above<key_t<E>>({keys[static_cast<std::size_t>(a)], a}, {keys[static_cast<std::size_t>(b)], b});
                      });
    for (std::size_t j = 0; j < k; ++j) {
      values.data[r * k + j] = row[order[j]];
      indices.data[r * k + j] = order[j];
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Of the `live` lanes of 16 elements from p, those that may rank above an element whose
/// value is t: value >= t in the ranking's order, or any lane when NaN is involved (the
/// exact comparison then decides).
NNHAL_TARGET_AVX512 inline __mmask16 may_enter16(const float* p, __mmask16 live, float t) {
  return _mm512_mask_cmp_ps_mask(live, _mm512_maskz_loadu_ps(live, p), _mm512_set1_ps(t), _CMP_NLT_UQ);
}
NNHAL_TARGET_AVX512 inline __mmask16 may_enter16(const types::float16* p, __mmask16 live, float t) {
  const __m512 v = _mm512_maskz_cvtph_ps(live, _mm256_maskz_loadu_epi16(live, p));
  return _mm512_mask_cmp_ps_mask(live, v, _mm512_set1_ps(t), _CMP_NLT_UQ);
}
NNHAL_TARGET_AVX512 inline __mmask16 may_enter16(const std::int32_t* p, __mmask16 live, std::int32_t t) {
  return _mm512_mask_cmpge_epi32_mask(live, _mm512_maskz_loadu_epi32(live, p), _mm512_set1_epi32(t));
}
NNHAL_TARGET_AVX512 inline __mmask16 may_enter16(const std::uint8_t* p, __mmask16 live, std::int32_t t) {
  return _mm512_mask_cmpge_epi32_mask(live, _mm512_maskz_cvtepu8_epi32(live, _mm_maskz_loadu_epi8(live, p)), _mm512_set1_epi32(t));
}
NNHAL_TARGET_AVX512 inline __mmask16 may_enter16(const std::int8_t* p, __mmask16 live, std::int32_t t) {
  return _mm512_mask_cmpge_epi32_mask(live, _mm512_maskz_cvtepi8_epi32(live, _mm_maskz_loadu_epi8(live, p)), _mm512_set1_epi32(t));
}

/// `rows` rows of n on AVX-512: the first k elements make a heap whose top is the
/// lowest-ranked of them; the rest of the row is filtered 16 at a time by may_enter16
/// against that top, and each survivor that ranks above it replaces it. A later element
/// equal to the top ranks above it (larger index), hence ">=" in the filter.
template <types::element E>
NNHAL_TARGET_AVX512 void rows_avx512(const typename E::storage* in, typename E::storage* values, std::int32_t* indices,
                                     std::size_t rows, std::size_t n, std::size_t k) {
  using K = key_t<E>;
  static thread_local std::vector<entry<K>> kept;  // kept: no allocation per execution
  kept.resize(std::max(kept.size(), k));
  const auto heap_begin = kept.begin(), heap_end = kept.begin() + static_cast<std::ptrdiff_t>(k);
  const auto lower = [](const entry<K>& a, const entry<K>& b) { return ranks_above(a, b); };
  for (std::size_t r = 0; r < rows; ++r) {
    const auto* row = in + r * n;
    for (std::size_t i = 0; i < k; ++i) kept[i] = {key_of<E>(row[i]), static_cast<std::int32_t>(i)};
    std::make_heap(heap_begin, heap_end, lower);
    for (std::size_t i = k; i < n; i += 16) {
      const __mmask16 live = static_cast<__mmask16>(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1);
      for (unsigned m = may_enter16(row + i, live, kept.front().key); m != 0; m &= m - 1) {
        const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(m));
        const entry<K> e{key_of<E>(row[j]), static_cast<std::int32_t>(j)};
        if (!ranks_above(e, kept.front())) continue;
        std::pop_heap(heap_begin, heap_end, lower);
        kept[k - 1] = e;
        std::push_heap(heap_begin, heap_end, lower);
      }
    }
    std::sort_heap(heap_begin, heap_end, lower);
    for (std::size_t j = 0; j < k; ++j) {
      values[r * k + j] = row[kept[j].index];
      indices[r * k + j] = kept[j].index;
    }
  }
}

template <types::element E>
void topk_avx512(const kernel_io& io) {
  const auto in = io.input<E>(0);
  auto values = io.output<E>(0);
  auto indices = io.output<types::i32>(1);
  const std::size_t n = in.dims.back();
  const auto k = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  if (n == 0 || k == 0 || k > n) return;  // rejected by shape inference
  for_chunks(io, in.size() / n, std::max<std::size_t>(1, 8192 / n), [&](std::size_t r0, std::size_t r1) {
    rows_avx512<E>(in.data + r0 * n, values.data + r0 * k, indices.data + r0 * k, r1 - r0, n, k);
  });
}
#endif

/// Types f32 f16 i32 qu8 qs8, on AVX-512 when the CPU has it.
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if (simd::cpu().avx512) return kernel{topk_avx512<E>};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::topk_v2
