// RESIZE_NEAREST_NEIGHBOR kernels; contract in types/signatures/resize_nearest_neighbor.hpp.
// Source row of output row y (columns alike), in float as the AOSP CPU path computes it
// (TFLite's rules): s = y * scale, or (y + 0.5) * scale with half_pixel_centers; the index is
// round(s) when align_corners, else floor(s), clamped to [0, in - 1]. Whole pixels are
// copied, so every element type shares one loop and qs8 is exactly qu8 - 128.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::resize_nearest_neighbor {

/// The input index each of the `out` output indices of one axis reads.
inline std::vector<std::size_t> source_indices(std::size_t in, std::size_t out, bool align_corners,
                                               bool half_pixel_centers) {
  const float scale = kernels::spatial::resize_scale(in, out, align_corners);
  std::vector<std::size_t> src(out);
  for (std::size_t i = 0; i < out; ++i) {
    const float s = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    const float r = align_corners ? std::round(s) : std::floor(s);
    const std::int64_t k = std::clamp<std::int64_t>(static_cast<std::int64_t>(r), 0, static_cast<std::int64_t>(in) - 1);
    src[i] = static_cast<std::size_t>(k);
  }
  return src;
}

/// What both kernels need: the two layouts and each output row's and column's source.
struct source_map {
  kernels::spatial::image_layout li, lo;
  std::vector<std::size_t> ys, xs;

  static source_map of(const kernel_io& io, bool nchw) {
    source_map m;
    m.li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
    m.lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
    const bool align = kernels::spatial::flag(io, 4), half = kernels::spatial::flag(io, 5);
    m.ys = source_indices(m.li.h, m.lo.h, align, half);
    m.xs = source_indices(m.li.w, m.lo.w, align, half);
    return m;
  }
};

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  if (io.out[0].element_count() == 0) return;
  const source_map m = source_map::of(io, kernels::spatial::flag(io, 3));
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  kernels::spatial::for_rows(io, m.lo.n * m.lo.h, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t n = r / m.lo.h, y = r % m.lo.h;
      for (std::size_t x = 0; x < m.lo.w; ++x)
        kernels::spatial::copy_run(in + m.li.at(n, m.ys[y], m.xs[x]), m.li.sc, out + m.lo.at(n, y, x), m.lo.sc, m.lo.c);
    }
  });
}

/// The bound kernel: NHWC as reference() (one channel run per output pixel); NCHW row by
/// row of each channel plane, out[x] = in_row[xs[x]], so reads and writes stay within two
/// rows instead of striding across all planes for every pixel.
template <types::element E>
void rows(const kernel_io& io) {
  using S = typename E::storage;
  if (!kernels::spatial::flag(io, 3)) return reference<E>(io);
  if (io.out[0].element_count() == 0) return;
  const source_map m = source_map::of(io, true);
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  kernels::spatial::for_rows(io, m.lo.n * m.lo.c * m.lo.h, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t plane = r / m.lo.h, y = r % m.lo.h;  // plane = n * c + channel
      const S* row = in + plane * m.li.sc + m.ys[y] * m.li.sh;
      S* o = out + r * m.lo.w;
      for (std::size_t x = 0; x < m.lo.w; ++x) o[x] = row[m.xs[x]];
    }
  });
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{rows<E>}; });
}

}  // namespace nnhal::ops::resize_nearest_neighbor
