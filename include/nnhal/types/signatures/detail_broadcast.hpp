// Shape inference shared by the element-wise binary operations without a fused activation
// (EQUAL and the other comparisons, MAXIMUM, MINIMUM, POW, PRELU, LOGICAL_AND/OR) and by
// SUB and DIV: broadcasting of two inputs.
#pragma once

#include <string_view>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

namespace detail {

/// The broadcast kernels (ops/kernels/broadcast.hpp) walk at most this many dimensions.
inline constexpr std::size_t max_broadcast_rank = 8;

/// Output = numpy-style broadcast of inputs 0 and 1 (named `role0`, `role1` in messages),
/// each of rank <= max_rank. Validation: an input of unknown rank gives an output of
/// unknown rank.
inline result<shapes> infer_broadcast_pair(const infer_context& c, std::string_view role0, std::string_view role1,
                                           std::size_t max_rank = max_broadcast_rank) {
  const auto& a = c.inputs[0];
  const auto& b = c.inputs[1];
  NNHAL_TRY(check_rank_at_most(a, max_rank, role0));
  NNHAL_TRY(check_rank_at_most(b, max_rank, role1));
  if (!c.executing && (a.dims.empty() || b.dims.empty())) return shapes{dims_t{}};
  auto out = broadcast_shapes(a.dims, b.dims, c.executing);
  if (!out) return make_error(ErrorStatus::INVALID_ARGUMENT, role1, ": ", out.err().message);
  return shapes{std::move(*out)};
}

/// SUB and DIV: a FusedActivationFunc (NONE for TENSOR_INT32), then the broadcast of
/// two inputs of rank <= 4. (ADD/MUL's detail::infer_broadcast_binary does the same but
/// its broadcast error does not name the operand.)
inline result<shapes> infer_broadcast_activation(const infer_context& c) {
  NNHAL_TRY(check_activation(c.inputs[2], "activation"));
  if (c.inputs[0].type == OperandType::TENSOR_INT32)
    if (auto act = c.inputs[2].scalar<std::int32_t>())
      NNHAL_CHECK(*act == 0, ErrorStatus::INVALID_ARGUMENT, "activation: ", *act, " but TENSOR_INT32 needs NONE (0)");
  return infer_broadcast_pair(c, "input0", "input1", 4);
}

}  // namespace detail

}  // namespace nnhal::types::sig
