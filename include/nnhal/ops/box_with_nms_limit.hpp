// BOX_WITH_NMS_LIMIT kernels; contract in types/signatures/box_with_nms_limit.hpp. Scores
// and boxes are widened to float (quantized: (q - zero_point) * scale), the selection is
// detail::detection::select_nms_limit (per batch run, per class: soft NMS with the hard,
// linear or Gaussian kernel; then the best max_num_detections, ordered by class, then
// score), and the outputs are the kept boxes' rescored scores (rounded to the output type),
// their input boxes bit for bit, classes and batch indexes. At execution shape inference
// makes the selection (it fixes the output sizes) and hands it over in kernel_io::scratch;
// without that (a kernel called directly) the kernel selects itself.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/types/signatures/box_with_nms_limit.hpp"

namespace nnhal::ops::box_with_nms_limit {

namespace dd = types::sig::detail::detection;
using contract = types::sig::box_with_nms_limit;

/// Runs the selection with the single-class NMS pass `pass` and writes the outputs.
/// E: the score element type.
template <types::element E>
void run(const kernel_io& io, dd::soft_nms_fn pass) {
  const std::size_t rois = io.in[0].dims[0], classes = io.in[0].dims[1];
  const std::size_t capacity = io.out[0].dims[0];
  if (rois == 0 || capacity == 0) return;
  const auto batch = dd::ints(io.in[2]);
  dd::nms_limit_payload local;
  const dd::nms_limit_payload* p = io.scratch ? io.scratch->get<dd::nms_limit_payload>() : nullptr;
  if (!p) {
    dd::reals_into(io.in[0], local.scores);
    dd::select_nms_limit(local.scores, dd::reals(io.in[1]), batch, static_cast<std::uint32_t>(classes),
                         *dd::float_scalar(io.in[3]), *dd::int_scalar(io.in[4]), contract::params(io.in), pass,
                         local.selection);
    p = &local;
  }
  const auto& scores = p->scores;
  const auto& sel = p->selection;
  // Inference's selection gave `capacity`. Should a kernel called without it select
  // differently (a build's float contraction moving the vectorized IoU across the
  // threshold), the outputs stay in bounds and zero-filled rather than uninitialized.
  for (std::size_t k = 0; k < 4; ++k)
    std::memset(io.out_data[k], 0, types::type_info(io.out[k].type).element_size * io.out[k].element_count());
  // Gather per kept box: its rescored score, input box bytes, class and batch index.
  const std::size_t box_bytes = 4 * types::type_info(io.in[1].type).element_size;
  const std::byte* box_in = io.in[1].value;
  std::vector<float> kept_scores;
  auto* classes_out = reinterpret_cast<std::int32_t*>(io.out_data[2]);
  auto* batch_out = reinterpret_cast<std::int32_t*>(io.out_data[3]);
  std::size_t i = 0, row0 = 0;
  for (std::size_t b = 0; b < sel.split_in.size(); ++b) {
    for (std::uint32_t j = 0; j < sel.split_out[b] && i < capacity; ++j, ++i) {
      const std::size_t k = row0 * classes + sel.selected[i];
      kept_scores.push_back(scores[k]);
      std::memcpy(io.out_data[1] + i * box_bytes, box_in + k * box_bytes, box_bytes);
      classes_out[i] = static_cast<std::int32_t>(sel.selected[i] % classes);
      batch_out[i] = batch[row0];
    }
    row0 += sel.split_in[b];
  }
  kernels::detection::store_reals<E>(io, 0, kept_scores.data(), kept_scores.size());
}

template <types::element E>
void reference(const kernel_io& io) {
  run<E>(io, dd::soft_nms_boxes);
}

/// The IoU scans of every NMS pass in xsimd batches (kernels::detection::soft_nms_simd);
/// the selection is identical to reference's (tests check it).
template <types::element E>
void vectorized(const kernel_io& io) {
  run<E>(io, kernels::detection::soft_nms_simd<xsimd::default_arch>);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                   []<class E>(E) { return kernel{vectorized<E>}; });
}

}  // namespace nnhal::ops::box_with_nms_limit
