// QUANTIZED_LSTM contract (HAL 1.3 types.hal, QUANTIZED_LSTM; AIDL keeps it unchanged).
#pragma once

#include <initializer_list>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/quantized_16bit_lstm.hpp"  // detail::checked_log2

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

  static constexpr const char* names[] = {
      "input", "input_to_input_weights", "input_to_forget_weights", "input_to_cell_weights",
      "input_to_output_weights", "recurrent_to_input_weights", "recurrent_to_forget_weights",
      "recurrent_to_cell_weights", "recurrent_to_output_weights", "cell_to_input_weights", "cell_to_forget_weights",
      "cell_to_output_weights", "input_gate_bias", "forget_gate_bias", "cell_bias", "output_gate_bias",
      "projection_weights", "projection_bias", "output_state_in", "cell_state_in", "input_layer_norm_weights",
      "forget_layer_norm_weights", "cell_layer_norm_weights", "output_layer_norm_weights", "cell_clip",
      "projection_clip", "input_intermediate_scale", "forget_intermediate_scale", "cell_intermediate_scale",
      "output_intermediate_scale", "hidden_state_zero_point", "hidden_state_scale"};

  /// Sizes: input [batches, input_size]; input_to_* [num_units, input_size];
  /// recurrent_to_* [num_units, output_size]; cell_to_*, biases, layer norms [num_units];
  /// projection_weights [output_size, num_units], projection_bias [output_size];
  /// output_state_in [batches, output_size], cell_state_in [batches, num_units] with a
  /// power-of-two scale 2^k, -15 <= k <= -9. At execution (when omissions are known):
  /// the input gate (input_to_input, recurrent_to_input) all present or all omitted (CIFG),
  /// its bias present exactly without CIFG; peephole and layer-norm weights all or none
  /// (without the input gate's under CIFG); without projection output_size = num_units.
  /// Outputs: output_state_out and output [batches, output_size], cell_state_out
  /// [batches, num_units].
  static result<shapes> infer(const infer_context& c) {
    auto at = [&](in r) -> const operand_desc& { return c.inputs[static_cast<std::size_t>(r)]; };
    auto present = [&](in r) { return !at(r).omitted; };
    auto dim = [](const operand_desc& d, std::size_t i) -> std::uint32_t { return i < d.dims.size() ? d.dims[i] : 0; };
    // A present operand's shape against the expected extents (0: not known yet).
    auto check = [&](in r, std::initializer_list<std::uint32_t> want) -> status {
      const operand_desc& d = at(r);
      const char* name = names[static_cast<std::size_t>(r)];
      if (d.omitted || (d.dims.empty() && !c.executing)) return {};
      NNHAL_CHECK(d.dims.size() == want.size(), ErrorStatus::INVALID_ARGUMENT, name, ": rank ", d.dims.size(),
                  " (must be ", want.size(), ")");
      std::size_t i = 0;
      for (auto w : want) {
        const std::uint32_t got = d.dims[i++];
        NNHAL_CHECK(got == w || (!c.executing && (got == 0 || w == 0)), ErrorStatus::INVALID_ARGUMENT, name, ": ",
                    format_dims(d.dims, true), " does not match the expected extent ", w, " of dimension ", i - 1);
      }
      return {};
    };
    const std::uint32_t batches = dim(at(in::input), 0), input_size = dim(at(in::input), 1);
    const std::uint32_t num_units = dim(at(in::input_to_output_weights), 0);
    const std::uint32_t output_size = dim(at(in::recurrent_to_output_weights), 1);
    NNHAL_TRY(check(in::input, {batches, input_size}));
    for (in r : {in::input_to_input_weights, in::input_to_forget_weights, in::input_to_cell_weights,
                 in::input_to_output_weights})
      NNHAL_TRY(check(r, {num_units, input_size}));
    for (in r : {in::recurrent_to_input_weights, in::recurrent_to_forget_weights, in::recurrent_to_cell_weights,
                 in::recurrent_to_output_weights})
      NNHAL_TRY(check(r, {num_units, output_size}));
    for (in r : {in::cell_to_input_weights, in::cell_to_forget_weights, in::cell_to_output_weights,
                 in::input_gate_bias, in::forget_gate_bias, in::cell_bias, in::output_gate_bias,
                 in::input_layer_norm_weights, in::forget_layer_norm_weights, in::cell_layer_norm_weights,
                 in::output_layer_norm_weights})
      NNHAL_TRY(check(r, {num_units}));
    NNHAL_TRY(check(in::projection_weights, {output_size, num_units}));
    NNHAL_TRY(check(in::projection_bias, {output_size}));
    NNHAL_TRY(check(in::output_state_in, {batches, output_size}));
    NNHAL_TRY(check(in::cell_state_in, {batches, num_units}));

    int cell_shift = 0;
    const bool pot = detail::checked_log2(at(in::cell_state_in).scale, cell_shift);
    NNHAL_CHECK(pot && cell_shift >= -15 && cell_shift <= -9, ErrorStatus::INVALID_ARGUMENT, "cell_state_in: scale ",
                at(in::cell_state_in).scale, " must be 2^k with -15 <= k <= -9");

    if (c.executing) {
      NNHAL_CHECK(num_units > 0 && output_size > 0 && input_size > 0, ErrorStatus::INVALID_ARGUMENT,
                  "input_to_output_weights / recurrent_to_output_weights: zero-sized weights");
      const bool cifg = !present(in::input_to_input_weights);
      NNHAL_CHECK(cifg != present(in::recurrent_to_input_weights), ErrorStatus::INVALID_ARGUMENT,
                  "recurrent_to_input_weights: must be present exactly when input_to_input_weights is (CIFG)");
      NNHAL_CHECK(cifg != present(in::input_gate_bias), ErrorStatus::INVALID_ARGUMENT,
                  "input_gate_bias: must be present exactly when the input gate is (no CIFG)");
      const bool peephole = present(in::cell_to_output_weights);
      NNHAL_CHECK(present(in::cell_to_forget_weights) == peephole &&
                      (cifg || present(in::cell_to_input_weights) == peephole),
                  ErrorStatus::INVALID_ARGUMENT, "cell_to_*_weights: the peephole weights must be all present or all omitted");
      const bool norm = present(in::output_layer_norm_weights);
      NNHAL_CHECK(present(in::forget_layer_norm_weights) == norm && present(in::cell_layer_norm_weights) == norm &&
                      (cifg ? !present(in::input_layer_norm_weights) : present(in::input_layer_norm_weights) == norm),
                  ErrorStatus::INVALID_ARGUMENT, "*_layer_norm_weights: must be all present or all omitted");
      if (!present(in::projection_weights))
        NNHAL_CHECK(output_size == num_units, ErrorStatus::INVALID_ARGUMENT, "recurrent_to_output_weights: output_size ",
                    output_size, " must equal num_units ", num_units, " without projection_weights");
    }
    return shapes{dims_t{batches, output_size}, dims_t{batches, num_units}, dims_t{batches, output_size}};
  }
};

}  // namespace nnhal::types::sig
