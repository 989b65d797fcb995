// GROUPED_CONV_2D contract (HAL 1.3 types.hal, GROUPED_CONV_2D; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_conv.hpp"  // the conv family's shared shape rules

namespace nnhal::types::sig {

struct grouped_conv_2d {
  static constexpr auto op = OperationType::GROUPED_CONV_2D;
  enum class in : std::uint8_t { input, filter, bias, padding_left, padding_right, padding_top, padding_bottom, stride_width, stride_height, num_groups, activation, layout };
  enum class in_implicit : std::uint8_t { input, filter, bias, padding_scheme, stride_width, stride_height, num_groups, activation, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Two forms: explicit padding (12 inputs, `in`) and implicit padding (9 inputs, `in_implicit`).
      // The layout BOOL is mandatory. QUANT8 bias is TENSOR_INT32; a per-channel filter
      // (TENSOR_QUANT8_SYMM_PER_CHANNEL) has channelDim 0 and a bias scale of 0.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.3: TENSOR_QUANT8_ASYMM_SIGNED input and output, with a signed or per-channel filter.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output [batches, out_height, out_width, depth_out] (or NCHW); the filter is
  /// [depth_out, filter_height, filter_width, depth_in / num_groups]. No dilation.
  static status infer_into(const infer_context& c, shapes& out) {
    return detail::infer_conv_forward(c, detail::conv_kind::grouped, slots(c.inputs), out);
  }
  /// Explicit padding: 12 inputs; implicit: 9.
  static detail::conv_slots slots(std::span<const operand_desc> ins) {
    using detail::slot;
    if (ins.size() >= 12)
      return {.explicit_padding = true, .pad = slot(in::padding_left), .stride = slot(in::stride_width),
              .extra = slot(in::num_groups), .activation = slot(in::activation), .layout = slot(in::layout)};
    return {.scheme = slot(in_implicit::padding_scheme), .stride = slot(in_implicit::stride_width),
            .extra = slot(in_implicit::num_groups), .activation = slot(in_implicit::activation),
            .layout = slot(in_implicit::layout)};
  }
};

}  // namespace nnhal::types::sig
