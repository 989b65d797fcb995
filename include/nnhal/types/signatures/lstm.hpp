// LSTM contract (HAL 1.3 types.hal, LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

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

  /// One LSTM weight set read from the HAL operand order (layer norm only in the 27-input form).
  static detail::recurrent::lstm_slots slots(std::size_t inputs) {
    using I = in;
    const auto i = [](I r) { return static_cast<int>(r); };
    const bool ln = inputs == 27;
    return {{i(I::input_to_input_weights), i(I::input_to_forget_weights), i(I::input_to_cell_weights), i(I::input_to_output_weights)},
            {i(I::recurrent_to_input_weights), i(I::recurrent_to_forget_weights), i(I::recurrent_to_cell_weights), i(I::recurrent_to_output_weights)},
            {i(I::cell_to_input_weights), i(I::cell_to_forget_weights), i(I::cell_to_output_weights)},
            {i(I::input_gate_bias), i(I::forget_gate_bias), i(I::cell_bias), i(I::output_gate_bias)},
            i(I::projection_weights), i(I::projection_bias),
            {ln ? i(I::input_layer_norm_weights) : -1, ln ? i(I::forget_layer_norm_weights) : -1,
             ln ? i(I::cell_layer_norm_weights) : -1, ln ? i(I::output_layer_norm_weights) : -1},
            {-1, -1, -1, -1}, i(I::output_state_in), i(I::cell_state_in), ""};
  }
  /// scratch_buffer [batch, num_units * (3 with CIFG, else 4)], output_state_out and output
  /// [batch, output_size], cell_state_out [batch, num_units]; input [batch, input_size].
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(rc::check_lstm_activation(c.inputs[static_cast<std::size_t>(in::activation)], "activation"));
    NNHAL_TRY(rc::check_clip(c.inputs[static_cast<std::size_t>(in::cell_clip)], "cell_clip"));
    NNHAL_TRY(rc::check_clip(c.inputs[static_cast<std::size_t>(in::proj_clip)], "proj_clip"));
    const rc::extent batch = rc::dim(x, 0, ex);
    auto w = rc::check_lstm_weights(c.inputs, slots(c.inputs.size()), batch, rc::dim(x, 1, ex), std::nullopt, false, ex);
    if (!w) return std::move(w).err();
    const std::uint32_t b = batch.value_or(0), nc = w->n_cell.value_or(0), no = w->n_output.value_or(0);
    const std::uint32_t gates = w->cifg ? (*w->cifg ? 3u : 4u) : 0u;
    return shapes{dims_t{b, nc * gates}, dims_t{b, no}, dims_t{b, nc}, dims_t{b, no}};
  }
};

}  // namespace nnhal::types::sig
