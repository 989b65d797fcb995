// Shape rules the convolution family shares (CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D,
// TRANSPOSE_CONV_2D, FULLY_CONNECTED): where each scalar sits, implicit padding, output
// extents and the filter/bias/output quantization checks.
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

namespace nnhal::types::sig {

namespace detail {

/// Implicit padding schemes (types.hal PaddingCode). NONE (0) pads nothing, as VALID does.
inline constexpr std::int32_t padding_none = 0, padding_same = 1, padding_valid = 2;

enum class conv_kind : std::uint8_t { conv, depthwise, grouped, transpose };

/// Input index of each scalar of a conv-like operation in the form at hand; -1 when the
/// form has none. An index past the end of the input list is an omitted trailing input.
/// Each operation's signature fills it from its `in` / `in_implicit` roles (`slots()`).
struct conv_slots {
  bool explicit_padding = false;
  int pad = -1;           // padding_left, then _right, _top, _bottom
  int scheme = -1;        // implicit padding scheme
  int output_shape = -1;  // TRANSPOSE_CONV_2D implicit form: the requested output shape
  int stride = -1;        // stride_width, then stride_height
  int extra = -1;         // depth_multiplier (DEPTHWISE_CONV_2D) or num_groups (GROUPED_CONV_2D)
  int activation = -1;
  int layout = -1;
  int dilation = -1;  // dilation_width, then dilation_height
};
using conv_slots_fn = conv_slots (*)(std::span<const operand_desc>);

/// The input index of an operand role.
template <class Role>
constexpr int slot(Role r) noexcept {
  return static_cast<int>(r);
}
/// Whether input `role` exists and is an INT32 scalar: how a signature tells its explicit
/// form from its implicit one where their input counts overlap.
template <class Role>
constexpr bool is_int32_at(std::span<const operand_desc> in, Role role) noexcept {
  const auto i = static_cast<std::size_t>(role);
  return i < in.size() && in[i].type == OperandType::INT32;
}

/// The scalars of a conv-like operation: nullopt where the value is not known (a
/// non-constant operand at validation); absent trailing inputs hold their defaults
/// (NHWC, dilation 1).
struct conv_values {
  std::optional<std::int32_t> pad[4];  // left, right, top, bottom (explicit form)
  std::optional<std::int32_t> scheme;  // implicit form
  std::optional<std::int32_t> stride_w, stride_h, dilation_w, dilation_h, extra, activation;
  std::optional<bool> nchw;
};

inline std::optional<std::int32_t> conv_int(std::span<const operand_desc> in, int i, std::int32_t absent) {
  if (i < 0 || static_cast<std::size_t>(i) >= in.size()) return absent;
  return in[static_cast<std::size_t>(i)].scalar<std::int32_t>();
}

inline conv_values conv_values_of(const conv_slots& s, std::span<const operand_desc> in) {
  conv_values v;
  if (s.explicit_padding) {
    for (int k = 0; k < 4; ++k) v.pad[k] = conv_int(in, s.pad + k, 0);
  } else {
    v.scheme = conv_int(in, s.scheme, padding_none);
  }
  v.stride_w = conv_int(in, s.stride, 1);
  v.stride_h = conv_int(in, s.stride + 1, 1);
  v.dilation_w = s.dilation < 0 ? 1 : conv_int(in, s.dilation, 1);
  v.dilation_h = s.dilation < 0 ? 1 : conv_int(in, s.dilation + 1, 1);
  v.extra = conv_int(in, s.extra, 1);
  v.activation = conv_int(in, s.activation, 0);
  if (s.layout < 0 || static_cast<std::size_t>(s.layout) >= in.size()) {
    v.nchw = false;
  } else if (auto b = in[static_cast<std::size_t>(s.layout)].scalar<std::uint8_t>()) {
    v.nchw = *b != 0;
  }
  return v;
}

/// Value rules of the scalars (AOSP's conv parameter checks).
inline status check_conv_values(const conv_values& v, conv_kind k) {
  static constexpr std::string_view pad_names[4] = {"padding_left", "padding_right", "padding_top", "padding_bottom"};
  for (int i = 0; i < 4; ++i) {
    // TRANSPOSE_CONV_2D may pad the right and bottom by a negative amount: that is how
    // an output extent that is not a whole number of strides is asked for.
    if (!v.pad[i] || (k == conv_kind::transpose && (i == 1 || i == 3))) continue;
    NNHAL_CHECK(*v.pad[i] >= 0, ErrorStatus::INVALID_ARGUMENT, pad_names[i], ": ", *v.pad[i], " is negative");
  }
  if (v.scheme)
    NNHAL_CHECK(*v.scheme >= padding_none && *v.scheme <= padding_valid, ErrorStatus::INVALID_ARGUMENT,
                "padding_scheme: ", *v.scheme, " is not 0 (NONE), 1 (SAME) or 2 (VALID)");
  if (v.stride_w)
    NNHAL_CHECK(*v.stride_w > 0, ErrorStatus::INVALID_ARGUMENT, "stride_width: ", *v.stride_w, " must be > 0");
  if (v.stride_h)
    NNHAL_CHECK(*v.stride_h > 0, ErrorStatus::INVALID_ARGUMENT, "stride_height: ", *v.stride_h, " must be > 0");
  if (v.dilation_w)
    NNHAL_CHECK(*v.dilation_w > 0, ErrorStatus::INVALID_ARGUMENT, "dilation_width: ", *v.dilation_w, " must be > 0");
  if (v.dilation_h)
    NNHAL_CHECK(*v.dilation_h > 0, ErrorStatus::INVALID_ARGUMENT, "dilation_height: ", *v.dilation_h, " must be > 0");
  if (v.extra)
    NNHAL_CHECK(*v.extra > 0, ErrorStatus::INVALID_ARGUMENT,
                k == conv_kind::depthwise ? "depth_multiplier: " : "num_groups: ", *v.extra, " must be > 0");
  if (v.activation)
    NNHAL_CHECK(is_valid_activation(*v.activation), ErrorStatus::INVALID_ARGUMENT, "activation: ", *v.activation,
                " is not a FusedActivationFunc (0..3)");
  return {};
}

/// Head and tail padding an implicit scheme gives one spatial axis (AOSP
/// calculateExplicitPadding): SAME pads so that out = ceil(in / stride), the odd pixel
/// going to the tail. For TRANSPOSE_CONV_2D `in` is the requested output extent and the
/// tail may go negative so the output ends exactly at the last stride.
struct conv_pad {
  std::int64_t head = 0, tail = 0;
};
inline conv_pad implicit_padding(std::int64_t in, std::int64_t stride, std::int64_t dilation, std::int64_t filter,
                                 std::int32_t scheme, bool transpose) noexcept {
  conv_pad p;
  if (scheme != padding_same || stride <= 0) return p;
  const std::int64_t effective = (filter - 1) * dilation + 1;
  const std::int64_t out = (in + stride - 1) / stride;
  const std::int64_t needed = (out - 1) * stride + effective;
  if (needed > in) {
    p.head = (needed - in) / 2;
    p.tail = needed - in - p.head;
  }
  if (transpose) p.tail = needed - in - p.head;
  return p;
}

/// One spatial axis of a conv-like operation, as inference sees it (0: unknown extent
/// at validation; at execution 0 is a real extent).
struct conv_axis {
  std::string_view name;  // "width" / "height"
  std::uint32_t in = 0;
  std::uint32_t filter = 0;
  std::optional<std::int32_t> stride, dilation, head, tail;  // head/tail: explicit padding
  std::string_view head_name, tail_name;
};

inline constexpr std::int64_t max_extent = std::numeric_limits<std::uint32_t>::max();

/// Output extent of a forward convolution along one axis: (in + pads - effective) /
/// stride + 1, where effective = (filter - 1) * dilation + 1. 0 when not yet known.
inline result<std::uint32_t> forward_out_extent(const conv_axis& a, std::optional<std::int32_t> scheme,
                                                bool explicit_padding, bool executing) {
  if (executing) NNHAL_CHECK(a.filter > 0, ErrorStatus::INVALID_ARGUMENT, "filter: zero ", a.name);
  if (a.filter == 0 || !a.stride || !a.dilation) return 0u;
  const std::int64_t effective = (std::int64_t{a.filter} - 1) * *a.dilation + 1;
  std::int64_t head = 0, tail = 0;
  if (explicit_padding) {
    // AOSP rejects a padding that reaches past the whole (dilated) filter.
    if (a.head)
      NNHAL_CHECK(*a.head < effective, ErrorStatus::INVALID_ARGUMENT, a.head_name, ": ", *a.head,
                  " is not smaller than the effective filter ", a.name, " ", effective);
    if (a.tail)
      NNHAL_CHECK(*a.tail < effective, ErrorStatus::INVALID_ARGUMENT, a.tail_name, ": ", *a.tail,
                  " is not smaller than the effective filter ", a.name, " ", effective);
    if (!a.head || !a.tail) return 0u;
    head = *a.head;
    tail = *a.tail;
  } else {
    if (!scheme || (a.in == 0 && !executing)) return 0u;
    const conv_pad p = implicit_padding(a.in, *a.stride, *a.dilation, a.filter, *scheme, false);
    head = p.head;
    tail = p.tail;
  }
  if (a.in == 0 && !executing) return 0u;
  const std::int64_t padded = std::int64_t{a.in} + head + tail;
  NNHAL_CHECK(padded >= effective, ErrorStatus::INVALID_ARGUMENT, "filter: effective ", a.name, " ", effective,
              " exceeds the padded input ", a.name, " ", padded, " (", a.in, " + padding ", head + tail, ")");
  const std::int64_t out = (padded - effective) / *a.stride + 1;
  NNHAL_CHECK(out <= max_extent, ErrorStatus::INVALID_ARGUMENT, "output: ", a.name, " ", out, " overflows");
  return static_cast<std::uint32_t>(out);
}

/// Output extent of TRANSPOSE_CONV_2D along one axis: stride * (in - 1) + filter - pads,
/// which must be positive. `requested` is the output shape operand's extent (implicit form).
inline result<std::uint32_t> transpose_out_extent(const conv_axis& a, std::optional<std::int32_t> scheme,
                                                  std::optional<std::int32_t> requested, bool explicit_padding,
                                                  bool executing) {
  if (executing) NNHAL_CHECK(a.filter > 0, ErrorStatus::INVALID_ARGUMENT, "filter: zero ", a.name);
  if (a.filter == 0 || !a.stride) return 0u;
  std::int64_t head = 0, tail = 0;
  if (explicit_padding) {
    if (!a.head || !a.tail) return 0u;
    head = *a.head;
    tail = *a.tail;
  } else {
    if (!scheme || !requested) return 0u;
    const conv_pad p = implicit_padding(*requested, *a.stride, 1, a.filter, *scheme, true);
    head = p.head;
    tail = p.tail;
  }
  if (a.in == 0) return 0u;  // unknown at validation; rejected before at execution
  const std::int64_t out = std::int64_t{*a.stride} * (std::int64_t{a.in} - 1) + a.filter - head - tail;
  NNHAL_CHECK(out > 0 && out <= max_extent, ErrorStatus::INVALID_ARGUMENT, "output: ", a.name, " ", out,
              " (stride x (input - 1) + filter - padding) is not a positive extent");
  return static_cast<std::uint32_t>(out);
}

/// Rank exactly `rank` (an unknown rank at validation passes).
inline status check_rank_is(const operand_desc& d, std::size_t rank, std::string_view role, bool executing) {
  if (d.dims.empty() && !executing) return {};
  NNHAL_CHECK(d.dims.size() == rank, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(), " (must be ",
              rank, ")");
  return {};
}

/// Bias scale of a per-tensor quantized convolution: input_scale * filter_scale, the
/// product formed in float; AOSP allows a relative difference of 1e-6.
inline status check_bias_scale(const operand_desc& input, const operand_desc& filter, const operand_desc& bias,
                               std::string_view filter_role) {
  const float product = input.scale * filter.scale;
  const double p = product, b = bias.scale;
  NNHAL_CHECK(std::abs(p - b) <= 1e-6 * std::min(p, b), ErrorStatus::INVALID_ARGUMENT, "bias: scale ", bias.scale,
              " must equal input scale x ", filter_role, " scale = ", product);
  return {};
}

/// Before HAL 1.2 a TENSOR_QUANT8_ASYMM output needs output_scale > input_scale * filter_scale.
inline void raise_for_output_scale(const infer_context& c, const operand_desc& input, const operand_desc& filter,
                                   const operand_desc& output) {
  if (!c.min_version || input.type != OperandType::TENSOR_QUANT8_ASYMM ||
      filter.type != OperandType::TENSOR_QUANT8_ASYMM)
    return;
  if (!(output.scale > input.scale * filter.scale)) *c.min_version = max_version(*c.min_version, HalVersion::V1_2);
}

/// Quantization rules of a convolution's filter (input 1), bias (input 2) and output:
/// a TENSOR_QUANT8_SYMM_PER_CHANNEL filter has its channelDim where the op wants it and
/// one scale per output channel (the bias then carries scale 0, each value scaled by
/// input_scale * filter_scales[i]; a non-zero bias scale is ignored, as AOSP does); a
/// per-tensor quantized filter wants a bias of scale input_scale * filter_scale.
inline status check_conv_quant(const infer_context& c, std::uint32_t channel_dim) {
  const auto& input = c.inputs[0];
  const auto& filter = c.inputs[1];
  const auto& bias = c.inputs[2];
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    NNHAL_CHECK(filter.channel_quant != nullptr, ErrorStatus::INVALID_ARGUMENT,
                "filter: TENSOR_QUANT8_SYMM_PER_CHANNEL without per-channel scales");
    NNHAL_CHECK(filter.channel_quant->channelDim == channel_dim, ErrorStatus::INVALID_ARGUMENT, "filter: channelDim ",
                filter.channel_quant->channelDim, " (must be ", channel_dim, ", the output channels)");
    if (channel_dim < filter.dims.size() && (c.executing || filter.dims[channel_dim] != 0))
      NNHAL_CHECK(filter.channel_quant->scales.size() == filter.dims[channel_dim], ErrorStatus::INVALID_ARGUMENT,
                  "filter: ", filter.channel_quant->scales.size(), " per-channel scales for ",
                  filter.dims[channel_dim], " output channels");
  } else if (is_quantized(input.type)) {
    NNHAL_TRY(check_bias_scale(input, filter, bias, "filter"));
  }
  raise_for_output_scale(c, input, filter, c.outputs[0]);
  return {};
}

/// The inferred output must stay addressable (its byte size fits 32 bits).
inline status check_output_size(std::span<const std::uint32_t> d, OperandType t) {
  std::uint64_t n = 0;
  NNHAL_CHECK(checked_element_count(d, n, std::numeric_limits<std::uint32_t>::max() / type_info(t).element_size),
              ErrorStatus::INVALID_ARGUMENT, "output: ", format_dims(d), " describes more than 4 GiB");
  return {};
}

/// Raises the minimum version for a constant NCHW layout or a dilation other than 1
/// (both arrived in HAL 1.2).
inline void raise_for_layout_and_dilation(const infer_context& c, const conv_values& v) {
  if (!c.min_version) return;
  if (v.nchw.value_or(false) || v.dilation_w.value_or(1) != 1 || v.dilation_h.value_or(1) != 1)
    *c.min_version = max_version(*c.min_version, HalVersion::V1_2);
}

inline std::uint32_t dim_or_unknown(const operand_desc& d, std::size_t i) noexcept {
  return i < d.dims.size() ? d.dims[i] : 0;
}

/// Sets `out` to the one output [batches, height, width, depth] (NHWC) or [batches, depth,
/// height, width] (NCHW), reusing its storage; with the layout unknown only batches is
/// placed. At execution the output must stay addressable.
inline status place_conv_output(const infer_context& c, std::optional<bool> nchw, std::uint32_t batches,
                                std::uint32_t depth, std::uint32_t height, std::uint32_t width, shapes& out) {
  out.resize(1);
  dims_t& d = out[0];
  if (!nchw) d.assign({batches, 0, 0, 0});
  else if (*nchw) d.assign({batches, depth, height, width});
  else d.assign({batches, height, width, depth});
  if (c.executing && nchw) return check_output_size(d, c.outputs[0].type);
  return {};
}

/// The tensor dimensions a conv-like inference reads, 0 where unknown; the spatial and
/// channel ones are also 0 while the layout is not a constant. f0 and f3 are the filter's
/// first and last dimensions.
struct conv_dims {
  std::uint32_t batches, in_h, in_w, in_c, f0, f3, bias_n;
};
inline conv_dims conv_dims_of(const operand_desc& input, const operand_desc& filter, const operand_desc& bias,
                              const conv_values& v) {
  const bool nchw = v.nchw.value_or(false);
  return {dim_or_unknown(input, 0),
          v.nchw ? dim_or_unknown(input, nchw ? 2 : 1) : 0u,
          v.nchw ? dim_or_unknown(input, nchw ? 3 : 2) : 0u,
          v.nchw ? dim_or_unknown(input, nchw ? 1 : 3) : 0u,
          dim_or_unknown(filter, 0),
          dim_or_unknown(filter, 3),
          dim_or_unknown(bias, 0)};
}

/// Shape inference of CONV_2D, DEPTHWISE_CONV_2D and GROUPED_CONV_2D: [batches,
/// out_height, out_width, depth_out] (NHWC) or [batches, depth_out, out_height, out_width]
/// (NCHW). Only batches may be 0.
inline status infer_conv_forward(const infer_context& c, conv_kind k, const conv_slots& s, shapes& out) {
  const auto& input = c.inputs[0];
  const auto& filter = c.inputs[1];
  const auto& bias = c.inputs[2];
  NNHAL_TRY(check_rank_is(input, 4, "input", c.executing));
  NNHAL_TRY(check_rank_is(filter, 4, "filter", c.executing));
  NNHAL_TRY(check_rank_is(bias, 1, "bias", c.executing));
  NNHAL_TRY(check_conv_quant(c, k == conv_kind::depthwise ? 3u : 0u));
  const conv_values v = conv_values_of(s, c.inputs);
  NNHAL_TRY(check_conv_values(v, k));
  raise_for_layout_and_dilation(c, v);

  auto known = [&](std::uint32_t x) { return c.executing || x != 0; };
  const auto [batches, in_h, in_w, in_c, f0, f3, bias_n] = conv_dims_of(input, filter, bias, v);
  const std::uint32_t out_c = k == conv_kind::depthwise ? f3 : f0;
  if (known(out_c) && known(bias_n))
    NNHAL_CHECK(bias_n == out_c, ErrorStatus::INVALID_ARGUMENT, "bias: ", bias_n, " values for ", out_c,
                " output channels");
  switch (k) {
    case conv_kind::conv:
    case conv_kind::transpose:
      if (known(in_c) && known(f3))
        NNHAL_CHECK(f3 == in_c, ErrorStatus::INVALID_ARGUMENT, "filter: depth_in ", f3, " differs from the input's ",
                    in_c, " channels");
      break;
    case conv_kind::depthwise:
      if (known(f0))
        NNHAL_CHECK(f0 == 1, ErrorStatus::INVALID_ARGUMENT, "filter: dimension 0 is ", f0, " (must be 1)");
      if (v.extra && known(in_c) && known(out_c))
        NNHAL_CHECK(std::uint64_t{in_c} * static_cast<std::uint64_t>(*v.extra) == out_c, ErrorStatus::INVALID_ARGUMENT,
                    "depth_multiplier: ", in_c, " input channels x ", *v.extra, " differs from the filter's ", out_c,
                    " output channels");
      break;
    case conv_kind::grouped:
      if (v.extra && known(in_c) && known(f3))
        NNHAL_CHECK(std::uint64_t{f3} * static_cast<std::uint64_t>(*v.extra) == in_c, ErrorStatus::INVALID_ARGUMENT,
                    "num_groups: ", *v.extra, " groups x filter depth ", f3, " differs from the input's ", in_c,
                    " channels");
      if (v.extra && known(out_c))
        NNHAL_CHECK(out_c % static_cast<std::uint32_t>(*v.extra) == 0, ErrorStatus::INVALID_ARGUMENT, "num_groups: ",
                    out_c, " output channels are not divisible by ", *v.extra, " groups");
      break;
  }
  if (c.executing) {
    NNHAL_CHECK(in_h > 0 && in_w > 0 && in_c > 0, ErrorStatus::INVALID_ARGUMENT, "input: ", format_dims(input.dims),
                " has a zero height, width or depth (only batches may be 0)");
    NNHAL_CHECK(out_c > 0, ErrorStatus::INVALID_ARGUMENT, "filter: zero output channels");
  }
  const conv_axis ax_h{"height", in_h, dim_or_unknown(filter, 1), v.stride_h, v.dilation_h, v.pad[2], v.pad[3],
                       "padding_top", "padding_bottom"};
  const conv_axis ax_w{"width", in_w, dim_or_unknown(filter, 2), v.stride_w, v.dilation_w, v.pad[0], v.pad[1],
                       "padding_left", "padding_right"};
  auto out_h = forward_out_extent(ax_h, v.scheme, s.explicit_padding, c.executing);
  if (!out_h) return std::move(out_h).err();
  auto out_w = forward_out_extent(ax_w, v.scheme, s.explicit_padding, c.executing);
  if (!out_w) return std::move(out_w).err();
  return place_conv_output(c, v.nchw, batches, out_c, *out_h, *out_w, out);
}

}  // namespace detail

}  // namespace nnhal::types::sig
