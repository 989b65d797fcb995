// GENERATE_PROPOSALS contract (HAL 1.3 types.hal, GENERATE_PROPOSALS; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

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

  /// Outputs [n], [n, 4], [n]: n depends on the data (unknown, 0, at validation; computed by
  /// running the proposal selection at execution). Quantized anchors (QUANT16_SYMM), image
  /// info and output boxes use scale 0.125. At execution: finite scores, anchors with
  /// x1 <= x2 and y1 <= y2.
  static result<shapes> infer(const infer_context& c) {
    namespace dd = detail::detection;
    const bool ex = c.executing;
    const auto& scores = c.inputs[0];
    const auto& deltas = c.inputs[1];
    const auto& anchors = c.inputs[2];
    const auto& info = c.inputs[3];
    NNHAL_TRY(dd::check_rank(scores, 4, ex, "scores"));
    NNHAL_TRY(dd::check_rank(deltas, 4, ex, "bbox_deltas"));
    NNHAL_TRY(dd::check_rank(anchors, 2, ex, "anchors"));
    NNHAL_TRY(dd::check_rank(info, 2, ex, "image_info"));
    if (anchors.type == OperandType::TENSOR_QUANT16_SYMM)
      NNHAL_CHECK(anchors.scale == dd::box_scale, ErrorStatus::INVALID_ARGUMENT, "anchors: scale ", anchors.scale,
                  " (TENSOR_QUANT16_SYMM anchors need 0.125)");
    NNHAL_TRY(dd::check_box_quant(info, "image_info"));
    NNHAL_TRY(dd::check_box_quant(c.outputs[1], "rois_out"));
    const auto nchw = dd::bool_scalar(c.inputs[10]);
    const std::uint32_t batches = std::max({dd::extent(scores, 0), dd::extent(deltas, 0), dd::extent(info, 0)});
    NNHAL_TRY(dd::check_extent(scores, 0, batches, ex, "scores", "batches"));
    NNHAL_TRY(dd::check_extent(deltas, 0, batches, ex, "bbox_deltas", "batches"));
    NNHAL_TRY(dd::check_extent(info, 0, batches, ex, "image_info", "batches"));
    NNHAL_TRY(dd::check_extent(info, 1, 2, ex, "image_info", "(height, width)"));
    NNHAL_TRY(dd::check_extent(anchors, 1, 4, ex, "anchors", "4 coordinates"));
    if (nchw) {
      const std::size_t hk = *nchw ? 2 : 1, wk = *nchw ? 3 : 2, ak = *nchw ? 1 : 3;
      const std::uint32_t num_anchors = std::max(dd::extent(scores, ak), dd::extent(anchors, 0));
      NNHAL_TRY(dd::check_extent(scores, ak, num_anchors, ex, "scores", "num_anchors"));
      NNHAL_TRY(dd::check_extent(anchors, 0, num_anchors, ex, "anchors", "num_anchors"));
      NNHAL_TRY(dd::check_extent(deltas, hk, dd::extent(scores, hk), ex, "bbox_deltas", "the scores' height"));
      NNHAL_TRY(dd::check_extent(deltas, wk, dd::extent(scores, wk), ex, "bbox_deltas", "the scores' width"));
      NNHAL_TRY(dd::check_extent(deltas, ak, std::uint64_t{num_anchors} * 4, ex, "bbox_deltas", "4 * num_anchors"));
    }
    if (!ex) return shapes{dims_t{0}, dims_t{0, 4}, dims_t{0}};
    static constexpr std::string_view names[] = {"height_stride", "width_stride", "pre_nms_max_boxes",
                                                 "post_nms_max_boxes", "iou_threshold", "min_size", "layout"};
    for (std::size_t k = 4; k < 11; ++k) NNHAL_TRY(dd::check_present(c.inputs[k], ex, names[k - 4]));
    const auto s = dd::reals(scores);
    const auto a = dd::reals(anchors);
    NNHAL_TRY(dd::check_finite(s, "scores"));
    NNHAL_TRY(dd::check_boxes(a, "anchors"));
    // The proposals fix n; with an executor's scratch they are kept for the kernel.
    dd::proposals_payload local;
    dd::proposals_payload& p = c.scratch ? c.scratch->fill<dd::proposals_payload>() : local;
    dd::generate_proposals(s, dd::reals(deltas), a, dd::reals(info), params(c.inputs), dd::hard_nms_boxes, p.kept);
    const auto n = static_cast<std::uint32_t>(p.kept.scores.size());
    return shapes{dims_t{n}, dims_t{n, 4}, dims_t{n}};
  }

  /// Extents and scalars (execution: all known).
  static detail::detection::proposal_params params(std::span<const operand_desc> in) {
    namespace dd = detail::detection;
    dd::proposal_params p;
    p.nchw = dd::bool_scalar(in[10]).value_or(false);
    p.batches = dd::extent(in[0], 0);
    p.height = dd::extent(in[0], p.nchw ? 2 : 1);
    p.width = dd::extent(in[0], p.nchw ? 3 : 2);
    p.anchors = dd::extent(in[0], p.nchw ? 1 : 3);
    p.height_stride = dd::float_scalar(in[4]).value_or(1.0f);
    p.width_stride = dd::float_scalar(in[5]).value_or(1.0f);
    p.pre_nms_max = dd::int_scalar(in[6]).value_or(0);
    p.post_nms_max = dd::int_scalar(in[7]).value_or(0);
    p.iou_threshold = dd::float_scalar(in[8]).value_or(0.0f);
    p.min_size = dd::float_scalar(in[9]).value_or(0.0f);
    return p;
  }
};

}  // namespace nnhal::types::sig
