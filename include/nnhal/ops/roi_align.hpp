// ROI_ALIGN kernels; contract in types/signatures/roi_align.hpp. Each roi (scaled by 1 /
// stride, at least 1 x 1) is split into out_h x out_w bins; a bin averages a grid of
// sampling points (the given ratio, or ceil(bin size) when 0), each a bilinear blend of its
// four neighbours (clamped at the last row/column). Floats: the AOSP CPU path's float
// operations in its order (f16 widened to float). Quantized: the AOSP integer path, weights
// as round(w * 255), integer sums, one fixed-point rescale by in_scale / (255 out_scale n),
// bit for bit; qs8 and qu8 share it (each subtracts its own zero point).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/types/signatures/roi_align.hpp"

namespace nnhal::ops::roi_align {

namespace dd = types::sig::detail::detection;

/// One roi's sampling geometry in feature-map units.
struct roi_grid {
  float x0 = 0, y0 = 0;          // roi start
  float step_w = 0, step_h = 0;  // bin size
  float bin_w = 0, bin_h = 0;    // distance between sampling points
  std::uint32_t ratio_w = 1, ratio_h = 1;
  std::uint64_t points = 1;  // sampling points per bin
};

inline roi_grid grid_of(const float* roi, float width_scale, float height_scale, std::uint32_t out_h,
                        std::uint32_t out_w, std::int32_t ratio_h, std::int32_t ratio_w) noexcept {
  roi_grid g;
  g.x0 = roi[0] * width_scale;
  g.y0 = roi[1] * height_scale;
  const float x1 = roi[2] * width_scale, y1 = roi[3] * height_scale;
  g.step_w = std::max(x1 - g.x0, 1.0f) / static_cast<float>(out_w);
  g.step_h = std::max(y1 - g.y0, 1.0f) / static_cast<float>(out_h);
  g.ratio_w = ratio_w > 0 ? static_cast<std::uint32_t>(ratio_w) : static_cast<std::uint32_t>(std::ceil(g.step_w));
  g.ratio_h = ratio_h > 0 ? static_cast<std::uint32_t>(ratio_h) : static_cast<std::uint32_t>(std::ceil(g.step_h));
  g.points = std::uint64_t{g.ratio_w} * g.ratio_h;
  g.bin_w = g.step_w / static_cast<float>(g.ratio_w);
  g.bin_h = g.step_h / static_cast<float>(g.ratio_h);
  return g;
}

/// One sampling point: the offsets (in elements, without the channel) of its four
/// neighbours and their weights, in the order (y1,x1) (y1,x2) (y2,x1) (y2,x2).
struct tap4 {
  std::size_t off[4];
  float w[4];
};

/// The sampling point at (x, y) >= 0 of a h x w map with strides (sh, sw).
inline tap4 tap_at(float x, float y, std::size_t h, std::size_t w, std::size_t sh, std::size_t sw) noexcept {
  auto x1 = static_cast<std::size_t>(std::floor(x)), y1 = static_cast<std::size_t>(std::floor(y));
  std::size_t x2 = x1 + 1, y2 = y1 + 1;
  float dx1 = x - static_cast<float>(x1), dy1 = y - static_cast<float>(y1);
  if (x1 >= w - 1) x1 = x2 = w - 1, dx1 = 0;
  if (y1 >= h - 1) y1 = y2 = h - 1, dy1 = 0;
  const float dx2 = 1.0f - dx1, dy2 = 1.0f - dy1;
  return {{y1 * sh + x1 * sw, y1 * sh + x2 * sw, y2 * sh + x1 * sw, y2 * sh + x2 * sw},
          {dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1}};
}

/// Calls f(r, batch, grid) for each roi, then the kernel fills that roi's bins.
struct setup {
  kernels::spatial::image_layout in, out;
  float width_scale = 1, height_scale = 1;
  std::int32_t ratio_h = 0, ratio_w = 0;
  std::vector<float> rois;
  std::span<const std::int32_t> batch;

