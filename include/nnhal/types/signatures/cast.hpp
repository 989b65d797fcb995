// CAST contract (HAL 1.3 types.hal, CAST; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct cast {
  static constexpr auto op = OperationType::CAST;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // any of FLOAT16, FLOAT32, INT32, QUANT8_ASYMM to any of them (identity included);
      // quantization parameters are ignored: values are converted as raw numbers.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // since 1.3: identity casts of these types (INT32 identity is already a 1.2 row).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_BOOL8), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT16_ASYMM), .outputs = outs(T::TENSOR_QUANT16_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT16_SYMM), .outputs = outs(T::TENSOR_QUANT16_SYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_SYMM), .outputs = outs(T::TENSOR_QUANT8_SYMM)},
  });
  /// Output shape = input shape (any rank).
  static result<shapes> infer(const infer_context& c) {
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
