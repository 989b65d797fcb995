// SPLIT contract (HAL 1.3 types.hal, SPLIT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct split {
  static constexpr auto op = OperationType::SPLIT;
  enum class in : std::uint8_t { input, axis, num_splits };
  enum class out : std::uint8_t { output };  // repeats: outputs 0 ~ (num_splits - 1)
  static constexpr auto rows = std::to_array<row>({
      // One output per split, all of input0's type; their count must equal num_splits (a value
      // rule, checked with the shapes).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_INT32), .repeat_out = 0},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .repeat_out = 0},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .repeat_out = 0},
  });
};

}  // namespace nnhal::types::sig
