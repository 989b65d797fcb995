// Kernel dispatch for the pooling and normalization family: AVERAGE_POOL_2D,
// MAX_POOL_2D, L2_POOL_2D, SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION,
// LOCAL_RESPONSE_NORMALIZATION, INSTANCE_NORMALIZATION. Binds only its own operations
// and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/average_pool_2d.hpp"
#include "nnhal/ops/instance_normalization.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/l2_normalization.hpp"
#include "nnhal/ops/l2_pool_2d.hpp"
#include "nnhal/ops/local_response_normalization.hpp"
#include "nnhal/ops/log_softmax.hpp"
#include "nnhal/ops/max_pool_2d.hpp"
#include "nnhal/ops/softmax.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_pooling_norm(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::AVERAGE_POOL_2D: return average_pool_2d::bind(c);
    case OperationType::MAX_POOL_2D: return max_pool_2d::bind(c);
    case OperationType::L2_POOL_2D: return l2_pool_2d::bind(c);
    case OperationType::SOFTMAX: return softmax::bind(c);
    case OperationType::LOG_SOFTMAX: return log_softmax::bind(c);
    case OperationType::L2_NORMALIZATION: return l2_normalization::bind(c);
    case OperationType::LOCAL_RESPONSE_NORMALIZATION: return local_response_normalization::bind(c);
    case OperationType::INSTANCE_NORMALIZATION: return instance_normalization::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
