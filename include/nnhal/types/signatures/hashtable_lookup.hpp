// HASHTABLE_LOOKUP contract (HAL 1.3 types.hal, HASHTABLE_LOOKUP; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct hashtable_lookup {
  static constexpr auto op = OperationType::HASHTABLE_LOOKUP;
  enum class in : std::uint8_t { lookups, keys, values };
  enum class out : std::uint8_t { output, hits };
  static constexpr auto rows = std::to_array<row>({
      // The value tensor (input 2) sets the output's type; hits is a boolean stored as
      // TENSOR_QUANT8_ASYMM (scale 1.0, zeroPoint 0).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM)},
  });

  /// output = values' shape with the first extent replaced by k = #lookups; hits = [k].
  /// lookups and keys are 1-D, values' first extent equals #keys. The spec says values
  /// has rank >= 2, AOSP accepts rank 1: so do we. Keys must be sorted ascending (the
  /// kernel does not rely on it). The output takes values' quantization; hits must be
  /// scale 1.0, zeroPoint 0.
  static result<shapes> infer(const infer_context& c) {
    const auto& lookups = c.inputs[0];
    const auto& keys = c.inputs[1];
    const auto& values = c.inputs[2];
    NNHAL_TRY(detail::check_same_quant(values, c.outputs[0], "output"));
    const auto& hits = c.outputs[1];
    NNHAL_CHECK(hits.scale == 1.0f && hits.zero_point == 0, ErrorStatus::INVALID_ARGUMENT, "hits: scale ", hits.scale,
                " / zeroPoint ", hits.zero_point, " must be 1.0 / 0");
    NNHAL_CHECK(lookups.dims.size() == 1 || (!c.executing && lookups.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "lookups: must be a 1-D tensor, got rank ", lookups.dims.size());
    NNHAL_CHECK(keys.dims.size() == 1 || (!c.executing && keys.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "keys: must be a 1-D tensor, got rank ", keys.dims.size());
    NNHAL_CHECK((lookups.has_value() && keys.has_value()) || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "lookups / keys: no value at execution");
    NNHAL_CHECK(!values.dims.empty() || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "values: rank 0 (must be >= 1)");
    if (!keys.dims.empty() && !values.dims.empty() && ((keys.dims[0] != 0 && values.dims[0] != 0) || c.executing))
      NNHAL_CHECK(keys.dims[0] == values.dims[0], ErrorStatus::INVALID_ARGUMENT, "values: first extent ",
                  values.dims[0], " differs from the ", keys.dims[0], " keys");
    const std::uint32_t k = lookups.dims.empty() ? 0 : lookups.dims[0];
    dims_t outd(values.dims.begin(), values.dims.end());
    if (!outd.empty()) outd[0] = k;
    return shapes{outd, dims_t{k}};
  }
};

}  // namespace nnhal::types::sig
