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

/// ARGMAX / ARGMIN over input 0 along the axis scalar in input 1 (validated, may be negative).
template <types::element E, bool Min>
void arg_min_max(const kernel_io& io) {
  const auto& input = io.in[0];
  const auto rank = static_cast<std::int64_t>(input.dims.size());
  std::int64_t axis = io.scalar<std::int32_t>(1);
  if (axis < 0) axis += rank;
  const auto plan = kernels::make_reduce_plan(
      input.dims, [axis](std::size_t d) { return static_cast<std::int64_t>(d) == axis; });
  kernels::reduce(plan, io.input<E>(0).data, io.output<types::i32>(0).data, arg_best<E, Min>{});
}

template <types::element E>
void reference(const kernel_io& io) {
  arg_min_max<E, false>(io);
}

#if NNHAL_HAVE_X86_KERNELS
/// ARGMAX / ARGMIN of `rows` contiguous float32 slices of n (> 0) values, 16 lanes at a
/// time, with the reference's result. The running best starts as the first element;
/// vmaxps / vminps return their second operand, the running best, when either is NaN, so
/// a NaN never wins, and a NaN first element stays the best, equals nothing and gives
/// index 0. Otherwise the first index whose value equals the best wins, so ties (+0 and
/// -0 included) go to the smallest index.
template <bool Min>
NNHAL_TARGET_AVX512 void arg_rows_avx512(const float* in, std::int32_t* out, std::size_t rows, std::size_t n) {
  using simd::avx512::all16;
  const std::size_t whole = n - n % 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  for (std::size_t o = 0; o < rows; ++o) {
    const float* x = in + o * n;
    __m512 b = _mm512_set1_ps(x[0]);
    for (std::size_t k = 0; k < whole; k += 16) {
      const __m512 v = _mm512_loadu_ps(x + k);
      b = Min ? _mm512_maskz_min_ps(all16, v, b) : _mm512_maskz_max_ps(all16, v, b);
    }
    if (tail) {
      const __m512 v = _mm512_mask_loadu_ps(b, tail, x + whole);
      b = Min ? _mm512_maskz_min_ps(all16, v, b) : _mm512_maskz_max_ps(all16, v, b);
    }
    const __m512 best = _mm512_set1_ps(kernels::vunary::avx512::lanes_best<Min>(b));
    std::int32_t index = 0;
    for (std::size_t k = 0; k < n; k += 16) {
      const __mmask16 live = k < whole ? all16 : tail;
      const __mmask16 hit = _mm512_mask_cmp_ps_mask(live, _mm512_maskz_loadu_ps(live, x + k), best, _CMP_EQ_OQ);
      if (hit) {
        index = static_cast<std::int32_t>(k) + __builtin_ctz(hit);
        break;
      }
    }
    out[o] = index;
  }
}

/// Float32 ARGMAX / ARGMIN along the last axis on AVX-512, parallel chunks of slices;
/// other axes run the reference fold.
template <bool Min>
void arg_f32_avx512(const kernel_io& io) {
  const auto& input = io.in[0];
  const auto rank = static_cast<std::int64_t>(input.dims.size());
  std::int64_t axis = io.scalar<std::int32_t>(1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1 || input.dims.back() == 0) return arg_min_max<types::f32, Min>(io);
  const std::size_t n = input.dims.back();
  std::size_t rows = 1;
  for (std::size_t d = 0; d + 1 < input.dims.size(); ++d) rows *= input.dims[d];
  const float* in = io.input<types::f32>(0).data;
  std::int32_t* out = io.output<types::i32>(0).data;
  for_chunks(io, rows, std::max<std::size_t>(1, 16384 / n),
             [&](std::size_t o0, std::size_t o1) { arg_rows_avx512<Min>(in + o0 * n, out + o0, o1 - o0, n); });
}
#endif

/// Binds ARGMAX (`Min` false) or ARGMIN (`Min` true) for the input's type (float32 along
/// the last axis on AVX-512 when the CPU has it).
template <bool Min>
types::result<kernel> bind_arg(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{arg_f32_avx512<Min>};
#endif
    return kernel{arg_min_max<E, Min>};
  });
}

inline types::result<kernel> bind(const bind_context& c) { return bind_arg<false>(c); }

}  // namespace nnhal::ops::argmax
