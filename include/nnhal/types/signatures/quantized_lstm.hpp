// QUANTIZED_LSTM contract (HAL 1.3 types.hal, QUANTIZED_LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct quantized_lstm {
  static constexpr auto op = OperationType::QUANTIZED_LSTM;
  enum class in : std::uint8_t { input, input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights, recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights, recurrent_to_output_weights, cell_to_input_weights, cell_to_forget_weights, cell_to_output_weights, input_gate_bias, forget_gate_bias, cell_bias, output_gate_bias, projection_weights, projection_bias, output_state_in, cell_state_in, input_layer_norm_weights, forget_layer_norm_weights, cell_layer_norm_weights, output_layer_norm_weights, cell_clip, projection_clip, input_intermediate_scale, forget_intermediate_scale, cell_intermediate_scale, output_intermediate_scale, hidden_state_zero_point, hidden_state_scale };
  enum class out : std::uint8_t { output_state_out, cell_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All 32 inputs are always listed; optional tensors and clips are NO_VALUE operands of their type.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_QUANT8_SYMM, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_SYMM, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::INT32, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1) | bit(5) | bit(9) | bit(10) | bit(11) | bit(12) | bit(16) | bit(17) | bit(20) | bit(21) | bit(22) | bit(23);
};

}  // namespace nnhal::types::sig
