// Checks shared by several operations' shape inference (rank limits, scalar values,
// quantization equality). Each returns an error naming the operand role.
#pragma once

#include <string_view>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig::detail {

/// Rank at most `max` (an unknown rank, i.e. no dimensions at validation, passes).
inline status check_rank_at_most(const operand_desc& d, std::size_t max, std::string_view role) {
  NNHAL_CHECK(d.dims.size() <= max, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(),
              " exceeds the supported ", max);
  return {};
}

/// A FusedActivationFunc scalar, when its value is known.
inline status check_activation(const operand_desc& d, std::string_view role) {
  if (auto a = d.scalar<std::int32_t>())
    NNHAL_CHECK(is_valid_activation(*a), ErrorStatus::INVALID_ARGUMENT, role, ": ", *a,
                " is not a FusedActivationFunc (0..3)");
  return {};
}

inline bool same_quant(const operand_desc& a, const operand_desc& b) noexcept {
  return a.scale == b.scale && a.zero_point == b.zero_point;
}

/// For quantized types: the output must carry the input's scale and zero point.
inline status check_same_quant(const operand_desc& in, const operand_desc& out, std::string_view role) {
  if (is_quantized(in.type))
    NNHAL_CHECK(same_quant(in, out), ErrorStatus::INVALID_ARGUMENT, role, ": scale ", out.scale, " / zeroPoint ",
                out.zero_point, " must equal the input's ", in.scale, " / ", in.zero_point);
  return {};
}

/// Shared by the element-wise binary ops with broadcasting and a fused activation.
inline result<shapes> infer_broadcast_binary(const infer_context& c, std::size_t max_rank) {
  const auto& a = c.inputs[0];
  const auto& b = c.inputs[1];
  NNHAL_TRY(check_rank_at_most(a, max_rank, "input0"));
  NNHAL_TRY(check_rank_at_most(b, max_rank, "input1"));
  NNHAL_TRY(check_activation(c.inputs[2], "activation"));
  if (a.type == OperandType::TENSOR_INT32)
    if (auto act = c.inputs[2].scalar<std::int32_t>())
      NNHAL_CHECK(*act == 0, ErrorStatus::INVALID_ARGUMENT, "activation: must be NONE for TENSOR_INT32");
  if (!c.executing && (a.dims.empty() || b.dims.empty())) return shapes{dims_t{}};  // unknown rank
  auto out = broadcast_shapes(a.dims, b.dims, c.executing);
  if (!out) return std::move(out).err();
  return shapes{std::move(*out)};
}

}  // namespace nnhal::types::sig::detail
