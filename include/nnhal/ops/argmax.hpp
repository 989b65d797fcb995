// ARGMAX kernels (and the fold ARGMIN shares); contract in types/signatures/argmax.hpp.
// The reduction loop (kernels/reduce.hpp) walks the axis in increasing index order and
// a later element wins only when strictly better, so ties resolve to the smallest index
// as in the AOSP reference; a NaN never wins over an earlier element, and a NaN first
// element is never replaced (the reference's comparisons behave the same way).
// Quantized inputs compare as stored: the scale is positive, so the order is the real one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float
#include "nnhal/ops/kernels/reduce.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::argmax {

/// Folds (best value, its index, elements seen); `Min` selects ARGMIN.
template <types::element E, bool Min>
struct arg_best {
  using storage = typename E::storage;
  using key = std::conditional_t<types::float_element<E>, float, std::int32_t>;
  struct acc {
    key best;
    std::int32_t index;
    std::int32_t seen;
  };
  acc init() const noexcept { return {key{}, 0, 0}; }
  acc step(acc a, storage x) const noexcept {
    key v;
    if constexpr (types::float_element<E>) v = kernels::load_float(x);
    else v = x;
    const bool better = Min ? v < a.best : v > a.best;
    if (a.seen == 0 || better) {
      a.best = v;
      a.index = a.seen;
    }
    ++a.seen;
    return a;
  }
  std::int32_t finish(acc a) const noexcept { return a.index; }
};

/// The axis scalar in input 1 (validated, may be negative) as an index into input 0's dims.
inline std::int64_t axis_of(const kernel_io& io) {
  const auto rank = static_cast<std::int64_t>(io.in[0].dims.size());
  const std::int64_t axis = io.scalar<std::int32_t>(1);
  return axis < 0 ? axis + rank : axis;
}

/// ARGMAX / ARGMIN over input 0 along the axis scalar in input 1.
template <types::element E, bool Min>
void arg_min_max(const kernel_io& io) {
  const auto& input = io.in[0];
  const std::int64_t axis = axis_of(io);
  const auto plan = kernels::make_reduce_plan(
      input.dims, [axis](std::size_t d) { return static_cast<std::int64_t>(d) == axis; });
  kernels::reduce(plan, io.input<E>(0).data, io.output<types::i32>(0).data, arg_best<E, Min>{});
}

template <types::element E>
void reference(const kernel_io& io) {
  arg_min_max<E, false>(io);
}

#if NNHAL_HAVE_X86_KERNELS
/// 16 elements of storage S as a vector of ARGMAX keys: float lanes for float32 and
/// float16 (converted exactly), int32 lanes for int32 and the 8-bit types (widened).
template <bool IsFloat>
struct arg_vec {
  using type = __m512i;
};
template <>
struct arg_vec<true> {
  using type = __m512;
};

template <class S>
struct arg_lanes {
  static constexpr bool is_float = std::is_same_v<S, float> || std::is_same_v<S, types::float16>;
  using vec = typename arg_vec<is_float>::type;

