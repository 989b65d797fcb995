// CONV_2D contract (HAL 1.3 types.hal, CONV_2D; AIDL keeps it unchanged). The shape rules
// the convolution family shares live in detail_conv.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"
#include "nnhal/types/signatures/detail_conv.hpp"

namespace nnhal::types::sig {

struct conv_2d {
  static constexpr auto op = OperationType::CONV_2D;
  enum class in : std::uint8_t { input, filter, bias, padding_left, padding_right, padding_top, padding_bottom, stride_width, stride_height, activation, layout, dilation_width, dilation_height };
  enum class in_implicit : std::uint8_t { input, filter, bias, padding_scheme, stride_width, stride_height, activation, layout, dilation_width, dilation_height };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Two forms, told apart by the input count and the type of input 7: explicit padding
      // (10, 11 or 13 inputs, `in`) and implicit padding (7, 8 or 10 inputs, `in_implicit`).
      // Since 1.2 an optional layout BOOL may follow, then the two dilation factors, which come
      // together or not at all. The upstream runtime drops trailing layout/dilation inputs equal
      // to their defaults (false, 1, 1) before version checks, so such a model still counts as 1.0.
      // QUANT8 bias is TENSOR_INT32. Before 1.2 a QUANT8_ASYMM output also needs
      // output_scale > input_scale * filter_scale (a value rule; otherwise the model needs 1.2).
      // 1.0: TENSOR_FLOAT32 and TENSOR_QUANT8_ASYMM, without layout or dilation.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.2: layout and dilation for the 1.0 types; TENSOR_FLOAT16; per-channel filters
      // (TENSOR_QUANT8_SYMM_PER_CHANNEL, channelDim 0, bias scale 0).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.3: TENSOR_QUANT8_ASYMM_SIGNED input and output, with a signed or per-channel filter.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 10},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 7},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 10},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 7},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC, dilation 1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}, {T::INT32, 1}});

  /// Explicit padding: 10, 11 or 13 inputs with an INT32 input 7 (stride_width).
  static detail::conv_slots slots(std::span<const operand_desc> ins) {
    using detail::slot;
    if (ins.size() >= 10 && detail::is_int32_at(ins, in::stride_width))
      return {.explicit_padding = true, .pad = slot(in::padding_left), .stride = slot(in::stride_width),
              .activation = slot(in::activation), .layout = slot(in::layout), .dilation = slot(in::dilation_width)};
    return {.scheme = slot(in_implicit::padding_scheme), .stride = slot(in_implicit::stride_width),
            .activation = slot(in_implicit::activation), .layout = slot(in_implicit::layout),
            .dilation = slot(in_implicit::dilation_width)};
  }
  /// Output [batches, out_height, out_width, depth_out] (or NCHW); see infer_conv_forward.
  static status infer_into(const infer_context& c, shapes& out) {
    return detail::infer_conv_forward(c, detail::conv_kind::conv, slots(c.inputs), out);
  }
};

}  // namespace nnhal::types::sig
