// GATHER contract (HAL 1.3 types.hal, GATHER; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct gather {
  static constexpr auto op = OperationType::GATHER;
  enum class in : std::uint8_t { input, axis, indices };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output shape input[:axis] + indices + input[axis + 1:], axis in [-n, n) (negative
  /// counts from the end). Every index must lie in [0, input extent along axis): checked
  /// here whenever the values are known (always at execution, as kernels cannot fail).
  /// Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& indices = c.inputs[2];
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    const auto axis_v = c.inputs[1].scalar<std::int32_t>();
    NNHAL_CHECK(axis_v || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: no value at execution");
    NNHAL_CHECK(indices.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "indices: no value at execution");
    if ((input.dims.empty() || indices.dims.empty()) && !c.executing) return shapes{dims_t{}};
    const auto n = static_cast<std::int64_t>(input.dims.size());
    NNHAL_CHECK(n >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0 tensors cannot be gathered from");
    const std::size_t k = indices.dims.size();
    if (!axis_v) return shapes{dims_t(static_cast<std::size_t>(n) + k - 1, 0)};
    const std::int64_t axis = *axis_v;
    NNHAL_CHECK(axis >= -n && axis < n, ErrorStatus::INVALID_ARGUMENT, "axis: ", axis, " outside [", -n, ", ", n, ")");
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
    const std::uint32_t extent = input.dims[a];
    if (indices.has_value() && indices.dims_known() && (extent != 0 || c.executing)) {
      const std::size_t count = indices.element_count();
      NNHAL_CHECK(indices.value_size >= count * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                  "indices: value holds fewer than ", count, " elements");
      for (std::size_t i = 0; i < count; ++i) {
        const std::int32_t v = indices.at<std::int32_t>(i);
        NNHAL_CHECK(v >= 0 && static_cast<std::uint32_t>(v) < extent, ErrorStatus::INVALID_ARGUMENT, "indices: entry ",
                    i, " is ", v, ", outside [0, ", extent, ")");
      }
    }
    dims_t outd(input.dims.begin(), input.dims.begin() + static_cast<std::ptrdiff_t>(a));
    outd.insert(outd.end(), indices.dims.begin(), indices.dims.end());
    outd.insert(outd.end(), input.dims.begin() + static_cast<std::ptrdiff_t>(a) + 1, input.dims.end());
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
