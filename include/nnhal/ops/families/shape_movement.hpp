// Kernel dispatch for the shape movement operations (see the family's issue); binds only
// its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_shape_movement(const bind_context& c) {
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
