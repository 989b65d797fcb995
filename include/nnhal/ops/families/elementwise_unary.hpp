// Kernel dispatch for the elementwise unary operations (see the family's issue); binds only
// its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_elementwise_unary(const bind_context& c) {
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
