// LOGICAL_OR kernel; contract in types/signatures/logical_or.hpp. TENSOR_BOOL8 with
// broadcasting; any non-zero byte is true, the output is 1 or 0.
#pragma once

#include "nnhal/ops/kernels/compare.hpp"

namespace nnhal::ops::logical_or {

inline void reference(const kernel_io& io) {
  kernels::binary_map<types::b8, types::b8>(
      io, [](types::bool8 x, types::bool8 y) { return static_cast<types::bool8>((x != 0 || y != 0) ? 1 : 0); });
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_BOOL8) return unsupported(c);
  return kernel{reference};
}

}  // namespace nnhal::ops::logical_or
