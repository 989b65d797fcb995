// Kernel dispatch for the convolution and matrix-multiply family: CONV_2D,
// DEPTHWISE_CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL.
// Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/batch_matmul.hpp"
#include "nnhal/ops/conv_2d.hpp"
#include "nnhal/ops/depthwise_conv_2d.hpp"
#include "nnhal/ops/fully_connected.hpp"
#include "nnhal/ops/grouped_conv_2d.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/transpose_conv_2d.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_conv(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::CONV_2D: return conv_2d::bind(c);
    case OperationType::DEPTHWISE_CONV_2D: return depthwise_conv_2d::bind(c);
    case OperationType::GROUPED_CONV_2D: return grouped_conv_2d::bind(c);
    case OperationType::TRANSPOSE_CONV_2D: return transpose_conv_2d::bind(c);
    case OperationType::FULLY_CONNECTED: return fully_connected::bind(c);
    case OperationType::BATCH_MATMUL: return batch_matmul::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
