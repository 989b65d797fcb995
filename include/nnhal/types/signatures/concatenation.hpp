// CONCATENATION contract (HAL 1.3 types.hal, CONCATENATION).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct concatenation {
  static constexpr auto op = OperationType::CONCATENATION;
  enum class in : std::uint8_t { input0, axis };  // input0 repeats: n >= 1 tensors, then the axis
  enum class out : std::uint8_t { output };
  // TENSOR_QUANT8_ASYMM inputs whose scale/zeroPoint differ from the output's need HAL 1.2.
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .repeat_in = 0},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .repeat_in = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .repeat_in = 0},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .repeat_in = 0},
  });

  /// All inputs share a rank (<= 4) and every extent but the axis; the output's axis
  /// extent is their sum.
  static result<shapes> infer(const infer_context& c) {
    const std::size_t n = c.inputs.size() - 1;
    const auto& axis_op = c.inputs[n];
    std::size_t rank = 0;
    bool rank_known = false;
    for (std::size_t i = 0; i < n; ++i) {
      NNHAL_TRY(detail::check_rank_at_most(c.inputs[i], 4, "input"));
      if (c.inputs[i].dims.empty() && !c.executing) continue;
      if (!rank_known) {
        rank = c.inputs[i].dims.size();
        rank_known = true;
      }
      NNHAL_CHECK(c.inputs[i].dims.size() == rank, ErrorStatus::INVALID_ARGUMENT, "input", i, ": rank ",
                  c.inputs[i].dims.size(), " differs from input0's ", rank);
    }
    if (c.outputs[0].type == OperandType::TENSOR_QUANT8_ASYMM && c.min_version)
      for (std::size_t i = 0; i < n; ++i)
        if (!detail::same_quant(c.inputs[i], c.outputs[0])) *c.min_version = max_version(*c.min_version, V::V1_2);
    const auto axis_v = axis_op.scalar<std::int32_t>();
    if (!rank_known) return shapes{dims_t{}};
    NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "input0: rank 0 tensors cannot be concatenated");
    if (!axis_v) return shapes{dims_t(rank, 0)};
    const std::int32_t axis = *axis_v;
    NNHAL_CHECK(axis >= 0 && static_cast<std::size_t>(axis) < rank, ErrorStatus::INVALID_ARGUMENT, "axis: ", axis,
                " outside [0, ", rank, ")");
    dims_t outd(rank, 0);
    std::uint64_t axis_sum = 0;
    bool axis_known = true;
    for (std::size_t d = 0; d < rank; ++d) {
      for (std::size_t i = 0; i < n; ++i) {
        if (c.inputs[i].dims.empty()) {  // unknown rank (validation only)
          if (d == static_cast<std::size_t>(axis)) axis_known = false;
          continue;
        }
        const std::uint32_t e = c.inputs[i].dims[d];
        if (d == static_cast<std::size_t>(axis)) {
          if (e == 0 && !c.executing) axis_known = false;
          axis_sum += e;
          continue;
        }
        if (e == 0 && !c.executing) continue;
        if (outd[d] == 0 && !(c.executing && i > 0)) {
          outd[d] = e;
        } else {
          NNHAL_CHECK(outd[d] == e, ErrorStatus::INVALID_ARGUMENT, "input", i, ": extent ", e, " of dimension ", d,
                      " differs from the other inputs' ", outd[d]);
        }
      }
    }
    NNHAL_CHECK(axis_sum <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT,
                "output: axis extent overflows");
    outd[static_cast<std::size_t>(axis)] = axis_known ? static_cast<std::uint32_t>(axis_sum) : 0;
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
