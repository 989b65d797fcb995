// GENERATE_PROPOSALS kernels; contract in types/signatures/generate_proposals.hpp. Inputs
// are widened to float (quantized: (q - zero_point) * scale), the proposals come from
// detail::detection::generate_proposals (the float algorithm of the AOSP CPU path), and
// scores and boxes are rounded once to the output types. At execution shape inference
// computes the proposals (they fix the output sizes) and hands them over in
// kernel_io::scratch; a kernel called without them computes them, its NMS IoU scans
// vectorized.
#pragma once

#include <algorithm>
#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/types/signatures/generate_proposals.hpp"

namespace nnhal::ops::generate_proposals {

namespace dd = types::sig::detail::detection;
using contract = types::sig::generate_proposals;

/// Runs the proposal selection with the NMS pass `pass` and writes the outputs. E: the
/// score element type (the box output follows its own type).
template <types::element E>
void run(const kernel_io& io, dd::hard_nms_fn pass) {
  const std::size_t capacity = io.out[0].dims[0];
  if (capacity == 0) return;
  dd::proposals local;
  const auto* kept = io.scratch ? io.scratch->get<dd::proposals_payload>() : nullptr;
  if (!kept)
    dd::generate_proposals(dd::reals(io.in[0]), dd::reals(io.in[1]), dd::reals(io.in[2]), dd::reals(io.in[3]),
                           contract::params(io.in), pass, local);
  const dd::proposals& p = kept ? kept->kept : local;
  // Without inference's proposals the count could differ (see box_with_nms_limit.hpp on
  // float contraction); whatever happens, the outputs stay in bounds and initialized.
  const std::size_t n = std::min(capacity, p.scores.size());
  for (std::size_t k = 0; k < 3; ++k)
    std::memset(io.out_data[k], 0, types::type_info(io.out[k].type).element_size * io.out[k].element_count());
  kernels::detection::store_reals<E>(io, 0, p.scores.data(), n);
  kernels::detection::store_reals_any(io, 1, p.rois.data(), n * 4);
  std::copy_n(p.batch.data(), n, reinterpret_cast<std::int32_t*>(io.out_data[2]));
}

template <types::element E>
void reference(const kernel_io& io) {
  run<E>(io, dd::hard_nms_boxes);
}

/// The NMS IoU scans in xsimd batches (kernels::detection::hard_nms_simd); the selection
/// is identical to reference's (tests check it).
template <types::element E>
void vectorized(const kernel_io& io) {
  run<E>(io, kernels::detection::hard_nms_simd<xsimd::default_arch>);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                   []<class E>(E) { return kernel{vectorized<E>}; });
}

}  // namespace nnhal::ops::generate_proposals
