// EMBEDDING_LOOKUP contract (HAL 1.3 types.hal, EMBEDDING_LOOKUP; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct embedding_lookup {
  static constexpr auto op = OperationType::EMBEDDING_LOOKUP;
  enum class in : std::uint8_t { lookups, values };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The value tensor (input 1) sets the type; lookups are always TENSOR_INT32.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_INT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output = values' shape with the first extent replaced by the number of lookups;
  /// lookups is 1-D, values has rank >= 2, and every lookup must index a row of values
  /// (checked whenever the values are known; always at execution). Output quantization =
  /// values'.
  static result<shapes> infer(const infer_context& c) {
    const auto& lookups = c.inputs[0];
    const auto& values = c.inputs[1];
    NNHAL_TRY(detail::check_same_quant(values, c.outputs[0], "output"));
    NNHAL_CHECK(lookups.dims.size() == 1 || (!c.executing && lookups.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "lookups: must be a 1-D tensor, got rank ", lookups.dims.size());
    NNHAL_CHECK(lookups.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "lookups: no value at execution");
    if (values.dims.empty() && !c.executing) return shapes{dims_t{}};
    NNHAL_CHECK(values.dims.size() >= 2, ErrorStatus::INVALID_ARGUMENT, "values: rank ", values.dims.size(),
                " (must be >= 2)");
    const std::uint32_t table_rows = values.dims[0];
    if (lookups.has_value() && !lookups.dims.empty() && lookups.dims_known() && (table_rows != 0 || c.executing)) {
      const std::size_t count = lookups.dims[0];
      NNHAL_CHECK(lookups.value_size >= count * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                  "lookups: value holds fewer than ", count, " elements");
      for (std::size_t i = 0; i < count; ++i) {
        const std::int32_t v = lookups.at<std::int32_t>(i);
        NNHAL_CHECK(v >= 0 && static_cast<std::uint32_t>(v) < table_rows, ErrorStatus::INVALID_ARGUMENT,
                    "lookups: entry ", i, " is ", v, ", outside [0, ", table_rows, ")");
      }
    }
    dims_t outd(values.dims.begin(), values.dims.end());
    outd[0] = lookups.dims.empty() ? 0 : lookups.dims[0];
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
