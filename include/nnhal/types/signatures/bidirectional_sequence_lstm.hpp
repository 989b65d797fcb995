// BIDIRECTIONAL_SEQUENCE_LSTM contract (HAL 1.3 types.hal, BIDIRECTIONAL_SEQUENCE_LSTM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

namespace nnhal::types::sig {

struct bidirectional_sequence_lstm {
  static constexpr auto op = OperationType::BIDIRECTIONAL_SEQUENCE_LSTM;
  enum class in : std::uint8_t { input, fw_input_to_input_weights, fw_input_to_forget_weights, fw_input_to_cell_weights, fw_input_to_output_weights, fw_recurrent_to_input_weights, fw_recurrent_to_forget_weights, fw_recurrent_to_cell_weights, fw_recurrent_to_output_weights, fw_cell_to_input_weights, fw_cell_to_forget_weights, fw_cell_to_output_weights, fw_input_gate_bias, fw_forget_gate_bias, fw_cell_bias, fw_output_gate_bias, fw_projection_weights, fw_projection_bias, bw_input_to_input_weights, bw_input_to_forget_weights, bw_input_to_cell_weights, bw_input_to_output_weights, bw_recurrent_to_input_weights, bw_recurrent_to_forget_weights, bw_recurrent_to_cell_weights, bw_recurrent_to_output_weights, bw_cell_to_input_weights, bw_cell_to_forget_weights, bw_cell_to_output_weights, bw_input_gate_bias, bw_forget_gate_bias, bw_cell_bias, bw_output_gate_bias, bw_projection_weights, bw_projection_bias, fw_activation_state, fw_cell_state, bw_activation_state, bw_cell_state, aux_input, fw_aux_input_to_input_weights, fw_aux_input_to_forget_weights, fw_aux_input_to_cell_weights, fw_aux_input_to_output_weights, bw_aux_input_to_input_weights, bw_aux_input_to_forget_weights, bw_aux_input_to_cell_weights, bw_aux_input_to_output_weights, activation, cell_clip, proj_clip, merge_outputs, time_major, fw_input_layer_norm_weights, fw_forget_layer_norm_weights, fw_cell_layer_norm_weights, fw_output_layer_norm_weights, bw_input_layer_norm_weights, bw_forget_layer_norm_weights, bw_cell_layer_norm_weights, bw_output_layer_norm_weights };
  enum class out : std::uint8_t { fw_output, bw_output, fw_output_activation_state, fw_output_cell_state, bw_output_activation_state, bw_output_cell_state };
  static constexpr auto rows = std::to_array<row>({
      // All 61 inputs are always listed; optional tensors are NO_VALUE operands of the tensor type.
      // Clip scalars follow the tensor type. With merge_outputs the bw_output slot is absent, so
      // the 1- and 5-output forms are the 2- and 6-output forms without output 1.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      // Since 1.3: the final states as extra outputs (all four or none).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL, T::BOOL, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1) | bit(5) | bit(9) | bit(10) | bit(11) | bit(12) | bit(16) | bit(17) | bit(18) | bit(22) | bit(26) | bit(27) | bit(28) | bit(29) | bit(33) | bit(34) | bit(39) | bit(40) | bit(41) | bit(42) | bit(43) | bit(44) | bit(45) | bit(46) | bit(47) | bit(53) | bit(54) | bit(55) | bit(56) | bit(57) | bit(58) | bit(59) | bit(60);

  /// One direction's weight set (`fw` true: forward).
  static detail::recurrent::lstm_slots slots(bool fw) {
    using I = in;
    const auto i = [](I r) { return static_cast<int>(r); };
    if (fw)
      return {{i(I::fw_input_to_input_weights), i(I::fw_input_to_forget_weights), i(I::fw_input_to_cell_weights), i(I::fw_input_to_output_weights)},
              {i(I::fw_recurrent_to_input_weights), i(I::fw_recurrent_to_forget_weights), i(I::fw_recurrent_to_cell_weights), i(I::fw_recurrent_to_output_weights)},
              {i(I::fw_cell_to_input_weights), i(I::fw_cell_to_forget_weights), i(I::fw_cell_to_output_weights)},
              {i(I::fw_input_gate_bias), i(I::fw_forget_gate_bias), i(I::fw_cell_bias), i(I::fw_output_gate_bias)},
              i(I::fw_projection_weights), i(I::fw_projection_bias),
              {i(I::fw_input_layer_norm_weights), i(I::fw_forget_layer_norm_weights), i(I::fw_cell_layer_norm_weights), i(I::fw_output_layer_norm_weights)},
              {i(I::fw_aux_input_to_input_weights), i(I::fw_aux_input_to_forget_weights), i(I::fw_aux_input_to_cell_weights), i(I::fw_aux_input_to_output_weights)},
              i(I::fw_activation_state), i(I::fw_cell_state), "fw_"};
    return {{i(I::bw_input_to_input_weights), i(I::bw_input_to_forget_weights), i(I::bw_input_to_cell_weights), i(I::bw_input_to_output_weights)},
            {i(I::bw_recurrent_to_input_weights), i(I::bw_recurrent_to_forget_weights), i(I::bw_recurrent_to_cell_weights), i(I::bw_recurrent_to_output_weights)},
            {i(I::bw_cell_to_input_weights), i(I::bw_cell_to_forget_weights), i(I::bw_cell_to_output_weights)},
            {i(I::bw_input_gate_bias), i(I::bw_forget_gate_bias), i(I::bw_cell_bias), i(I::bw_output_gate_bias)},
            i(I::bw_projection_weights), i(I::bw_projection_bias),
            {i(I::bw_input_layer_norm_weights), i(I::bw_forget_layer_norm_weights), i(I::bw_cell_layer_norm_weights), i(I::bw_output_layer_norm_weights)},
            {i(I::bw_aux_input_to_input_weights), i(I::bw_aux_input_to_forget_weights), i(I::bw_aux_input_to_cell_weights), i(I::bw_aux_input_to_output_weights)},
            i(I::bw_activation_state), i(I::bw_cell_state), "bw_"};
  }
  /// How the auxiliary input is used (AOSP): no_aux; "parallel" (aux input without aux
  /// weights: it is the backward direction's input); "cross" (aux input times the aux weights
  /// added to both directions' gates). nullopt at validation while a presence is unknown.
  enum class linking : std::uint8_t { no_aux, parallel, cross };
  static result<std::optional<linking>> linking_of(std::span<const operand_desc> ins, bool executing) {
    namespace rc = detail::recurrent;
    const auto p = [&](in r) { return rc::presence_of(ins[static_cast<std::size_t>(r)], executing); };
    const auto aux = p(in::aux_input), fw = p(in::fw_aux_input_to_forget_weights), bw = p(in::bw_aux_input_to_forget_weights);
    if (aux == rc::presence::unknown || fw == rc::presence::unknown || bw == rc::presence::unknown)
      return std::optional<linking>{};
    NNHAL_CHECK(fw == bw, ErrorStatus::INVALID_ARGUMENT,
                "fw_aux_input_to_*_weights and bw_aux_input_to_*_weights must both be present or both omitted");
    NNHAL_CHECK(aux == rc::presence::present || fw == rc::presence::absent, ErrorStatus::INVALID_ARGUMENT,
                "aux_input: omitted but the auxiliary weights are present");
    if (aux == rc::presence::absent) return std::optional<linking>{linking::no_aux};
    return std::optional<linking>{fw == rc::presence::present ? linking::cross : linking::parallel};
  }
  /// fw_output [max_time, batch, fw_output_size (+ bw_output_size when merged)] (time-major;
  /// else batch first), bw_output likewise, then the final states [batch, output_size] and
  /// [batch, num_units] of each direction.
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const auto at = [&](in r) -> const operand_desc& { return c.inputs[static_cast<std::size_t>(r)]; };
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(rc::check_lstm_activation(at(in::activation), "activation"));
    NNHAL_TRY(rc::check_clip(at(in::cell_clip), "cell_clip"));
    NNHAL_TRY(rc::check_clip(at(in::proj_clip), "proj_clip"));
    auto merged = rc::merged_form(at(in::merge_outputs), c.outputs.size());
    if (!merged) return std::move(merged).err();
    const std::optional<bool> time_major = rc::bool_scalar(at(in::time_major));
    const rc::extent batch = time_major ? rc::dim(x, *time_major ? 1 : 0, ex) : std::nullopt;
    auto link = linking_of(c.inputs, ex);
    if (!link) return std::move(link).err();
    const operand_desc& aux = at(in::aux_input);
    if (rc::presence_of(aux, ex) == rc::presence::present)
      NNHAL_TRY(rc::expect_shape(aux, "aux_input", {rc::dim(x, 0, ex), rc::dim(x, 1, ex), std::nullopt}, ex));
    const rc::extent n_aux = rc::dim(aux, 2, ex);
    const std::optional<linking> lk = *link;
    const bool aux_weights = lk && *lk == linking::cross;
    auto fw = rc::check_lstm_weights(c.inputs, slots(true), batch, rc::dim(x, 2, ex), n_aux, aux_weights, ex);
    if (!fw) return std::move(fw).err();
    rc::extent bw_input;
    if (lk) bw_input = *lk == linking::parallel ? n_aux : rc::dim(x, 2, ex);
    auto bw = rc::check_lstm_weights(c.inputs, slots(false), batch, bw_input, n_aux, aux_weights, ex);
    if (!bw) return std::move(bw).err();
    const std::uint32_t b = batch.value_or(0), fo = fw->n_output.value_or(0), bo = bw->n_output.value_or(0);
    const std::uint32_t d0 = x.dims.size() == 3 ? x.dims[0] : 0, d1 = x.dims.size() == 3 ? x.dims[1] : 0;
    const bool rank_known = x.dims.size() == 3;
    shapes out;
    out.push_back(rank_known ? dims_t{d0, d1, *merged ? (ex || (fo && bo) ? fo + bo : 0) : fo} : dims_t{});
    if (!*merged) out.push_back(rank_known ? dims_t{d0, d1, bo} : dims_t{});
    if (c.outputs.size() >= 5) {
      out.push_back(dims_t{b, fo});
      out.push_back(dims_t{b, fw->n_cell.value_or(0)});
      out.push_back(dims_t{b, bo});
      out.push_back(dims_t{b, bw->n_cell.value_or(0)});
    }
    return out;
  }
};

}  // namespace nnhal::types::sig
