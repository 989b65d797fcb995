// RNN contract (HAL 1.3 types.hal, RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

namespace nnhal::types::sig {

struct rnn {
  static constexpr auto op = OperationType::RNN;
  enum class in : std::uint8_t { input, weights, recurrent_weights, bias, hidden_state_in, fused_activation_function };
  enum class out : std::uint8_t { hidden_state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });

  /// hidden_state_out and output [batch, num_units]; input [batch, input_size].
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(detail::check_activation(c.inputs[5], "fused_activation_function"));
    const rc::extent batch = rc::dim(x, 0, ex);
    auto units = rc::check_rnn_weights(c.inputs, {1, 2, 3, 4, "", "hidden_state_in"}, batch, rc::dim(x, 1, ex), ex);
    if (!units) return std::move(units).err();
    const dims_t d{batch.value_or(0), units->value_or(0)};
    return shapes{d, d};
  }
};

}  // namespace nnhal::types::sig
