// RNN contract (HAL 1.3 types.hal, RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct rnn {
  static constexpr auto op = OperationType::RNN;
  enum class in : std::uint8_t { input, weights, recurrent_weights, bias, hidden_state_in, fused_activation_function };
  enum class out : std::uint8_t { hidden_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
};

}  // namespace nnhal::types::sig
