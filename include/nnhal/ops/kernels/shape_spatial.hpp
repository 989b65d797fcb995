// Loops shared by the spatial data-movement operations: a 4-D image addressed by logical
// (batch, y, x, channel) whatever its layout (NHWC or NCHW, so each op is written once), strided
// channel runs, and the n-D gather behind PAD, PAD_V2 and MIRROR_PAD. Pure data movement:
// element values are copied bit for bit, so one loop serves every element type.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::kernels::spatial {

/// A 4-D image's extents and element strides by role. NHWC keeps channels innermost; NCHW
/// keeps width innermost, so a channel run there has stride h * w.
struct image_layout {
  std::size_t n = 0, h = 0, w = 0, c = 0;
  std::size_t sn = 0, sh = 0, sw = 0, sc = 0;

  static image_layout of(std::span<const std::uint32_t> d, bool nchw) noexcept {
    image_layout l;
    if (nchw) {
      l.n = d[0], l.c = d[1], l.h = d[2], l.w = d[3];
      l.sw = 1, l.sh = l.w, l.sc = l.h * l.w, l.sn = l.c * l.sc;
    } else {
      l.n = d[0], l.h = d[1], l.w = d[2], l.c = d[3];
      l.sc = 1, l.sw = l.c, l.sh = l.w * l.c, l.sn = l.h * l.sh;
    }
    return l;
  }
  std::size_t at(std::size_t b, std::size_t y, std::size_t x, std::size_t ch = 0) const noexcept {
    return b * sn + y * sh + x * sw + ch * sc;
  }
  std::size_t count() const noexcept { return n * h * w * c; }
};

/// True when input `k` is present and a true BOOL (the NCHW flag and the resize options).
inline bool flag(const kernel_io& io, std::size_t k) noexcept {
  return k < io.in.size() && io.in[k].has_value() && io.scalar<std::uint8_t>(k) != 0;
}

/// The stored value of real zero in output 0: 0 for floats, the zero point when quantized
/// (the padding of PAD and SPACE_TO_BATCH_ND).
template <types::element E>
typename E::storage stored_zero(const kernel_io& io) noexcept {
  using S = typename E::storage;
  if constexpr (types::quantized_element<E>) return static_cast<S>(io.out[0].zero_point);
  else return S{};
}

/// dst[i * ds] = src[i * ss] for i < count (a memcpy when both runs are contiguous).
template <class S>
void copy_run(const S* src, std::size_t ss, S* dst, std::size_t ds, std::size_t count) noexcept {
  if (ss == 1 && ds == 1) {
    if (count) std::memcpy(dst, src, count * sizeof(S));
    return;
  }
  for (std::size_t i = 0; i < count; ++i) dst[i * ds] = src[i * ss];
}

/// dst[i * ds] = v for i < count.
template <class S>
void fill_run(S* dst, std::size_t ds, std::size_t count, S v) noexcept {
  for (std::size_t i = 0; i < count; ++i) dst[i * ds] = v;
}

/// DEPTH_TO_SPACE (`ToDepth` false) and SPACE_TO_DEPTH (true), which move the same
/// elements in opposite directions: pixel (y, x) of the spatial side (DEPTH_TO_SPACE's
/// output, SPACE_TO_DEPTH's input) holds the channels ((y % b) * b + x % b) * depth onward
/// of pixel (y / b, x / b) on the deep side, depth being the spatial side's channel count.
/// Block size b in input 1, the NCHW flag in input 2. Both sides are 6-D views of one
/// tensor, [n, h, b, w, b, c] spatially and [n, h, w, b, b, c] deep (NHWC; NCHW:
/// [n, c, h, b, w, b] and [n, b, b, c, h, w]), so the op is one kernels::permute.
template <class S, bool ToDepth>
void block_depth_copy(const kernel_io& io) noexcept {
  const bool nchw = flag(io, 2);
  const auto b = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const auto sp = image_layout::of(ToDepth ? io.in[0].dims : io.out[0].dims, nchw);
  const std::size_t n = sp.n, h = sp.h / b, w = sp.w / b, c = sp.c;
  std::array<std::size_t, 6> dims{}, perm{};
  if (!nchw) {  // the same swap of the two middle dimensions both ways
    dims = ToDepth ? std::array<std::size_t, 6>{n, h, b, w, b, c} : std::array<std::size_t, 6>{n, h, w, b, b, c};
    perm = {0, 1, 3, 2, 4, 5};
  } else if (ToDepth) {
    dims = {n, c, h, b, w, b};
    perm = {0, 3, 5, 1, 2, 4};
  } else {
    dims = {n, b, b, c, h, w};
    perm = {0, 3, 4, 1, 5, 2};
  }
  permute(io.out_data[0], io.in[0].value, dims, perm, sizeof(S));
}

