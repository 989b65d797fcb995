// HEATMAP_MAX_KEYPOINT contract (HAL 1.3 types.hal, HEATMAP_MAX_KEYPOINT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

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

  /// Outputs [num_boxes, num_keypoints] and [num_boxes, num_keypoints, 2]; the heatmap is
  /// square, at least 2 x 2. Quantized boxes and keypoints use scale 0.125. At execution the
  /// boxes have x1 <= x2 and y1 <= y2.
  static result<shapes> infer(const infer_context& c) {
    namespace dd = detail::detection;
    const bool ex = c.executing;
    const auto& heat = c.inputs[0];
    const auto& boxes = c.inputs[1];
    NNHAL_TRY(dd::check_rank(heat, 4, ex, "heatmap"));
    NNHAL_TRY(dd::check_rank(boxes, 2, ex, "boxes"));
    NNHAL_TRY(dd::check_box_quant(boxes, "boxes"));
    NNHAL_TRY(dd::check_box_quant(c.outputs[1], "keypoint_locations"));
    NNHAL_TRY(dd::check_present(c.inputs[2], ex, "layout"));
    const auto nchw = dd::bool_scalar(c.inputs[2]);
    const std::uint32_t n = std::max(dd::extent(heat, 0), dd::extent(boxes, 0));
    NNHAL_TRY(dd::check_extent(heat, 0, n, ex, "heatmap", "num_boxes"));
    NNHAL_TRY(dd::check_extent(boxes, 0, n, ex, "boxes", "num_boxes"));
    NNHAL_TRY(dd::check_extent(boxes, 1, 4, ex, "boxes", "4 coordinates"));
    std::uint32_t k = 0;
    if (nchw && heat.dims.size() == 4) {
      const std::uint32_t size = heat.dims[2];
      NNHAL_TRY(dd::check_extent(heat, *nchw ? 3 : 1, size, ex, "heatmap", "the heatmap's height"));
      NNHAL_TRY(dd::check_extent_at_least(heat, 2, 2, ex, "heatmap"));
      k = heat.dims[*nchw ? 1 : 3];
    }
    if (ex) NNHAL_TRY(dd::check_boxes(dd::reals(boxes), "boxes"));
    return shapes{dims_t{n, k}, dims_t{n, k, 2}};
  }
};

}  // namespace nnhal::types::sig
