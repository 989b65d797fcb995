// UNIDIRECTIONAL_SEQUENCE_RNN contract (HAL 1.3 types.hal, UNIDIRECTIONAL_SEQUENCE_RNN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

namespace nnhal::types::sig {

struct unidirectional_sequence_rnn {
  static constexpr auto op = OperationType::UNIDIRECTIONAL_SEQUENCE_RNN;
  enum class in : std::uint8_t { input, weights, recurrent_weights, bias, hidden_state, fused_activation_function, time_major };
  enum class out : std::uint8_t { output, hidden_state_out };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; time_major is an INT32 scalar (0 or 1).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      // Since 1.3: the final hidden state as an extra output.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });

  /// output [max_time, batch, num_units] (time_major 1) or [batch, max_time, num_units]
  /// (time_major 0); hidden_state_out [batch, num_units].
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(detail::check_activation(c.inputs[5], "fused_activation_function"));
    const std::optional<std::int32_t> tm = c.inputs[6].scalar<std::int32_t>();
    if (tm) NNHAL_CHECK(*tm == 0 || *tm == 1, ErrorStatus::INVALID_ARGUMENT, "time_major: ", *tm, " must be 0 or 1");
    const rc::extent batch = tm ? rc::dim(x, *tm ? 1 : 0, ex) : std::nullopt;
    auto units = rc::check_rnn_weights(c.inputs, {1, 2, 3, 4, "", "hidden_state"}, batch, rc::dim(x, 2, ex), ex);
    if (!units) return std::move(units).err();
    const std::uint32_t u = units->value_or(0);
    shapes out{x.dims.size() == 3 ? dims_t{x.dims[0], x.dims[1], u} : dims_t{}};
    if (c.outputs.size() == 2) out.push_back(dims_t{batch.value_or(0), u});
    return out;
  }
};

}  // namespace nnhal::types::sig
