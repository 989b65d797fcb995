// GROUPED_CONV_2D kernels; contract in types/signatures/grouped_conv_2d.hpp. The reference
// is the shared direct loop of kernels/conv_common.hpp, each group of depth_out /
// num_groups filters reading its depth_in / num_groups input channels (quantized:
// bit-exact with AOSP). A constant num_groups of 1 is a CONV_2D and binds its packed
// paths (AVX-512 float32 / VNNI quant8, else xsimd float32 and quant8); a constant
// num_groups above 1 binds the xsimd ones (kernels/conv_gemm.hpp: each group's filters
// packed as its own panels, read against the group's input channels in place); a
// num_groups known only at execution runs the reference.
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/types/signatures/grouped_conv_2d.hpp"

namespace nnhal::ops::grouped_conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::grouped_conv_2d;

template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::grouped, contract::slots(io.in), q);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
  const std::optional<std::int32_t> groups = types::sig::detail::conv_int(c.in, contract::slots(c.in).extra, 1);
#if NNHAL_HAVE_X86_KERNELS
  if (groups == 1)
    if (auto k = kernels::conv::avx512::bind_conv(c, conv_kind::grouped, &contract::slots)) return std::move(*k);
#endif
  if (groups && *groups >= 1)
    if (auto k = kernels::conv::bind_conv_portable(c, conv_kind::grouped, &contract::slots,
                                                   static_cast<std::size_t>(*groups)))
      return std::move(*k);
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::grouped_conv_2d
