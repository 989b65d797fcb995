// EMBEDDING_LOOKUP kernel; contract in types/signatures/embedding_lookup.hpp (which
// checked every lookup at execution). Output row i is values row lookups[i].
#pragma once

#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::embedding_lookup {

template <types::element E>
void reference(const kernel_io& io) {
  const auto& lookups = io.in[0];
  const auto& values = io.in[1];
  const std::size_t row = kernels::product(values.dims, 1) * kernels::element_bytes<E>;
  const std::size_t count = lookups.element_count();
  if (row == 0) return;
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(io.out_data[0] + i * row, values.value + static_cast<std::size_t>(lookups.at<std::int32_t>(i)) * row,
                row);
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in.size() < 2) return unsupported(c);
  return kernels::bind_by_element(c, c.in[1].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::embedding_lookup
