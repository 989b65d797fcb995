// Shared pieces of the convolution and matrix-multiply family (CONV_2D, DEPTHWISE_CONV_2D,
// GROUPED_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL): the geometry of one
// execution resolved from its operands, NHWC/NCHW index mapping, per-channel
// requantization, and the reference loops every op's reference() is built from.
//
// Quantized arithmetic is bit-exact with the AOSP CPU path: the accumulator is the int32
// sum of (input - input_zp) * (filter - filter_zp) (wrapping like two's complement int32
// hardware), the int32 bias is added, then apply_multiplier (TFLite
// MultiplyByQuantizedMultiplier) with input_scale * filter_scale[oc] / output_scale split
// once, at bind, by quantize_output_multiplier (AOSP QuantizeMultiplier; from 2^30 up,
// where every non-zero sum saturates, capped), then the output zero point and the
// activation clamp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/types/signatures/conv_2d.hpp"

namespace nnhal::ops::kernels::conv {

using types::sig::detail::conv_kind;
using types::sig::detail::conv_slots;
using types::sig::detail::conv_slots_fn;

// ---------------------------------------------------------------------------------
// Layout and geometry
// ---------------------------------------------------------------------------------

/// Element offset of (batch, y, x, channel) in a 4-D NHWC or NCHW tensor.
struct layout4 {
  std::size_t sb = 0, sy = 0, sx = 0, sc = 0;
  constexpr std::size_t at(std::size_t b, std::size_t y, std::size_t x, std::size_t c) const noexcept {
    return b * sb + y * sy + x * sx + c * sc;
  }
};
constexpr layout4 make_layout4(bool nchw, std::size_t h, std::size_t w, std::size_t c) noexcept {
  if (nchw) return {c * h * w, w, 1, h * w};
  return {h * w * c, w * c, c, 1};
}

/// One execution of a conv-like operation, resolved from its (inferred, valid) operands.
struct geometry {
  std::uint32_t batches = 0, in_h = 0, in_w = 0, in_c = 0;
  std::uint32_t out_h = 0, out_w = 0, out_c = 0;
  std::uint32_t filter_h = 0, filter_w = 0;
  std::int32_t pad_top = 0, pad_left = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  std::uint32_t cin_per_group = 0, cout_per_group = 0;  // CONV_2D: in_c / out_c; depthwise: 1 / multiplier
  std::size_t f_oc = 0, f_y = 0, f_x = 0, f_k = 0;      // filter offset of (oc, ky, kx, k)
  layout4 in_l, out_l;
  bool nchw = false;
  std::int32_t activation = 0;
};

/// The geometry of `io` for an operation of kind `k` whose scalars sit at `s` (the
/// signature's slots()). Preconditions: infer accepted the operands and the output dims
/// in `io.out[0]` are the inferred ones.
inline geometry resolve_geometry(const kernel_io& io, conv_kind k, const types::sig::detail::conv_slots& s) {
  namespace d = types::sig::detail;
  const d::conv_values v = d::conv_values_of(s, io.in);
  geometry g;
  g.nchw = v.nchw.value_or(false);
  const auto& in = io.in[0].dims;
  const auto& f = io.in[1].dims;
  const auto& out = io.out[0].dims;
  g.batches = in[0];
  g.in_h = in[g.nchw ? 2 : 1];
  g.in_w = in[g.nchw ? 3 : 2];
  g.in_c = in[g.nchw ? 1 : 3];
  g.out_h = out[g.nchw ? 2 : 1];
  g.out_w = out[g.nchw ? 3 : 2];
  g.out_c = out[g.nchw ? 1 : 3];
  g.filter_h = f[1];
  g.filter_w = f[2];
  g.stride_h = v.stride_h.value_or(1);
  g.stride_w = v.stride_w.value_or(1);
  g.dil_h = v.dilation_h.value_or(1);
  g.dil_w = v.dilation_w.value_or(1);
  g.activation = v.activation.value_or(0);
  if (s.explicit_padding) {
    g.pad_left = v.pad[0].value_or(0);
    g.pad_top = v.pad[2].value_or(0);
  } else if (k == conv_kind::transpose) {
    // The padding comes from the requested output shape; only the head is used here.
    const auto& shape = io.in[static_cast<std::size_t>(s.output_shape)];
    const std::int32_t want_h = shape.at<std::int32_t>(g.nchw ? 2 : 1);
    const std::int32_t want_w = shape.at<std::int32_t>(g.nchw ? 3 : 2);
    const std::int32_t scheme = v.scheme.value_or(0);
    g.pad_top = static_cast<std::int32_t>(d::implicit_padding(want_h, g.stride_h, 1, g.filter_h, scheme, true).head);
    g.pad_left = static_cast<std::int32_t>(d::implicit_padding(want_w, g.stride_w, 1, g.filter_w, scheme, true).head);
  } else {
    const std::int32_t scheme = v.scheme.value_or(0);
    g.pad_top =
        static_cast<std::int32_t>(d::implicit_padding(g.in_h, g.stride_h, g.dil_h, g.filter_h, scheme, false).head);
    g.pad_left =
        static_cast<std::int32_t>(d::implicit_padding(g.in_w, g.stride_w, g.dil_w, g.filter_w, scheme, false).head);
  }
  switch (k) {
    case conv_kind::depthwise:
      // filter [1, fh, fw, out_c]; output channel ic * multiplier + q reads input channel ic.
      g.cin_per_group = 1;
      g.cout_per_group = static_cast<std::uint32_t>(v.extra.value_or(1));
      g.f_oc = 1;
      g.f_x = g.out_c;
      g.f_y = std::size_t{g.filter_w} * g.out_c;
      g.f_k = 0;
      break;
    case conv_kind::grouped: {
      const auto groups = static_cast<std::uint32_t>(v.extra.value_or(1));
      g.cin_per_group = g.in_c / groups;
      g.cout_per_group = g.out_c / groups;
      break;
    }
    case conv_kind::conv:
    case conv_kind::transpose:
      g.cin_per_group = g.in_c;
      g.cout_per_group = g.out_c;
      break;
  }
  if (k != conv_kind::depthwise) {  // filter [out_c, fh, fw, cin_per_group]
    g.f_k = 1;
    g.f_x = g.cin_per_group;
    g.f_y = std::size_t{g.filter_w} * g.cin_per_group;
    g.f_oc = g.f_y * g.filter_h;
  }
  g.in_l = make_layout4(g.nchw, g.in_h, g.in_w, g.in_c);
  g.out_l = make_layout4(g.nchw, g.out_h, g.out_w, g.out_c);
  return g;
}

inline std::size_t element_count(std::span<const std::uint32_t> d) noexcept {
  std::size_t n = 1;
  for (auto e : d) n *= e;
  return n;
}

// ---------------------------------------------------------------------------------
// Arithmetic
// ---------------------------------------------------------------------------------

/// int32 arithmetic that wraps like the hardware AOSP runs on (no UB on overflow).
constexpr std::int32_t wrap_add(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
/// acc + a * b: float, or wrapping int32 (|a * b| <= 255 * 255 never overflows itself).
constexpr float mac(float acc, float a, float b) noexcept { return acc + a * b; }
constexpr std::int32_t mac(std::int32_t acc, std::int32_t a, std::int32_t b) noexcept {
  return wrap_add(acc, static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b)));
}

