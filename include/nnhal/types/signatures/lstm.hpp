// LSTM contract (HAL 1.3 types.hal, LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct lstm {
  static constexpr auto op = OperationType::LSTM;
  enum class in : std::uint8_t { input, input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights, recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights, recurrent_to_output_weights, cell_to_input_weights, cell_to_forget_weights, cell_to_output_weights, input_gate_bias, forget_gate_bias, cell_bias, output_gate_bias, projection_weights, projection_bias, output_state_in, cell_state_in, activation, cell_clip, proj_clip, input_layer_norm_weights, forget_layer_norm_weights, cell_layer_norm_weights, output_layer_norm_weights };
  enum class out : std::uint8_t { scratch_buffer, output_state_out, cell_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; optional weights (CIFG, peephole, projection, layer norm) are
      // NO_VALUE operands of that type. The clip scalars follow the tensor type.
      // Exactly 23 or 27 inputs: the 4 layer-norm weights (since 1.2) come all together.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1) | bit(5) | bit(9) | bit(10) | bit(11) | bit(12) | bit(16) | bit(17) | bit(23) | bit(24) | bit(25) | bit(26);
};

}  // namespace nnhal::types::sig
