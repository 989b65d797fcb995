// Helpers shared by the along-an-axis normalizations (SOFTMAX, LOG_SOFTMAX,
// L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, INSTANCE_NORMALIZATION) and the recurrent
// signatures: scalar reads, the optional axis and its shape inference.
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

}  // namespace nnhal::types::sig
