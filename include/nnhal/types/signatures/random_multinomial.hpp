// RANDOM_MULTINOMIAL contract (HAL 1.3 types.hal, RANDOM_MULTINOMIAL; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct random_multinomial {
  static constexpr auto op = OperationType::RANDOM_MULTINOMIAL;
  enum class in : std::uint8_t { input, sample_count, seeds };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
