// RELU kernels; contract in types/signatures/relu.hpp. output = max(0, x) through the
// shared activation operation (kernels/unary.hpp): floats clamp in real numbers (NaN gives the
// lower bound, as the AOSP CPU path; the float32 SIMD path is exact); quantized clamps the
// stored values at the quantized bounds (the output quantization equals the input's).
#pragma once

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::relu {

inline constexpr std::int32_t activation = 1;  // FusedActivationFunc::RELU
using op = kernels::vunary::activation_op<activation>;

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

}  // namespace nnhal::ops::relu
