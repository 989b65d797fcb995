// RELU6 contract (HAL 1.3 types.hal, RELU6; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct relu6 {
  static constexpr auto op = OperationType::RELU6;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // quantized output keeps the input's scale and zeroPoint.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape; rank <= 4; quantized output keeps the input's quantization.
  static result<shapes> infer(const infer_context& c) {
    NNHAL_TRY(detail::check_rank_at_most(c.inputs[0], 4, "input"));
    NNHAL_TRY(detail::check_same_quant(c.inputs[0], c.outputs[0], "output"));
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
