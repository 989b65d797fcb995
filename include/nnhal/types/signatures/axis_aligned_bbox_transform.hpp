// AXIS_ALIGNED_BBOX_TRANSFORM contract (HAL 1.3 types.hal, AXIS_ALIGNED_BBOX_TRANSFORM; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

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

  /// Output [num_rois, 4 * num_classes]. Only num_rois may be zero. At execution every
  /// batch index names an image_info row and every roi has x1 <= x2, y1 <= y2.
  static result<shapes> infer(const infer_context& c) {
    namespace dd = detail::detection;
    const bool ex = c.executing;
    const auto& roi = c.inputs[0];
    const auto& deltas = c.inputs[1];
    const auto& batch = c.inputs[2];
    const auto& info = c.inputs[3];
    NNHAL_TRY(dd::check_rank(roi, 2, ex, "roi"));
    NNHAL_TRY(dd::check_rank(deltas, 2, ex, "bbox_deltas"));
    NNHAL_TRY(dd::check_rank(batch, 1, ex, "batch_index"));
    NNHAL_TRY(dd::check_rank(info, 2, ex, "image_info"));
    NNHAL_TRY(dd::check_box_quant(roi, "roi"));
    NNHAL_TRY(dd::check_box_quant(info, "image_info"));
    NNHAL_TRY(dd::check_box_quant(c.outputs[0], "output"));
    const std::uint32_t rois = std::max({dd::extent(roi, 0), dd::extent(deltas, 0), dd::extent(batch, 0)});
    const std::uint32_t cols = dd::extent(deltas, 1);
    NNHAL_TRY(dd::check_extent(roi, 0, rois, ex, "roi", "num_rois"));
    NNHAL_TRY(dd::check_extent(roi, 1, 4, ex, "roi", "4 coordinates"));
    NNHAL_TRY(dd::check_extent(deltas, 0, rois, ex, "bbox_deltas", "num_rois"));
    if (ex || cols != 0)
      NNHAL_CHECK(cols > 0 && cols % 4 == 0, ErrorStatus::INVALID_ARGUMENT, "bbox_deltas: dimension 1 is ", cols,
                  " (must be 4 * num_classes, num_classes > 0)");
    NNHAL_TRY(dd::check_extent(batch, 0, rois, ex, "batch_index", "num_rois"));
    NNHAL_TRY(dd::check_extent(info, 1, 2, ex, "image_info", "(height, width)"));
    if (ex) {
      NNHAL_CHECK(dd::extent(info, 0) > 0, ErrorStatus::INVALID_ARGUMENT, "image_info: no batches");
      NNHAL_TRY(dd::check_batch_indexes(dd::ints(batch), dd::extent(info, 0), "batch_index"));
      NNHAL_TRY(dd::check_boxes(dd::reals(roi), "roi"));
    }
    return shapes{dims_t{rois, cols}};
  }
};

}  // namespace nnhal::types::sig
