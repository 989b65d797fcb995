// HEATMAP_MAX_KEYPOINT kernels; contract in types/signatures/heatmap_max_keypoint.hpp. The
// float algorithm of the AOSP CPU path (f16 and quantized inputs widened to float, results
// rounded once): per box and keypoint, the first maximum of the heatmap, refined by a
// quadratic (2nd-order Taylor) fit over its 3 x 3 neighbourhood (mirrored at the border,
// the offset clipped to 1.5 cells), mapped into the box.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/types/signatures/heatmap_max_keypoint.hpp"

namespace nnhal::ops::heatmap_max_keypoint {

namespace dd = types::sig::detail::detection;

/// The sub-cell offset (dx, dy) and refined score of a 3 x 3 grid around its centre: solves
/// A d = b for the Hessian A and negative gradient b (finite differences); leaves `delta`
/// and `score` untouched when A is singular within atol + rtol * A00 * A11.
inline void solve_for_delta(const float g[3][3], float delta[2], float& score, float atol, float rtol) noexcept {
  float b[2], a[2][2];
  b[0] = -(g[1][2] - g[1][0]) / 2.0f;
  b[1] = -(g[2][1] - g[0][1]) / 2.0f;
  a[0][0] = g[1][0] - 2.0f * g[1][1] + g[1][2];
  a[0][1] = (g[2][2] - g[2][0] - g[0][2] + g[0][0]) / 4.0f;
  a[1][0] = a[0][1];
  a[1][1] = g[0][1] - 2.0f * g[1][1] + g[2][1];
  const float diag = a[0][0] * a[1][1], off = a[0][1] * a[1][0];
  const float det = diag - off;
  if (std::abs(det) < atol + rtol * diag) return;
  delta[0] = (a[1][1] * b[0] - a[0][1] * b[1]) / det;
  delta[1] = (a[0][0] * b[1] - a[1][0] * b[0]) / det;
  if (std::abs(delta[0]) > 1.5f || std::abs(delta[1]) > 1.5f) {
    const float s = 1.5f / std::max(std::abs(delta[0]), std::abs(delta[1]));
    delta[0] *= s;
    delta[1] *= s;
  }
  score = g[1][1] - b[0] * delta[0] - b[1] * delta[1] +
          ((a[0][0] * delta[0] + a[0][1] * delta[1]) * delta[0] + (a[1][0] * delta[0] + a[1][1] * delta[1]) * delta[1]) /
              2.0f;
}

/// E: the heatmap (and score output) element type; boxes and keypoints follow their own.
template <types::element E>
void reference(const kernel_io& io) {
  const bool nchw = kernels::spatial::flag(io, 2);
  const auto l = kernels::spatial::image_layout::of(io.in[0].dims, nchw);  // c = keypoints
  const std::size_t boxes_n = l.n, size = l.h, keypoints = l.c;
  if (boxes_n == 0 || keypoints == 0) return;
  const auto heat = dd::reals(io.in[0]);
  const auto boxes = dd::reals(io.in[1]);
  // The AOSP path loosens the singularity test for f16.
  const float tol = E::hal == OperandType::TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
  std::vector<float> scores(boxes_n * keypoints), points(boxes_n * keypoints * 2);
  const auto last = static_cast<std::int64_t>(size) - 1;
  for (std::size_t i = 0; i < boxes_n; ++i) {
    const float* box = boxes.data() + i * 4;
    for (std::size_t k = 0; k < keypoints; ++k) {
      std::size_t max_at = 0;
      float max_v = -FLT_MAX;
      for (std::size_t p = 0; p < size * size; ++p) {
        const float v = heat[l.at(i, p / size, p % size, k)];
        if (max_v < v) max_v = v, max_at = p;
      }
      const auto mh = static_cast<std::int64_t>(max_at / size), mw = static_cast<std::int64_t>(max_at % size);
      float grid[3][3];
      for (std::int64_t dh = -1; dh <= 1; ++dh)
        for (std::int64_t dw = -1; dw <= 1; ++dw) {
          // Mirror out-of-range neighbours back inside (size >= 2).
          std::int64_t h = mh + dh, w = mw + dw;
          h = h < 0 ? 1 : (h > last ? last - 1 : h);
          w = w < 0 ? 1 : (w > last ? last - 1 : w);
          grid[dh + 1][dw + 1] = heat[l.at(i, static_cast<std::size_t>(h), static_cast<std::size_t>(w), k)];
        }
      float delta[2] = {0.0f, 0.0f}, score = max_v;
      solve_for_delta(grid, delta, score, tol, tol);
      const float rel_w = (static_cast<float>(mw) + delta[0] + 0.5f) / static_cast<float>(size);
      const float rel_h = (static_cast<float>(mh) + delta[1] + 0.5f) / static_cast<float>(size);
      scores[i * keypoints + k] = score;
      points[(i * keypoints + k) * 2] = rel_w * (box[2] - box[0]) + box[0];
      points[(i * keypoints + k) * 2 + 1] = rel_h * (box[3] - box[1]) + box[1];
    }
  }
  kernels::detection::store_reals<E>(io, 0, scores.data(), scores.size());
  kernels::detection::store_reals_any(io, 1, points.data(), points.size());
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                   []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::heatmap_max_keypoint
