// The 2-D pooling window loop, written once for AVERAGE_POOL_2D, MAX_POOL_2D and
// L2_POOL_2D: each op supplies a per-lane reduction (init / step / finish). Windows are
// clipped to the input, so padding never contributes and `count` is the number of
// input elements the window covers (the AOSP / TFLite convention for averages).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/types/signatures/average_pool_2d.hpp"

namespace nnhal::ops::kernels::pool_norm {

/// What a pooling reduction provides, for storage type S:
///   acc_t init() const;                       the empty window
///   acc_t step(acc_t a, S x) const;           one more input element
///   S finish(acc_t a, std::int64_t count) const;  the output element (count >= 1)
template <class Op, class S>
concept pool_reduction = requires(const Op& op, typename Op::acc_t a, S x, std::int64_t n) {
  { op.init() } -> std::convertible_to<typename Op::acc_t>;
  { op.step(a, x) } -> std::convertible_to<typename Op::acc_t>;
  { op.finish(a, n) } -> std::convertible_to<S>;
};

/// out[n, oh, ow, c] = finish(fold(step, window(n, oh, ow, c)), count) for every output
/// element; `in_l` / `out_l` address either layout. The window loop runs over channels
/// innermost, which is unit-stride (and vectorizable) for NHWC.
template <class S, class Op>
  requires pool_reduction<Op, S>
void pool_2d(const S* in, const nhwc_layout& in_l, S* out, const nhwc_layout& out_l,
             const types::sig::detail::pool2d::geometry& g, const Op& op) {
  using acc_t = typename Op::acc_t;
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  std::vector<acc_t> acc(channels);
  const auto in_h = static_cast<std::int64_t>(in_l.h), in_w = static_cast<std::int64_t>(in_l.w);
  for (std::size_t n = 0; n < out_l.n; ++n) {
    for (std::size_t oh = 0; oh < out_l.h; ++oh) {
      const std::int64_t y0 = static_cast<std::int64_t>(oh) * g.stride_h - g.pad_h.head;
      const std::int64_t y_begin = std::max<std::int64_t>(y0, 0);
      const std::int64_t y_end = std::min<std::int64_t>(y0 + g.filter_h, in_h);
      for (std::size_t ow = 0; ow < out_l.w; ++ow) {
        const std::int64_t x0 = static_cast<std::int64_t>(ow) * g.stride_w - g.pad_w.head;
        const std::int64_t x_begin = std::max<std::int64_t>(x0, 0);
        const std::int64_t x_end = std::min<std::int64_t>(x0 + g.filter_w, in_w);
        std::fill(acc.begin(), acc.end(), op.init());
        for (std::int64_t y = y_begin; y < y_end; ++y) {
          for (std::int64_t x = x_begin; x < x_end; ++x) {
            const S* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(x), 0);
            if (in_l.stride_c == 1) {
              for (std::size_t c = 0; c < channels; ++c) acc[c] = op.step(acc[c], p[c]);
            } else {
              for (std::size_t c = 0; c < channels; ++c) acc[c] = op.step(acc[c], p[c * in_l.stride_c]);
            }
          }
        }
        // Validation guarantees every window overlaps the input; the max() only keeps a
        // malformed call from dividing by zero.
        const std::int64_t count = std::max<std::int64_t>((y_end - y_begin) * (x_end - x_begin), 1);
        S* q = out + out_l.offset(n, oh, ow, 0);
        for (std::size_t c = 0; c < channels; ++c) q[c * out_l.stride_c] = op.finish(acc[c], count);
      }
    }
  }
}

/// What a float32 SIMD pooling lane provides: the same reduction on floats (channel
/// tails) and on batches of Arch.
template <class Lane, class Arch>
concept simd_pool_lane = requires(const Lane& l, float a, xsimd::batch<float, Arch> b, std::int64_t n) {
  { l.init() } -> std::convertible_to<float>;
  { l.step(a, a) } -> std::convertible_to<float>;
  { l.finish(a, n) } -> std::convertible_to<float>;
  { l.step(b, b) } -> std::convertible_to<xsimd::batch<float, Arch>>;
  { l.finish(b, n) } -> std::convertible_to<xsimd::batch<float, Arch>>;
};

/// pool_2d for float32 NHWC (unit channel stride) with the channel loop in batches of
/// Arch and the channel tail through the scalar lane. Accumulates in float32.
template <class Arch, class Lane>
  requires simd_pool_lane<Lane, Arch>
void pool_2d_f32_nhwc(const float* in, const nhwc_layout& in_l, float* out, const nhwc_layout& out_l,
                      const types::sig::detail::pool2d::geometry& g, const Lane& lane) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t lanes = batch::size;
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  const std::size_t vec_end = channels - channels % lanes;
  std::vector<float> acc(channels);
  const auto in_h = static_cast<std::int64_t>(in_l.h), in_w = static_cast<std::int64_t>(in_l.w);
  for (std::size_t n = 0; n < out_l.n; ++n) {
    for (std::size_t oh = 0; oh < out_l.h; ++oh) {
      const std::int64_t y0 = static_cast<std::int64_t>(oh) * g.stride_h - g.pad_h.head;
      const std::int64_t y_begin = std::max<std::int64_t>(y0, 0);
      const std::int64_t y_end = std::min<std::int64_t>(y0 + g.filter_h, in_h);
      for (std::size_t ow = 0; ow < out_l.w; ++ow) {
        const std::int64_t x0 = static_cast<std::int64_t>(ow) * g.stride_w - g.pad_w.head;
        const std::int64_t x_begin = std::max<std::int64_t>(x0, 0);
        const std::int64_t x_end = std::min<std::int64_t>(x0 + g.filter_w, in_w);
        std::fill(acc.begin(), acc.end(), lane.init());
        for (std::int64_t y = y_begin; y < y_end; ++y) {
          for (std::int64_t x = x_begin; x < x_end; ++x) {
            const float* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(x), 0);
            std::size_t c = 0;
            for (; c < vec_end; c += lanes)
              lane.step(batch::load_unaligned(acc.data() + c), batch::load_unaligned(p + c)).store_unaligned(acc.data() + c);
            for (; c < channels; ++c) acc[c] = lane.step(acc[c], p[c]);
          }
        }
        const std::int64_t count = std::max<std::int64_t>((y_end - y_begin) * (x_end - x_begin), 1);
        float* q = out + out_l.offset(n, oh, ow, 0);
        std::size_t c = 0;
        for (; c < vec_end; c += lanes) lane.finish(batch::load_unaligned(acc.data() + c), count).store_unaligned(q + c);
        for (; c < channels; ++c) q[c] = lane.finish(acc[c], count);
      }
    }
  }
}

}  // namespace nnhal::ops::kernels::pool_norm
