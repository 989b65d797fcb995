// Shape rules of the 2-D pooling operations (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D):
// the explicit and implicit scalar forms, the window geometry and the output extents.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

namespace detail::pool2d {

/// The scalar inputs of AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D, read from either
/// form: explicit padding (10 or 11 inputs) or implicit padding (7 or 8 inputs). A
/// field is empty when its operand has no known value (validation of a non-constant).
struct scalars {
  bool explicit_form = true;
  std::optional<std::int32_t> pad_left, pad_right, pad_top, pad_bottom;  // explicit form
  std::optional<std::int32_t> scheme;                                    // implicit form
  std::optional<std::int32_t> stride_w, stride_h, filter_w, filter_h, activation;
  std::optional<bool> nchw;  // the layout input; false when the input is absent
};

inline scalars read_scalars(std::span<const operand_desc> in) {
  scalars s;
  // Validation matched the operand count to a row; the bound check only keeps a
  // malformed call from reading past the list.
  auto i32 = [&](std::size_t k) { return k < in.size() ? in[k].scalar<std::int32_t>() : std::nullopt; };
  s.explicit_form = in.size() >= 10;
  std::size_t next = 1;
  if (s.explicit_form) {
    s.pad_left = i32(1);
    s.pad_right = i32(2);
    s.pad_top = i32(3);
    s.pad_bottom = i32(4);
    next = 5;
  } else {
    s.scheme = i32(1);
    next = 2;
  }
  s.stride_w = i32(next);
  s.stride_h = i32(next + 1);
  s.filter_w = i32(next + 2);
  s.filter_h = i32(next + 3);
  s.activation = i32(next + 4);
  const std::size_t layout = next + 5;
  if (layout < in.size()) {
    if (auto b = in[layout].scalar<bool8>()) s.nchw = *b != 0;
  } else {
    s.nchw = false;
  }
  return s;
}

/// Padding before and after one spatial dimension.
struct pad_pair {
  std::int64_t head = 0, tail = 0;
};

/// The implicit padding the HAL defines (PaddingCode): SAME pads so that
/// out = ceil(in / stride), putting the smaller half before the data; VALID (and
/// NONE) pads nothing.
constexpr pad_pair implicit_padding(std::int64_t in, std::int64_t stride, std::int64_t filter,
                                    std::int32_t scheme) noexcept {
  if (scheme != 1 || stride <= 0) return {};
  const std::int64_t out = (in + stride - 1) / stride;
  const std::int64_t needed = (out - 1) * stride + filter - in;
  if (needed <= 0) return {};
  return {needed / 2, needed - needed / 2};
}

/// Everything a pooling kernel needs, resolved for one input shape (all values known).
struct geometry {
  bool nchw = false;
  std::int32_t activation = 0;
  std::int64_t stride_w = 1, stride_h = 1, filter_w = 1, filter_h = 1;
  pad_pair pad_w, pad_h;  // left/right and top/bottom
};

/// Extents of a 4-D tensor named in NHWC order, whichever layout it is stored in.
struct nhwc_dims {
  std::uint32_t n = 0, h = 0, w = 0, c = 0;
};
inline nhwc_dims split_dims(std::span<const std::uint32_t> d, bool nchw) noexcept {
  return nchw ? nhwc_dims{d[0], d[2], d[3], d[1]} : nhwc_dims{d[0], d[1], d[2], d[3]};
}

/// The AOSP CPU path requires each padding to be smaller than the filter, so that every
/// window overlaps the input (average pooling never divides by zero).
inline status check_padding(pad_pair pad, std::int64_t filter, const char* what) {
  NNHAL_CHECK(pad.head < filter && pad.tail < filter, ErrorStatus::INVALID_ARGUMENT, "padding: ", what, " padding (",
              pad.head, ", ", pad.tail, ") must be smaller than filter_", what, " ", filter);
  return {};
}

/// One pooled extent, (in + head + tail - filter) / stride + 1, or an error when the
/// window does not fit. `what` names the dimension ("width" / "height").
inline result<std::uint32_t> pooled_extent(std::int64_t in, std::int64_t filter, std::int64_t stride, pad_pair pad,
                                           const char* what) {
  NNHAL_TRY(check_padding(pad, filter, what));
  const std::int64_t span = in + pad.head + pad.tail - filter;
  NNHAL_CHECK(span >= 0, ErrorStatus::INVALID_ARGUMENT, "filter_", what, ": ", filter, " exceeds the padded input ",
              what, " ", in + pad.head + pad.tail);
  const std::int64_t out = span / stride + 1;
  NNHAL_CHECK(out <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT, "output: ", what,
              " overflows");
  return static_cast<std::uint32_t>(out);
}

/// The geometry for a known input shape and known scalars (execution).
inline geometry resolve(const scalars& s, std::span<const std::uint32_t> input_dims) {
  geometry g;
  g.nchw = s.nchw.value_or(false);
  g.activation = s.activation.value_or(0);
  g.stride_w = s.stride_w.value_or(1);
  g.stride_h = s.stride_h.value_or(1);
  g.filter_w = s.filter_w.value_or(1);
  g.filter_h = s.filter_h.value_or(1);
  if (s.explicit_form) {
    g.pad_w = {s.pad_left.value_or(0), s.pad_right.value_or(0)};
    g.pad_h = {s.pad_top.value_or(0), s.pad_bottom.value_or(0)};
  } else if (input_dims.size() == 4) {
    const nhwc_dims d = split_dims(input_dims, g.nchw);
    const std::int32_t scheme = s.scheme.value_or(0);
    g.pad_w = implicit_padding(d.w, g.stride_w, g.filter_w, scheme);
    g.pad_h = implicit_padding(d.h, g.stride_h, g.filter_h, scheme);
  }
  return g;
}

/// Shape inference and semantic checks shared by the three 2-D pooling operations:
/// rank 4 input (NHWC or NCHW), non-negative paddings smaller than the filter, positive
/// strides and filters, a FusedActivationFunc, a padding scheme in {0, 1, 2}; only the
/// batch may be zero-sized; quantized outputs keep the input's scale and zero point.
inline result<shapes> infer(const infer_context& c) {
  const operand_desc& input = c.inputs[0];
  const scalars s = read_scalars(c.inputs);
  NNHAL_CHECK(input.dims.size() == 4 || (!c.executing && input.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
              "input: rank ", input.dims.size(), " (must be 4)");
  auto non_negative = [](const std::optional<std::int32_t>& v, const char* role) -> status {
    if (v) NNHAL_CHECK(*v >= 0, ErrorStatus::INVALID_ARGUMENT, role, ": ", *v, " is negative");
    return {};
  };
  auto positive = [](const std::optional<std::int32_t>& v, const char* role) -> status {
    if (v) NNHAL_CHECK(*v > 0, ErrorStatus::INVALID_ARGUMENT, role, ": ", *v, " must be positive");
    return {};
  };
  NNHAL_TRY(non_negative(s.pad_left, "padding_left"));
  NNHAL_TRY(non_negative(s.pad_right, "padding_right"));
  NNHAL_TRY(non_negative(s.pad_top, "padding_top"));
  NNHAL_TRY(non_negative(s.pad_bottom, "padding_bottom"));
  if (s.scheme)
    NNHAL_CHECK(*s.scheme >= 0 && *s.scheme <= 2, ErrorStatus::INVALID_ARGUMENT, "padding_scheme: ", *s.scheme,
                " is not a PaddingCode (0 NONE, 1 SAME, 2 VALID)");
  NNHAL_TRY(positive(s.stride_w, "stride_width"));
  NNHAL_TRY(positive(s.stride_h, "stride_height"));
  NNHAL_TRY(positive(s.filter_w, "filter_width"));
  NNHAL_TRY(positive(s.filter_h, "filter_height"));
  if (s.activation)
    NNHAL_CHECK(is_valid_activation(*s.activation), ErrorStatus::INVALID_ARGUMENT, "activation: ", *s.activation,
                " is not a FusedActivationFunc (0..3)");
  // Explicit paddings must be smaller than the filter whether or not the input is known.
  if (s.explicit_form && s.filter_w && s.pad_left && s.pad_right)
    NNHAL_TRY(check_padding({*s.pad_left, *s.pad_right}, *s.filter_w, "width"));
  if (s.explicit_form && s.filter_h && s.pad_top && s.pad_bottom)
    NNHAL_TRY(check_padding({*s.pad_top, *s.pad_bottom}, *s.filter_h, "height"));
  if (s.nchw && *s.nchw && c.min_version) *c.min_version = max_version(*c.min_version, V::V1_2);
  if (is_quantized(input.type)) {
    const operand_desc& out = c.outputs[0];
    NNHAL_CHECK(input.scale == out.scale && input.zero_point == out.zero_point, ErrorStatus::INVALID_ARGUMENT,
                "output: scale ", out.scale, " / zeroPoint ", out.zero_point, " must equal the input's ", input.scale,
                " / ", input.zero_point);
  }
  if (input.dims.empty()) return shapes{dims_t(4, 0)};
  if (!s.nchw) return shapes{dims_t{input.dims[0], 0, 0, 0}};  // layout unknown: only the batch is
  const bool nchw = *s.nchw;
  const nhwc_dims d = split_dims(input.dims, nchw);
  if (c.executing) {
    NNHAL_CHECK(d.h > 0 && d.w > 0 && d.c > 0, ErrorStatus::INVALID_ARGUMENT, "input: dimensions ",
                format_dims(input.dims), " (only the batch may be zero-sized)");
  }
  const bool pads_known = s.explicit_form ? (s.pad_left && s.pad_right && s.pad_top && s.pad_bottom) : s.scheme.has_value();
  std::uint32_t oh = 0, ow = 0;
  if (pads_known && s.stride_w && s.stride_h && s.filter_w && s.filter_h) {
    const geometry g = resolve(s, input.dims);
    if (d.w != 0 || c.executing) {
      auto e = pooled_extent(d.w, g.filter_w, g.stride_w, g.pad_w, "width");
      if (!e) return std::move(e).err();
      ow = *e;
    }
    if (d.h != 0 || c.executing) {
      auto e = pooled_extent(d.h, g.filter_h, g.stride_h, g.pad_h, "height");
      if (!e) return std::move(e).err();
      oh = *e;
    }
  }
  return shapes{nchw ? dims_t{d.n, d.c, oh, ow} : dims_t{d.n, oh, ow, d.c}};
}

}  // namespace detail::pool2d

}  // namespace nnhal::types::sig
