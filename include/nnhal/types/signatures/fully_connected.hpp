// FULLY_CONNECTED contract (HAL 1.3 types.hal, FULLY_CONNECTED; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct fully_connected {
  static constexpr auto op = OperationType::FULLY_CONNECTED;
  enum class in : std::uint8_t { input, weights, bias, activation };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // QUANT8 bias is TENSOR_INT32 (scale input_scale * weights_scale). Before 1.2 a QUANT8_ASYMM
      // output also needs output_scale > input_scale * weights_scale (a value rule).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
};

}  // namespace nnhal::types::sig
