// Kernel dispatch for the elementwise binary operations (see the family's issue); binds only
// its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_elementwise_binary(const bind_context& c) {
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