/// The accumulator of element tag E: float for float tensors, int32 otherwise.
template <types::element E>
using acc_t = std::conditional_t<types::float_element<E>, float, std::int32_t>;

/// Reads element i of a tensor as an accumulator operand: the float value, or the stored
/// integer minus the zero point (0 for per-channel and int32 tensors).
template <types::element E>
struct reader {
  const typename E::storage* p;
  std::int32_t zero_point = 0;
  acc_t<E> operator()(std::size_t i) const noexcept {
    if constexpr (types::float_element<E>) return load_float(p[i]);
    else return static_cast<std::int32_t>(p[i]) - zero_point;
  }
};
template <types::element E>
reader<E> read_input(const kernel_io& io, std::size_t i) noexcept {
  const auto v = io.input<E>(i);
  return {v.data, types::is_quantized(E::hal) ? v.zero_point : 0};
}

/// Per-output-channel requantization: multipliers for input_scale * filter_scale[oc] /
/// output_scale (the product formed in float, as AOSP does), computed at bind.
struct requant {
  std::vector<quant::fixed_multiplier> multipliers;  // one (per tensor) or one per output channel
  std::int32_t out_zp = 0;
  quant::fixed_multiplier at(std::size_t oc) const noexcept { return multipliers[multipliers.size() == 1 ? 0 : oc]; }
};
/// `filter` may be per channel (TENSOR_QUANT8_SYMM_PER_CHANNEL: its scales) or per tensor.
inline requant make_requant(const operand_desc& input, const operand_desc& filter, const operand_desc& output) {
  requant q;
  q.out_zp = output.zero_point;
  auto multiplier = [&](float filter_scale) {
    const float product = input.scale * filter_scale;
    return quant::quantize_output_multiplier(static_cast<double>(product) / static_cast<double>(output.scale));
  };
  if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL && filter.channel_quant) {
    for (float s : filter.channel_quant->scales) q.multipliers.push_back(multiplier(s));
  }
  if (q.multipliers.empty()) q.multipliers.push_back(multiplier(filter.scale));
  return q;
}

