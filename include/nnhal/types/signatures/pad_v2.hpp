// PAD_V2 contract (HAL 1.3 types.hal, PAD_V2; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct pad_v2 {
  static constexpr auto op = OperationType::PAD_V2;
  enum class in : std::uint8_t { input, paddings, pad_value };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // pad_value follows the tensor: FLOAT16 / FLOAT32 for float tensors, INT32 (a quantized
      // value with input0's scale and zeroPoint) for the 8-bit quantized tensors.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
};

}  // namespace nnhal::types::sig