/// Input-to-output coordinate scale of one resized axis, in float as the AOSP CPU path
/// computes it: (in - 1) / (out - 1) when corners are aligned (and out > 1), else in / out.
inline float resize_scale(std::size_t in, std::size_t out, bool align_corners) noexcept {
  return align_corners && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                  : static_cast<float>(in) / static_cast<float>(out);
}

/// Runs body(begin, end) over [0, n) rows, in parallel when the executor offers it.
template <class F>
void for_rows(const kernel_io& io, std::size_t n, F&& body) {
  for_chunks(io, n, 1, std::forward<F>(body));
}

/// For each dimension, the input index every output index reads (-1: the pad value).
using index_maps = std::vector<std::vector<std::int64_t>>;

/// One stretch of a dimension's map: `length` output indexes from `out_at` that are all
/// padding (in_at -1) or read consecutive input indexes from `in_at`.
struct map_run {
  std::size_t out_at = 0, length = 0;
  std::int64_t in_at = -1;
};

/// `map` cut into maximal runs.
inline std::vector<map_run> runs_of(const std::vector<std::int64_t>& map) {
  std::vector<map_run> runs;
  for (std::size_t o = 0; o < map.size(); ++o) {
    if (!runs.empty()) {
      map_run& last = runs.back();
      const bool extends = map[o] < 0 ? last.in_at < 0
                                      : last.in_at >= 0 && map[o] == last.in_at + static_cast<std::int64_t>(last.length);
      if (extends) {
        ++last.length;
        continue;
      }
    }
    runs.push_back({o, 1, map[o] < 0 ? -1 : map[o]});
  }
  return runs;
}

/// out[o_0, .., o_r-1] = in[map_0[o_0], .., map_r-1[o_r-1]], or `pad` where any map entry is
/// -1. Rank >= 1; reads only input elements the maps name, writes every output element.
/// The trailing dimensions whose maps are the identity move as one contiguous block, and
/// the last dimension before them is cut into runs, so each run is one memcpy or one fill.
template <class S>
void gather_padded(const S* in, std::span<const std::uint32_t> in_dims, S* out, std::span<const std::uint32_t> out_dims,
                   const index_maps& maps, S pad) noexcept {
  const std::size_t rank = out_dims.size();
  std::size_t total = 1;
  for (auto d : out_dims) total *= d;
  if (total == 0) return;
  auto identity = [&](std::size_t d) {
    if (in_dims[d] != out_dims[d]) return false;
    for (std::size_t i = 0; i < out_dims[d]; ++i)
      if (maps[d][i] != static_cast<std::int64_t>(i)) return false;
    return true;
  };
  std::size_t k = rank;  // dimensions k.. are the identity
  std::size_t block = 1;
  while (k > 0 && identity(k - 1)) block *= out_dims[--k];
  if (k == 0) {
    std::memcpy(out, in, total * sizeof(S));
    return;
  }
  const std::size_t row_dim = k - 1;
  std::vector<std::size_t> in_stride(k, block);
  for (std::size_t d = row_dim; d > 0; --d) in_stride[d - 1] = in_stride[d] * in_dims[d];
  const std::vector<map_run> runs = runs_of(maps[row_dim]);
  const std::size_t row = out_dims[row_dim] * block;
  std::vector<std::size_t> pos(row_dim, 0);  // odometer over the dimensions before row_dim
  for (std::size_t r = 0; r < total / row; ++r) {
    std::size_t base = 0;
    bool padded = false;
    for (std::size_t d = 0; d < row_dim; ++d) {
      const std::int64_t m = maps[d][pos[d]];
      if (m < 0) padded = true;
      else base += static_cast<std::size_t>(m) * in_stride[d];
    }
    S* o = out + r * row;
    if (padded) {
      std::fill_n(o, row, pad);
    } else {
      for (const map_run& run : runs) {
        if (run.in_at < 0) std::fill_n(o + run.out_at * block, run.length * block, pad);
        else std::memcpy(o + run.out_at * block, in + base + static_cast<std::size_t>(run.in_at) * block,
                         run.length * block * sizeof(S));
      }
    }
    for (std::size_t d = row_dim; d-- > 0;) {
      if (++pos[d] < out_dims[d]) break;
      pos[d] = 0;
    }
  }
}

/// The constant-pad map of one dimension: `before` pad entries, the input, then pad.
inline std::vector<std::int64_t> constant_pad_map(std::uint32_t in_extent, std::uint32_t out_extent,
                                                  std::int32_t before) {
  std::vector<std::int64_t> m(out_extent, -1);
  for (std::uint32_t i = 0; i < in_extent; ++i) m[static_cast<std::size_t>(before) + i] = i;
  return m;
}

/// The paddings operand's (before, after) amounts of dimension d.
inline std::int32_t pad_before(const kernel_io& io, std::size_t paddings_input, std::size_t d) noexcept {
  return io.in[paddings_input].at<std::int32_t>(2 * d);
}

