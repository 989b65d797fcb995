// ROI_POOLING kernels; contract in types/signatures/roi_pooling.hpp. Each roi, scaled by
// 1 / stride and rounded to whole cells (at least 1 x 1), is split into out_h x out_w bins
// [floor(start), ceil(end)) clipped to the map; a bin's output is its maximum, compared in
// the stored domain (the same order as the real values), or the zero point for an empty
// bin. Coordinates in float as the AOSP CPU path computes them; outputs are input elements,
// so every type is exact and qs8 mirrors qu8.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/types/signatures/roi_pooling.hpp"

namespace nnhal::ops::roi_pooling {

namespace dd = types::sig::detail::detection;

/// [begin, end) of bin `k` of `step` cells from `start`, clipped to `extent`.
inline std::pair<std::size_t, std::size_t> bin_range(float step, std::size_t k, std::int32_t start,
                                                     std::size_t extent) noexcept {
  const float s = std::floor(step * static_cast<float>(k) + static_cast<float>(start));
  const float e = std::ceil(step * static_cast<float>(k + 1) + static_cast<float>(start));
  const auto clip = [extent](float v) { return std::min(static_cast<std::size_t>(v), extent); };
  return {clip(s), clip(e)};
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const bool nchw = kernels::spatial::flag(io, 7);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  if (lo.n == 0) return;
  const float height_scale = 1.0f / *dd::float_scalar(io.in[5]);
  const float width_scale = 1.0f / *dd::float_scalar(io.in[6]);
  const auto rois = dd::reals(io.in[1]);
  const auto batch = dd::ints(io.in[2]);
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  // An empty bin gives the real value 0.
  const S empty = [&] {
    if constexpr (types::float_element<E>) return kernels::store_float<S>(0.0f);
    else return static_cast<S>(io.in[0].zero_point);
  }();
  const auto value = [](S v) {
    if constexpr (types::float_element<E>) return kernels::load_float(v);
    else return v;
  };
  for (std::size_t r = 0; r < lo.n; ++r) {
    const float* roi = rois.data() + r * 4;
    const auto x0 = static_cast<std::int32_t>(std::round(roi[0] * width_scale));
    const auto y0 = static_cast<std::int32_t>(std::round(roi[1] * height_scale));
    const auto x1 = static_cast<std::int32_t>(std::round(roi[2] * width_scale));
    const auto y1 = static_cast<std::int32_t>(std::round(roi[3] * height_scale));
    const float step_w = static_cast<float>(std::max(x1 - x0 + 1, 1)) / static_cast<float>(lo.w);
    const float step_h = static_cast<float>(std::max(y1 - y0 + 1, 1)) / static_cast<float>(lo.h);
    const S* base = in + static_cast<std::size_t>(batch[r]) * li.sn;
    for (std::size_t i = 0; i < lo.h; ++i) {
      const auto [hs, he] = bin_range(step_h, i, y0, li.h);
      for (std::size_t j = 0; j < lo.w; ++j) {
        const auto [ws, we] = bin_range(step_w, j, x0, li.w);
        for (std::size_t k = 0; k < lo.c; ++k) {
          S best = empty;
          bool first = true;
          for (std::size_t y = hs; y < he; ++y)
            for (std::size_t x = ws; x < we; ++x) {
              const S v = base[li.at(0, y, x, k)];
              if (first || value(v) > value(best)) best = v, first = false;
            }
          out[lo.at(r, i, j, k)] = best;
        }
      }
    }
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::roi_pooling
