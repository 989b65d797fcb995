// AXIS_ALIGNED_BBOX_TRANSFORM kernels; contract in types/signatures/axis_aligned_bbox_transform.hpp.
// Each roi, for each class, is moved by its delta (dx, dy, dw, dh) in float as the AOSP CPU
// path does (centre += d * size, size *= exp(d)) and clipped to its image; f16 and the
// quantized forms (QUANT16_ASYMM boxes, QUANT8 deltas) are widened to float first and the
// result rounded back once (round half away from zero for QUANT16).
#pragma once

#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/types/signatures/axis_aligned_bbox_transform.hpp"

namespace nnhal::ops::axis_aligned_bbox_transform {

namespace dd = types::sig::detail::detection;

/// E: the box (and output) element type; the deltas are read whatever their type.
template <types::element E>
void reference(const kernel_io& io) {
  const std::size_t rois = io.in[0].dims[0], cols = io.in[1].dims[1];
  if (rois == 0 || cols == 0) return;
  const auto roi = dd::reals(io.in[0]);
  const auto deltas = dd::reals(io.in[1]);
  const auto info = dd::reals(io.in[3]);
  const auto batch = dd::ints(io.in[2]);
  std::vector<float> out(rois * cols);
  for (std::size_t r = 0; r < rois; ++r) {
    const auto b = static_cast<std::size_t>(batch[r]);
    for (std::size_t k = 0; k < cols; k += 4)
      dd::transform_box(roi.data() + r * 4, deltas.data() + r * cols + k, info[b * 2], info[b * 2 + 1],
                        out.data() + r * cols + k);
  }
  kernels::detection::store_reals<E>(io, 0, out.data(), out.size());
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu16>(c, c.in[0].type,
                                                       []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::axis_aligned_bbox_transform
