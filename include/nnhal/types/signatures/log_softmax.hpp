// LOG_SOFTMAX contract (HAL 1.3 types.hal, LOG_SOFTMAX; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct log_softmax {
  static constexpr auto op = OperationType::LOG_SOFTMAX;
  enum class in : std::uint8_t { input, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // beta follows the tensor type (FLOAT16 for TENSOR_FLOAT16); the axis is mandatory.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
  });
};

}  // namespace nnhal::types::sig
