// TRANSPOSE_CONV_2D contract (HAL 1.3 types.hal, TRANSPOSE_CONV_2D; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_conv.hpp"  // the conv family's shared shape rules

namespace nnhal::types::sig {

struct transpose_conv_2d {
  static constexpr auto op = OperationType::TRANSPOSE_CONV_2D;
  enum class in : std::uint8_t { input, filter, bias, padding_left, padding_right, padding_top, padding_bottom, stride_width, stride_height, activation, layout };
  enum class in_implicit : std::uint8_t { input, filter, bias, output_shape, padding_scheme, stride_width, stride_height, activation, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Two forms: explicit padding (11 inputs, `in`) and implicit padding (9 inputs, `in_implicit`),
      // whose input 3 is a TENSOR_INT32 output shape. The layout BOOL is mandatory. QUANT8 bias is
      // TENSOR_INT32; a per-channel filter (TENSOR_QUANT8_SYMM_PER_CHANNEL) has channelDim 0.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.3: TENSOR_QUANT8_ASYMM_SIGNED input and output, with a signed or per-channel filter.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM_PER_CHANNEL, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output [batches, out_height, out_width, depth_out] (or NCHW) with out = stride x
  /// (in - 1) + filter - padding per axis. The implicit form derives its padding from the
  /// output shape operand (AOSP calculateExplicitPaddingTransposeConv); the inferred
  /// shape is then computed from that padding, as the reference does. Only batches may be 0.
  static status infer_into(const infer_context& c, shapes& out);

  /// Explicit padding: 11 inputs; implicit: 9, input 3 being the output shape.
  static detail::conv_slots slots(std::span<const operand_desc> ins) {
    using detail::slot;
    if (ins.size() >= 11)
      return {.explicit_padding = true, .pad = slot(in::padding_left), .stride = slot(in::stride_width),
              .activation = slot(in::activation), .layout = slot(in::layout)};
    return {.scheme = slot(in_implicit::padding_scheme), .output_shape = slot(in_implicit::output_shape),
            .stride = slot(in_implicit::stride_width), .activation = slot(in_implicit::activation),
            .layout = slot(in_implicit::layout)};
  }
};

inline status transpose_conv_2d::infer_into(const infer_context& c, shapes& out) {
  using namespace detail;
  const auto& input = c.inputs[0];
  const auto& filter = c.inputs[1];
  const auto& bias = c.inputs[2];
  NNHAL_TRY(check_rank_is(input, 4, "input", c.executing));
  NNHAL_TRY(check_rank_is(filter, 4, "filter", c.executing));
  NNHAL_TRY(check_rank_is(bias, 1, "bias", c.executing));
  NNHAL_TRY(check_conv_quant(c, 0));
  const conv_slots s = slots(c.inputs);
  const conv_values v = conv_values_of(s, c.inputs);
  NNHAL_TRY(check_conv_values(v, conv_kind::transpose));

  auto known = [&](std::uint32_t x) { return c.executing || x != 0; };
  const bool nchw = v.nchw.value_or(false);
  const auto [batches, in_h, in_w, in_c, out_c, f3, bias_n] = conv_dims_of(input, filter, bias, v);
  if (known(out_c) && known(bias_n))
    NNHAL_CHECK(bias_n == out_c, ErrorStatus::INVALID_ARGUMENT, "bias: ", bias_n, " values for ", out_c,
                " output channels");
  if (known(in_c) && known(f3))
    NNHAL_CHECK(f3 == in_c, ErrorStatus::INVALID_ARGUMENT, "filter: depth_in ", f3, " differs from the input's ",
                in_c, " channels");
  if (c.executing) {
    NNHAL_CHECK(in_h > 0 && in_w > 0 && in_c > 0, ErrorStatus::INVALID_ARGUMENT, "input: ",
                format_dims(input.dims), " has a zero height, width or depth (only batches may be 0)");
    NNHAL_CHECK(out_c > 0, ErrorStatus::INVALID_ARGUMENT, "filter: zero output channels");
  }
  std::optional<std::int32_t> want_h, want_w;
  if (!s.explicit_padding) {
    const auto& shape = c.inputs[static_cast<std::size_t>(s.output_shape)];
    if (c.executing || !shape.dims.empty())
      NNHAL_CHECK(shape.dims.size() == 1, ErrorStatus::INVALID_ARGUMENT, "output_shape: rank ", shape.dims.size(),
                  " (must be 1)");
    if (!shape.dims.empty() && known(shape.dims[0]))
      NNHAL_CHECK(shape.dims[0] == 4, ErrorStatus::INVALID_ARGUMENT, "output_shape: ", shape.dims[0],
                  " values (must be 4)");
    NNHAL_CHECK(shape.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "output_shape: no value");
    if (shape.has_value() && shape.value_size >= 4 * sizeof(std::int32_t) && v.nchw) {
      want_h = shape.at<std::int32_t>(nchw ? 2 : 1);
      want_w = shape.at<std::int32_t>(nchw ? 3 : 2);
    }
  }
  const conv_axis ax_h{"height", in_h, dim_or_unknown(filter, 1), v.stride_h, 1, v.pad[2], v.pad[3],
                       "padding_top", "padding_bottom"};
  const conv_axis ax_w{"width", in_w, dim_or_unknown(filter, 2), v.stride_w, 1, v.pad[0], v.pad[1],
                       "padding_left", "padding_right"};
  auto out_h = transpose_out_extent(ax_h, v.scheme, want_h, s.explicit_padding, c.executing);
  if (!out_h) return std::move(out_h).err();
  auto out_w = transpose_out_extent(ax_w, v.scheme, want_w, s.explicit_padding, c.executing);
  if (!out_w) return std::move(out_w).err();
  return place_conv_output(c, v.nchw, batches, out_c, *out_h, *out_w, out);
}

}  // namespace nnhal::types::sig
