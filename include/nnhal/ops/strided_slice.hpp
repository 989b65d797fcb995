// STRIDED_SLICE kernel; contract in types/signatures/strided_slice.hpp, whose resolve()
// gives each dimension's start, stride and count (shared with shape inference, so the
// walk and the inferred shape cannot disagree). Negative strides walk backwards.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/types/signatures/strided_slice.hpp"

namespace nnhal::ops::strided_slice {

template <types::element E>
void reference(const kernel_io& io) {
  using sig = types::sig::strided_slice;
  constexpr std::size_t es = kernels::element_bytes<E>;
  const auto& in = io.in[0];
  if (io.out[0].element_count() == 0) return;
  const std::int32_t begin_mask = io.scalar<std::int32_t>(4);
  const std::int32_t end_mask = io.scalar<std::int32_t>(5);
  auto s = kernels::dense_source(in, es);
  for (std::size_t d = 0; d < s.rank; ++d) {
    // Shrunk dimensions resolve to one element too, so they need no special case here.
    const sig::dim_slice r = sig::resolve(in.dims[d], io.in[1].at<std::int32_t>(d), io.in[2].at<std::int32_t>(d),
                                          io.in[3].at<std::int32_t>(d), (begin_mask >> d) & 1, (end_mask >> d) & 1);
    s.base += r.start * s.stride[d];
    s.extent[d] = static_cast<std::size_t>(r.count);
    s.stride[d] *= r.stride;
  }
  kernels::copy_strided(io.out_data[0], s, es);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::strided_slice
