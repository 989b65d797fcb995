// RESIZE_BILINEAR kernels; contract in types/signatures/resize_bilinear.hpp. Bit-exact with
// the AOSP CPU path (TFLite reference ResizeBilinear): coordinates and weights in float,
//   s = y * scale, or (y + 0.5) * scale - 0.5 with half_pixel_centers,
//   y0 = max(floor(s), 0), y1 = min(ceil(s), in - 1), dy = s - y0 (columns alike),
//   v = in[y0,x0] (1-dy)(1-dx) + in[y1,x0] dy (1-dx) + in[y0,x1] (1-dy) dx + in[y1,x1] dy dx
// summed in that order. Quantized results round half up: trunc(v + 0.5). qs8 is computed on
// the stored values + 128, so it is exactly the qu8 result - 128 (the HAL parity rule).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::resize_bilinear {

/// One output coordinate's two input neighbours and the weight of the upper one.
struct tap {
  std::size_t lo = 0, hi = 0;
  float frac = 0.0f;  // s - lo; negative at a half-pixel border, where lo == hi
};

inline std::vector<tap> taps(std::size_t in, std::size_t out, bool align_corners, bool half_pixel_centers) {
  const float scale = kernels::spatial::resize_scale(in, out, align_corners);
  std::vector<tap> t(out);
  for (std::size_t i = 0; i < out; ++i) {
    const float s = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const auto lo = std::max<std::int64_t>(static_cast<std::int64_t>(std::floor(s)), 0);
    const auto hi = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(s)), static_cast<std::int64_t>(in) - 1);
    t[i] = {static_cast<std::size_t>(lo), static_cast<std::size_t>(hi), s - static_cast<float>(lo)};
  }
  return t;
}

/// A stored element as the float the interpolation works on (qs8 shifted into the qu8 domain).
template <class S>
float load(S v) noexcept {
  if constexpr (std::is_same_v<S, std::int8_t>) return static_cast<float>(static_cast<std::int32_t>(v) + 128);
  else if constexpr (std::is_same_v<S, std::uint8_t>) return static_cast<float>(v);
  else return kernels::load_float(v);
}
template <class S>
S store(float v) noexcept {
  if constexpr (std::is_integral_v<S>) {
    // Round half up in the qu8 domain, as TFLite adds 0.5 before its truncating cast.
    const auto q = std::clamp<std::int32_t>(static_cast<std::int32_t>(v + 0.5f), 0, 255);
    return static_cast<S>(std::is_same_v<S, std::int8_t> ? q - 128 : q);
  } else {
    return kernels::store_float<S>(v);
  }
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const bool nchw = kernels::spatial::flag(io, 3);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  if (lo.count() == 0) return;
  const bool align = kernels::spatial::flag(io, 4), half = kernels::spatial::flag(io, 5);
  const auto ty = taps(li.h, lo.h, align, half);
  const auto tx = taps(li.w, lo.w, align, half);
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  kernels::spatial::for_rows(io, lo.n * lo.h, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t n = r / lo.h, y = r % lo.h;
      const float dy = ty[y].frac;
      for (std::size_t x = 0; x < lo.w; ++x) {
        const float dx = tx[x].frac;
        const S* p00 = in + li.at(n, ty[y].lo, tx[x].lo);
        const S* p10 = in + li.at(n, ty[y].hi, tx[x].lo);
        const S* p01 = in + li.at(n, ty[y].lo, tx[x].hi);
        const S* p11 = in + li.at(n, ty[y].hi, tx[x].hi);
        S* o = out + lo.at(n, y, x);
        for (std::size_t c = 0; c < lo.c; ++c) {
          const std::size_t i = c * li.sc;
          const float v = load(p00[i]) * (1 - dy) * (1 - dx) + load(p10[i]) * dy * (1 - dx) +
                          load(p01[i]) * (1 - dy) * dx + load(p11[i]) * dy * dx;
          o[c * lo.sc] = store<S>(v);
        }
      }
    }
  });
}

/// f32, NHWC: the channel loop in xsimd batches (compile-time xsimd::default_arch). Each lane
/// does the reference's float operations in the reference's order, so the result is
/// bit-identical to reference<f32> (unless the build lets the compiler contract a*b+c into
/// FMAs differently in the two loops). NCHW and channel tails take the scalar path.
inline void vectorized_f32(const kernel_io& io) {
  using batch = xsimd::batch<float, xsimd::default_arch>;
  constexpr std::size_t lanes = batch::size;
  const bool nchw = kernels::spatial::flag(io, 3);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  if (nchw || lo.c < lanes) return reference<types::f32>(io);
  if (lo.count() == 0) return;
  const bool align = kernels::spatial::flag(io, 4), half = kernels::spatial::flag(io, 5);
  const auto ty = taps(li.h, lo.h, align, half);
  const auto tx = taps(li.w, lo.w, align, half);
  const float* in = reinterpret_cast<const float*>(io.in[0].value);
  float* out = reinterpret_cast<float*>(io.out_data[0]);
  kernels::spatial::for_rows(io, lo.n * lo.h, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t n = r / lo.h, y = r % lo.h;
      const float dy = ty[y].frac, wy = 1 - dy;
      for (std::size_t x = 0; x < lo.w; ++x) {
        const float dx = tx[x].frac, wx = 1 - dx;
        const float* p00 = in + li.at(n, ty[y].lo, tx[x].lo);
        const float* p10 = in + li.at(n, ty[y].hi, tx[x].lo);
        const float* p01 = in + li.at(n, ty[y].lo, tx[x].hi);
        const float* p11 = in + li.at(n, ty[y].hi, tx[x].hi);
        float* o = out + lo.at(n, y, x);
        const batch bdy(dy), bwy(wy), bdx(dx), bwx(wx);
        std::size_t c = 0;
        for (; c + lanes <= lo.c; c += lanes) {
          const batch v = batch::load_unaligned(p00 + c) * bwy * bwx + batch::load_unaligned(p10 + c) * bdy * bwx +
                          batch::load_unaligned(p01 + c) * bwy * bdx + batch::load_unaligned(p11 + c) * bdy * bdx;
          v.store_unaligned(o + c);
        }
        for (; c < lo.c; ++c) o[c] = p00[c] * wy * wx + p10[c] * dy * wx + p01[c] * wy * dx + p11[c] * dy * dx;
      }
    }
  });
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
    if constexpr (std::is_same_v<E, types::f32>) return kernel{vectorized_f32};
    else return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::resize_bilinear
