// HEATMAP_MAX_KEYPOINT contract (HAL 1.3 types.hal, HEATMAP_MAX_KEYPOINT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct heatmap_max_keypoint {
  static constexpr auto op = OperationType::HEATMAP_MAX_KEYPOINT;
  enum class in : std::uint8_t { heatmap, boxes, layout };
  enum class out : std::uint8_t { keypoint_scores, keypoint_locations };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16)},
      // Quantized heatmaps take QUANT16_ASYMM boxes and keypoint locations.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM)},
  });
};

}  // namespace nnhal::types::sig