/// Writes accumulators to an output of tag E: adds the bias, then the float activation
/// clamp, or requantization + zero point + quantized activation clamp.
template <types::element E>
struct writer {
  using S = typename E::storage;
  S* out;
  const void* bias = nullptr;  // float/float16 (float outputs) or int32 (quantized); may be null
  const requant* q = nullptr;
  float_range fr{};
  quant::quant_range qr{};

  void operator()(std::size_t o, std::size_t oc, acc_t<E> acc) const noexcept {
    if constexpr (types::float_element<E>) {
      if (bias) acc += load_float(static_cast<const S*>(bias)[oc]);
      out[o] = store_float<S>(clamp_activation(acc, fr));
    } else if constexpr (std::is_same_v<E, types::i32>) {
      out[o] = acc;
    } else {
      if (bias) acc = wrap_add(acc, static_cast<const std::int32_t*>(bias)[oc]);
      std::int32_t v = wrap_add(quant::apply_multiplier(acc, q->at(oc)), q->out_zp);
      v = v < qr.lo ? qr.lo : (v > qr.hi ? qr.hi : v);
      out[o] = static_cast<S>(v);
    }
  }
};
/// The writer of output 0, with bias input `bias_index` (negative: none) and activation `act`.
template <types::element E>
writer<E> make_writer(const kernel_io& io, int bias_index, std::int32_t act, const requant* q) {
  using S = typename E::storage;
  const auto o = io.output<E>(0);
  writer<E> w{o.data};
  if (bias_index >= 0) w.bias = io.in[static_cast<std::size_t>(bias_index)].value;
  w.q = q;
  w.fr = activation_range_float(act);
  if constexpr (types::quantized_element<E>)
    w.qr = quant::activation_range(act, o.scale, o.zero_point, std::numeric_limits<S>::min(),
                                   std::numeric_limits<S>::max());
  return w;
}

// ---------------------------------------------------------------------------------
// Reference loops
// ---------------------------------------------------------------------------------

/// Calls f(ky, kx, iy, ix) for each tap of a forward convolution's output pixel (oy, ox)
/// that lands inside the input, in filter order; the others read the padding, i.e.
/// contribute nothing.
template <class F>
void for_each_input_tap(const geometry& g, std::size_t oy, std::size_t ox, F&& f) {
  for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
    const std::int64_t iy =
        static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top + static_cast<std::int64_t>(ky) * g.dil_h;
    if (iy < 0 || iy >= g.in_h) continue;
    for (std::size_t kx = 0; kx < g.filter_w; ++kx) {
      const std::int64_t ix =
          static_cast<std::int64_t>(ox) * g.stride_w - g.pad_left + static_cast<std::int64_t>(kx) * g.dil_w;
      if (ix < 0 || ix >= g.in_w) continue;
      f(ky, kx, static_cast<std::size_t>(iy), static_cast<std::size_t>(ix));
    }
  }
}

/// Forward convolution (CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D), one output element
/// at a time.
template <class Acc, class In, class W, class Store>
void forward_loops(const geometry& g, In in, W w, Store store) {
  for (std::size_t b = 0; b < g.batches; ++b)
    for (std::size_t oy = 0; oy < g.out_h; ++oy)
      for (std::size_t ox = 0; ox < g.out_w; ++ox)
        for (std::size_t oc = 0; oc < g.out_c; ++oc) {
          const std::size_t ic0 = (oc / g.cout_per_group) * g.cin_per_group;
          Acc acc{};
          for_each_input_tap(g, oy, ox, [&](std::size_t ky, std::size_t kx, std::size_t iy, std::size_t ix) {
            const std::size_t ib = g.in_l.at(b, iy, ix, ic0);
            const std::size_t wb = oc * g.f_oc + ky * g.f_y + kx * g.f_x;
            for (std::size_t k = 0; k < g.cin_per_group; ++k) acc = mac(acc, in(ib + k * g.in_l.sc), w(wb + k * g.f_k));
          });
          store(g.out_l.at(b, oy, ox, oc), oc, acc);
        }
}

