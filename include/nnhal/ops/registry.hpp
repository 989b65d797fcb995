// Kernel dispatch: from a validated operation's runtime operand types to a bound
// typed kernel, once, at prepare. An operation or type combination missing here is
// reported unsupported, never guessed.
#pragma once

#include "nnhal/ops/add.hpp"
#include "nnhal/ops/concatenation.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/mul.hpp"
#include "nnhal/ops/relu.hpp"
#include "nnhal/ops/reshape.hpp"

namespace nnhal::ops {

/// Binds the kernel for `c.op`; INVALID_ARGUMENT naming the op when there is none.
inline types::result<kernel> bind(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::ADD: return add::bind(c);
    case OperationType::MUL: return mul::bind(c);
    case OperationType::RELU: return relu::bind(c);
    case OperationType::RESHAPE: return reshape::bind(c);
    case OperationType::CONCATENATION: return concatenation::bind(c);
    default:
      return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, to_string(c.op.type),
                               ": operation not implemented");
  }
}

}  // namespace nnhal::ops
