// Kernel dispatch for the reduction and ranking operations: MEAN, REDUCE_SUM/PROD/MAX/
// MIN/ANY/ALL, ARGMAX, ARGMIN and TOPK_V2. Binds only its own operations and returns
// nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/argmax.hpp"
#include "nnhal/ops/argmin.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/mean.hpp"
#include "nnhal/ops/reduce_all.hpp"
#include "nnhal/ops/reduce_any.hpp"
#include "nnhal/ops/reduce_max.hpp"
#include "nnhal/ops/reduce_min.hpp"
#include "nnhal/ops/reduce_prod.hpp"
#include "nnhal/ops/reduce_sum.hpp"
#include "nnhal/ops/topk_v2.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_reduction(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::MEAN: return mean::bind(c);
    case OperationType::REDUCE_SUM: return reduce_sum::bind(c);
    case OperationType::REDUCE_PROD: return reduce_prod::bind(c);
    case OperationType::REDUCE_MAX: return reduce_max::bind(c);
    case OperationType::REDUCE_MIN: return reduce_min::bind(c);
    case OperationType::REDUCE_ANY: return reduce_any::bind(c);
    case OperationType::REDUCE_ALL: return reduce_all::bind(c);
    case OperationType::ARGMAX: return argmax::bind(c);
    case OperationType::ARGMIN: return argmin::bind(c);
    case OperationType::TOPK_V2: return topk_v2::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
