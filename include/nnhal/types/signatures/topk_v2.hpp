// TOPK_V2 contract (HAL 1.3 types.hal, TOPK_V2; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct topk_v2 {
  static constexpr auto op = OperationType::TOPK_V2;
  enum class in : std::uint8_t { input, k };
  enum class out : std::uint8_t { values, indices };
  static constexpr auto rows = std::to_array<row>({
      // values take the input type (QUANT8: same scale and zeroPoint); indices are TENSOR_INT32.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32)},
  });

  /// Input rank >= 1; 1 <= k <= the last extent. Both outputs take the input's shape
  /// with the last extent replaced by k. Zero-sized leading extents give zero-sized
  /// outputs; a zero last extent leaves no valid k.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "values"));
    const auto k_v = c.inputs[1].scalar<std::int32_t>();
    NNHAL_CHECK(k_v || !c.executing, ErrorStatus::INVALID_ARGUMENT, "k: no value at execution");
    if (k_v) NNHAL_CHECK(*k_v >= 1, ErrorStatus::INVALID_ARGUMENT, "k: ", *k_v, " must be >= 1");
    const bool rank_known = c.executing || !input.dims.empty();
    if (!rank_known) return shapes{dims_t{}, dims_t{}};
    NNHAL_CHECK(!input.dims.empty(), ErrorStatus::INVALID_ARGUMENT, "input: rank 0; TOPK_V2 needs rank >= 1");
    const std::uint32_t last = input.dims.back();
    if (k_v && (c.executing || last != 0))
      NNHAL_CHECK(static_cast<std::uint32_t>(*k_v) <= last, ErrorStatus::INVALID_ARGUMENT, "k: ", *k_v,
                  " exceeds the last dimension's extent ", last, " of input ", format_dims(input.dims));
    dims_t out(input.dims.begin(), input.dims.end());
    out.back() = k_v ? static_cast<std::uint32_t>(*k_v) : 0;
    return shapes{out, out};
  }
};

}  // namespace nnhal::types::sig
