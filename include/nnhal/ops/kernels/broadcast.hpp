// The loop skeleton of broadcasting element-wise binary operations: walks the output
// in row-major order and hands the innermost run (contiguous, or with one input held
// constant) to a per-type functor, so the inner loop is a plain strided loop.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace nnhal::ops::kernels {

inline constexpr std::size_t max_broadcast_rank = 8;

/// Calls run(out_offset, a_offset, a_step, b_offset, b_step, n) for every innermost
/// run of the output; a_step/b_step are 0 (broadcast) or 1. Shapes must broadcast
/// (validated earlier) and have rank <= max_broadcast_rank.
template <class Run>
void for_each_broadcast_run(std::span<const std::uint32_t> out, std::span<const std::uint32_t> a,
                            std::span<const std::uint32_t> b, Run&& run) {
  const std::size_t rank = out.size();
  // Inputs of the output's own shape (the common case) are one run: no strides to work
  // out (that costs about 40 ns, 2% of an ADD of 64 KiB).
  if (rank > 0 && std::ranges::equal(a, out) && std::ranges::equal(b, out)) {
    std::size_t total = 1;
    for (auto e : out) total *= e;
    if (total > 0) run(std::size_t{0}, std::size_t{0}, std::size_t{1}, std::size_t{0}, std::size_t{1}, total);
    return;
  }
  std::array<std::size_t, max_broadcast_rank> ext{}, sa{}, sb{};
  // Strides of a and b in output coordinates (0 where broadcast).
  std::size_t stride_a = 1, stride_b = 1;
  for (std::size_t i = rank; i-- > 0;) {
    const std::size_t k = rank - 1 - i;  // position from the end
    const std::uint32_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const std::uint32_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    ext[i] = out[i];
    sa[i] = (da == 1 && out[i] != 1) ? 0 : stride_a;
    sb[i] = (db == 1 && out[i] != 1) ? 0 : stride_b;
    stride_a *= da;
    stride_b *= db;
  }
  // Merge adjacent dimensions while both inputs stay contiguous (or both broadcast)
  // across them: fewer, longer inner runs.
  std::array<std::size_t, max_broadcast_rank> me{}, ma{}, mb{};
  std::size_t m = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    if (ext[i] == 1) continue;
    if (m > 0 && ma[m - 1] == sa[i] * ext[i] && mb[m - 1] == sb[i] * ext[i] &&
        ((sa[i] == 0) == (ma[m - 1] == 0)) && ((sb[i] == 0) == (mb[m - 1] == 0))) {
      me[m - 1] *= ext[i];
      ma[m - 1] = sa[i];
      mb[m - 1] = sb[i];
      continue;
    }
    me[m] = ext[i];
    ma[m] = sa[i];
    mb[m] = sb[i];
    ++m;
  }
  std::size_t total = 1;
  for (auto e : out) total *= e;
  if (total == 0) return;
  if (m == 0) {
    run(std::size_t{0}, std::size_t{0}, std::size_t{0}, std::size_t{0}, std::size_t{0}, std::size_t{1});
    return;
  }
  const std::size_t inner = me[m - 1];
  const std::size_t step_a = ma[m - 1], step_b = mb[m - 1];
  std::array<std::size_t, max_broadcast_rank> idx{};
  std::size_t off_o = 0, off_a = 0, off_b = 0;
  for (;;) {
    run(off_o, off_a, step_a, off_b, step_b, inner);
    off_o += inner;
    // Odometer over the outer merged dimensions.
    std::size_t d = m - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      ++idx[d];
      off_a += ma[d];
      off_b += mb[d];
      if (idx[d] < me[d]) break;
      off_a -= ma[d] * me[d];
      off_b -= mb[d] * me[d];
      idx[d] = 0;
    }
  }
}

}  // namespace nnhal::ops::kernels
