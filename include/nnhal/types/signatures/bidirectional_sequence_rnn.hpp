// BIDIRECTIONAL_SEQUENCE_RNN contract (HAL 1.3 types.hal, BIDIRECTIONAL_SEQUENCE_RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

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

  /// Linking of the auxiliary input (as BIDIRECTIONAL_SEQUENCE_LSTM): no_aux; parallel (aux
  /// input without aux weights is the backward input); cross (aux input times fw/bw aux
  /// weights). nullopt at validation while a presence is unknown.
  enum class linking : std::uint8_t { no_aux, parallel, cross };
  static result<std::optional<linking>> linking_of(std::span<const operand_desc> ins, bool executing) {
    namespace rc = detail::recurrent;
    const auto aux = rc::presence_of(ins[9], executing), fw = rc::presence_of(ins[10], executing),
               bw = rc::presence_of(ins[11], executing);
    if (aux == rc::presence::unknown || fw == rc::presence::unknown || bw == rc::presence::unknown)
      return std::optional<linking>{};
    NNHAL_CHECK(fw == bw, ErrorStatus::INVALID_ARGUMENT, "fw_aux_weights and bw_aux_weights must both be present or both omitted");
    NNHAL_CHECK(aux == rc::presence::present || fw == rc::presence::absent, ErrorStatus::INVALID_ARGUMENT,
                "aux_input: omitted but fw_aux_weights / bw_aux_weights are present");
    if (aux == rc::presence::absent) return std::optional<linking>{linking::no_aux};
    return std::optional<linking>{fw == rc::presence::present ? linking::cross : linking::parallel};
  }
  /// fw_output [max_time, batch, fw_num_units (+ bw_num_units when merged)] (time-major; else
  /// batch first), bw_output likewise, then the final hidden states [batch, num_units].
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(detail::check_activation(c.inputs[12], "fused_activation_function"));
    auto merged = rc::merged_form(c.inputs[14], c.outputs.size());
    if (!merged) return std::move(merged).err();
    const std::optional<bool> time_major = rc::bool_scalar(c.inputs[13]);
    const rc::extent batch = time_major ? rc::dim(x, *time_major ? 1 : 0, ex) : std::nullopt;
    auto link = linking_of(c.inputs, ex);
    if (!link) return std::move(link).err();
    const std::optional<linking> lk = *link;
    const operand_desc& aux = c.inputs[9];
    if (rc::presence_of(aux, ex) == rc::presence::present)
      NNHAL_TRY(rc::expect_shape(aux, "aux_input", {rc::dim(x, 0, ex), rc::dim(x, 1, ex), std::nullopt}, ex));
    const rc::extent n_aux = rc::dim(aux, 2, ex);
    auto fw = rc::check_rnn_weights(c.inputs, {1, 2, 3, 4, "fw_", "fw_hidden_state"}, batch, rc::dim(x, 2, ex), ex);
    if (!fw) return std::move(fw).err();
    rc::extent bw_input;
    if (lk) bw_input = *lk == linking::parallel ? n_aux : rc::dim(x, 2, ex);
    auto bw = rc::check_rnn_weights(c.inputs, {5, 6, 7, 8, "bw_", "bw_hidden_state"}, batch, bw_input, ex);
    if (!bw) return std::move(bw).err();
    if (lk && *lk == linking::cross) {
      NNHAL_TRY(rc::expect_shape(c.inputs[10], "fw_aux_weights", {*fw, n_aux}, ex));
      NNHAL_TRY(rc::expect_shape(c.inputs[11], "bw_aux_weights", {*bw, n_aux}, ex));
    }
    const std::uint32_t b = batch.value_or(0), fu = fw->value_or(0), bu = bw->value_or(0);
    const bool rank_known = x.dims.size() == 3;
    const std::uint32_t d0 = rank_known ? x.dims[0] : 0, d1 = rank_known ? x.dims[1] : 0;
    shapes out;
    out.push_back(rank_known ? dims_t{d0, d1, *merged ? (ex || (fu && bu) ? fu + bu : 0) : fu} : dims_t{});
    if (!*merged) out.push_back(rank_known ? dims_t{d0, d1, bu} : dims_t{});
    if (c.outputs.size() >= 3) {
      out.push_back(dims_t{b, fu});
      out.push_back(dims_t{b, bu});
    }
    return out;
  }
};

}  // namespace nnhal::types::sig
