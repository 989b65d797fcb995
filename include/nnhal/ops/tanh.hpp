// TANH kernels; contract in types/signatures/tanh.hpp. Floats: std::tanh in float32 (as the
// AOSP CPU path); the float32 SIMD path (xsimd::tanh) is within the CTS float32 tolerance
// (tests check it). Quantized (output scale 1/128, zero point 128 or 0): bit-exact with the
// AOSP path, TFLite's quantized Tanh: the centred input is rescaled to Q4.27, gemmlowp's
// fixed-point tanh gives Q0.31, rounded to 1/128 steps.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::tanh {

struct lane {
  float operator()(float x) const noexcept { return std::tanh(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::tanh(x);
  }
#if NNHAL_HAVE_X86_KERNELS
  /// sign(x) (1 - 2 / (e^2|x| + 1)) with exp512, and the odd Taylor polynomial to x^7
  /// below |x| = 1/16, where the subtraction would cancel; within the CTS float32 tolerance
  /// (tests check it). NaN stays NaN.
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    namespace v5 = kernels::vunary::avx512;
    using simd::avx512::all16;
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 a = v5::magnitude(x);
    const __m512 e = v5::exp512(_mm512_maskz_add_ps(all16, a, a));
    const __m512 big =
        _mm512_maskz_sub_ps(all16, one, _mm512_maskz_div_ps(all16, _mm512_set1_ps(2.0f), _mm512_maskz_add_ps(all16, e, one)));
    const __m512 x2 = _mm512_maskz_mul_ps(all16, x, x);
    __m512 p = _mm512_set1_ps(-17.0f / 315);
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(2.0f / 15));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-1.0f / 3));
    const __m512 small = _mm512_fmadd_ps(_mm512_maskz_mul_ps(all16, p, x2), x, x);
    const __mmask16 is_small = _mm512_cmp_ps_mask(a, _mm512_set1_ps(0.0625f), _CMP_LT_OQ);
    const __m512 r = _mm512_castsi512_ps(
        _mm512_or_si512(_mm512_castps_si512(big), _mm512_castps_si512(v5::sign_bits(x))));
    return _mm512_mask_blend_ps(is_small, r, small);
  }
#endif
};
/// Q0.31 to 1/128 steps, zero point 128 on the unsigned scale.
using spec = kernels::vunary::squash_quant<kernels::vunary::fixed::tanh<kernels::vunary::input_integer_bits>, 24, 128>;
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

}  // namespace nnhal::ops::tanh
