// RESIZE_BILINEAR contract (HAL 1.3 types.hal, RESIZE_BILINEAR; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct resize_bilinear {
  static constexpr auto op = OperationType::RESIZE_BILINEAR;
  // width/height: the output size (INT32, "resizing by shape") or the scale factors
  // ("resizing by scale", since HAL 1.2: FLOAT16 for a TENSOR_FLOAT16 input, FLOAT32
  // otherwise); both take the same type.
  enum class in : std::uint8_t { input, width, height, layout, align_corners, half_pixel_centers };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The three BOOL flags are optional trailing inputs: layout added in HAL 1.2,
      // align_corners and half_pixel_centers in HAL 1.3 (not both true). A flag set to false
      // (the default) is the same as leaving it off, so each row accepts them from its own
      // version; a flag set to true (or not a constant) needs the version it was added in --
      // a value rule infer() applies.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::FLOAT16, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 3},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 3},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::FLOAT32, T::FLOAT32, T::BOOL, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 3},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});

  /// See detail::spatial::infer_resize. Quantized outputs keep the input's scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    static constexpr std::array flag_since{V::V1_2, V::V1_3, V::V1_3};  // layout, align_corners, half_pixel
    return detail::spatial::infer_resize(c, 3, flag_since);
  }
};

}  // namespace nnhal::types::sig
