// DEPTH_TO_SPACE kernels; contract in types/signatures/depth_to_space.hpp. Output pixel
// (y, x) takes the depth/(b*b) channels starting at ((y % b) * b + x % b) * out_depth of input
// pixel (y / b, x / b). NHWC and NCHW share the loop through kernels::spatial::image_layout.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::depth_to_space {

template <types::element E>
void reference(const kernel_io& io) {
  kernels::spatial::block_depth_copy<typename E::storage, false>(io);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::depth_to_space
