// FULLY_CONNECTED contract (HAL 1.3 types.hal, FULLY_CONNECTED; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_conv.hpp"  // bias scale and output scale rules

namespace nnhal::types::sig {

struct fully_connected {
  static constexpr auto op = OperationType::FULLY_CONNECTED;
  enum class in : std::uint8_t { input, weights, bias, activation };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // QUANT8 bias is TENSOR_INT32 (scale input_scale * weights_scale). Before 1.2 a QUANT8_ASYMM
      // output also needs output_scale > input_scale * weights_scale (a value rule).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// The input (rank 2..4) is read as [batch_size, input_size] with input_size the
  /// weights' second dimension and batch_size = element count / input_size; the output is
  /// [batch_size, num_units]. Only batch_size may be 0.
  static status infer_into(const infer_context& c, shapes& out) {
    using namespace detail;
    const auto& input = c.inputs[0];
    const auto& weights = c.inputs[1];
    const auto& bias = c.inputs[2];
    if (c.executing || !input.dims.empty())
      NNHAL_CHECK(input.dims.size() >= 2 && input.dims.size() <= 4, ErrorStatus::INVALID_ARGUMENT, "input: rank ",
                  input.dims.size(), " (must be 2..4)");
    NNHAL_TRY(check_rank_is(weights, 2, "weights", c.executing));
    NNHAL_TRY(check_rank_is(bias, 1, "bias", c.executing));
    NNHAL_TRY(check_activation(c.inputs[3], "activation"));
    if (is_quantized(input.type)) NNHAL_TRY(check_bias_scale(input, weights, bias, "weights"));
    raise_for_output_scale(c, input, weights, c.outputs[0]);

    auto known = [&](std::uint32_t x) { return c.executing || x != 0; };
    const std::uint32_t num_units = dim_or_unknown(weights, 0);
    const std::uint32_t input_size = dim_or_unknown(weights, 1);
    const std::uint32_t bias_n = dim_or_unknown(bias, 0);
    if (known(num_units) && known(bias_n))
      NNHAL_CHECK(bias_n == num_units, ErrorStatus::INVALID_ARGUMENT, "bias: ", bias_n, " values for ", num_units,
                  " units");
    if (c.executing) {
      NNHAL_CHECK(num_units > 0, ErrorStatus::INVALID_ARGUMENT, "weights: zero num_units");
      NNHAL_CHECK(input_size > 0, ErrorStatus::INVALID_ARGUMENT, "weights: zero input_size");
    }
    std::uint32_t batch = 0;
    if (!input.dims.empty() && (c.executing || input.dims_known()) && input_size != 0) {
      std::uint64_t n = 0;
      NNHAL_CHECK(checked_element_count(input.dims, n), ErrorStatus::INVALID_ARGUMENT,
                  "input: element count overflows");
      NNHAL_CHECK(n % input_size == 0, ErrorStatus::INVALID_ARGUMENT, "input: ", n,
                  " elements are not a whole number of rows of input_size ", input_size);
      batch = static_cast<std::uint32_t>(n / input_size);
    }
    out.resize(1);
    out[0].assign({batch, num_units});
    if (c.executing) NNHAL_TRY(check_output_size(out[0], c.outputs[0].type));
    return {};
  }
};

}  // namespace nnhal::types::sig
