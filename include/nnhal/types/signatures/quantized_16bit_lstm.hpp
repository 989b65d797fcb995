// QUANTIZED_16BIT_LSTM contract (HAL 1.3 types.hal, QUANTIZED_16BIT_LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct quantized_16bit_lstm {
  static constexpr auto op = OperationType::QUANTIZED_16BIT_LSTM;
  enum class in : std::uint8_t { input, input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights, recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights, recurrent_to_output_weights, input_gate_bias, forget_gate_bias, cell_bias, output_gate_bias, prev_cell_state, prev_output };
  enum class out : std::uint8_t { cell_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM)},
  });
};

}  // namespace nnhal::types::sig
