// SOFTMAX contract (HAL 1.3 types.hal, SOFTMAX; AIDL keeps it unchanged).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

namespace detail::axis_norm {

/// A FLOAT32 or FLOAT16 scalar's value as float, when known.
inline std::optional<float> float_scalar(const operand_desc& d) {
  if (d.type == OperandType::FLOAT16) {
    if (auto h = d.scalar<float16>()) return to_float(*h);
    return std::nullopt;
  }
  return d.scalar<float>();
}

/// A scaling factor that must be positive (NaN is not).
inline status check_positive(const operand_desc& d, const char* role) {
  if (auto v = float_scalar(d)) NNHAL_CHECK(*v > 0.0f, ErrorStatus::INVALID_ARGUMENT, role, ": ", *v, " must be positive");
  return {};
}

/// Shape inference of the operations that work along one axis (SOFTMAX, LOG_SOFTMAX,
/// L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION): the output has the input's shape;
/// the input's rank is 1..max_rank and the axis operand at `axis_input` (absent: -1)
/// lies in [-rank, rank).
inline result<shapes> infer_along_axis(const infer_context& c, std::size_t axis_input, std::size_t max_rank) {
  const operand_desc& input = c.inputs[0];
  NNHAL_CHECK(input.dims.size() <= max_rank, ErrorStatus::INVALID_ARGUMENT, "input: rank ", input.dims.size(),
              " exceeds the supported ", max_rank);
  const bool rank_known = c.executing || !input.dims.empty();
  if (!rank_known) return shapes{dims_t{}};
  const auto rank = static_cast<std::int64_t>(input.dims.size());
  NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0 (must be at least 1)");
  const std::optional<std::int32_t> axis =
      axis_input < c.inputs.size() ? c.inputs[axis_input].scalar<std::int32_t>() : std::optional<std::int32_t>{-1};
  if (axis)
    NNHAL_CHECK(*axis >= -rank && *axis < rank, ErrorStatus::INVALID_ARGUMENT, "axis: ", *axis, " outside [", -rank,
                ", ", rank, ")");
  return shapes{dims_t(input.dims.begin(), input.dims.end())};
}

/// A quantized output whose scale and zero point the operation fixes.
inline status check_fixed_output_quant(const operand_desc& out, float scale, std::int32_t zero_point,
                                       const char* scale_text) {
  NNHAL_CHECK(out.scale == scale && out.zero_point == zero_point, ErrorStatus::INVALID_ARGUMENT, "output: scale ",
              out.scale, " / zeroPoint ", out.zero_point, " must be ", scale_text, " / ", zero_point, " for ",
              out.type);
  return {};
}

/// Raises the version when a rank outside `ranks_1_0` is used (allowed only since 1.2).
inline void raise_for_rank(const infer_context& c, std::initializer_list<std::size_t> ranks_1_0) {
  const std::size_t rank = c.inputs[0].dims.size();
  if (!c.min_version || rank == 0) return;
  for (auto r : ranks_1_0)
    if (r == rank) return;
  *c.min_version = max_version(*c.min_version, V::V1_2);
}

}  // namespace detail::axis_norm


struct softmax {
  static constexpr auto op = OperationType::SOFTMAX;
  enum class in : std::uint8_t { input, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // beta is FLOAT32 for every type except TENSOR_FLOAT16, which takes a FLOAT16 beta.
      // The trailing axis (default -1) is optional and arrived in 1.2; a model passing the default
      // is stripped of it by the upstream runtime and stays 1.0 (rank 2 or 4 only before 1.2).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      // QUANT8 outputs: scale 1/256, zeroPoint 0 (unsigned) or -128 (signed).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (axis -1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::INT32, -1}});

  /// Output = input shape; rank 1..4 (other than 2 or 4 only since 1.2); beta > 0; axis
  /// in [-rank, rank); quantized output scale 1/256, zeroPoint 0 / -128.
  static result<shapes> infer(const infer_context& c) {
    namespace an = detail::axis_norm;
    NNHAL_TRY(an::check_positive(c.inputs[1], "beta"));
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 256, 0, "1/256"));
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM_SIGNED)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 256, -128, "1/256"));
    an::raise_for_rank(c, {2, 4});
    return an::infer_along_axis(c, 2, 4);
  }
};

}  // namespace nnhal::types::sig
