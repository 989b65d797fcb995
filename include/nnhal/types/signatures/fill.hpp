// FILL contract (HAL 1.3 types.hal, FILL; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct fill {
  static constexpr auto op = OperationType::FILL;
  enum class in : std::uint8_t { shape, value };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The value scalar's type follows the output tensor's type.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
