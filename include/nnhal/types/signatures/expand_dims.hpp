// EXPAND_DIMS contract (HAL 1.3 types.hal, EXPAND_DIMS; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct expand_dims {
  static constexpr auto op = OperationType::EXPAND_DIMS;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output = input's shape with a 1 inserted at axis, axis in [-(n + 1), n + 1)
  /// (negative counts from the end). Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    const auto axis_v = c.inputs[1].scalar<std::int32_t>();
    NNHAL_CHECK(axis_v || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: no value at execution");
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};
    const auto n1 = static_cast<std::int64_t>(input.dims.size()) + 1;
    if (!axis_v) return shapes{dims_t(static_cast<std::size_t>(n1), 0)};
    const std::int64_t axis = *axis_v;
    NNHAL_CHECK(axis >= -n1 && axis < n1, ErrorStatus::INVALID_ARGUMENT, "axis: ", axis, " outside [", -n1, ", ",
                n1, ")");
    dims_t outd(input.dims.begin(), input.dims.end());
    outd.insert(outd.begin() + (axis < 0 ? axis + n1 : axis), 1u);
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
