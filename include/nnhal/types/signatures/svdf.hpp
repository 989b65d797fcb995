// SVDF contract (HAL 1.3 types.hal, SVDF; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_recurrent.hpp"

namespace nnhal::types::sig {

struct svdf {
  static constexpr auto op = OperationType::SVDF;
  enum class in : std::uint8_t { input, weights_feature, weights_time, bias, state_in, rank, fused_activation_function };
  enum class out : std::uint8_t { state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; bias may be a NO_VALUE operand of that type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(3);

  /// state_out [batch, memory_size * num_filters] (the layout the AOSP CPU path keeps the
  /// memory in) and output [batch, num_units], num_filters = num_units * rank =
  /// weights_feature's first extent.
  static result<shapes> infer(const infer_context& c) {
    namespace rc = detail::recurrent;
    const bool ex = c.executing;
    const operand_desc& x = c.inputs[0];
    NNHAL_TRY(rc::expect_shape(x, "input", {std::nullopt, std::nullopt}, ex));
    NNHAL_TRY(detail::check_activation(c.inputs[6], "fused_activation_function"));
    const std::optional<std::int32_t> rank = c.inputs[5].scalar<std::int32_t>();
    if (rank) NNHAL_CHECK(*rank > 0, ErrorStatus::INVALID_ARGUMENT, "rank: ", *rank, " must be positive");
    const operand_desc& wf = c.inputs[1];
    NNHAL_TRY(rc::expect_shape(wf, "weights_feature", {std::nullopt, rc::dim(x, 1, ex)}, ex));
    const rc::extent filters = rc::dim(wf, 0, ex);
    const operand_desc& wt = c.inputs[2];
    NNHAL_TRY(rc::expect_shape(wt, "weights_time", {filters, std::nullopt}, ex));
    const rc::extent memory = rc::dim(wt, 1, ex);
    if (memory) NNHAL_CHECK(*memory > 0, ErrorStatus::INVALID_ARGUMENT, "weights_time: memory_size 0 (must be > 0)");
    rc::extent units;
    if (filters && rank) {
      NNHAL_CHECK(*filters % static_cast<std::uint32_t>(*rank) == 0, ErrorStatus::INVALID_ARGUMENT, "weights_feature: ",
                  *filters, " filters is not a multiple of rank ", *rank);
      units = *filters / static_cast<std::uint32_t>(*rank);
    }
    NNHAL_TRY(rc::expect_optional_shape(c.inputs[3], "bias", {units}, ex));
    const rc::extent batch = rc::dim(x, 0, ex);
    rc::extent state;
    if (filters && memory) {
      const std::uint64_t n = std::uint64_t{*filters} * *memory;
      NNHAL_CHECK(n <= 0xFFFFFFFFu, ErrorStatus::INVALID_ARGUMENT, "weights_time: memory_size * num_filters overflows");
      state = static_cast<std::uint32_t>(n);
    }
    NNHAL_TRY(rc::expect_shape(c.inputs[4], "state_in", {batch, state}, ex));
    return shapes{dims_t{batch.value_or(0), state.value_or(0)}, dims_t{batch.value_or(0), units.value_or(0)}};
  }
};

}  // namespace nnhal::types::sig
