// RELU1 kernels; contract in types/signatures/relu1.hpp. output = min(1, max(-1, x)) on the shared unary
// skeleton (kernels/unary.hpp): floats clamp in real numbers (NaN gives the lower bound, as
// the AOSP CPU path); quantized clamps the stored values at the quantized bounds (the output
// quantization equals the input's).
#pragma once

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::relu1 {

inline constexpr std::int32_t activation = 2;  // FusedActivationFunc::RELU1

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  kernels::vunary::activation_reference<E>(io, activation);
}
/// float32, exact.
template <class Arch>
void vectorized(const kernel_io& io) {
  const auto r = kernels::activation_range_float(activation);
  kernels::vunary::f32_simd<Arch>(io, kernels::vunary::clamp_lane{r.lo, r.hi});
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::vunary::bind_activation(c, activation); }

}  // namespace nnhal::ops::relu1
