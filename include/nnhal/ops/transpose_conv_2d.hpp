// TRANSPOSE_CONV_2D kernels; contract in types/signatures/transpose_conv_2d.hpp. The
// reference gathers, for each output element, the input pixels whose filter footprint
// covers it (kernels/conv_common.hpp transpose_loops); AOSP scatters instead, which gives
// the same int32 sums (quantized: bit-exact) and float sums in another order. Not
// vectorized yet.
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/types/signatures/transpose_conv_2d.hpp"

namespace nnhal::ops::transpose_conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::transpose_conv_2d;

/// out[b, oy, ox, oc] = sum over (iy, ky) with iy * stride_h - pad_top + ky = oy (and
/// likewise for x) and k of input[b, iy, ix, k] * filter[oc, ky, kx, k], + bias[oc].
template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::transpose, contract::slots(io.in), q);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::transpose_conv_2d
