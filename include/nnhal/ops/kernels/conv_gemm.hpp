// Direct convolution and GEMM for the conv family with xsimd (compile-time
// xsimd::default_arch), float32 and quant8: the filter is packed once, at bind, into panels
// of `nr` output channels; a register-blocked micro-kernel computes 4 output pixels (or
// rows) x nr channels per call, reading the input in place (no im2col: a padding tap
// points at a row of zeros, or of the input zero point). Float32 versus the reference
// loops: the same products summed in another order, so results differ by float rounding
// only (tests bound it). Quant8 sums (x - input zero point) * (w - weight zero point) in
// 32-bit lanes that wrap like the reference's int32 sums, then requantizes them in 32-bit
// lanes (simd/fixed_point_xsimd.hpp): bit-exact with the reference. Tails (output channels past the last full panel,
// pixels past the last full block) are computed in registers and only the valid part is
// stored: nothing is written outside the output.
// DEPTHWISE_CONV_2D with depth_multiplier 1 vectorizes across channels instead (its
// filter [1, fh, fw, channels] is already channel-contiguous, so it needs no packing).
// This is the portable path; AVX-512 CPUs bind kernels/gemm_avx512.hpp and
// kernels/dwconv_avx512.hpp instead (quant8 GEMMs only with VNNI). Built without -m flags
// (SSE2), xsimd has no 32-bit integer multiply and does it one lane at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/simd/fixed_point_xsimd.hpp"
#include "nnhal/types/large_bytes.hpp"

namespace nnhal::ops::kernels::conv {

/// Register tile of the micro-kernel for one architecture: element T is float, or
/// std::uint32_t for quant8 sums (products of zero-point-free values, wrapping like the
/// reference's int32 accumulation).
template <class T, class Arch>
struct gemm_tile {
  using batch = xsimd::batch<T, Arch>;
  static constexpr std::size_t lanes = batch::size;
  static constexpr std::size_t nr = 2 * lanes;  // output channels per panel
  static constexpr std::size_t mr = 4;          // output pixels (GEMM rows) per call
};
template <class Arch>
using f32_tile = gemm_tile<float, Arch>;

/// A filter [out_c][taps][cin] repacked as ceil(out_c / nr) panels of [taps][cin][nr]
/// (channels past out_c are zero). FULLY_CONNECTED weights are the case taps = 1.
/// A grouped filter [groups * out_c][taps][cin] (GROUPED_CONV_2D: out_c and cin per group)
/// is `groups` such packings one after the other; panel index pn counts across groups.
/// The panels are packed here or found in a compilation cache (packed_constant_panels).
template <class T>
struct packed_panels {
  std::shared_ptr<const T> w;  // size() elements
  std::size_t out_c = 0, taps = 0, cin = 0, panels = 0, nr = 0;  // per group
  std::size_t groups = 1;
  const T* panel(std::size_t pn) const noexcept { return w.get() + pn * taps * cin * nr; }
  std::size_t size() const noexcept { return groups * panels * taps * cin * nr; }
  /// The output channel of panel pn's first column, and how many of its columns are real.
  std::size_t channel(std::size_t pn) const noexcept { return pn / panels * out_c + pn % panels * nr; }
  std::size_t columns(std::size_t pn) const noexcept { return std::min(nr, out_c - pn % panels * nr); }
  /// The length of per-channel vectors (bias, requantization) read a whole panel at a
  /// time from channel(pn): the last panel's columns past the end are padding.
  std::size_t padded_channels() const noexcept { return (groups - 1) * out_c + panels * nr; }

  /// The shape of a packing, without its panels.
  static packed_panels shape(std::size_t out_c, std::size_t taps, std::size_t cin, std::size_t nr,
                             std::size_t groups = 1) {
    return {nullptr, out_c, taps, cin, (out_c + nr - 1) / nr, nr, groups};
  }
};
using packed_f32 = packed_panels<float>;
/// Quant8 weights for the portable kernels: each (w - weight zero point) as a uint32.
using packed_u32 = packed_panels<std::uint32_t>;

/// Packs the out_c x k matrix whose element (oc, i) is w[oc * ld_oc + i * ld_k] into
/// `buf` (one group of p's shape: p.panels panels; pack_groups_into packs several) as
/// panels [panel][k][nr] of convert(element), zero
/// beyond out_c; only panels [p0, p1) (all by default), so that threads can share the work.
template <class T, class S, class Convert>
void pack_panels_into(T* buf, const packed_panels<T>& p, const S* w, std::size_t ld_oc, std::size_t ld_k,
                      Convert&& convert, std::size_t p0 = 0, std::size_t p1 = SIZE_MAX) {
  const std::size_t k = p.taps * p.cin, nr = p.nr;
  p1 = std::min(p1, p.panels);
  if (ld_oc == 1) {
    // Rows of k: source row i is cut into the panels' row i, so the source is read once in
    // order (panel by panel, every panel would stream all rows again).
    for (std::size_t i = 0; i < k; ++i) {
      const S* src = w + i * ld_k;
      for (std::size_t pn = p0; pn < p1; ++pn) {
        const std::size_t oc0 = pn * nr, cols = std::min(nr, p.out_c - oc0);
        T* dst = buf + (pn * k + i) * nr;
        std::transform(src + oc0, src + oc0 + cols, dst, convert);
        if (cols < nr) std::fill(dst + cols, dst + nr, T{});
      }
    }
    return;
  }
  for (std::size_t pn = p0; pn < p1; ++pn) {
    const std::size_t oc0 = pn * nr, cols = std::min(nr, p.out_c - oc0);
    T* panel = buf + pn * k * nr;
    // In blocks of 16 elements per source row: each block reads one cache line of each of
    // the panel's rows and writes 16 packed rows (16 nr elements) that stay cached meanwhile.
    constexpr std::size_t block = 16;
    for (std::size_t i0 = 0; i0 < k; i0 += block) {
      const std::size_t i1 = std::min(k, i0 + block);
      for (std::size_t i = i0; i < i1; ++i) std::fill(panel + i * nr + cols, panel + (i + 1) * nr, T{});
      for (std::size_t j = 0; j < cols; ++j) {
        const S* src = w + (oc0 + j) * ld_oc;
        for (std::size_t i = i0; i < i1; ++i) panel[i * nr + j] = convert(src[i * ld_k]);
      }
    }
  }
}

/// The grouped filter [groups * p.out_c][p.taps][p.cin] at `filter` packed into `buf` as
/// p.groups packings of convert(element) (pack_panels_into, group by group).
template <class T, class S, class Convert>
void pack_groups_into(T* buf, const packed_panels<T>& p, const S* filter, Convert&& convert) {
  packed_panels<T> one = p;
  one.groups = 1;
  const std::size_t k = p.taps * p.cin;
  for (std::size_t gi = 0; gi < p.groups; ++gi)
    pack_panels_into(buf + gi * one.size(), one, filter + gi * p.out_c * k, k, 1, convert);
}

/// A quant8 value of storage S minus a zero point, as the wrapping uint32 the portable
/// quant8 kernels multiply and add (the reference's int32 arithmetic, modulo 2^32).
template <class S>
struct minus_zero_point {
  std::int32_t zp;
  std::uint32_t operator()(S x) const noexcept {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(x) - zp);
  }
};

