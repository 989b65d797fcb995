// SELECT contract (HAL 1.3 types.hal, SELECT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct select {
  static constexpr auto op = OperationType::SELECT;
  enum class in : std::uint8_t { mask, input1, input2 };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // the mask is TENSOR_BOOL8; input1, input2 and the output share one type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
};

}  // namespace nnhal::types::sig
