// Kernel dispatch for the operations the first execution path brought: ADD, MUL, RELU,
// RESHAPE, CONCATENATION. Each family file answers for its own operations only.
#pragma once

#include <optional>

#include "nnhal/ops/add.hpp"
#include "nnhal/ops/concatenation.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/mul.hpp"
#include "nnhal/ops/relu.hpp"
#include "nnhal/ops/reshape.hpp"

namespace nnhal::ops::families {

/// The bound kernel for `c.op`, or nullopt when the operation is not in this family.
inline std::optional<types::result<kernel>> bind_foundation(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::ADD: return add::bind(c);
    case OperationType::MUL: return mul::bind(c);
    case OperationType::RELU: return relu::bind(c);
    case OperationType::RESHAPE: return reshape::bind(c);
    case OperationType::CONCATENATION: return concatenation::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