/// pack_panels_into for float32, the elements as they are.
inline void pack_f32_into(float* buf, const packed_f32& p, const float* w, std::size_t ld_oc, std::size_t ld_k,
                          std::size_t p0 = 0, std::size_t p1 = SIZE_MAX) {
  pack_panels_into(buf, p, w, ld_oc, ld_k, [](float x) { return x; }, p0, p1);
}

/// A new packing of shape `p` whose panels `fill(buf)` writes.
template <class T, class Fill>
packed_panels<T> make_packed(packed_panels<T> p, Fill&& fill) {
  const std::shared_ptr<std::byte[]> bytes = types::large_bytes(p.size() * sizeof(T), false);
  auto* buf = reinterpret_cast<T*>(bytes.get());
  p.w = std::shared_ptr<const T>(bytes, buf);
  fill(buf, p);
  return p;
}

/// The filter [groups * out_c][taps][cin] packed (shape(out_c, taps, cin, nr, groups)).
inline packed_f32 pack_f32(const float* filter, std::size_t out_c, std::size_t taps, std::size_t cin, std::size_t nr,
                           std::size_t groups = 1) {
  return make_packed(packed_f32::shape(out_c, taps, cin, nr, groups), [&](float* buf, const packed_f32& p) {
    pack_groups_into(buf, p, filter, [](float x) { return x; });
  });
}

/// The same for quant8 elements S with weight zero point `zw` (0 for per-channel
/// weights), packed as (w - zw) for the portable quant8 kernels.
template <class S>
packed_u32 pack_u32(const S* filter, std::size_t out_c, std::size_t taps, std::size_t cin, std::size_t nr,
                    std::int32_t zw, std::size_t groups = 1) {
  return make_packed(packed_u32::shape(out_c, taps, cin, nr, groups), [&](std::uint32_t* buf, const packed_u32& p) {
    pack_groups_into(buf, p, filter, minus_zero_point<S>{zw});
  });
}

/// A constant filter's packing through packed_constant(): `pack` makes it, and a blob of
/// exactly shape.size() elements from an earlier preparation stands in for it. `kind`
/// names the element type in the blob's key.
template <class T, class Pack>
std::shared_ptr<const packed_panels<T>> packed_constant_panels(const bind_context& c, std::string_view kind,
                                                               const packed_panels<T>& shape, Pack&& pack) {
  using P = packed_panels<T>;
  const std::string what = types::str_cat(kind, ":", shape.groups, "x", shape.out_c, "x", shape.taps, "x",
                                          shape.cin, "/", shape.nr);
  return packed_constant<P>(
      c, what, shape.size() * sizeof(T), [&] { return std::make_shared<const P>(pack()); },
      [&](const packed_blob& b) -> std::shared_ptr<const P> {
        if (reinterpret_cast<std::uintptr_t>(b.bytes.data()) % alignof(T) != 0) return nullptr;
        P p = shape;
        p.w = std::shared_ptr<const T>(b.owner, reinterpret_cast<const T*>(b.bytes.data()));
        return std::make_shared<const P>(std::move(p));
      },
      [](const std::shared_ptr<const P>& p) { return packed_blob{p, std::as_bytes(std::span(p->w.get(), p->size()))}; });
}

template <class Pack>
std::shared_ptr<const packed_f32> packed_constant_f32(const bind_context& c, const packed_f32& shape, Pack&& pack) {
  return packed_constant_panels<float>(c, "f32", shape, std::forward<Pack>(pack));
}

/// b = the bias of out_c channels, zero-padded to `padded` (zeros when there is none);
/// b keeps its capacity.
inline void padded_bias_into(std::vector<float>& b, const float* bias, std::size_t out_c, std::size_t padded) {
  b.assign(padded, 0.0f);
  if (bias) std::copy(bias, bias + out_c, b.begin());
}
/// The same in a new vector.
inline std::vector<float> padded_bias(const float* bias, std::size_t out_c, std::size_t padded) {
  std::vector<float> b;
  padded_bias_into(b, bias, out_c, padded);
  return b;
}

