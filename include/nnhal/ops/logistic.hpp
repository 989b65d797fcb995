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
  /// 1 / (1 + e^-x) with exp512; within the CTS float32 tolerance (tests check it).
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    using simd::avx512::all16;
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 e = kernels::vunary::avx512::exp512(_mm512_maskz_sub_ps(all16, _mm512_setzero_ps(), x));
    return _mm512_maskz_div_ps(all16, one, _mm512_maskz_add_ps(all16, one, e));
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
