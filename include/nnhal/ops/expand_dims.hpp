// EXPAND_DIMS kernel; contract in types/signatures/expand_dims.hpp. Same bytes, one more
// extent of 1: a copy here (the executor may alias the buffer instead).
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::expand_dims {

template <types::element E>
void reference(const kernel_io& io) {
  const std::size_t bytes = io.in[0].element_count() * kernels::element_bytes<E>;
  if (bytes != 0 && io.out_data[0] != io.in[0].value) std::memcpy(io.out_data[0], io.in[0].value, bytes);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::expand_dims