/// The sums of one micro-tile: c[m][h] holds lanes h * L .. h * L + L - 1 of
/// sum_t sum_k widen(a[t * mr + m][k]) * w[t][k][j], j < nr (T float: fused multiply-add;
/// T uint32: wrapping multiply and add).
template <class Arch, class T, class A, class Widen>
inline void tile_sums(const A* const* a, std::size_t taps, std::size_t cin, const T* w, Widen widen,
                      xsimd::batch<T, Arch> (&c)[4][2]) noexcept {
  using tile = gemm_tile<T, Arch>;
  using B = typename tile::batch;
  constexpr std::size_t L = tile::lanes, NR = tile::nr, MR = tile::mr;
  static_assert(MR == 4, "tile_sums is unrolled for 4 rows");
  auto mac = [](const B& x, const B& y, const B& acc) {
    if constexpr (std::is_floating_point_v<T>) return xsimd::fma(x, y, acc);
    else return acc + x * y;
  };
  B c00(T{}), c01(T{}), c10(T{}), c11(T{}), c20(T{}), c21(T{}), c30(T{}), c31(T{});
  for (std::size_t t = 0; t < taps; ++t) {
    const A* a0 = a[t * MR + 0];
    const A* a1 = a[t * MR + 1];
    const A* a2 = a[t * MR + 2];
    const A* a3 = a[t * MR + 3];
    const T* wt = w + t * cin * NR;
    for (std::size_t k = 0; k < cin; ++k, wt += NR) {
      const B w0 = B::load_unaligned(wt);
      const B w1 = B::load_unaligned(wt + L);
      B x(widen(a0[k]));
      c00 = mac(x, w0, c00);
      c01 = mac(x, w1, c01);
      x = B(widen(a1[k]));
      c10 = mac(x, w0, c10);
      c11 = mac(x, w1, c11);
      x = B(widen(a2[k]));
      c20 = mac(x, w0, c20);
      c21 = mac(x, w1, c21);
      x = B(widen(a3[k]));
      c30 = mac(x, w0, c30);
      c31 = mac(x, w1, c31);
    }
  }
  c[0][0] = c00, c[0][1] = c01, c[1][0] = c10, c[1][1] = c11;
  c[2][0] = c20, c[2][1] = c21, c[3][0] = c30, c[3][1] = c31;
}

/// One float32 micro-tile: the sums + bias[j], clamped to [lo, hi] (NaN kept, like the
/// scalar clamp); row m stores its first `cols` channels at out[m] for m < rows.
template <class Arch>
void micro_f32(std::size_t rows, std::size_t cols, const float* const* a, std::size_t taps, std::size_t cin,
               const float* w, const float* bias, float lo, float hi, float* const* out) noexcept {
  using tile = f32_tile<Arch>;
  using B = typename tile::batch;
  constexpr std::size_t L = tile::lanes, NR = tile::nr, MR = tile::mr;
  B r[MR][2];
  tile_sums<Arch>(a, taps, cin, w, [](float x) { return x; }, r);
  const B b0 = B::load_unaligned(bias), b1 = B::load_unaligned(bias + L);
  const B vlo(lo), vhi(hi);
  for (std::size_t m = 0; m < rows; ++m) {
    for (std::size_t h = 0; h < 2; ++h) {
      B v = r[m][h] + (h == 0 ? b0 : b1);
      v = xsimd::select(v < vlo, vlo, v);
      r[m][h] = xsimd::select(v > vhi, vhi, v);
    }
    if (cols == NR) {
      r[m][0].store_unaligned(out[m]);
      r[m][1].store_unaligned(out[m] + L);
    } else {
      alignas(64) float tmp[NR];
      r[m][0].store_unaligned(tmp);
      r[m][1].store_unaligned(tmp + L);
      std::copy(tmp, tmp + cols, out[m]);
    }
  }
}

/// Runs `tile(rows, a, pn, first)` over an NHWC forward convolution of one or more
/// groups (g.in_c / g.cin_per_group): for each block of up to mr output pixels (`rows` of
/// them, the first at output pixel index `first`, i.e. (b * out_h + oy) * out_w + ox) and
/// each panel of nr output channels; pn = group * panels + the panel in its group.
/// a[t * mr + m] points at the group's cin_per_group input channels of tap t of the
/// block's pixel m (the last pixel repeated past `rows`), or at a row of `pad` for a
/// padding tap. For each output row and group the input pointers are gathered once; then
/// each filter panel sweeps the row, so a panel stays in cache while the row's pixels pass
/// through the tile. Rows are split across `par` when it has workers.
template <std::size_t MR, std::size_t NR, class A, class Tile>
void conv_nhwc_tiles(const geometry& g, const A* in, A pad, std::size_t panels, exec::parallel_context* par,
                     Tile&& tile) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w;
  const std::size_t cin = g.in_c, cin_g = g.cin_per_group, groups = cin / cin_g;
  const std::size_t blocks = (g.out_w + MR - 1) / MR;
  const std::vector<A> pads(cin_g, pad);
  auto rows_fn = [&](std::size_t r0, std::size_t r1) {
    std::vector<const A*> ptrs(blocks * taps * MR);
    for (std::size_t r = r0; r < r1; ++r)
      for (std::size_t gi = 0; gi < groups; ++gi) {
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      for (std::size_t blk = 0; blk < blocks; ++blk)
        for (std::size_t t = 0; t < taps; ++t) {
          const std::int64_t iy = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top +
                                  static_cast<std::int64_t>(t / g.filter_w) * g.dil_h;
          for (std::size_t m = 0; m < MR; ++m) {
            const std::size_t ox = std::min(blk * MR + m, std::size_t{g.out_w} - 1);  // tail: repeat the last pixel
            const std::int64_t ix = static_cast<std::int64_t>(ox) * g.stride_w - g.pad_left +
                                    static_cast<std::int64_t>(t % g.filter_w) * g.dil_w;
            const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
            ptrs[(blk * taps + t) * MR + m] =
                inside ? in + ((b * g.in_h + static_cast<std::size_t>(iy)) * g.in_w + static_cast<std::size_t>(ix)) *
                                  cin +
                             gi * cin_g
                       : pads.data();
          }
        }
      for (std::size_t pn = gi * panels; pn < (gi + 1) * panels; ++pn)
        for (std::size_t blk = 0; blk < blocks; ++blk)
          tile(std::min(MR, std::size_t{g.out_w} - blk * MR), &ptrs[blk * taps * MR], pn, r * g.out_w + blk * MR);
    }
  };
  const std::size_t rows = std::size_t{g.batches} * g.out_h;
  if (par && par->concurrency() > 1) par->parallel_for(rows, 1, rows_fn);
  else rows_fn(0, rows);
}

