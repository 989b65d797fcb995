// EMBEDDING_LOOKUP contract (HAL 1.3 types.hal, EMBEDDING_LOOKUP; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

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
};

}  // namespace nnhal::types::sig
