// BOX_WITH_NMS_LIMIT contract (HAL 1.3 types.hal, BOX_WITH_NMS_LIMIT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct box_with_nms_limit {
  static constexpr auto op = OperationType::BOX_WITH_NMS_LIMIT;
  enum class in : std::uint8_t { scores, boxes, batch_index, score_threshold, max_num_detections, nms_kernel, iou_threshold, sigma, nms_score_threshold };
  enum class out : std::uint8_t { scores_out, boxes_out, classes_out, batch_index_out };
  static constexpr auto rows = std::to_array<row>({
      // Float scalars follow the score type for floats (FLOAT16 with TENSOR_FLOAT16, as the reference
      // validation and CTS require); quantized scores use FLOAT32 scalars and QUANT16_ASYMM boxes.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::FLOAT16, T::INT32, T::INT32, T::FLOAT16, T::FLOAT16, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::FLOAT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