/// The same for a GEMM of m rows of k elements at `in` (FULLY_CONNECTED, BATCH_MATMUL):
/// one tap, a[r] row `first + r` (the last row repeated past `rows`). Panels are split
/// across `par` when it has workers and the GEMM has 2^16 products or more.
template <std::size_t MR, std::size_t NR, class A, class Tile>
void gemm_tiles(std::size_t m, std::size_t k, const A* in, std::size_t panels, Tile&& tile,
                exec::parallel_context* par = nullptr) {
  auto run = [&](std::size_t p0, std::size_t p1) {
    for (std::size_t pn = p0; pn < p1; ++pn)
      for (std::size_t i0 = 0; i0 < m; i0 += MR) {
        const A* a[MR];
        for (std::size_t r = 0; r < MR; ++r) a[r] = in + std::min(i0 + r, m - 1) * k;
        tile(std::min(MR, m - i0), a, pn, i0);
      }
  };
  constexpr std::size_t worth_threads = std::size_t{1} << 16;
  if (par && par->concurrency() > 1 && panels > 1 && m * k * panels * NR >= worth_threads)
    par->parallel_for(panels, 1, run);
  else
    run(0, panels);
}

/// CONV_2D / GROUPED_CONV_2D float32 in NHWC (conv_nhwc_tiles over micro_f32); `bias`
/// has p.padded_channels() elements.
template <class Arch>
void conv_f32_nhwc(const geometry& g, const float* in, const packed_f32& p, const float* bias, float lo, float hi,
                   float* out, exec::parallel_context* par) {
  using tile = f32_tile<Arch>;
  constexpr std::size_t MR = tile::mr, NR = tile::nr;
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, oc = g.out_c;
  conv_nhwc_tiles<MR, NR>(g, in, 0.0f, p.panels, par,
                          [&](std::size_t rows, const float* const* a, std::size_t pn, std::size_t first) {
                            float* outs[MR] = {};
                            const std::size_t c = p.channel(pn);
                            for (std::size_t m = 0; m < rows; ++m) outs[m] = out + (first + m) * oc + c;
                            micro_f32<Arch>(rows, p.columns(pn), a, taps, p.cin, p.panel(pn), bias + c, lo, hi, outs);
                          });
}

/// out[i][j] = act(sum_k in[i][k] * w[j][k] + bias[j]) for i < m: FULLY_CONNECTED,
/// BATCH_MATMUL's slices, TRANSPOSE_CONV_2D's products.
template <class Arch>
void gemm_f32(std::size_t m, const float* in, const packed_f32& p, const float* bias, float lo, float hi, float* out,
              exec::parallel_context* par = nullptr) {
  using tile = f32_tile<Arch>;
  constexpr std::size_t MR = tile::mr, NR = tile::nr;
  const std::size_t n = p.out_c;
  gemm_tiles<MR, NR>(m, p.cin, in, p.panels, [&](std::size_t rows, const float* const* a, std::size_t pn, std::size_t i0) {
    float* outs[MR] = {};
    for (std::size_t r = 0; r < rows; ++r) outs[r] = out + (i0 + r) * n + p.channel(pn);
    micro_f32<Arch>(rows, p.columns(pn), a, 1, p.cin, p.panel(pn), bias + p.channel(pn), lo, hi, outs);
  }, par);
}

/// What the quant8 kernels need per execution, per output channel padded to whole vectors:
/// the bias and the requantization multiplier (channels past out_c: zeros), the output
/// zero point and the activation's clamp.
struct q8_requant_lanes {
  std::vector<std::int32_t> bias, mantissa, left, right;
  bool any_left = false;  // some multiplier is above 1
  std::int32_t zp = 0, lo = 0, hi = 0;

  q8_requant_lanes(const requant& q, const std::int32_t* b, std::size_t out_c, std::size_t padded,
                   quant::quant_range range)
      : bias(padded, 0), mantissa(padded, 0), left(padded, 0), right(padded, 0), zp(q.out_zp), lo(range.lo),
        hi(range.hi) {
    for (std::size_t c = 0; c < out_c; ++c) {
      const quant::fixed_multiplier m = q.at(c);
      bias[c] = b ? b[c] : 0;
      mantissa[c] = m.mantissa_q31;
      left[c] = m.shift > 0 ? m.shift : 0;
      right[c] = m.shift > 0 ? 0 : -m.shift;
      any_left = any_left || left[c] > 0;
    }
  }

  /// The output values, clamped but not narrowed, of the sums `acc` of channels
  /// [c, c + lanes); Left false when !any_left.
  template <bool Left, class Arch>
  xsimd::batch<std::int32_t, Arch> lanes(std::size_t c, const xsimd::batch<std::uint32_t, Arch>& acc) const noexcept {
    using I = xsimd::batch<std::int32_t, Arch>;
    const I sum = xsimd::bitwise_cast<I>(acc) + I::load_unaligned(bias.data() + c);
    const I v = simd::portable::apply_multiplier_lanes<Left, Arch>(sum, I::load_unaligned(mantissa.data() + c),
                                                                   I::load_unaligned(left.data() + c),
                                                                   I::load_unaligned(right.data() + c)) +
                I(zp);
    return xsimd::min(xsimd::max(v, I(lo)), I(hi));
  }

