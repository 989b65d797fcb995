// BOX_WITH_NMS_LIMIT contract (HAL 1.3 types.hal, BOX_WITH_NMS_LIMIT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

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

  /// Outputs [n], [n, 4], [n], [n]: n, the number of boxes kept, depends on the data, so it
  /// is unknown (0) at validation and computed by running the selection at execution.
  /// num_classes > 1; nms_kernel 0 (hard), 1 (linear) or 2 (Gaussian, sigma > 0). At
  /// execution: finite scores, boxes with x1 <= x2 and y1 <= y2, batch indexes >= 0.
  static result<shapes> infer(const infer_context& c) {
    namespace dd = detail::detection;
    const bool ex = c.executing;
    const auto& scores = c.inputs[0];
    const auto& boxes = c.inputs[1];
    const auto& batch = c.inputs[2];
    NNHAL_TRY(dd::check_rank(scores, 2, ex, "scores"));
    NNHAL_TRY(dd::check_rank(boxes, 2, ex, "boxes"));
    NNHAL_TRY(dd::check_rank(batch, 1, ex, "batch_index"));
    NNHAL_TRY(dd::check_box_quant(boxes, "boxes"));
    NNHAL_TRY(dd::check_box_quant(c.outputs[1], "boxes_out"));
    const std::uint32_t rois = std::max({dd::extent(scores, 0), dd::extent(boxes, 0), dd::extent(batch, 0)});
    const std::uint32_t classes = dd::extent(scores, 1);
    NNHAL_TRY(dd::check_extent(scores, 0, rois, ex, "scores", "num_rois"));
    NNHAL_TRY(dd::check_extent(boxes, 0, rois, ex, "boxes", "num_rois"));
    NNHAL_TRY(dd::check_extent(boxes, 1, std::uint64_t{classes} * 4, ex, "boxes", "4 * num_classes"));
    NNHAL_TRY(dd::check_extent(batch, 0, rois, ex, "batch_index", "num_rois"));
    if (ex || classes != 0)
      NNHAL_CHECK(classes > 1, ErrorStatus::INVALID_ARGUMENT, "scores: ", classes,
                  " classes (must be > 1: class 0 is the background)");
    const auto kernel = dd::int_scalar(c.inputs[5]);
    if (kernel)
      NNHAL_CHECK(*kernel >= 0 && *kernel <= 2, ErrorStatus::INVALID_ARGUMENT, "nms_kernel: ", *kernel,
                  " (must be 0 hard, 1 linear or 2 Gaussian)");
    if (kernel == std::optional<std::int32_t>(2)) NNHAL_TRY(dd::check_positive(c.inputs[7], "sigma"));
    if (!ex) return shapes{dims_t{0}, dims_t{0, 4}, dims_t{0}, dims_t{0}};
    static constexpr std::string_view names[] = {"score_threshold", "max_num_detections", "nms_kernel",
                                                 "iou_threshold", "sigma", "nms_score_threshold"};
    for (std::size_t k = 3; k < 9; ++k) NNHAL_TRY(dd::check_present(c.inputs[k], ex, names[k - 3]));
    // The selection fixes n; with an executor's scratch it is kept for the kernel.
    dd::nms_limit_payload local;
    dd::nms_limit_payload& p = c.scratch ? c.scratch->fill<dd::nms_limit_payload>() : local;
    dd::reals_into(scores, p.scores);
    const auto b = dd::reals(boxes);
    const auto idx = dd::ints(batch);
    NNHAL_TRY(dd::check_finite(p.scores, "scores"));
    NNHAL_TRY(dd::check_boxes(b, "boxes"));
    for (std::size_t i = 0; i < idx.size(); ++i)
      NNHAL_CHECK(idx[i] >= 0, ErrorStatus::INVALID_ARGUMENT, "batch_index: element ", i, " is ", idx[i],
                  " (must be >= 0)");
    dd::select_nms_limit(p.scores, b, idx, classes, *dd::float_scalar(c.inputs[3]), *dd::int_scalar(c.inputs[4]),
                         params(c.inputs), dd::soft_nms_boxes, p.selection);
    const auto n = static_cast<std::uint32_t>(p.selection.selected.size());
    return shapes{dims_t{n}, dims_t{n, 4}, dims_t{n}, dims_t{n}};
  }

  /// The NMS parameters from the scalar inputs (execution: all present).
  static detail::detection::soft_nms_params params(std::span<const operand_desc> in) {
    namespace dd = detail::detection;
    dd::soft_nms_params p;
    p.kernel = static_cast<dd::nms_kernel>(dd::int_scalar(in[5]).value_or(0));
    p.iou_threshold = dd::float_scalar(in[6]).value_or(0.0f);
    p.sigma = dd::float_scalar(in[7]).value_or(1.0f);
    p.score_threshold = dd::float_scalar(in[8]).value_or(0.0f);
    return p;
  }
};

}  // namespace nnhal::types::sig
