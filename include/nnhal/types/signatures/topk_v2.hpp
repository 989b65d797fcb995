// TOPK_V2 contract (HAL 1.3 types.hal, TOPK_V2; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

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
};

}  // namespace nnhal::types::sig
