// SPLIT kernel; contract in types/signatures/split.hpp. For each position of the dimensions
// before the axis, the input holds one contiguous run per output, in output order.
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::split {

template <types::element E>
void reference(const kernel_io& io) {
  const auto& in = io.in[0];
  const auto rank = static_cast<std::int32_t>(in.dims.size());
  std::int32_t axis = io.scalar<std::int32_t>(1);
  if (axis < 0) axis += rank;
  const auto a = static_cast<std::size_t>(axis);
  const std::size_t outer = kernels::product(in.dims, 0, a);
  const std::size_t inner_bytes = kernels::product(in.dims, a + 1) * kernels::element_bytes<E>;
  const std::byte* src = in.value;
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t k = 0; k < io.out.size(); ++k) {
      const std::size_t run = io.out[k].dims[a] * inner_bytes;
      if (run == 0) continue;
      std::memcpy(io.out_data[k] + o * run, src, run);
      src += run;
    }
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::split
