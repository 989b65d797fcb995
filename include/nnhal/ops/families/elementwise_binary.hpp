// Kernel dispatch for the element-wise binary, comparison and logical operations: SUB,
// DIV, MAXIMUM, MINIMUM, POW, PRELU, the six comparisons, LOGICAL_AND/OR/NOT, SELECT.
// Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/div.hpp"
#include "nnhal/ops/equal.hpp"
#include "nnhal/ops/greater.hpp"
#include "nnhal/ops/greater_equal.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/less.hpp"
#include "nnhal/ops/less_equal.hpp"
#include "nnhal/ops/logical_and.hpp"
#include "nnhal/ops/logical_not.hpp"
#include "nnhal/ops/logical_or.hpp"
#include "nnhal/ops/maximum.hpp"
#include "nnhal/ops/minimum.hpp"
#include "nnhal/ops/not_equal.hpp"
#include "nnhal/ops/pow.hpp"
#include "nnhal/ops/prelu.hpp"
#include "nnhal/ops/select.hpp"
#include "nnhal/ops/sub.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_elementwise_binary(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::SUB: return sub::bind(c);
    case OperationType::DIV: return div::bind(c);
    case OperationType::MAXIMUM: return maximum::bind(c);
    case OperationType::MINIMUM: return minimum::bind(c);
    case OperationType::POW: return pow::bind(c);
    case OperationType::PRELU: return prelu::bind(c);
    case OperationType::EQUAL: return equal::bind(c);
    case OperationType::NOT_EQUAL: return not_equal::bind(c);
    case OperationType::GREATER: return greater::bind(c);
    case OperationType::GREATER_EQUAL: return greater_equal::bind(c);
    case OperationType::LESS: return less::bind(c);
    case OperationType::LESS_EQUAL: return less_equal::bind(c);
    case OperationType::LOGICAL_AND: return logical_and::bind(c);
    case OperationType::LOGICAL_OR: return logical_or::bind(c);
    case OperationType::LOGICAL_NOT: return logical_not::bind(c);
    case OperationType::SELECT: return select::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
