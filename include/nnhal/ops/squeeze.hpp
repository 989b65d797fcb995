// SQUEEZE kernel; contract in types/signatures/squeeze.hpp. Same bytes, fewer extents:
// a copy here (the executor may alias the buffer instead).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::squeeze {

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto) { return kernel{kernels::copy_as_is}; });
}

}  // namespace nnhal::ops::squeeze
