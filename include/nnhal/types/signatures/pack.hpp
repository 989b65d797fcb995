// PACK contract (AIDL OperationType.aidl, PACK; NNAPI feature level 6).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct pack {
  static constexpr auto op = OperationType::PACK;
  enum class in : std::uint8_t { axis, input };  // input repeats: inputs 1 ~ N, N >= 1
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // All packed tensors and the output share one type (and, when quantized, one scale and
      // zeroPoint).
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32), .repeat_in = 1},
  });

  /// N tensors (operands input1 ~ inputN) of one shape [D0, ..., D(R-1)] become
  /// [D0, ..., N, ..., D(R-1)] with N at axis, axis in [0, R + 1). Quantized: every input
  /// and the output share one scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    const std::size_t n = c.inputs.size() - 1;
    const auto& first = c.inputs[1];
    NNHAL_TRY(detail::check_same_quant(first, c.outputs[0], "output"));
    for (std::size_t k = 1; k < n; ++k)
      if (is_quantized(first.type))
        NNHAL_CHECK(detail::same_quant(first, c.inputs[1 + k]), ErrorStatus::INVALID_ARGUMENT, "input", 1 + k,
                    ": scale ", c.inputs[1 + k].scale, " / zeroPoint ", c.inputs[1 + k].zero_point,
                    " differ from input1's ", first.scale, " / ", first.zero_point);
    const auto axis_v = c.inputs[0].scalar<std::int32_t>();
    NNHAL_CHECK(axis_v || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axis: no value at execution");
    // The common shape: known extents of all inputs merged; they must agree.
    dims_t common;
    bool rank_known = false;
    for (std::size_t k = 0; k < n; ++k) {
      const auto& d = c.inputs[1 + k].dims;
      if (d.empty() && !c.executing) continue;
      if (!rank_known) {
        common.assign(d.begin(), d.end());
        rank_known = true;
        continue;
      }
      NNHAL_CHECK(d.size() == common.size(), ErrorStatus::INVALID_ARGUMENT, "input", 1 + k, ": rank ", d.size(),
                  " differs from the other inputs' ", common.size());
      for (std::size_t i = 0; i < d.size(); ++i) {
        if (!c.executing && (d[i] == 0 || common[i] == 0)) {
          if (common[i] == 0) common[i] = d[i];
          continue;
        }
        NNHAL_CHECK(d[i] == common[i], ErrorStatus::INVALID_ARGUMENT, "input", 1 + k, ": shape ", format_dims(d, true),
                    " differs from the other inputs' ", format_dims(common, true));
      }
    }
    if (!rank_known) return shapes{dims_t{}};
    const auto r1 = static_cast<std::int64_t>(common.size()) + 1;
    if (!axis_v) return shapes{dims_t(static_cast<std::size_t>(r1), 0)};
    NNHAL_CHECK(*axis_v >= 0 && *axis_v < r1, ErrorStatus::INVALID_ARGUMENT, "axis: ", *axis_v, " outside [0, ", r1,
                ")");
    common.insert(common.begin() + *axis_v, static_cast<std::uint32_t>(n));
    return shapes{common};
  }
};

}  // namespace nnhal::types::sig
