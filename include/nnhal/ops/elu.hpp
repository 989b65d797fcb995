// ELU kernels; contract in types/signatures/elu.hpp. max(0, x) + min(0, alpha * (e^x - 1))
// in float32, evaluated as that expression (as the AOSP CPU path: NaN gives 0). alpha is
// input 1 (FLOAT32, or FLOAT16 for a TENSOR_FLOAT16 input), read at each execution.
#pragma once

#include <cmath>
#include <limits>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::elu {

struct lane {
  float alpha;
  float operator()(float x) const noexcept {
    const float neg = alpha * (std::exp(x) - 1.0f);
    return (0.0f < x ? x : 0.0f) + (neg < 0.0f ? neg : 0.0f);
  }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    const batch zero(0.0f);
    const batch neg = batch(alpha) * (xsimd::exp(x) - batch(1.0f));
    return xsimd::select(zero < x, x, zero) + xsimd::select(neg < zero, neg, zero);
  }
#if NNHAL_HAVE_X86_KERNELS
  /// With a finite alpha >= 0 (the usual case), alpha * (e^x - 1) is never negative for
  /// x > 0 nor positive for x <= 0, so the result is x where 0 < x, else
  /// alpha * e^z - alpha (one fused operation) with z = x capped to [-104, 0] (vminps(x, 0)
  /// gives 0 for NaN, whose result is then 0; past -104, e^x - 1 is -1 in float): the
  /// exponential only on non-positive arguments (exp_nonpositive). Any other alpha (negative,
  /// infinite, NaN) computes the expression itself with exp512. Within the CTS float32
  /// tolerance (tests check it).
  template <std::size_t N>
  NNHAL_TARGET_AVX512 void steps512(__m512 (&x)[N]) const noexcept {
    using simd::avx512::all16;
    const __m512 zero = _mm512_setzero_ps(), a = _mm512_set1_ps(alpha);
    if (!(alpha >= 0.0f && alpha <= std::numeric_limits<float>::max())) {
#pragma GCC unroll 8
      for (std::size_t j = 0; j < N; ++j) {
        const __m512 neg = _mm512_maskz_mul_ps(
            all16, a, _mm512_maskz_sub_ps(all16, kernels::vunary::avx512::exp512(x[j]), _mm512_set1_ps(1.0f)));
        // (0 < x ? x : 0) + (neg < 0 ? neg : 0): vmaxps(x, 0) and vminps(neg, 0) select alike.
        x[j] = _mm512_maskz_add_ps(all16, _mm512_maskz_max_ps(all16, x[j], zero), _mm512_maskz_min_ps(all16, neg, zero));
      }
      return;
    }
    const __m512 floor = _mm512_set1_ps(-104.0f);
    __m512 e[N];
#pragma GCC unroll 8
    for (std::size_t j = 0; j < N; ++j) e[j] = _mm512_maskz_max_ps(all16, floor, _mm512_maskz_min_ps(all16, x[j], zero));
    kernels::vunary::avx512::exp_nonpositive(e);
#pragma GCC unroll 8
    for (std::size_t j = 0; j < N; ++j)
      x[j] = _mm512_mask_mov_ps(_mm512_fmsub_ps(e[j], a, a), _mm512_cmp_ps_mask(zero, x[j], _CMP_LT_OQ), x[j]);
  }
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    __m512 v[1] = {x};
    steps512(v);
    return v[0];
  }
#endif
};

/// alpha as float (FLOAT16 widened exactly).
template <types::float_element E>
float alpha_of(const kernel_io& io) noexcept {
  if constexpr (std::is_same_v<E, types::f16>)
    return types::to_float(io.scalar<types::float16>(1));
  else
    return io.scalar<float>(1);
}

/// Types f32 f16.
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{alpha_of<E>(io)});
}
/// float32 with xsimd::exp; within the CTS float32 tolerance of the reference (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{alpha_of<types::f32>(io)});
}

#if NNHAL_HAVE_X86_KERNELS
/// float32 with exp512; call only when simd::cpu().avx512 is true. Within the CTS float32
/// tolerance of the reference (tests check it).
inline void avx512_f32(const kernel_io& io) { kernels::vunary::avx512::f32_tensor(io, lane{alpha_of<types::f32>(io)}); }
#endif

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) {
    if constexpr (std::is_same_v<E, types::f32>) {
#if NNHAL_HAVE_X86_KERNELS
      if (simd::cpu().avx512) return kernel{avx512_f32};
#endif
      if constexpr (kernels::vunary::has_simd) return kernel{vectorized<kernels::vunary::simd_arch>};
    }
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::elu
