// PACK kernel; contract in types/signatures/pack.hpp. Seen from the output, each position
// of the dimensions before the axis holds one contiguous block of every input in turn.
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::pack {

template <types::element E>
void reference(const kernel_io& io) {
  const std::size_t n = io.in.size() - 1;
  const auto axis = static_cast<std::size_t>(io.scalar<std::int32_t>(0));
  const auto dims = io.in[1].dims;
  const std::size_t outer = kernels::product(dims, 0, axis);
  const std::size_t block = kernels::product(dims, axis) * kernels::element_bytes<E>;
  if (block == 0) return;
  std::byte* dst = io.out_data[0];
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < n; ++k, dst += block) std::memcpy(dst, io.in[1 + k].value + o * block, block);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in.size() < 2) return unsupported(c);
  return kernels::bind_by_element(c, c.in[1].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::pack
