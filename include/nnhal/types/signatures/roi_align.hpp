// ROI_ALIGN contract (HAL 1.3 types.hal, ROI_ALIGN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

namespace nnhal::types::sig {

struct roi_align {
  static constexpr auto op = OperationType::ROI_ALIGN;
  enum class in : std::uint8_t { input, rois, batch_index, output_height, output_width, height_stride, width_stride, height_sampling_ratio, width_sampling_ratio, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Stride scalars follow the tensor type for floats (FLOAT16 with TENSOR_FLOAT16, as the
      // reference validation and CTS require); quantized inputs take QUANT16_ASYMM rois, FLOAT32 strides.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::INT32, T::INT32, T::FLOAT16, T::FLOAT16, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output [num_rois, out_h, out_w, depth] (NHWC) or [num_rois, depth, out_h, out_w]; see
  /// detail::detection::infer_roi. Sampling ratios >= 0 (0: adaptive).
  static result<shapes> infer(const infer_context& c) { return detail::detection::infer_roi(c, true); }
};

}  // namespace nnhal::types::sig