  /// The outputs of channels [c, c + lanes) from their sums `acc`, stored at out[0, lanes).
  template <class Arch, class S>
  void store(std::size_t c, const xsimd::batch<std::uint32_t, Arch>& acc, S* out) const noexcept {
    constexpr std::size_t L = xsimd::batch<std::uint32_t, Arch>::size;
    alignas(64) std::int32_t v[L];
    if (any_left) lanes<true, Arch>(c, acc).store_aligned(v);
    else lanes<false, Arch>(c, acc).store_aligned(v);
    for (std::size_t j = 0; j < L; ++j) out[j] = static_cast<S>(v[j]);
  }

  /// The output of channel c from its sum `acc`, one value (scalar apply_multiplier).
  std::int32_t one(std::size_t c, std::uint32_t acc) const noexcept {
    const auto sum = static_cast<std::int32_t>(acc + static_cast<std::uint32_t>(bias[c]));
    const quant::fixed_multiplier m{mantissa[c], left[c] - right[c]};
    return std::clamp(wrap_add(quant::apply_multiplier(sum, m), zp), lo, hi);
  }

  /// out[c] = the outputs of channels [0, n) from their sums acc[c]: whole vectors
  /// of lanes, then one at a time (the lanes cover n rounded up to whole vectors).
  template <class Arch, class S>
  void store_all(const std::uint32_t* acc, std::size_t n, S* out) const noexcept {
    using U = xsimd::batch<std::uint32_t, Arch>;
    std::size_t c = 0;
    for (; c + U::size <= n; c += U::size) store<Arch>(c, U::load_unaligned(acc + c), out + c);
    for (; c < n; ++c) out[c] = static_cast<S>(one(c, acc[c]));
  }
};

/// The quant8 tile for storage S: the sums of (x - input zero point) * (w - weight zero
/// point) over the tile, then per lane the bias, requantization, output zero point and
/// clamp (simd::portable::apply_multiplier_lanes: bit-exact with reference()'s writer);
/// row m goes to output pixel `first + m` of `out` (out_stride elements per pixel: every
/// group's channels in NHWC, n in a GEMM of n columns).
template <class Arch, class S>
struct q8_tile {
  using tile = gemm_tile<std::uint32_t, Arch>;
  const packed_u32& p;
  std::int32_t in_zp;
  const q8_requant_lanes& rq;
  S* out;
  std::size_t out_stride;

  template <bool Left>
  void store(std::size_t rows, const typename tile::batch (&r)[tile::mr][2], std::size_t pn, std::size_t first) const {
    constexpr std::size_t L = tile::lanes, NR = tile::nr;
    const std::size_t c = p.channel(pn), cols = p.columns(pn);
    alignas(64) std::int32_t v[NR];
    for (std::size_t m = 0; m < rows; ++m) {
      for (std::size_t h = 0; h < 2; ++h) rq.lanes<Left, Arch>(c + h * L, r[m][h]).store_aligned(v + h * L);
      S* o = out + (first + m) * out_stride + c;
      for (std::size_t j = 0; j < cols; ++j) o[j] = static_cast<S>(v[j]);
    }
  }

  void operator()(std::size_t rows, const S* const* a, std::size_t pn, std::size_t first) const {
    typename tile::batch r[tile::mr][2];
    tile_sums<Arch>(a, p.taps, p.cin, p.panel(pn), minus_zero_point<S>{in_zp}, r);
    if (rq.any_left) store<true>(rows, r, pn, first);
    else store<false>(rows, r, pn, first);
  }
};

/// DEPTHWISE_CONV_2D with depth_multiplier 1 in NHWC over lanes of T (float, or wrapping
/// uint32 for quant8 sums): each output pixel sums its in-bounds taps lane-wise over
/// channels; full(o, c, acc) finishes channels [c, c + lanes) of output element offset o
/// (pixel index x channels), tail(o, c, acc) a channel past the last full vector. `w` is
/// the filter [1, fh, fw, channels]; padding taps are skipped (they add nothing).
template <class Arch, class T, class Full, class Tail>
void depthwise_nhwc_sums(const geometry& g, const T* in, const T* w, exec::parallel_context* par, Full&& full,
                         Tail&& tail) {
  using B = xsimd::batch<T, Arch>;
  constexpr std::size_t L = B::size;
  const std::size_t ch = g.out_c, full_end = ch / L * L;
  auto rows_fn = [&](std::size_t r0, std::size_t r1) {
    std::vector<const T*> taps_in, taps_w;  // the in-bounds taps of one pixel
    taps_in.reserve(std::size_t{g.filter_h} * g.filter_w);
    taps_w.reserve(std::size_t{g.filter_h} * g.filter_w);
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        taps_in.clear();
        taps_w.clear();
        for_each_input_tap(g, oy, ox, [&](std::size_t ky, std::size_t kx, std::size_t iy, std::size_t ix) {
          taps_in.push_back(in + ((b * g.in_h + iy) * g.in_w + ix) * ch);
          taps_w.push_back(w + (ky * g.filter_w + kx) * ch);
        });
        const std::size_t o = (r * g.out_w + ox) * ch;
        const std::size_t n = taps_in.size();
        for (std::size_t c = 0; c < full_end; c += L) {
          B acc(T{});
          for (std::size_t t = 0; t < n; ++t) {
            const B x = B::load_unaligned(taps_in[t] + c), y = B::load_unaligned(taps_w[t] + c);
            if constexpr (std::is_floating_point_v<T>) acc = xsimd::fma(x, y, acc);
            else acc += x * y;
          }
          full(o, c, acc);
        }
        for (std::size_t c = full_end; c < ch; ++c) {
          T acc{};
          for (std::size_t t = 0; t < n; ++t) acc += taps_in[t][c] * taps_w[t][c];
          tail(o, c, acc);
        }
      }
    }
  };
  const std::size_t rows = std::size_t{g.batches} * g.out_h;
  if (par && par->concurrency() > 1) par->parallel_for(rows, 1, rows_fn);
  else rows_fn(0, rows);
}

