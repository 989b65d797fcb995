// ARGMAX contract (HAL 1.3 types.hal, ARGMAX; AIDL keeps it unchanged). This header also
// holds the inference ARGMIN shares with it.
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

namespace detail {

/// ARGMAX / ARGMIN: an input of rank >= 1 that must be non-empty, an axis scalar in
/// [-rank, rank); the output drops the axis. A rank 1 input gives [1], not a rank 0
/// tensor, as the AOSP reference (and its b/155660285 test) does.
inline result<shapes> infer_arg_min_max(const infer_context& c) {
  const auto& input = c.inputs[0];
  const bool rank_known = c.executing || !input.dims.empty();
  if (!rank_known) return shapes{dims_t{}};
  const std::size_t rank = input.dims.size();
  NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0; ", to_string(c.op), " needs rank >= 1");
  if (c.executing)
    NNHAL_CHECK(input.element_count() != 0, ErrorStatus::INVALID_ARGUMENT, "input: must be non-empty, got ",
                format_dims(input.dims));
  const auto axis_v = c.inputs[1].scalar<std::int32_t>();
  NNHAL_CHECK(axis_v || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: no value at execution");
  if (rank == 1) {
    if (axis_v)
      NNHAL_CHECK(*axis_v == 0 || *axis_v == -1, ErrorStatus::INVALID_ARGUMENT, "axis: ", *axis_v,
                  " outside [-1, 1)");
    return shapes{dims_t{1}};
  }
  if (!axis_v) return shapes{dims_t(rank - 1, 0)};
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t axis = *axis_v;
  NNHAL_CHECK(axis >= -r && axis < r, ErrorStatus::INVALID_ARGUMENT, "axis: ", axis, " outside [", -r, ", ", r,
              ")");
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  dims_t out;
  for (std::size_t d = 0; d < rank; ++d)
    if (d != a) out.push_back(input.dims[d]);
  return shapes{std::move(out)};
}

}  // namespace detail

struct argmax {
  static constexpr auto op = OperationType::ARGMAX;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The output is always TENSOR_INT32 indices, whatever the input type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  /// See detail::infer_arg_min_max.
  static result<shapes> infer(const infer_context& c) { return detail::infer_arg_min_max(c); }
};

}  // namespace nnhal::types::sig
