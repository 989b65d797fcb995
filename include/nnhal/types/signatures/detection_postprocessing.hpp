// DETECTION_POSTPROCESSING contract (HAL 1.3 types.hal, DETECTION_POSTPROCESSING; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct detection_postprocessing {
  static constexpr auto op = OperationType::DETECTION_POSTPROCESSING;
  enum class in : std::uint8_t { scores, box_deltas, anchors, scale_y, scale_x, scale_h, scale_w, use_regular_nms, max_num_detections, max_classes_per_detection, max_detections_per_class, score_threshold, iou_threshold, include_background };
  enum class out : std::uint8_t { detection_scores, detection_boxes, detection_classes, num_detections };
  static constexpr auto rows = std::to_array<row>({
      // Float scalars follow the tensor type (the reference also uses FLOAT16 for inputs 3..6).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::INT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::FLOAT16, T::FLOAT16, T::FLOAT16, T::FLOAT16, T::BOOL, T::INT32, T::INT32, T::INT32, T::FLOAT16, T::FLOAT16, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
