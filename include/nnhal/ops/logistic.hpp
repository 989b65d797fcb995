// LOGISTIC kernels; contract in types/signatures/logistic.hpp. Floats: 1 / (1 + e^-x) in
// float32 (as the AOSP CPU path); the float32 SIMD path (xsimd::exp) is within the CTS
// float32 tolerance (tests check it). Quantized (output scale 1/256, zero point 0 or -128):
// bit-exact with the AOSP path, TFLite's quantized Logistic: the centred input is rescaled to
// Q4.27 with a fixed multiplier, gemmlowp's fixed-point logistic gives Q0.31, rounded to 8 bits.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::logistic {

struct lane {
  float operator()(float x) const noexcept { return 1.0f / (1.0f + std::exp(-x)); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    return batch(1.0f) / (batch(1.0f) + xsimd::exp(-x));
  }
#if NNHAL_HAVE_X86_KERNELS
  /// e = e^-|x| (|x| capped at 104, where e^-|x| is 0 in float), f = e / (1 + e) is the
  /// result for x < 0 and 1 - f for x >= 0; never overflows, NaN stays NaN. Within
  /// the CTS float32 tolerance (tests check it). The division is cheaper here than a
  /// reciprocal refined by Newton's step: it runs beside the FMA pipes.
  template <std::size_t N>
  NNHAL_TARGET_AVX512 void steps512(__m512 (&x)[N]) const noexcept {
    using simd::avx512::all16;
    const __m512 one = _mm512_set1_ps(1.0f), floor = _mm512_set1_ps(-104.0f);
    const __m512i sign = _mm512_set1_epi32(static_cast<std::int32_t>(0x80000000u));
    __m512 e[N];
#pragma GCC unroll 8
    for (std::size_t j = 0; j < N; ++j)  // max(-104, -|x|): vmaxps returns its second operand, NaN, for NaN
      e[j] = _mm512_maskz_max_ps(all16, floor, _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x[j]), sign)));
    kernels::vunary::avx512::exp_nonpositive(e);
#pragma GCC unroll 8
    for (std::size_t j = 0; j < N; ++j) {
      const __m512 f = _mm512_maskz_div_ps(all16, e[j], _mm512_maskz_add_ps(all16, one, e[j]));
      x[j] = _mm512_mask_sub_ps(f, _mm512_testn_epi32_mask(_mm512_castps_si512(x[j]), sign), one, f);
    }
  }
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    __m512 v[1] = {x};
    steps512(v);
    return v[0];
  }
#endif
};
/// Q0.31 to 1/256 steps (zero point 0 on the unsigned scale).
using spec = kernels::vunary::squash_quant<kernels::vunary::fixed::logistic<kernels::vunary::input_integer_bits>, 23, 0>;
using op = kernels::vunary::unary_op<lane, spec>;

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
template <class Arch>
void vectorized(const kernel_io& io) {
  op::vectorized<Arch>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::logistic
