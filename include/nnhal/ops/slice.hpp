// SLICE kernel; contract in types/signatures/slice.hpp. A box of the input (origin `begin`,
// extents = the inferred output shape) copied out with the strided walker.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::slice {

template <types::element E>
void reference(const kernel_io& io) {
  constexpr std::size_t es = kernels::element_bytes<E>;
  const auto& in = io.in[0];
  const auto& out = io.out[0];
  if (out.element_count() == 0) return;
  auto s = kernels::dense_source(in, es);
  for (std::size_t d = 0; d < s.rank; ++d) {
    s.base += static_cast<std::ptrdiff_t>(io.in[1].at<std::int32_t>(d)) * s.stride[d];
    s.extent[d] = out.dims[d];
  }
  kernels::copy_strided(io.out_data[0], s, es);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::slice
