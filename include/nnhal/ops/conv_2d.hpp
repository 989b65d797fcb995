// CONV_2D kernels; contract in types/signatures/conv_2d.hpp. reference() is the direct loop
// of kernels/conv_common.hpp (quantized: bit-exact with the AOSP CPU path); bind() picks the
// x86 GEMM of kernels/gemm_avx512.hpp (AVX-512, else AVX2) or the xsimd
// one of kernels/conv_gemm.hpp, which
// tests check against reference().
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/types/signatures/conv_2d.hpp"

namespace nnhal::ops::conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::conv_2d;

/// Input/output tag E, filter tag F (E, or qc8 for a per-channel filter); both padding
/// forms, NHWC and NCHW, strides, dilation, fused activation. `q`: bound multipliers
/// (quantized E only).
template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::conv, contract::slots(io.in), q);
}

/// On CPUs with AVX-512 (quant8: AVX-512 VNNI) or AVX2 + FMA (quant8: AVX-VNNI if there):
/// the packed GEMM of kernels/gemm_avx512.hpp. Otherwise float32 and quant8: the packed xsimd direct
/// convolution of kernels/conv_gemm.hpp. Float16: the float32 kernel on widened operands
/// (kernels/float16_via_float32.hpp). The rest: the reference, with the requantization
/// multipliers computed here, once.
inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
#if NNHAL_HAVE_X86_KERNELS
  if (auto k = kernels::conv::avx512::bind_conv(c, conv_kind::conv, &contract::slots)) return std::move(*k);
#endif
  if (auto k = kernels::conv::bind_conv_portable(c, conv_kind::conv, &contract::slots)) return std::move(*k);
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::conv_2d
