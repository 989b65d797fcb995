// GROUPED_CONV_2D contract (HAL 1.3 types.hal, GROUPED_CONV_2D; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct grouped_conv_2d {
  static constexpr auto op = OperationType::GROUPED_CONV_2D;
  enum class in : std::uint8_t { input, filter, bias, padding_left, padding_right, padding_top, padding_bottom, stride_width, stride_height, num_groups, activation, layout };
  enum class in_implicit : std::uint8_t { input, filter, bias, padding_scheme, stride_width, stride_height, num_groups, activation, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Two forms: explicit padding (12 inputs, `in`) and implicit padding (9 inputs, `in_implicit`).
      // The layout BOOL is mandatory. QUANT8 bias is TENSOR_INT32; a per-channel filter
      // (TENSOR_QUANT8_SYMM_PER_CHANNEL) has channelDim 0 and a bias scale of 0.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.3: TENSOR_QUANT8_ASYMM_SIGNED input and output, with a signed or per-channel filter.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
};

}  // namespace nnhal::types::sig
