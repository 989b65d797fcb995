// Kernel dispatch for LSH_PROJECTION and RANDOM_MULTINOMIAL. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/lsh_projection.hpp"
#include "nnhal/ops/random_multinomial.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_hashing_random(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::LSH_PROJECTION: return lsh_projection::bind(c);
    case OperationType::RANDOM_MULTINOMIAL: return random_multinomial::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
