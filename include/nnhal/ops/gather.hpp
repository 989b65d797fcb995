// GATHER kernel; contract in types/signatures/gather.hpp (which checked every index at
// execution). For each outer position and index, one contiguous inner run is copied.
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::gather {

template <types::element E>
void reference(const kernel_io& io) {
  const auto& in = io.in[0];
  const auto& indices = io.in[2];
  const auto rank = static_cast<std::int32_t>(in.dims.size());
  std::int32_t axis = io.scalar<std::int32_t>(1);
  if (axis < 0) axis += rank;
  const auto a = static_cast<std::size_t>(axis);
  const std::size_t outer = kernels::product(in.dims, 0, a);
  const std::size_t extent = in.dims[a];
  const std::size_t inner = kernels::product(in.dims, a + 1) * kernels::element_bytes<E>;
  const std::size_t count = indices.element_count();
  if (inner == 0 || count == 0) return;
  std::byte* dst = io.out_data[0];
  for (std::size_t o = 0; o < outer; ++o) {
    const std::byte* block = in.value + o * extent * inner;
    for (std::size_t i = 0; i < count; ++i, dst += inner)
      std::memcpy(dst, block + static_cast<std::size_t>(indices.at<std::int32_t>(i)) * inner, inner);
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::gather
