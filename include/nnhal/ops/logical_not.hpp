// LOGICAL_NOT kernel; contract in types/signatures/logical_not.hpp. TENSOR_BOOL8 in and
// out, same shape; any non-zero byte is true, the output is 1 or 0.
#pragma once

#include <cstddef>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::logical_not {

inline void reference(const kernel_io& io) {
  const auto in = io.input<types::b8>(0);
  auto out = io.output<types::b8>(0);
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) out.data[i] = static_cast<types::bool8>(in.data[i] == 0 ? 1 : 0);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_BOOL8) return unsupported(c);
  return kernel{reference};
}

}  // namespace nnhal::ops::logical_not
