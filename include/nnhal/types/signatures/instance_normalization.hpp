// INSTANCE_NORMALIZATION contract (HAL 1.3 types.hal, INSTANCE_NORMALIZATION; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct instance_normalization {
  static constexpr auto op = OperationType::INSTANCE_NORMALIZATION;
  enum class in : std::uint8_t { input, gamma, beta, epsilon, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // gamma, beta and epsilon follow the tensor type; the layout BOOL is mandatory.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::FLOAT16, T::FLOAT16, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
  });
};

}  // namespace nnhal::types::sig
