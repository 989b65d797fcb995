// EQUAL contract (HAL 1.3 types.hal, EQUAL; AIDL keeps it unchanged). Also home of the
// shape inference shared by the element-wise binary operations without a fused
// activation (MAXIMUM, MINIMUM, POW, PRELU, the comparisons, LOGICAL_AND/OR) and by
// SUB and DIV.
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

struct equal {
  static constexpr auto op = OperationType::EQUAL;
  enum class in : std::uint8_t { input0, input1 };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_BOOL8), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_BOOL8)},
  });
  /// Output = broadcast of the inputs' shapes (rank <= 8, the kernels' limit).
  static result<shapes> infer(const infer_context& c) { return detail::infer_broadcast_pair(c, "input0", "input1"); }
};

}  // namespace nnhal::types::sig
