// RESHAPE kernel; contract in types/signatures/reshape.hpp. Same bytes, new extents:
// a copy here; the executor may alias the buffer instead.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::reshape {

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                   [](auto) { return kernel{kernels::copy_as_is}; });
}

}  // namespace nnhal::ops::reshape
