// Kernel dispatch for QUANTIZED_16BIT_LSTM and QUANTIZED_LSTM. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/quantized_16bit_lstm.hpp"
#include "nnhal/ops/quantized_lstm.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_quantized_recurrent(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::QUANTIZED_16BIT_LSTM: return quantized_16bit_lstm::bind(c);
    case OperationType::QUANTIZED_LSTM: return quantized_lstm::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
