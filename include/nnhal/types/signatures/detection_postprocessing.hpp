// DETECTION_POSTPROCESSING contract (HAL 1.3 types.hal, DETECTION_POSTPROCESSING; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

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

  /// Outputs [batches, d], [batches, d, 4], [batches, d], [batches] with d = max_num_detections,
  /// times max_classes_per_detection for the fast (non-regular) NMS. Scales > 0, thresholds
  /// >= 0, num_classes > 1, box encoding length >= 4. At execution: finite scores.
  static result<shapes> infer(const infer_context& c) {
    namespace dd = detail::detection;
    const bool ex = c.executing;
    const auto& scores = c.inputs[0];
    const auto& deltas = c.inputs[1];
    const auto& anchors = c.inputs[2];
    NNHAL_TRY(dd::check_rank(scores, 3, ex, "scores"));
    NNHAL_TRY(dd::check_rank(deltas, 3, ex, "box_deltas"));
    NNHAL_TRY(dd::check_rank(anchors, 2, ex, "anchors"));
    const std::uint32_t batches = std::max(dd::extent(scores, 0), dd::extent(deltas, 0));
    const std::uint32_t num_anchors = std::max({dd::extent(scores, 1), dd::extent(deltas, 1), dd::extent(anchors, 0)});
    NNHAL_TRY(dd::check_extent(scores, 0, batches, ex, "scores", "batches"));
    NNHAL_TRY(dd::check_extent(deltas, 0, batches, ex, "box_deltas", "batches"));
    NNHAL_TRY(dd::check_extent(scores, 1, num_anchors, ex, "scores", "num_anchors"));
    NNHAL_TRY(dd::check_extent(deltas, 1, num_anchors, ex, "box_deltas", "num_anchors"));
    NNHAL_TRY(dd::check_extent(anchors, 0, num_anchors, ex, "anchors", "num_anchors"));
    NNHAL_TRY(dd::check_extent(anchors, 1, 4, ex, "anchors", "(ctr_y, ctr_x, h, w)"));
    NNHAL_TRY(dd::check_extent_at_least(deltas, 2, 4, ex, "box_deltas"));
    if (scores.dims.size() == 3 && (ex || scores.dims[2] != 0))
      NNHAL_CHECK(scores.dims[2] > 1, ErrorStatus::INVALID_ARGUMENT, "scores: ", scores.dims[2],
                  " classes (must be > 1: class 0 is the background)");
    NNHAL_TRY(dd::check_positive(c.inputs[3], "scale_y"));
    NNHAL_TRY(dd::check_positive(c.inputs[4], "scale_x"));
    NNHAL_TRY(dd::check_positive(c.inputs[5], "scale_h"));
    NNHAL_TRY(dd::check_positive(c.inputs[6], "scale_w"));
    NNHAL_TRY(dd::check_positive(c.inputs[11], "score_threshold", true));
    NNHAL_TRY(dd::check_positive(c.inputs[12], "iou_threshold", true));
    static constexpr std::string_view names[] = {"scale_y", "scale_x", "scale_h", "scale_w", "use_regular_nms",
                                                 "max_num_detections", "max_classes_per_detection",
                                                 "max_num_detections_per_class", "score_threshold",
                                                 "iou_threshold", "include_background"};
    for (std::size_t k = 3; k < 14; ++k) NNHAL_TRY(dd::check_present(c.inputs[k], ex, names[k - 3]));
    const auto regular = dd::bool_scalar(c.inputs[7]);
    const auto max_det = dd::int_scalar(c.inputs[8]);
    const auto max_classes = dd::int_scalar(c.inputs[9]);
    const auto max_per_class = dd::int_scalar(c.inputs[10]);
    if (max_det)
      NNHAL_CHECK(*max_det > 0, ErrorStatus::INVALID_ARGUMENT, "max_num_detections: ", *max_det, " (must be > 0)");
    if (regular == std::optional<bool>(true) && max_per_class)
      NNHAL_CHECK(*max_per_class > 0, ErrorStatus::INVALID_ARGUMENT, "max_num_detections_per_class: ", *max_per_class,
                  " (must be > 0 with regular NMS)");
    if (regular == std::optional<bool>(false) && max_classes)
      NNHAL_CHECK(*max_classes > 0, ErrorStatus::INVALID_ARGUMENT, "max_classes_per_detection: ", *max_classes,
                  " (must be > 0 with fast NMS)");
    std::uint32_t d = 0;
    if (regular && max_det && (*regular || max_classes)) {
      const std::uint64_t per_batch = std::uint64_t(*max_det) * (*regular ? 1u : std::uint64_t(*max_classes));
      NNHAL_CHECK(per_batch * 4 * std::max<std::uint64_t>(batches, 1) <= std::numeric_limits<std::int32_t>::max(),
                  ErrorStatus::INVALID_ARGUMENT, "max_num_detections: ", per_batch,
                  " detections per batch overflow the outputs");
      d = static_cast<std::uint32_t>(per_batch);
    }
    if (ex) NNHAL_TRY(dd::check_finite(dd::reals(scores), "scores"));
    return shapes{dims_t{batches, d}, dims_t{batches, d, 4}, dims_t{batches, d}, dims_t{batches}};
  }
};

}  // namespace nnhal::types::sig
