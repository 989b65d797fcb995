// RANK kernel; contract in types/signatures/rank.hpp. Reads only the input's shape, so
// one kernel serves every input type.
#pragma once

#include <cstdint>
#include <cstring>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::rank {

inline void reference(const kernel_io& io) {
  const auto r = static_cast<std::int32_t>(io.in[0].dims.size());
  std::memcpy(io.out_data[0], &r, sizeof r);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in.empty() || !types::is_tensor(c.in[0].type) || c.out.empty() || c.out[0].type != OperandType::INT32)
    return unsupported(c);
  return kernel{reference};
}

}  // namespace nnhal::ops::rank
