// TRANSPOSE kernel; contract in types/signatures/transpose.hpp. The permutation is first
// collapsed (unit extents dropped, output dimensions reading consecutive input dimensions
// merged), which turns NHWC <-> NCHW into a batched 2-D transpose done in cache tiles.
// An identity becomes one memcpy, a permutation keeping the input's last dimension last a
// strided gather of contiguous runs, and any other one a batch of 2-D transposes of
// strided planes (the same tiles).
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
  std::array<std::ptrdiff_t, kernels::max_copy_rank> in_stride{}, out_stride{};
  std::ptrdiff_t step = static_cast<std::ptrdiff_t>(es), out_step = step;
  for (std::size_t k = c.rank; k-- > 0;) {
    in_stride[k] = step;
    step *= static_cast<std::ptrdiff_t>(c.in_dims[k]);
    out_stride[k] = out_step;
    out_step *= static_cast<std::ptrdiff_t>(c.in_dims[c.perm[k]]);
  }
  const std::size_t last = c.rank - 1;
  if (c.perm[last] == last) {  // contiguous runs of the input's last dimension: a strided gather
    kernels::strided_source s;
    s.base = in.value;
    s.rank = c.rank;
    for (std::size_t i = 0; i < c.rank; ++i) {
      s.extent[i] = c.in_dims[c.perm[i]];
      s.stride[i] = in_stride[c.perm[i]];
    }
    kernels::copy_strided(io.out_data[0], s, es);
    return;
  }
  // Otherwise planes: the output's last dimension reads input dimension `rows_dim`, and the
  // input's last dimension lands at output position `cols_at`; every other output position
  // indexes a plane, visited in output order.
  const std::size_t rows_dim = c.perm[last];
  std::size_t cols_at = 0;
  while (c.perm[cols_at] != last) ++cols_at;
  std::array<std::size_t, kernels::max_copy_rank> extent{}, idx{};
  std::array<std::ptrdiff_t, kernels::max_copy_rank> src_step{}, dst_step{};
  std::size_t batch_rank = 0, planes = 1;
  for (std::size_t i = 0; i < last; ++i) {
    if (i == cols_at) continue;
    extent[batch_rank] = c.in_dims[c.perm[i]];
    src_step[batch_rank] = in_stride[c.perm[i]];
    dst_step[batch_rank] = out_stride[i];
    planes *= extent[batch_rank++];
  }
  const std::size_t rows = c.in_dims[rows_dim], cols = c.in_dims[last];
  const auto ss = static_cast<std::size_t>(in_stride[rows_dim]), ds = static_cast<std::size_t>(out_stride[cols_at]);
  std::ptrdiff_t src_off = 0, dst_off = 0;
  for (std::size_t p = 0;;) {
    kernels::transpose_plane(io.out_data[0] + dst_off, ds, in.value + src_off, ss, rows, cols, es);
    if (++p == planes) break;
    for (std::size_t d = batch_rank; d-- > 0;) {  // odometer over the plane indices
      src_off += src_step[d];
      dst_off += dst_step[d];
      if (++idx[d] < extent[d]) break;
      idx[d] = 0;
      src_off -= src_step[d] * static_cast<std::ptrdiff_t>(extent[d]);
      dst_off -= dst_step[d] * static_cast<std::ptrdiff_t>(extent[d]);
    }
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::bind_by_element(c, c.in[0].type, [](auto e) { return kernel{reference<decltype(e)>}; });
}

}  // namespace nnhal::ops::transpose