/// DEPTHWISE_CONV_2D float32 in NHWC with depth_multiplier 1: the sums + bias, clamped.
template <class Arch>
void depthwise_f32_nhwc(const geometry& g, const float* in, const float* w, const float* bias, float lo, float hi,
                        float* out, exec::parallel_context* par) {
  using B = xsimd::batch<float, Arch>;
  const B vlo(lo), vhi(hi);
  depthwise_nhwc_sums<Arch>(
      g, in, w, par,
      [&](std::size_t o, std::size_t c, B acc) {
        acc += B::load_unaligned(bias + c);
        acc = xsimd::select(acc < vlo, vlo, acc);
        xsimd::select(acc > vhi, vhi, acc).store_unaligned(out + o + c);
      },
      [&](std::size_t o, std::size_t c, float acc) { out[o + c] = clamp_activation(acc + bias[c], float_range{lo, hi}); });
}

/// Copies a 4-D tensor between NCHW and NHWC (`to_nhwc` picks the direction).
template <class T>
void relayout(const T* src, T* dst, std::size_t n, std::size_t c, std::size_t h, std::size_t w,
                     bool to_nhwc) {
  const layout4 nchw = make_layout4(true, h, w, c), nhwc = make_layout4(false, h, w, c);
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x)
        for (std::size_t ch = 0; ch < c; ++ch) {
          if (to_nhwc) dst[nhwc.at(b, y, x, ch)] = src[nchw.at(b, y, x, ch)];
          else dst[nchw.at(b, y, x, ch)] = src[nhwc.at(b, y, x, ch)];
        }
}

/// Runs `nhwc(g, in, out)`, a kernel that handles NHWC only: directly, or for an NCHW
/// operation on NHWC copies of the input and output (its geometry switched to NHWC).
template <class T, class Run>
void run_as_nhwc(geometry g, const T* in, T* out, Run&& nhwc) {
  if (!g.nchw) return nhwc(g, in, out);
  std::vector<T> in_nhwc(std::size_t{g.batches} * g.in_c * g.in_h * g.in_w),
      out_nhwc(std::size_t{g.batches} * g.out_c * g.out_h * g.out_w);
  relayout(in, in_nhwc.data(), g.batches, g.in_c, g.in_h, g.in_w, true);
  g.nchw = false;
  g.in_l = make_layout4(false, g.in_h, g.in_w, g.in_c);
  g.out_l = make_layout4(false, g.out_h, g.out_w, g.out_c);
  nhwc(g, in_nhwc.data(), out_nhwc.data());
  relayout(out_nhwc.data(), out, g.batches, g.out_c, g.out_h, g.out_w, false);
}

/// The weights a bound kernel prepared from a constant operand, or (none: the operand is
/// an input) `make()` stored in `local`, once per call.
template <class T, class Make>
const T& prepared_or(const std::shared_ptr<const T>& constant, T& local, Make&& make) {
  if (constant) return *constant;
  local = make();
  return local;
}

/// The packing shape of a conv filter [groups * out_c, fh, fw, cin] (per group out_c and
/// cin) or of FULLY_CONNECTED weights [units, input_size] (rank 2, one group).
template <class T>
packed_panels<T> weights_shape(const operand_desc& f, std::size_t nr, std::size_t groups = 1) {
  const std::size_t taps = f.dims.size() == 4 ? std::size_t{f.dims[1]} * f.dims[2] : 1;
  return packed_panels<T>::shape(f.dims[0] / groups, taps, f.dims.back(), nr, groups);
}

/// Whether the weights operand is a constant of rank `rank` whose shape bind can read.
inline bool constant_weights(const bind_context& c, std::size_t rank) {
  const operand_desc& f = c.in[1];
  return f.has_value() && f.dims.size() == rank && f.dims_known();
}

/// The bound CONV_2D / GROUPED_CONV_2D float32 kernel (`groups` groups, a constant): the
/// filter is packed here when it is a constant, else at each execution. NCHW runs through
/// NHWC copies of the input and output.
template <class Arch = xsimd::default_arch>
kernel bind_conv_f32(const bind_context& c, conv_kind k, conv_slots_fn slots, std::size_t groups = 1) {
  constexpr std::size_t nr = f32_tile<Arch>::nr;
  auto pack = [groups](const operand_desc& f) {
    const packed_f32 s = weights_shape<float>(f, nr, groups);
    return pack_f32(reinterpret_cast<const float*>(f.value), s.out_c, s.taps, s.cin, nr, groups);
  };
  std::shared_ptr<const packed_f32> constant;
  if (constant_weights(c, 4))
    constant = packed_constant_f32(c, weights_shape<float>(c.in[1], nr, groups), [&] { return pack(c.in[1]); });
  return [constant, pack, k, slots](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, k, slots(io.in));
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const std::vector<float> bias =
        padded_bias(reinterpret_cast<const float*>(io.in[2].value), g.out_c, p.padded_channels());
    const float_range r = activation_range_float(g.activation);
    run_as_nhwc(g, reinterpret_cast<const float*>(io.in[0].value), reinterpret_cast<float*>(io.out_data[0]),
                [&](const geometry& gn, const float* in, float* out) {
                  conv_f32_nhwc<Arch>(gn, in, p, bias.data(), r.lo, r.hi, out, io.par);
                });
  };
}

/// The bound FULLY_CONNECTED float32 kernel: weights packed at bind when constant.
template <class Arch = xsimd::default_arch>
kernel bind_fully_connected_f32(const bind_context& c) {
  auto pack = [](const operand_desc& w) {
    return pack_f32(reinterpret_cast<const float*>(w.value), w.dims[0], 1, w.dims[1], f32_tile<Arch>::nr);
  };
  std::shared_ptr<const packed_f32> constant;
  if (constant_weights(c, 2))
    constant = packed_constant_f32(c, weights_shape<float>(c.in[1], f32_tile<Arch>::nr), [&] { return pack(c.in[1]); });
  return [constant, pack](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const std::vector<float> bias =
        padded_bias(reinterpret_cast<const float*>(io.in[2].value), p.out_c, p.padded_channels());
    const float_range r = activation_range_float(io.scalar<std::int32_t>(3));
    gemm_f32<Arch>(io.out[0].dims[0], reinterpret_cast<const float*>(io.in[0].value), p, bias.data(), r.lo, r.hi,
                   reinterpret_cast<float*>(io.out_data[0]), io.par);
  };
}

