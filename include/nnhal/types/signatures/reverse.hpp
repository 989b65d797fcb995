// REVERSE contract (AIDL OperationType.aidl, REVERSE; NNAPI feature level 7).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct reverse {
  static constexpr auto op = OperationType::REVERSE;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // axis is a TENSOR_INT32 of shape [1], not a scalar.
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
  });

  /// Output = input with the order along one dimension reversed; axis holds exactly one
  /// value in [0, n). Rank <= 8. Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& axis = c.inputs[1];
    NNHAL_TRY(detail::check_rank_at_most(input, 8, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    NNHAL_CHECK(axis.dims.size() == 1 || (!c.executing && axis.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "axis: must be a 1-D tensor of shape [1], got rank ", axis.dims.size());
    NNHAL_CHECK(axis.dims.empty() || axis.dims[0] == 1 || (axis.dims[0] == 0 && !c.executing),
                ErrorStatus::INVALID_ARGUMENT, "axis: must have shape [1], got ", format_dims(axis.dims));
    NNHAL_CHECK(axis.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: no value at execution");
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};
    const auto n = static_cast<std::int64_t>(input.dims.size());
    if (axis.has_value() && axis.value_size >= sizeof(std::int32_t)) {
      const std::int32_t a = axis.at<std::int32_t>(0);
      NNHAL_CHECK(a >= 0 && a < n, ErrorStatus::INVALID_ARGUMENT, "axis: ", a, " outside [0, ", n, ")");
    } else {
      NNHAL_CHECK(!c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: value holds no element");
    }
    return shapes{dims_t(input.dims.begin(), input.dims.end())};
  }
};

}  // namespace nnhal::types::sig
