// AXIS_ALIGNED_BBOX_TRANSFORM contract (HAL 1.3 types.hal, AXIS_ALIGNED_BBOX_TRANSFORM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct axis_aligned_bbox_transform {
  static constexpr auto op = OperationType::AXIS_ALIGNED_BBOX_TRANSFORM;
  enum class in : std::uint8_t { roi, bbox_deltas, batch_index, image_info };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      // Quantized: QUANT16_ASYMM boxes and image info with QUANT8 deltas.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT16_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_QUANT16_ASYMM), .outputs = outs(T::TENSOR_QUANT16_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT16_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_QUANT16_ASYMM), .outputs = outs(T::TENSOR_QUANT16_ASYMM)},
  });
};

}  // namespace nnhal::types::sig