/// The zero point of a quant8 filter: its own, or 0 when per channel (symmetric).
inline std::int32_t filter_zero_point(const operand_desc& f) noexcept {
  return f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL ? 0 : f.zero_point;
}

/// Quant8 weights of filter operand f's type (qu8, qs8 or per-channel qc8) laid out
/// [groups * s.out_c][s.taps][s.cin] at `values`, packed for q8_tile in shape s.
inline packed_u32 pack_q8_values(const operand_desc& f, const std::byte* values, const packed_u32& s) {
  if (f.type == OperandType::TENSOR_QUANT8_ASYMM)
    return pack_u32(reinterpret_cast<const std::uint8_t*>(values), s.out_c, s.taps, s.cin, s.nr, f.zero_point,
                    s.groups);
  return pack_u32(reinterpret_cast<const std::int8_t*>(values), s.out_c, s.taps, s.cin, s.nr, filter_zero_point(f),
                  s.groups);
}

/// The weights of a quant8 conv-like op (filter [groups * out_c, fh, fw, cin] or
/// FULLY_CONNECTED weights [units, input_size]) packed for q8_tile.
template <class Arch>
packed_u32 pack_q8_weights(const operand_desc& f, std::size_t groups = 1) {
  return pack_q8_values(f, f.value, weights_shape<std::uint32_t>(f, gemm_tile<std::uint32_t, Arch>::nr, groups));
}

/// pack_q8_weights once at bind when the weights are a constant of rank `rank` (or from
/// a compilation cache); null otherwise (each execution packs its own).
template <class Arch>
std::shared_ptr<const packed_u32> constant_q8_weights(const bind_context& c, std::size_t rank,
                                                      std::size_t groups = 1) {
  if (!constant_weights(c, rank)) return nullptr;
  return packed_constant_panels<std::uint32_t>(
      c, "u32", weights_shape<std::uint32_t>(c.in[1], gemm_tile<std::uint32_t, Arch>::nr, groups),
      [&] { return pack_q8_weights<Arch>(c.in[1], groups); });
}

/// The bound portable CONV_2D / GROUPED_CONV_2D quant8 kernel (`groups` groups, a
/// constant), E qu8 or qs8 (filter per tensor of the same type, or per channel):
/// bit-exact with reference().
template <types::element E, class Arch = xsimd::default_arch>
kernel bind_conv_q8(const bind_context& c, conv_kind k, conv_slots_fn slots, std::size_t groups = 1) {
  using S = typename E::storage;
  using tile = gemm_tile<std::uint32_t, Arch>;
  return [constant = constant_q8_weights<Arch>(c, 4, groups), q = make_requant(c.in[0], c.in[1], c.out[0]), k, slots,
          groups](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, k, slots(io.in));
    packed_u32 local;
    const packed_u32& p = prepared_or(constant, local, [&] { return pack_q8_weights<Arch>(io.in[1], groups); });
    const auto o = io.output<E>(0);
    const q8_requant_lanes rq(q, reinterpret_cast<const std::int32_t*>(io.in[2].value), g.out_c, p.padded_channels(),
                              quant::activation_range(g.activation, o.scale, o.zero_point,
                                                      std::numeric_limits<S>::min(), std::numeric_limits<S>::max()));
    const std::int32_t zx = io.in[0].zero_point;
    run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const geometry& gn, const S* in, S* out) {
      conv_nhwc_tiles<tile::mr, tile::nr>(gn, in, static_cast<S>(zx), p.panels, io.par,
                                          q8_tile<Arch, S>{p, zx, rq, out, gn.out_c});
    });
  };
}

/// The bound portable FULLY_CONNECTED quant8 kernel, E qu8 or qs8: bit-exact with
/// reference().
template <types::element E, class Arch = xsimd::default_arch>
kernel bind_fully_connected_q8(const bind_context& c) {
  using S = typename E::storage;
  using tile = gemm_tile<std::uint32_t, Arch>;
  return [constant = constant_q8_weights<Arch>(c, 2), q = make_requant(c.in[0], c.in[1], c.out[0])](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    packed_u32 local;
    const packed_u32& p = prepared_or(constant, local, [&] { return pack_q8_weights<Arch>(io.in[1]); });
    const auto o = io.output<E>(0);
    const q8_requant_lanes rq(q, reinterpret_cast<const std::int32_t*>(io.in[2].value), p.out_c, p.padded_channels(),
                              quant::activation_range(io.scalar<std::int32_t>(3), o.scale, o.zero_point,
                                                      std::numeric_limits<S>::min(), std::numeric_limits<S>::max()));
    gemm_tiles<tile::mr, tile::nr>(io.out[0].dims[0], p.cin, reinterpret_cast<const S*>(io.in[0].value), p.panels,
                         q8_tile<Arch, S>{p, io.in[0].zero_point, rq, o.data, p.out_c}, io.par);
  };
}

/// A quant8 tensor of storage S as (value - zp) in wrapping uint32 lanes.
template <class S>
std::vector<std::uint32_t> widen_q8(const S* v, std::size_t n, std::int32_t zp) {
  std::vector<std::uint32_t> out(n);
  std::transform(v, v + n, out.begin(), minus_zero_point<S>{zp});
  return out;
}

/// A DEPTHWISE_CONV_2D quant8 filter [1, fh, fw, channels] widened (zero point 0 when per
/// channel).
template <class S>
std::vector<std::uint32_t> widen_depthwise_filter(const operand_desc& f) {
  return widen_q8(reinterpret_cast<const S*>(f.value), element_count(f.dims), filter_zero_point(f));
}