/// PAD / PAD_V2: every input element at its offset, the rest `pad`.
template <class S>
void pad_constant(const kernel_io& io, S pad) noexcept {
  const auto& in = io.in[0];
  const auto& out = io.out[0];
  const std::size_t rank = out.dims.size();
  index_maps maps(rank);
  for (std::size_t d = 0; d < rank; ++d) maps[d] = constant_pad_map(in.dims[d], out.dims[d], pad_before(io, 1, d));
  gather_padded(reinterpret_cast<const S*>(in.value), in.dims, reinterpret_cast<S*>(io.out_data[0]), out.dims, maps, pad);
}

/// BATCH_TO_SPACE_ND: input batch ((dy * bw) + dx) * N + n holds the pixels of output
/// batch n at offset (dy, dx) of every bh x bw block. As 6-D views, the input
/// [bh, bw, N, h, w, c] permuted to [N, h, bh, w, bw, c] (NCHW: [bh, bw, N, c, h, w] to
/// [N, c, h, bh, w, bw]). Block sizes in input 1, the NCHW flag in input 2.
inline void batch_to_space(const kernel_io& io, std::size_t es) noexcept {
  const bool nchw = flag(io, 2);
  const auto li = image_layout::of(io.in[0].dims, nchw);
  const auto bh = static_cast<std::size_t>(io.in[1].at<std::int32_t>(0));
  const auto bw = static_cast<std::size_t>(io.in[1].at<std::int32_t>(1));
  const std::size_t n = li.n / (bh * bw);
  const std::array<std::size_t, 6> dims = nchw ? std::array<std::size_t, 6>{bh, bw, n, li.c, li.h, li.w}
                                               : std::array<std::size_t, 6>{bh, bw, n, li.h, li.w, li.c};
  const std::array<std::size_t, 6> perm = nchw ? std::array<std::size_t, 6>{2, 3, 4, 0, 5, 1}
                                               : std::array<std::size_t, 6>{2, 3, 0, 4, 1, 5};
  permute(io.out_data[0], io.in[0].value, dims, perm, es);
}

/// SPACE_TO_BATCH_ND: the input padded (paddings in input 2, the pad value `zero`), then
/// output batch ((dy * bw) + dx) * N + n gathers the pixels at offset (dy, dx) of every
/// bh x bw block of padded batch n: the padded [N, h, bh, w, bw, c] permuted to
/// [bh, bw, N, h, w, c] (NCHW: [N, c, h, bh, w, bw] to [bh, bw, N, c, h, w]). With
/// padding, the padded input is built first in a per-thread buffer.
template <class S>
void space_to_batch(const kernel_io& io, S zero) {
  const bool nchw = flag(io, 3);
  const auto& in = io.in[0];
  const auto lo = image_layout::of(io.out[0].dims, nchw);
  const auto bh = static_cast<std::size_t>(io.in[1].at<std::int32_t>(0));
  const auto bw = static_cast<std::size_t>(io.in[1].at<std::int32_t>(1));
  const std::size_t n = in.dims[0], h = lo.h, w = lo.w, c = lo.c;  // padded: h * bh by w * bw
  const std::byte* src = in.value;
  bool padded = false;
  for (std::size_t i = 0; i < 4; ++i) padded = padded || io.in[2].at<std::int32_t>(i) != 0;
  if (padded) {
    const std::size_t hd = nchw ? 2 : 1, wd = nchw ? 3 : 2;  // the spatial dimensions
    std::array<std::uint32_t, 4> pd{};
    std::copy(in.dims.begin(), in.dims.end(), pd.begin());
    pd[hd] = static_cast<std::uint32_t>(h * bh);
    pd[wd] = static_cast<std::uint32_t>(w * bw);
    index_maps maps(4);
    for (std::size_t d = 0; d < 4; ++d) maps[d] = constant_pad_map(in.dims[d], pd[d], 0);
    maps[hd] = constant_pad_map(in.dims[hd], pd[hd], io.in[2].at<std::int32_t>(0));
    maps[wd] = constant_pad_map(in.dims[wd], pd[wd], io.in[2].at<std::int32_t>(2));
    static thread_local std::vector<S> buf;  // kept: no allocation per execution
    buf.resize(lo.count());
    gather_padded(reinterpret_cast<const S*>(in.value), in.dims, buf.data(), pd, maps, zero);
    src = reinterpret_cast<const std::byte*>(buf.data());
  }
  const std::array<std::size_t, 6> dims = nchw ? std::array<std::size_t, 6>{n, c, h, bh, w, bw}
                                               : std::array<std::size_t, 6>{n, h, bh, w, bw, c};
  const std::array<std::size_t, 6> perm = nchw ? std::array<std::size_t, 6>{3, 5, 0, 1, 2, 4}
                                               : std::array<std::size_t, 6>{2, 4, 0, 1, 3, 5};
  permute(io.out_data[0], src, dims, perm, sizeof(S));
}

}  // namespace nnhal::ops::kernels::spatial
