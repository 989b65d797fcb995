// TRANSPOSE contract (HAL 1.3 types.hal, TRANSPOSE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct transpose {
  static constexpr auto op = OperationType::TRANSPOSE;
  enum class in : std::uint8_t { input, perm };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. perm is "optional" in the sense of an operand without a value
      // (NO_VALUE, meaning the reversed order): it stays in the input list.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1);
};

}  // namespace nnhal::types::sig