  static setup of(const kernel_io& io) {
    const bool nchw = kernels::spatial::flag(io, 9);
    setup s;
    s.in = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
    s.out = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
    s.height_scale = 1.0f / *dd::float_scalar(io.in[5]);
    s.width_scale = 1.0f / *dd::float_scalar(io.in[6]);
    s.ratio_h = io.scalar<std::int32_t>(7);
    s.ratio_w = io.scalar<std::int32_t>(8);
    s.rois = dd::reals(io.in[1]);
    s.batch = dd::ints(io.in[2]);
    return s;
  }
  roi_grid grid(std::size_t r) const noexcept {
    return grid_of(rois.data() + r * 4, width_scale, height_scale, static_cast<std::uint32_t>(out.h),
                   static_cast<std::uint32_t>(out.w), ratio_h, ratio_w);
  }
  /// The sampling points of bin (i, j) in the reference's order.
  template <class F>
  void for_each_tap(const roi_grid& g, std::size_t i, std::size_t j, F&& f) const {
    const float w_start = g.step_w * static_cast<float>(j) + g.x0;
    const float h_start = g.step_h * static_cast<float>(i) + g.y0;
    for (std::uint32_t yi = 0; yi < g.ratio_h; ++yi) {
      const float y = h_start + g.bin_h / 2 + g.bin_h * static_cast<float>(yi);
      for (std::uint32_t xi = 0; xi < g.ratio_w; ++xi) {
        const float x = w_start + g.bin_w / 2 + g.bin_w * static_cast<float>(xi);
        f(tap_at(x, y, in.h, in.w, in.sh, in.sw));
      }
    }
  }
};

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const setup s = setup::of(io);
  const std::size_t num_rois = s.out.n, depth = s.in.c;
  if (num_rois == 0) return;
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  if constexpr (types::float_element<E>) {
    std::vector<float> acc(depth);
    for (std::size_t r = 0; r < num_rois; ++r) {
      const roi_grid g = s.grid(r);
      const S* base = in + static_cast<std::size_t>(s.batch[r]) * s.in.sn;
      for (std::size_t i = 0; i < s.out.h; ++i)
        for (std::size_t j = 0; j < s.out.w; ++j) {
          std::fill(acc.begin(), acc.end(), 0.0f);
          s.for_each_tap(g, i, j, [&](const tap4& t) {
            for (std::size_t k = 0; k < depth; ++k) {
              const S* p = base + k * s.in.sc;
              float v = 0;
              for (int c = 0; c < 4; ++c) v += t.w[c] * kernels::load_float(p[t.off[c]]);
              acc[k] += v;
            }
          });
          const auto n = static_cast<float>(g.points);
          for (std::size_t k = 0; k < depth; ++k) out[s.out.at(r, i, j, k)] = kernels::store_float<S>(acc[k] / n);
        }
    }
  } else {
    constexpr float w_scale = 1.0f / 255.0f;
    const float in_scale = io.in[0].scale, out_scale = io.out[0].scale;
    const std::int32_t in_zp = io.in[0].zero_point, out_zp = io.out[0].zero_point;
    std::vector<std::int64_t> acc(depth);
    for (std::size_t r = 0; r < num_rois; ++r) {
      const roi_grid g = s.grid(r);
      const float real = in_scale * w_scale / out_scale / static_cast<float>(g.points);
      const quant::fixed_multiplier m = quant::quantize_multiplier(static_cast<double>(real));
      const S* base = in + static_cast<std::size_t>(s.batch[r]) * s.in.sn;
      for (std::size_t i = 0; i < s.out.h; ++i)
        for (std::size_t j = 0; j < s.out.w; ++j) {
          std::fill(acc.begin(), acc.end(), 0);
          s.for_each_tap(g, i, j, [&](const tap4& t) {
            std::int32_t wq[4];
            for (int c = 0; c < 4; ++c) wq[c] = static_cast<std::int32_t>(std::round(t.w[c] / w_scale));
            for (std::size_t k = 0; k < depth; ++k) {
              const S* p = base + k * s.in.sc;
              std::int64_t v = 0;
              for (int c = 0; c < 4; ++c) v += std::int64_t{wq[c]} * (std::int32_t{p[t.off[c]]} - in_zp);
              acc[k] += v;
            }
          });
          for (std::size_t k = 0; k < depth; ++k) {
            // Sums beyond int32 only arise from absurd sampling ratios: saturate them.
            const auto sum = static_cast<std::int32_t>(std::clamp<std::int64_t>(
                acc[k], std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
            out[s.out.at(r, i, j, k)] =
                quant::saturate<S>(quant::add_saturating(quant::apply_multiplier(sum, m), out_zp));
          }
        }
    }
  }
}

/// f32 NHWC: the channel loop of every sampling point in xsimd batches of Arch, each lane
/// doing the reference's float operations in its order (bit-identical to reference<f32>
/// when the compiler does not contract a*b+c differently); NCHW runs the reference.
template <class Arch>
void vectorized_f32(const kernel_io& io) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t lanes = batch::size;
  const setup s = setup::of(io);
  const std::size_t num_rois = s.out.n, depth = s.in.c;
  if (num_rois == 0) return;
  if (s.in.sc != 1) return reference<types::f32>(io);
  const float* in = reinterpret_cast<const float*>(io.in[0].value);
  float* out = reinterpret_cast<float*>(io.out_data[0]);
  kernels::spatial::for_rows(io, num_rois, [&](std::size_t begin, std::size_t end) {
    std::vector<float> acc(depth);
    for (std::size_t r = begin; r < end; ++r) {
      const roi_grid g = s.grid(r);
      const float* base = in + static_cast<std::size_t>(s.batch[r]) * s.in.sn;
      const float n = static_cast<float>(g.points);
      for (std::size_t i = 0; i < s.out.h; ++i)
        for (std::size_t j = 0; j < s.out.w; ++j) {
          std::fill(acc.begin(), acc.end(), 0.0f);
          s.for_each_tap(g, i, j, [&](const tap4& t) {
            const float *p0 = base + t.off[0], *p1 = base + t.off[1], *p2 = base + t.off[2], *p3 = base + t.off[3];
            const batch w0(t.w[0]), w1(t.w[1]), w2(t.w[2]), w3(t.w[3]), zero(0.0f);
            std::size_t k = 0;
            for (; k + lanes <= depth; k += lanes) {
              const batch v = zero + w0 * batch::load_unaligned(p0 + k) + w1 * batch::load_unaligned(p1 + k) +
                              w2 * batch::load_unaligned(p2 + k) + w3 * batch::load_unaligned(p3 + k);
              (batch::load_unaligned(acc.data() + k) + v).store_unaligned(acc.data() + k);
            }
            for (; k < depth; ++k) {
              float v = 0;
              v += t.w[0] * p0[k];
              v += t.w[1] * p1[k];
              v += t.w[2] * p2[k];
              v += t.w[3] * p3[k];
              acc[k] += v;
            }
          });
          float* o = out + s.out.at(r, i, j);
          const batch bn(n);
          std::size_t k = 0;
          for (; k + lanes <= depth; k += lanes) (batch::load_unaligned(acc.data() + k) / bn).store_unaligned(o + k);
          for (; k < depth; ++k) o[k] = acc[k] / n;
        }
    }
  });
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{vectorized_f32<xsimd::default_arch>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::roi_align
