// PAD contract (HAL 1.3 types.hal, PAD; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct pad {
  static constexpr auto op = OperationType::PAD;
  enum class in : std::uint8_t { input, paddings };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. A TENSOR_QUANT8_ASYMM input with a non-zero zeroPoint needs
      // HAL 1.2 (before that the pad value was undefined); infer() raises the version for it.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// output[i] = paddings[i][0] + input[i] + paddings[i][1]; input rank 1..4, paddings
  /// [rank, 2] and >= 0; quantized outputs keep the input's scale and zeroPoint (the pad
  /// value is the quantized zero). A TENSOR_QUANT8_ASYMM zeroPoint != 0 needs HAL 1.2.
  static result<shapes> infer(const infer_context& c) {
    detail::spatial::raise_for_nonzero_pad_zero_point(c, c.inputs[0]);
    return detail::spatial::infer_pad(c, 4);
  }
};

}  // namespace nnhal::types::sig
