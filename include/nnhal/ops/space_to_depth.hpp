// SPACE_TO_DEPTH kernels; contract in types/signatures/space_to_depth.hpp. Input pixel (y, x)
// lands in output pixel (y / b, x / b) at channels ((y % b) * b + x % b) * in_depth onward:
// the inverse of DEPTH_TO_SPACE. NHWC and NCHW share the loop through kernels::spatial::image_layout.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::space_to_depth {

template <types::element E>
void reference(const kernel_io& io) {
  kernels::spatial::block_depth_copy<typename E::storage, true>(io);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::space_to_depth
