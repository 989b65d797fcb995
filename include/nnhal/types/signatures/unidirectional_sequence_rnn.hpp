// UNIDIRECTIONAL_SEQUENCE_RNN contract (HAL 1.3 types.hal, UNIDIRECTIONAL_SEQUENCE_RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct unidirectional_sequence_rnn {
  static constexpr auto op = OperationType::UNIDIRECTIONAL_SEQUENCE_RNN;
  enum class in : std::uint8_t { input, weights, recurrent_weights, bias, hidden_state, fused_activation_function, time_major };
  enum class out : std::uint8_t { output, hidden_state_out };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; time_major is an INT32 scalar (0 or 1).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      // Since 1.3: the final hidden state as an extra output.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
};

}  // namespace nnhal::types::sig
