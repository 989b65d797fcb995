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
