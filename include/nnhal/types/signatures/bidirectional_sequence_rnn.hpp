// BIDIRECTIONAL_SEQUENCE_RNN contract (HAL 1.3 types.hal, BIDIRECTIONAL_SEQUENCE_RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct bidirectional_sequence_rnn {
  static constexpr auto op = OperationType::BIDIRECTIONAL_SEQUENCE_RNN;
  enum class in : std::uint8_t { input, fw_weights, fw_recurrent_weights, fw_bias, fw_hidden_state, bw_weights, bw_recurrent_weights, bw_bias, bw_hidden_state, aux_input, fw_aux_weights, bw_aux_weights, fused_activation_function, time_major, merge_outputs };
  enum class out : std::uint8_t { fw_output, bw_output, fw_hidden_state_out, bw_hidden_state_out };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; the aux input and aux weights may be NO_VALUE operands.
      // With merge_outputs the bw_output slot is absent (1- and 3-output forms).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      // Since 1.3: the final hidden states as extra outputs (both or none).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(9) | bit(10) | bit(11);
};

}  // namespace nnhal::types::sig
