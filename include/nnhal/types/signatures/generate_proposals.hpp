// GENERATE_PROPOSALS contract (HAL 1.3 types.hal, GENERATE_PROPOSALS; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct generate_proposals {
  static constexpr auto op = OperationType::GENERATE_PROPOSALS;
  enum class in : std::uint8_t { scores, bbox_deltas, anchors, image_info, height_stride, width_stride, pre_nms_max_boxes, post_nms_max_boxes, iou_threshold, min_size, layout };
  enum class out : std::uint8_t { scores_out, rois_out, batch_index_out };
  static constexpr auto rows = std::to_array<row>({
      // Float scalars follow the tensor type for floats (FLOAT16 with TENSOR_FLOAT16, as the reference
      // validation and CTS require). Quantized: QUANT16_SYMM anchors, QUANT16_ASYMM image info and
      // output boxes (the reference and CTS use QUANT16_ASYMM for image info), FLOAT32 scalars.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::FLOAT16, T::FLOAT16, T::INT32, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_ASYMM, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_ASYMM, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
