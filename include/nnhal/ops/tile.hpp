// TILE kernel; contract in types/signatures/tile.hpp. Depth first: the tiled block of the
// dimensions after d is built once per index of d, then that whole block is replicated
// multiples[d] - 1 more times, so every byte is written by a memcpy.
#pragma once

#include <cstring>
#include <utility>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::tile {

namespace detail {

/// Tiles the input block of dimensions [d, n) at src into dst; returns the bytes read and
/// written. Every multiple is >= 1 here (a zero multiple means an empty output).
inline std::pair<std::size_t, std::size_t> tile_from(std::size_t d, std::span<const std::uint32_t> dims,
                                                     const std::byte* mult, const std::byte* src, std::byte* dst,
                                                     std::size_t es) {
  std::int32_t m;
  std::memcpy(&m, mult + d * sizeof(std::int32_t), sizeof m);
  std::size_t in_bytes = 0, out_bytes = 0;
  if (d + 1 == dims.size()) {
    in_bytes = dims[d] * es;
    if (in_bytes) std::memcpy(dst, src, in_bytes);
    out_bytes = in_bytes;
  } else {
    for (std::uint32_t i = 0; i < dims[d]; ++i) {
      const auto [r, w] = tile_from(d + 1, dims, mult, src + in_bytes, dst + out_bytes, es);
      in_bytes += r;
      out_bytes += w;
    }
  }
  kernels::replicate_block(dst, out_bytes, static_cast<std::size_t>(m) - 1);
  return {in_bytes, out_bytes * static_cast<std::size_t>(m)};
}

}  // namespace detail

template <types::element E>
void reference(const kernel_io& io) {
  if (io.out[0].element_count() == 0) return;
  detail::tile_from(0, io.in[0].dims, io.in[1].value, io.in[0].value, io.out_data[0], kernels::element_bytes<E>);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::tile
