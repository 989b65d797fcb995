// SPLIT contract (HAL 1.3 types.hal, SPLIT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct split {
  static constexpr auto op = OperationType::SPLIT;
  enum class in : std::uint8_t { input, axis, num_splits };
  enum class out : std::uint8_t { output };  // repeats: outputs 0 ~ (num_splits - 1)
  static constexpr auto rows = std::to_array<row>({
      // One output per split, all of input0's type; their count must equal num_splits (a value
      // rule, checked with the shapes).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_INT32), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .repeat_out = 0},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .repeat_out = 0},
  });

  /// num_splits equal parts along axis (in [-n, n), negative counts from the end); the
  /// axis extent must divide evenly, and there is one output per part, each with the
  /// input's quantization.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const std::size_t outputs = c.outputs.size();
    for (std::size_t k = 0; k < outputs; ++k)
      NNHAL_TRY(detail::check_same_quant(input, c.outputs[k], str_cat("output", k)));
    const auto axis_v = c.inputs[1].scalar<std::int32_t>();
    const auto splits_v = c.inputs[2].scalar<std::int32_t>();
    NNHAL_CHECK((axis_v && splits_v) || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "axis / num_splits: no value at execution");
    if (splits_v) {
      NNHAL_CHECK(*splits_v >= 1, ErrorStatus::INVALID_ARGUMENT, "num_splits: ", *splits_v, " is not positive");
      NNHAL_CHECK(static_cast<std::size_t>(*splits_v) == outputs, ErrorStatus::INVALID_ARGUMENT, "num_splits: ",
                  *splits_v, " but the operation has ", outputs, " outputs");
    }
    if (input.dims.empty() && !c.executing) return shapes(outputs, dims_t{});
    const auto n = static_cast<std::int64_t>(input.dims.size());
    NNHAL_CHECK(n >= 1, ErrorStatus::INVALID_ARGUMENT, "input: a rank 0 tensor cannot be split");
    if (!axis_v) return shapes(outputs, dims_t(static_cast<std::size_t>(n), 0));
    const std::int64_t axis = *axis_v;
    NNHAL_CHECK(axis >= -n && axis < n, ErrorStatus::INVALID_ARGUMENT, "axis: ", axis, " outside [", -n, ", ", n, ")");
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
    dims_t part(input.dims.begin(), input.dims.end());
    const std::uint32_t extent = input.dims[a];
    if (extent == 0 && !c.executing) {
      part[a] = 0;
    } else {
      NNHAL_CHECK(extent % outputs == 0, ErrorStatus::INVALID_ARGUMENT, "num_splits: ", outputs,
                  " does not divide the axis extent ", extent);
      part[a] = static_cast<std::uint32_t>(extent / outputs);
    }
    return shapes(outputs, part);
  }
};

}  // namespace nnhal::types::sig
