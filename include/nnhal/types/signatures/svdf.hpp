// SVDF contract (HAL 1.3 types.hal, SVDF; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct svdf {
  static constexpr auto op = OperationType::SVDF;
  enum class in : std::uint8_t { input, weights_feature, weights_time, bias, state_in, rank, fused_activation_function };
  enum class out : std::uint8_t { state_out, output };
  static constexpr auto rows = std::to_array<row>({
      // All tensors share one type; bias may be a NO_VALUE operand of that type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(3);
};

}  // namespace nnhal::types::sig
