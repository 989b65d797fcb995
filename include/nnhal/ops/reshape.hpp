// RESHAPE kernel; contract in types/signatures/reshape.hpp. Same bytes, new extents:
// a copy here; the executor may alias the buffer instead.
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/types/element.hpp"

namespace nnhal::ops::reshape {

inline void reference(const kernel_io& io) {
  const std::size_t bytes = io.in[0].element_count() * types::type_info(io.in[0].type).element_size;
  if (bytes != 0 && io.out_data[0] != io.in[0].value) std::memmove(io.out_data[0], io.in[0].value, bytes);
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::reshape
