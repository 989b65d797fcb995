// REVERSE kernel; contract in types/signatures/reverse.hpp. The input walked with the
// axis stride negated, starting from its last index along the axis.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::reverse {

template <types::element E>
void reference(const kernel_io& io) {
  constexpr std::size_t es = kernels::element_bytes<E>;
  const auto& in = io.in[0];
  if (in.element_count() == 0) return;
  const auto axis = static_cast<std::size_t>(io.in[1].at<std::int32_t>(0));
  auto s = kernels::dense_source(in, es);
  s.base += static_cast<std::ptrdiff_t>(in.dims[axis] - 1) * s.stride[axis];
  s.stride[axis] = -s.stride[axis];
  kernels::copy_strided(io.out_data[0], s, es);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::reverse
