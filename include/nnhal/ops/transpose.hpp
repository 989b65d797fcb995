// TRANSPOSE kernel; contract in types/signatures/transpose.hpp. The work is
// kernels::permute: the permutation collapsed (NHWC <-> NCHW becomes a batched 2-D
// transpose in cache tiles), then one memcpy, a strided gather of contiguous runs, or a
// batch of strided plane transposes.
#pragma once

#include <array>
#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::transpose {

template <types::element E>
void reference(const kernel_io& io) {
  const auto& in = io.in[0];
  const std::size_t n = in.dims.size();
  std::array<std::size_t, kernels::max_copy_rank> dims{}, perm{};
  for (std::size_t i = 0; i < n; ++i) {
    dims[i] = in.dims[i];
    perm[i] = io.in[1].has_value() ? static_cast<std::size_t>(io.in[1].at<std::int32_t>(i)) : n - 1 - i;
  }
  kernels::permute(io.out_data[0], in.value, std::span(dims).first(n), std::span(perm).first(n),
                   kernels::element_bytes<E>);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::transpose