  /// The `live` elements from p; other lanes are zero.
  NNHAL_TARGET_AVX512 static vec load(const S* p, __mmask16 live) {
    if constexpr (std::is_same_v<S, float>) return _mm512_maskz_loadu_ps(live, p);
    else if constexpr (std::is_same_v<S, types::float16>) return _mm512_maskz_cvtph_ps(live, _mm256_maskz_loadu_epi16(live, p));
    else if constexpr (std::is_same_v<S, std::int32_t>) return _mm512_maskz_loadu_epi32(live, p);
    else if constexpr (std::is_same_v<S, std::uint8_t>) return _mm512_maskz_cvtepu8_epi32(live, _mm_maskz_loadu_epi8(live, p));
    else return _mm512_maskz_cvtepi8_epi32(live, _mm_maskz_loadu_epi8(live, p));
  }
  NNHAL_TARGET_AVX512 static vec splat(S x) {
    if constexpr (is_float) return _mm512_set1_ps(kernels::load_float(x));
    else return _mm512_set1_epi32(x);
  }
  /// `live` lanes from v, the others from b.
  NNHAL_TARGET_AVX512 static vec blend(__mmask16 live, vec b, vec v) {
    if constexpr (is_float) return _mm512_mask_blend_ps(live, b, v);
    else return _mm512_mask_blend_epi32(live, b, v);
  }
  /// The better of v and the running best b, lane by lane; vmaxps / vminps return their
  /// second operand, b, when either is NaN.
  template <bool Min>
  NNHAL_TARGET_AVX512 static vec better(vec v, vec b) {
    using simd::avx512::all16;
    if constexpr (is_float) return Min ? _mm512_maskz_min_ps(all16, v, b) : _mm512_maskz_max_ps(all16, v, b);
    else return Min ? _mm512_maskz_min_epi32(all16, v, b) : _mm512_maskz_max_epi32(all16, v, b);
  }
  template <bool Min>
  NNHAL_TARGET_AVX512 static vec best_of_lanes(vec b) {
    if constexpr (is_float) {
      return _mm512_set1_ps(kernels::vunary::avx512::lanes_best<Min>(b));
    } else {
      alignas(64) std::int32_t t[16];
      _mm512_store_si512(t, b);
      return _mm512_set1_epi32(Min ? *std::min_element(t, t + 16) : *std::max_element(t, t + 16));
    }
  }
  NNHAL_TARGET_AVX512 static __mmask16 equal(__mmask16 live, vec v, vec best) {
    if constexpr (is_float) return _mm512_mask_cmp_ps_mask(live, v, best, _CMP_EQ_OQ);
    else return _mm512_mask_cmpeq_epi32_mask(live, v, best);
  }
};

/// ARGMAX / ARGMIN of `rows` contiguous slices of n (> 0) values of S, 16 lanes at a
/// time, with the reference's result. The running best starts as the first element; for
/// floats a NaN never wins (arg_lanes::better), and a NaN first element stays the best,
/// equals nothing and gives index 0. Otherwise the first index whose value equals the
/// best wins, so ties (+0 and -0 included) go to the smallest index.
template <class S, bool Min>
NNHAL_TARGET_AVX512 void arg_rows_avx512(const S* in, std::int32_t* out, std::size_t rows, std::size_t n) {
  using simd::avx512::all16;
  using L = arg_lanes<S>;
  const std::size_t whole = n - n % 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  for (std::size_t o = 0; o < rows; ++o) {
    const S* x = in + o * n;
    typename L::vec b = L::splat(x[0]);
    for (std::size_t k = 0; k < whole; k += 16) b = L::template better<Min>(L::load(x + k, all16), b);
    if (tail) b = L::template better<Min>(L::blend(tail, b, L::load(x + whole, tail)), b);
    const typename L::vec best = L::template best_of_lanes<Min>(b);
    std::int32_t index = 0;
    for (std::size_t k = 0; k < n; k += 16) {
      const __mmask16 live = k < whole ? all16 : tail;
      const __mmask16 hit = L::equal(live, L::load(x + k, live), best);
      if (hit) {
        index = static_cast<std::int32_t>(k) + __builtin_ctz(hit);
        break;
      }
    }
    out[o] = index;
  }
}

/// ARGMAX / ARGMIN along the last axis on AVX-512, parallel chunks of slices; other axes
/// run the reference fold.
template <types::element E, bool Min>
void arg_avx512(const kernel_io& io) {
  const auto& input = io.in[0];
  if (axis_of(io) + 1 != static_cast<std::int64_t>(input.dims.size()) || input.dims.back() == 0)
    return arg_min_max<E, Min>(io);
  const std::size_t n = input.dims.back();
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < input.dims.size(); ++d) rows *= input.dims[d];
  const auto* in = io.input<E>(0).data;
  std::int32_t* out = io.output<types::i32>(0).data;
  for_chunks(io, rows, std::max<std::size_t>(1, 16384 / n),
             [&](std::size_t o0, std::size_t o1) { arg_rows_avx512<typename E::storage, Min>(in + o0 * n, out + o0, o1 - o0, n); });
}
#endif

/// Binds ARGMAX (`Min` false) or ARGMIN (`Min` true) for the input's type (every type
/// along the last axis on AVX-512 when the CPU has it).
template <bool Min>
types::result<kernel> bind_arg(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if (simd::cpu().avx512) return kernel{arg_avx512<E, Min>};
#endif
    return kernel{arg_min_max<E, Min>};
  });
}

inline types::result<kernel> bind(const bind_context& c) { return bind_arg<false>(c); }

}  // namespace nnhal::ops::argmax
