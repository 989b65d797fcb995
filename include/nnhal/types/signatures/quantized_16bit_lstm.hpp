// QUANTIZED_16BIT_LSTM contract (HAL 1.3 types.hal, QUANTIZED_16BIT_LSTM; AIDL keeps it unchanged).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

namespace detail {
/// log2(x) when x is a power of two to the AOSP CPU path's tolerance: log2 formed in
/// float, its fractional part below 1e-3 (CheckedLog2).
inline bool checked_log2(float x, int& log2) noexcept {
  if (!(x > 0.0f) || !(x <= std::numeric_limits<float>::max())) return false;
  const float l = std::log(x) * (1.0f / std::log(2.0f));
  const float r = std::round(l);
  log2 = static_cast<int>(r);
  return std::abs(static_cast<double>(l - r)) < 1e-3;
}
}  // namespace detail

struct quantized_16bit_lstm {
  static constexpr auto op = OperationType::QUANTIZED_16BIT_LSTM;
  enum class in : std::uint8_t { input, input_to_input_weights, input_to_forget_weights, input_to_cell_weights, input_to_output_weights, recurrent_to_input_weights, recurrent_to_forget_weights, recurrent_to_cell_weights, recurrent_to_output_weights, input_gate_bias, forget_gate_bias, cell_bias, output_gate_bias, prev_cell_state, prev_output };
  enum class out : std::uint8_t { cell_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT8_ASYMM)},
  });

  /// input [batches, input_size] and prev_output [batches, output_size], both scale 1/128
  /// and zeroPoint 128; the eight weights [output_size, input_size | output_size] share
  /// one scale (non-zero) and zero point; the four biases [output_size] have scale
  /// weights_scale / 128 and zeroPoint 0; prev_cell_state [batches, output_size] has
  /// scale 2^-11 (4 integer bits) and zeroPoint 0. Outputs: cell_state_out as
  /// prev_cell_state, output as prev_output.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& prev_out = c.inputs[static_cast<std::size_t>(in::prev_output)];
    const auto& prev_cell = c.inputs[static_cast<std::size_t>(in::prev_cell_state)];
    const auto& w0 = c.inputs[1];
    const auto& b0 = c.inputs[static_cast<std::size_t>(in::input_gate_bias)];
    auto rank_ok = [&](const operand_desc& d, std::size_t r) { return (d.dims.empty() && !c.executing) || d.dims.size() == r; };
    auto dim = [](const operand_desc& d, std::size_t i) -> std::uint32_t { return i < d.dims.size() ? d.dims[i] : 0; };
    // Two extents agree, or one is unknown at validation.
    auto agree = [&](std::uint32_t a, std::uint32_t b) { return a == b || (!c.executing && (a == 0 || b == 0)); };
    static constexpr const char* names[] = {"input", "input_to_input_weights", "input_to_forget_weights",
                                            "input_to_cell_weights", "input_to_output_weights",
                                            "recurrent_to_input_weights", "recurrent_to_forget_weights",
                                            "recurrent_to_cell_weights", "recurrent_to_output_weights",
                                            "input_gate_bias", "forget_gate_bias", "cell_gate_bias",
                                            "output_gate_bias", "prev_cell_state", "prev_output"};
    NNHAL_CHECK(rank_ok(input, 2), ErrorStatus::INVALID_ARGUMENT, "input: rank ", input.dims.size(), " (must be 2)");
    NNHAL_CHECK(input.scale == 1.0f / 128 && input.zero_point == 128, ErrorStatus::INVALID_ARGUMENT,
                "input: scale ", input.scale, " / zeroPoint ", input.zero_point, " must be 1/128 / 128");
    NNHAL_CHECK(rank_ok(prev_out, 2), ErrorStatus::INVALID_ARGUMENT, "prev_output: rank ", prev_out.dims.size(),
                " (must be 2)");
    NNHAL_CHECK(prev_out.scale == 1.0f / 128 && prev_out.zero_point == 128, ErrorStatus::INVALID_ARGUMENT,
                "prev_output: scale ", prev_out.scale, " / zeroPoint ", prev_out.zero_point, " must be 1/128 / 128");
    const std::uint32_t batches = dim(input, 0), input_size = dim(input, 1);
    NNHAL_CHECK(agree(dim(prev_out, 0), batches), ErrorStatus::INVALID_ARGUMENT, "prev_output: ", dim(prev_out, 0),
                " batches, input has ", batches);
    const std::uint32_t output_size = dim(prev_out, 1);
    NNHAL_CHECK(w0.scale != 0.0f, ErrorStatus::INVALID_ARGUMENT, "input_to_input_weights: scale 0");
    for (std::size_t k = 1; k <= 8; ++k) {
      const auto& w = c.inputs[k];
      NNHAL_CHECK(rank_ok(w, 2), ErrorStatus::INVALID_ARGUMENT, names[k], ": rank ", w.dims.size(), " (must be 2)");
      NNHAL_CHECK(agree(dim(w, 0), output_size), ErrorStatus::INVALID_ARGUMENT, names[k], ": ", dim(w, 0),
                  " rows, output_size is ", output_size);
      const std::uint32_t cols = k <= 4 ? input_size : output_size;
      NNHAL_CHECK(agree(dim(w, 1), cols), ErrorStatus::INVALID_ARGUMENT, names[k], ": ", dim(w, 1),
                  " columns, expected ", cols);
      NNHAL_CHECK(w.scale == w0.scale && w.zero_point == w0.zero_point, ErrorStatus::INVALID_ARGUMENT, names[k],
                  ": scale / zeroPoint must equal input_to_input_weights'");
    }
    NNHAL_CHECK(static_cast<double>(b0.scale) == static_cast<double>(w0.scale) / 128.0 && b0.zero_point == 0,
                ErrorStatus::INVALID_ARGUMENT, "input_gate_bias: scale ", b0.scale, " / zeroPoint ", b0.zero_point,
                " must be weights scale / 128 and 0");
    for (std::size_t k = 9; k <= 12; ++k) {
      const auto& b = c.inputs[k];
      NNHAL_CHECK(rank_ok(b, 1), ErrorStatus::INVALID_ARGUMENT, names[k], ": rank ", b.dims.size(), " (must be 1)");
      NNHAL_CHECK(agree(dim(b, 0), output_size), ErrorStatus::INVALID_ARGUMENT, names[k], ": ", dim(b, 0),
                  " values, output_size is ", output_size);
      NNHAL_CHECK(b.scale == b0.scale && b.zero_point == b0.zero_point, ErrorStatus::INVALID_ARGUMENT, names[k],
                  ": scale / zeroPoint must equal input_gate_bias'");
    }
    NNHAL_CHECK(rank_ok(prev_cell, 2), ErrorStatus::INVALID_ARGUMENT, "prev_cell_state: rank ", prev_cell.dims.size(),
                " (must be 2)");
    NNHAL_CHECK(agree(dim(prev_cell, 0), batches) && agree(dim(prev_cell, 1), output_size),
                ErrorStatus::INVALID_ARGUMENT, "prev_cell_state: ", format_dims(prev_cell.dims, true), ", expected [",
                batches, ", ", output_size, "]");
    // The cell state has 4 integer bits: scale 2^-11 (the AOSP path supports nothing else).
    int log2 = 0;
    NNHAL_CHECK(detail::checked_log2(prev_cell.scale, log2) && log2 == -11 && prev_cell.zero_point == 0,
                ErrorStatus::INVALID_ARGUMENT,
                "prev_cell_state: scale ", prev_cell.scale, " / zeroPoint ", prev_cell.zero_point,
                " must be 2^-11 / 0");
    if (c.executing) {
      NNHAL_CHECK(output_size > 0, ErrorStatus::INVALID_ARGUMENT, "prev_output: output_size 0");
      NNHAL_CHECK(input_size > 0, ErrorStatus::INVALID_ARGUMENT, "input: input_size 0");
    }
    return shapes{dims_t{batches, output_size}, dims_t{batches, output_size}};
  }
};

}  // namespace nnhal::types::sig