/// The bound portable DEPTHWISE_CONV_2D quant8 kernel for depth_multiplier 1 (the caller
/// checks it), E qu8 or qs8: the input and filter widened to (value - zero point) in
/// uint32 lanes, depthwise_nhwc_sums, then q8_requant_lanes: bit-exact with reference().
template <types::element E, class Arch = xsimd::default_arch>
kernel bind_depthwise_q8(const bind_context& c, conv_slots_fn slots) {
  using S = typename E::storage;
  using F = std::conditional_t<std::is_signed_v<S>, std::int8_t, std::uint8_t>;  // the filter's, when per tensor
  std::shared_ptr<const std::vector<std::uint32_t>> constant;
  const bool per_channel = c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  auto widen_filter = [per_channel](const operand_desc& f) {
    return per_channel ? widen_depthwise_filter<std::int8_t>(f) : widen_depthwise_filter<F>(f);
  };
  if (const operand_desc& f = c.in[1]; f.has_value() && f.dims_known())
    constant = std::make_shared<const std::vector<std::uint32_t>>(widen_filter(f));
  return [constant, widen_filter, q = make_requant(c.in[0], c.in[1], c.out[0]), slots](const kernel_io& io) {
    using U = xsimd::batch<std::uint32_t, Arch>;
    constexpr std::size_t L = U::size;
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, conv_kind::depthwise, slots(io.in));
    std::vector<std::uint32_t> local;
    const std::vector<std::uint32_t>& w = constant ? *constant : (local = widen_filter(io.in[1]));
    const auto o = io.output<E>(0);
    const q8_requant_lanes rq(q, reinterpret_cast<const std::int32_t*>(io.in[2].value), g.out_c,
                              (std::size_t{g.out_c} + L - 1) / L * L,
                              quant::activation_range(g.activation, o.scale, o.zero_point,
                                                      std::numeric_limits<S>::min(), std::numeric_limits<S>::max()));
    const std::int32_t zx = io.in[0].zero_point;
    run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const geometry& gn, const S* in, S* out) {
      // The widened input, in a buffer kept per thread (no allocation once a thread has
      // run the largest input).
      thread_local std::vector<std::uint32_t> x;
      x.resize(std::size_t{gn.batches} * gn.in_h * gn.in_w * gn.in_c);
      std::transform(in, in + x.size(), x.begin(), minus_zero_point<S>{zx});
      depthwise_nhwc_sums<Arch>(
          gn, x.data(), w.data(), io.par, [&](std::size_t at, std::size_t ch, U acc) { rq.store<Arch>(ch, acc, out + at + ch); },
          [&](std::size_t at, std::size_t ch, std::uint32_t acc) { out[at + ch] = static_cast<S>(rq.one(ch, acc)); });
    });
  };
}

/// Whether the filter of a quant8 conv-like op has the input's type or is per channel
/// (the filters the portable quant8 kernels take).
inline bool q8_filter(const bind_context& c) {
  return c.in[1].type == c.in[0].type || c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
}

/// The portable kernel of a CONV_2D-like op with `groups` groups (a constant) for the
/// operand types of `c`: float32, or quant8 with a q8_filter; nullopt otherwise.
inline std::optional<kernel> bind_conv_portable(const bind_context& c, conv_kind k, conv_slots_fn slots,
                                                std::size_t groups = 1) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return bind_conv_f32(c, k, slots, groups);
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (q8_filter(c)) return bind_conv_q8<types::qu8>(c, k, slots, groups);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (q8_filter(c)) return bind_conv_q8<types::qs8>(c, k, slots, groups);
      break;
    default: break;
  }
  return std::nullopt;
}

/// The same for FULLY_CONNECTED (float32, qu8, qs8).
inline std::optional<kernel> bind_fully_connected_portable(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return bind_fully_connected_f32(c);
    case OperandType::TENSOR_QUANT8_ASYMM: return bind_fully_connected_q8<types::qu8>(c);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return bind_fully_connected_q8<types::qs8>(c);
    default: return std::nullopt;
  }
}

/// The bound DEPTHWISE_CONV_2D float32 kernel for depth_multiplier 1 (the caller checks
/// the multiplier is a constant 1) around `nhwc`, an NHWC implementation called as
/// nhwc(geometry, in, filter, bias, lo, hi, out, par). NCHW runs through NHWC copies.
template <class Nhwc>
kernel bind_depthwise_f32_with(conv_slots_fn slots, Nhwc nhwc) {
  return [slots, nhwc](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, conv_kind::depthwise, slots(io.in));
    const float_range r = activation_range_float(g.activation);
    const float* w = reinterpret_cast<const float*>(io.in[1].value);
    const float* bias = reinterpret_cast<const float*>(io.in[2].value);
    run_as_nhwc(g, reinterpret_cast<const float*>(io.in[0].value), reinterpret_cast<float*>(io.out_data[0]),
                [&](const geometry& gn, const float* in, float* out) { nhwc(gn, in, w, bias, r.lo, r.hi, out, io.par); });
  };
}

/// bind_depthwise_f32_with the portable xsimd implementation for `Arch`.
template <class Arch = xsimd::default_arch>
kernel bind_depthwise_f32(conv_slots_fn slots) {
  return bind_depthwise_f32_with(slots, &depthwise_f32_nhwc<Arch>);
}

/// bind_conv_portable for DEPTHWISE_CONV_2D with depth_multiplier 1 (the caller checks it).
inline std::optional<kernel> bind_depthwise_portable(const bind_context& c, conv_slots_fn slots) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return bind_depthwise_f32(slots);
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (q8_filter(c)) return bind_depthwise_q8<types::qu8>(c, slots);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (q8_filter(c)) return bind_depthwise_q8<types::qs8>(c, slots);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace nnhal::ops::kernels::conv