/// TRANSPOSE_CONV_2D as a gather: input pixel (iy, ix) lands on output rows
/// iy * stride - pad_top + ky, so output (oy, ox) sums the taps with
/// oy + pad_top - ky a non-negative multiple of the stride.
template <class Acc, class In, class W, class Store>
void transpose_loops(const geometry& g, In in, W w, Store store) {
  for (std::size_t b = 0; b < g.batches; ++b)
    for (std::size_t oy = 0; oy < g.out_h; ++oy)
      for (std::size_t ox = 0; ox < g.out_w; ++ox)
        for (std::size_t oc = 0; oc < g.out_c; ++oc) {
          Acc acc{};
          for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
            const std::int64_t ty = static_cast<std::int64_t>(oy) + g.pad_top - static_cast<std::int64_t>(ky);
            if (ty < 0 || ty % g.stride_h != 0 || ty / g.stride_h >= g.in_h) continue;
            const auto iy = static_cast<std::size_t>(ty / g.stride_h);
            for (std::size_t kx = 0; kx < g.filter_w; ++kx) {
              const std::int64_t tx = static_cast<std::int64_t>(ox) + g.pad_left - static_cast<std::int64_t>(kx);
              if (tx < 0 || tx % g.stride_w != 0 || tx / g.stride_w >= g.in_w) continue;
              const auto ix = static_cast<std::size_t>(tx / g.stride_w);
              const std::size_t ib = g.in_l.at(b, iy, ix, 0);
              const std::size_t wb = oc * g.f_oc + ky * g.f_y + kx * g.f_x;
              for (std::size_t k = 0; k < g.in_c; ++k) acc = mac(acc, in(ib + k * g.in_l.sc), w(wb + k));
            }
          }
          store(g.out_l.at(b, oy, ox, oc), oc, acc);
        }
}

/// out(i, j) = sum_p a(i, p) * b(p, j), stored through store(i, j, acc).
template <class Acc, class A, class B, class Store>
void gemm_loops(std::size_t m, std::size_t n, std::size_t k, A a, B b, Store store) {
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      Acc acc{};
      for (std::size_t p = 0; p < k; ++p) acc = mac(acc, a(i, p), b(p, j));
      store(i, j, acc);
    }
}

/// Reference of the conv-like ops: E is the input/output tag, F the filter's (E itself,
/// or qc8 for a per-channel filter). `q` is unused for float tags.
template <types::element E, types::element F>
void conv_reference(const kernel_io& io, conv_kind k, const conv_slots& s, const requant& q) {
  if (element_count(io.out[0].dims) == 0) return;  // zero batches
  const geometry g = resolve_geometry(io, k, s);
  const auto in = read_input<E>(io, 0);
  const auto w = read_input<F>(io, 1);
  const auto store = make_writer<E>(io, 2, g.activation, &q);
  if (k == conv_kind::transpose) transpose_loops<acc_t<E>>(g, in, w, store);
  else forward_loops<acc_t<E>>(g, in, w, store);
}

/// Binds the reference of a conv-like op for the operand types of `c`: one typed kernel,
/// the requantization multipliers computed here, once.
template <class Kernel>
types::result<kernel> bind_by_type(const bind_context& c, Kernel&& make) {
  const OperandType in_t = c.in[0].type;
  const bool per_channel = c.in.size() > 1 && c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  switch (in_t) {
    case OperandType::TENSOR_FLOAT32: return make.template operator()<types::f32, types::f32>();
    case OperandType::TENSOR_FLOAT16: return make.template operator()<types::f16, types::f16>();
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (per_channel) return make.template operator()<types::qu8, types::qc8>();
      return make.template operator()<types::qu8, types::qu8>();
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (per_channel) return make.template operator()<types::qs8, types::qc8>();
      return make.template operator()<types::qs8, types::qs8>();
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::kernels::conv
