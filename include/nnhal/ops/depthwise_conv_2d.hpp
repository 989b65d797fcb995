// DEPTHWISE_CONV_2D kernels; contract in types/signatures/depthwise_conv_2d.hpp. The
// reference is the shared direct loop of kernels/conv_common.hpp with one input channel
// per group and depth_multiplier output channels each (quantized: bit-exact with AOSP).
// A constant depth_multiplier of 1 binds the channel-vectorized loops of
// kernels/dwconv_avx512.hpp (float32, quant8) when the CPU has AVX-512 or AVX2 + FMA, else
// the xsimd loops of kernels/conv_gemm.hpp (float32, quant8).
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/dwconv_avx512.hpp"
#include "nnhal/types/signatures/depthwise_conv_2d.hpp"

namespace nnhal::ops::depthwise_conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::depthwise_conv_2d;

/// Output channel ic * depth_multiplier + q reads input channel ic and filter
/// [0, ky, kx, ic * depth_multiplier + q]. E: input/output tag; F: E or qc8 (per channel).
template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::depthwise, contract::slots(io.in), q);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
  const bool multiplier_1 = types::sig::detail::conv_int(c.in, contract::slots(c.in).extra, 1) == 1;
#if NNHAL_HAVE_X86_KERNELS
  if (multiplier_1)
    if (auto k = kernels::conv::avx512::bind_depthwise(c, &contract::slots)) return std::move(*k);
#endif
  if (multiplier_1)
    if (auto k = kernels::conv::bind_depthwise_portable(c, &contract::slots)) return std::move(*k);
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::depthwise_conv_2d
