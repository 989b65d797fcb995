// RSQRT contract (HAL 1.3 types.hal, RSQRT; quantized forms from the AIDL OperationType.aidl).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct rsqrt {
  static constexpr auto op = OperationType::RSQRT;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      // OperationType.aidl: quantized types since NNAPI feature level 7 (AIDL V3); output scale/zeroPoint may differ.
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::AIDL_V3,
       .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED),
       .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape (any rank). Quantized outputs may have their own quantization.
  static result<shapes> infer(const infer_context& c) {
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
