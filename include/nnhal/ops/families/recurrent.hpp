// Kernel dispatch for LSTM, BIDIRECTIONAL_SEQUENCE_LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, RNN, BIDIRECTIONAL_SEQUENCE_RNN, UNIDIRECTIONAL_SEQUENCE_RNN and SVDF. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/bidirectional_sequence_lstm.hpp"
#include "nnhal/ops/bidirectional_sequence_rnn.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/lstm.hpp"
#include "nnhal/ops/rnn.hpp"
#include "nnhal/ops/svdf.hpp"
#include "nnhal/ops/unidirectional_sequence_lstm.hpp"
#include "nnhal/ops/unidirectional_sequence_rnn.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_recurrent(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::LSTM: return lstm::bind(c);
    case OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM: return unidirectional_sequence_lstm::bind(c);
    case OperationType::BIDIRECTIONAL_SEQUENCE_LSTM: return bidirectional_sequence_lstm::bind(c);
    case OperationType::RNN: return rnn::bind(c);
    case OperationType::UNIDIRECTIONAL_SEQUENCE_RNN: return unidirectional_sequence_rnn::bind(c);
    case OperationType::BIDIRECTIONAL_SEQUENCE_RNN: return bidirectional_sequence_rnn::bind(c);
    case OperationType::SVDF: return svdf::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
