// QUANTIZE contract (HAL 1.3 types.hal, QUANTIZE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct quantize {
  static constexpr auto op = OperationType::QUANTIZE;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // every supported float input type to every supported quantized output type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape (any rank, zero-sized allowed); the output quantization is free.
  static result<shapes> infer(const infer_context& c) {
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
