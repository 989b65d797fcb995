// Kernel dispatch for AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT, DETECTION_POSTPROCESSING, GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT, ROI_ALIGN and ROI_POOLING. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/axis_aligned_bbox_transform.hpp"
#include "nnhal/ops/box_with_nms_limit.hpp"
#include "nnhal/ops/detection_postprocessing.hpp"
#include "nnhal/ops/generate_proposals.hpp"
#include "nnhal/ops/heatmap_max_keypoint.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/roi_align.hpp"
#include "nnhal/ops/roi_pooling.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_detection(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::AXIS_ALIGNED_BBOX_TRANSFORM: return axis_aligned_bbox_transform::bind(c);
    case OperationType::BOX_WITH_NMS_LIMIT: return box_with_nms_limit::bind(c);
    case OperationType::DETECTION_POSTPROCESSING: return detection_postprocessing::bind(c);
    case OperationType::GENERATE_PROPOSALS: return generate_proposals::bind(c);
    case OperationType::HEATMAP_MAX_KEYPOINT: return heatmap_max_keypoint::bind(c);
    case OperationType::ROI_ALIGN: return roi_align::bind(c);
    case OperationType::ROI_POOLING: return roi_pooling::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
