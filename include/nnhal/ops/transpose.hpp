// TRANSPOSE kernel; contract in types/signatures/transpose.hpp. The permutation is first
// collapsed (unit extents dropped, output dimensions reading consecutive input dimensions
// merged), which turns NHWC <-> NCHW into a batched 2-D transpose done in cache tiles;
// an identity becomes one memcpy and anything else a strided gather.
#pragma once

#include <array>
#include <cstring>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::transpose {

namespace detail {

/// A permutation over collapsed dimensions: output dimension i reads input dimension
/// perm[i] of the collapsed input extents `in_dims`.
struct collapsed_perm {
  std::size_t rank = 0;
  std::array<std::size_t, kernels::max_copy_rank> in_dims{};
  std::array<std::size_t, kernels::max_copy_rank> perm{};
};

/// [N, H, W, C] with perm (0, 3, 1, 2) collapses to [N, H*W, C] with (0, 2, 1).
inline collapsed_perm collapse(std::span<const std::uint32_t> dims,
                               const std::array<std::size_t, kernels::max_copy_rank>& perm) {
  const std::size_t n = dims.size();
  std::array<std::size_t, kernels::max_copy_rank> index{};  // input dim -> kept position
  std::array<std::size_t, kernels::max_copy_rank> kept{};   // kept extents
  std::array<bool, kernels::max_copy_rank> unit{};
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    unit[i] = dims[i] == 1;
    if (!unit[i]) {
      index[i] = m;
      kept[m++] = dims[i];
    }
  }
  // Groups of consecutive output positions reading consecutive kept input dimensions.
  std::array<std::size_t, kernels::max_copy_rank> start{}, length{};
  std::size_t groups = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (unit[perm[i]]) continue;
    const std::size_t p = index[perm[i]];
    if (groups > 0 && p == start[groups - 1] + length[groups - 1]) {
      ++length[groups - 1];
    } else {
      start[groups] = p;
      length[groups] = 1;
      ++groups;
    }
  }
  collapsed_perm r;
  r.rank = groups;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t position = 0;  // the group's place in input order
    for (std::size_t h = 0; h < groups; ++h) position += start[h] < start[g] ? 1 : 0;
    std::size_t extent = 1;
    for (std::size_t t = start[g]; t < start[g] + length[g]; ++t) extent *= kept[t];
    r.perm[g] = position;
    r.in_dims[position] = extent;
  }
  return r;
}

}  // namespace detail

template <types::element E>
void reference(const kernel_io& io) {
  constexpr std::size_t es = kernels::element_bytes<E>;
  const auto& in = io.in[0];
  const std::size_t n = in.dims.size();
  const std::size_t total = in.element_count();
  if (total == 0) return;
  std::array<std::size_t, kernels::max_copy_rank> perm{};
  for (std::size_t i = 0; i < n; ++i)
    perm[i] = io.in[1].has_value() ? static_cast<std::size_t>(io.in[1].at<std::int32_t>(i)) : n - 1 - i;
  const detail::collapsed_perm c = detail::collapse(in.dims, perm);
  bool identity = true;
  for (std::size_t i = 0; i < c.rank; ++i) identity = identity && c.perm[i] == i;
  if (identity) {
    std::memcpy(io.out_data[0], in.value, total * es);
    return;
  }
  bool swap_last_two = c.rank >= 2 && c.perm[c.rank - 1] == c.rank - 2 && c.perm[c.rank - 2] == c.rank - 1;
  for (std::size_t i = 0; i + 2 < c.rank; ++i) swap_last_two = swap_last_two && c.perm[i] == i;
  if (swap_last_two) {
    std::size_t batches = 1;
    for (std::size_t i = 0; i + 2 < c.rank; ++i) batches *= c.in_dims[i];
    kernels::transpose_2d(io.out_data[0], in.value, batches, c.in_dims[c.rank - 2], c.in_dims[c.rank - 1], es);
    return;
  }
  std::array<std::ptrdiff_t, kernels::max_copy_rank> in_stride{};
  std::ptrdiff_t step = static_cast<std::ptrdiff_t>(es);
  for (std::size_t k = c.rank; k-- > 0;) {
    in_stride[k] = step;
    step *= static_cast<std::ptrdiff_t>(c.in_dims[k]);
  }
  kernels::strided_source s;
  s.base = in.value;
  s.rank = c.rank;
  for (std::size_t i = 0; i < c.rank; ++i) {
    s.extent[i] = c.in_dims[c.perm[i]];
    s.stride[i] = in_stride[c.perm[i]];
  }
  kernels::copy_strided(io.out_data[0], s, es);
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::transpose
