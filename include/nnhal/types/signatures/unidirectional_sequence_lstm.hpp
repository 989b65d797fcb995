// UNIDIRECTIONAL_SEQUENCE_LSTM contract (HAL 1.3 types.hal, UNIDIRECTIONAL_SEQUENCE_LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

namespace nnhal::types::sig {

struct unidirectional_sequence_lstm {
  static constexpr auto op = OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM;
  enum class in : std::uint8_t { input, input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights, recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights, recurrent_to_output_weights, cell_to_input_weights, cell_to_forget_weights, cell_to_output_weights, input_gate_bias, forget_gate_bias, cell_bias, output_gate_bias, projection_weights, projection_bias, output_state_in, cell_state_in, activation, cell_clip, proj_clip, time_major, input_layer_norm_weights, forget_layer_norm_weights, cell_layer_norm_weights, output_layer_norm_weights };
  enum class out : std::uint8_t { output, output_state_out, cell_state_out };
  static constexpr auto rows = std::to_array<row>({
      // All 28 inputs are always listed; optional tensors are NO_VALUE operands of the tensor type.
      // Clip scalars follow the tensor type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      // Since 1.3: the final output and cell states as extra outputs (both or none).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1) | bit(5) | bit(9) | bit(10) | bit(11) | bit(12) | bit(16) | bit(17) | bit(24) | bit(25) | bit(26) | bit(27);

  static detail::recurrent::lstm_slots slots() {
    using I = in;
    const auto i = [](I r) { return static_cast<int>(r); };
    return {{i(I::input_to_input_weights), i(I::input_to_forget_weights), i(I::input_to_cell_weights), i(I::input_to_output_weights)},
            {i(I::recurrent_to_input_weights), i(I::recurrent_to_forget_weights), i(I::recurrent_to_cell_weights), i(I::recurrent_to_output_weights)},
            {i(I::cell_to_input_weights), i(I::cell_to_forget_weights), i(I::cell_to_output_weights)},
            {i(I::input_gate_bias), i(I::forget_gate_bias), i(I::cell_bias), i(I::output_gate_bias)},
            i(I::projection_weights), i(I::projection_bias),
            {i(I::input_layer_norm_weights), i(I::forget_layer_norm_weights), i(I::cell_layer_norm_weights), i(I::output_layer_norm_weights)},
            {-1, -1, -1, -1}, i(I::output_state_in), i(I::cell_state_in), ""};
  }
  /// output: the input's [max_time, batch] (time-major) or [batch, max_time] with
  /// output_size last; output_state_out [batch, output_size], cell_state_out [batch, num_units].
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(rc::check_lstm_activation(c.inputs[static_cast<std::size_t>(in::activation)], "activation"));
    NNHAL_TRY(rc::check_clip(c.inputs[static_cast<std::size_t>(in::cell_clip)], "cell_clip"));
    NNHAL_TRY(rc::check_clip(c.inputs[static_cast<std::size_t>(in::proj_clip)], "proj_clip"));
    const std::optional<bool> time_major = rc::bool_scalar(c.inputs[static_cast<std::size_t>(in::time_major)]);
    const rc::extent batch = time_major ? rc::dim(x, *time_major ? 1 : 0, ex) : std::nullopt;
    auto w = rc::check_lstm_weights(c.inputs, slots(), batch, rc::dim(x, 2, ex), std::nullopt, false, ex);
    if (!w) return std::move(w).err();
    const std::uint32_t nc = w->n_cell.value_or(0), no = w->n_output.value_or(0);
    shapes out;
    if (x.dims.size() == 3) out.push_back(dims_t{x.dims[0], x.dims[1], no});
    else out.push_back(dims_t{});
    if (c.outputs.size() == 3) {
      out.push_back(dims_t{batch.value_or(0), no});
      out.push_back(dims_t{batch.value_or(0), nc});
    }
    return out;
  }
};

}  // namespace nnhal::types::sig
