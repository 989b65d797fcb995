// Kernel dispatch for the spatial data-movement operations: PAD, PAD_V2, MIRROR_PAD,
// BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, DEPTH_TO_SPACE, SPACE_TO_DEPTH, CHANNEL_SHUFFLE,
// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR. Binds only its own operations and returns
// nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/batch_to_space_nd.hpp"
#include "nnhal/ops/channel_shuffle.hpp"
#include "nnhal/ops/depth_to_space.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/mirror_pad.hpp"
#include "nnhal/ops/pad.hpp"
#include "nnhal/ops/pad_v2.hpp"
#include "nnhal/ops/resize_bilinear.hpp"
#include "nnhal/ops/resize_nearest_neighbor.hpp"
#include "nnhal/ops/space_to_batch_nd.hpp"
#include "nnhal/ops/space_to_depth.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_shape_spatial(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::PAD: return pad::bind(c);
    case OperationType::PAD_V2: return pad_v2::bind(c);
    case OperationType::MIRROR_PAD: return mirror_pad::bind(c);
    case OperationType::BATCH_TO_SPACE_ND: return batch_to_space_nd::bind(c);
    case OperationType::SPACE_TO_BATCH_ND: return space_to_batch_nd::bind(c);
    case OperationType::DEPTH_TO_SPACE: return depth_to_space::bind(c);
    case OperationType::SPACE_TO_DEPTH: return space_to_depth::bind(c);
    case OperationType::CHANNEL_SHUFFLE: return channel_shuffle::bind(c);
    case OperationType::RESIZE_BILINEAR: return resize_bilinear::bind(c);
    case OperationType::RESIZE_NEAREST_NEIGHBOR: return resize_nearest_neighbor::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
