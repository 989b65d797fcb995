// HASHTABLE_LOOKUP contract (HAL 1.3 types.hal, HASHTABLE_LOOKUP; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

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
};

}  // namespace nnhal::types::sig
