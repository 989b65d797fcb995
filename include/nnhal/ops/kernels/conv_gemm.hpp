// Float32 direct convolution and GEMM for the conv family, with xsimd (compile-time
// xsimd::default_arch): the filter is packed once, at bind, into panels of `nr` output
// channels; a register-blocked micro-kernel computes 4 output pixels (or rows) x nr
// channels per call, reading the input in place (no im2col: a padding tap points at a
// row of zeros). Versus the reference loops: the same products summed in another order,
// so results differ by float rounding only (tests bound it). Tails (output channels past
// the last full panel, pixels past the last full block) are computed in registers and
// only the valid part is stored: nothing is written outside the output.
// DEPTHWISE_CONV_2D with depth_multiplier 1 vectorizes across channels instead (its
// filter [1, fh, fw, channels] is already channel-contiguous, so it needs no packing).
// This is the portable path; AVX-512 CPUs bind kernels/gemm_avx512.hpp and
// kernels/dwconv_avx512.hpp instead (float32 and quant8).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/types/large_bytes.hpp"

namespace nnhal::ops::kernels::conv {

/// Register tile of the float32 micro-kernel for one architecture.
template <class Arch>
struct f32_tile {
  using batch = xsimd::batch<float, Arch>;
  static constexpr std::size_t lanes = batch::size;
  static constexpr std::size_t nr = 2 * lanes;  // output channels per panel
  static constexpr std::size_t mr = 4;          // output pixels (GEMM rows) per call
};

/// A filter [out_c][taps][cin] repacked as ceil(out_c / nr) panels of [taps][cin][nr]
/// (channels past out_c are zero). FULLY_CONNECTED weights are the case taps = 1.
/// The panels are packed here or found in a compilation cache (packed_constant_f32).
struct packed_f32 {
  std::shared_ptr<const float> w;  // size() floats
  std::size_t out_c = 0, taps = 0, cin = 0, panels = 0, nr = 0;
  const float* panel(std::size_t p) const noexcept { return w.get() + p * taps * cin * nr; }
  std::size_t size() const noexcept { return panels * taps * cin * nr; }

  /// The shape of a packing, without its panels.
  static packed_f32 shape(std::size_t out_c, std::size_t taps, std::size_t cin, std::size_t nr) {
    return {nullptr, out_c, taps, cin, (out_c + nr - 1) / nr, nr};
  }
};

/// Packs the out_c x k matrix whose element (oc, i) is w[oc * ld_oc + i * ld_k] into
/// `buf` (p.size() floats, p's shape) as panels [panel][k][nr], zero beyond out_c; only
/// panels [p0, p1) (all by default), so that threads can share the work.
inline void pack_f32_into(float* buf, const packed_f32& p, const float* w, std::size_t ld_oc, std::size_t ld_k,
                          std::size_t p0 = 0, std::size_t p1 = SIZE_MAX) {
  const std::size_t k = p.taps * p.cin, nr = p.nr;
  p1 = std::min(p1, p.panels);
  if (ld_oc == 1) {
    // Rows of k: source row i is cut into the panels' row i, so the source is read once in
    // order (panel by panel, every panel would stream all rows again).
    for (std::size_t i = 0; i < k; ++i) {
      const float* src = w + i * ld_k;
      for (std::size_t pn = p0; pn < p1; ++pn) {
        const std::size_t oc0 = pn * nr, cols = std::min(nr, p.out_c - oc0);
        float* dst = buf + (pn * k + i) * nr;
        std::memcpy(dst, src + oc0, cols * sizeof(float));
        if (cols < nr) std::fill(dst + cols, dst + nr, 0.0f);
      }
    }
    return;
  }
  for (std::size_t pn = p0; pn < p1; ++pn) {
    const std::size_t oc0 = pn * nr, cols = std::min(nr, p.out_c - oc0);
    float* panel = buf + pn * k * nr;
    // In blocks of 16 elements per source row: each block reads one cache line of each of
    // the panel's rows and writes 16 packed rows (16 nr floats) that stay cached meanwhile.
    constexpr std::size_t block = 16;
    for (std::size_t i0 = 0; i0 < k; i0 += block) {
      const std::size_t i1 = std::min(k, i0 + block);
      for (std::size_t i = i0; i < i1; ++i) std::fill(panel + i * nr + cols, panel + (i + 1) * nr, 0.0f);
      for (std::size_t j = 0; j < cols; ++j) {
        const float* src = w + (oc0 + j) * ld_oc;
        for (std::size_t i = i0; i < i1; ++i) panel[i * nr + j] = src[i * ld_k];
      }
    }
  }
}

inline packed_f32 pack_f32(const float* filter, std::size_t out_c, std::size_t taps, std::size_t cin, std::size_t nr) {
  packed_f32 p = packed_f32::shape(out_c, taps, cin, nr);
  const std::shared_ptr<std::byte[]> bytes = types::large_bytes(p.size() * sizeof(float), false);
  auto* buf = reinterpret_cast<float*>(bytes.get());
  p.w = std::shared_ptr<const float>(bytes, buf);
  pack_f32_into(buf, p, filter, taps * cin, 1);
  return p;
}

/// A constant filter's packing through packed_constant(): `pack` makes it, and a blob of
/// exactly shape.size() floats from an earlier preparation stands in for it.
template <class Pack>
std::shared_ptr<const packed_f32> packed_constant_f32(const bind_context& c, const packed_f32& shape, Pack&& pack) {
  const std::string what = types::str_cat("f32:", shape.out_c, "x", shape.taps, "x", shape.cin, "/", shape.nr);
  return packed_constant<packed_f32>(
      c, what, shape.size() * sizeof(float), [&] { return std::make_shared<const packed_f32>(pack()); },
      [&](const packed_blob& b) -> std::shared_ptr<const packed_f32> {
        if (reinterpret_cast<std::uintptr_t>(b.bytes.data()) % alignof(float) != 0) return nullptr;
        packed_f32 p = shape;
        p.w = std::shared_ptr<const float>(b.owner, reinterpret_cast<const float*>(b.bytes.data()));
        return std::make_shared<const packed_f32>(std::move(p));
      },
      [](const std::shared_ptr<const packed_f32>& p) {
        return packed_blob{p, std::as_bytes(std::span(p->w.get(), p->size()))};
      });
}

/// The bias, zero-padded to whole panels (zeros when there is none).
inline std::vector<float> padded_bias(const float* bias, std::size_t out_c, std::size_t panels, std::size_t nr) {
  std::vector<float> b(panels * nr, 0.0f);
  if (bias) std::copy(bias, bias + out_c, b.begin());
  return b;
}

/// One micro-tile: acc[m][j] = sum_t sum_k a[t * mr + m][k] * w[t][k][j] for m < mr and
/// j < nr, then + bias[j], clamped to [lo, hi] (NaN kept, like the scalar clamp); row m
/// stores its first `cols` channels at out[m] for m < rows.
template <class Arch>
void micro_f32(std::size_t rows, std::size_t cols, const float* const* a, std::size_t taps, std::size_t cin,
               const float* w, const float* bias, float lo, float hi, float* const* out) noexcept {
  using tile = f32_tile<Arch>;
  using B = typename tile::batch;
  constexpr std::size_t L = tile::lanes, NR = tile::nr, MR = tile::mr;
  static_assert(MR == 4, "micro_f32 is unrolled for 4 rows");
  B c00(0.0f), c01(0.0f), c10(0.0f), c11(0.0f), c20(0.0f), c21(0.0f), c30(0.0f), c31(0.0f);
  for (std::size_t t = 0; t < taps; ++t) {
    const float* a0 = a[t * MR + 0];
    const float* a1 = a[t * MR + 1];
    const float* a2 = a[t * MR + 2];
    const float* a3 = a[t * MR + 3];
    const float* wt = w + t * cin * NR;
    for (std::size_t k = 0; k < cin; ++k, wt += NR) {
      const B w0 = B::load_unaligned(wt);
      const B w1 = B::load_unaligned(wt + L);
      B x(a0[k]);
      c00 = xsimd::fma(x, w0, c00);
      c01 = xsimd::fma(x, w1, c01);
      x = B(a1[k]);
      c10 = xsimd::fma(x, w0, c10);
      c11 = xsimd::fma(x, w1, c11);
      x = B(a2[k]);
      c20 = xsimd::fma(x, w0, c20);
      c21 = xsimd::fma(x, w1, c21);
      x = B(a3[k]);
      c30 = xsimd::fma(x, w0, c30);
      c31 = xsimd::fma(x, w1, c31);
    }
  }
  const B b0 = B::load_unaligned(bias), b1 = B::load_unaligned(bias + L);
  const B vlo(lo), vhi(hi);
  auto finish = [&](B c, const B& b) {
    c += b;
    c = xsimd::select(c < vlo, vlo, c);
    return xsimd::select(c > vhi, vhi, c);
  };
  const B r[MR][2] = {{finish(c00, b0), finish(c01, b1)},
                      {finish(c10, b0), finish(c11, b1)},
                      {finish(c20, b0), finish(c21, b1)},
                      {finish(c30, b0), finish(c31, b1)}};
  for (std::size_t m = 0; m < rows; ++m) {
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

/// CONV_2D float32 in NHWC with one group. For each output row the input pointers of
/// every (pixel, tap) are gathered once; then each filter panel sweeps the row, so a
/// panel stays in cache while the row's pixels pass through the micro-kernel. Rows are
/// split across `par` when it has workers.
template <class Arch>
void conv_f32_nhwc(const geometry& g, const float* in, const packed_f32& p, const float* bias, float lo, float hi,
                   float* out, exec::parallel_context* par) {
  using tile = f32_tile<Arch>;
  constexpr std::size_t MR = tile::mr, NR = tile::nr;
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w;
  const std::size_t cin = g.in_c;
  const std::size_t blocks = (g.out_w + MR - 1) / MR;
  const std::vector<float> zeros(cin, 0.0f);
  auto rows_fn = [&](std::size_t r0, std::size_t r1) {
    std::vector<const float*> ptrs(blocks * taps * MR);
    float* outs[MR] = {};
    for (std::size_t r = r0; r < r1; ++r) {
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
                inside
                    ? in + ((b * g.in_h + static_cast<std::size_t>(iy)) * g.in_w + static_cast<std::size_t>(ix)) * cin
                    : zeros.data();
          }
        }
      float* row_out = out + (b * g.out_h + oy) * std::size_t{g.out_w} * g.out_c;
      for (std::size_t pn = 0; pn < p.panels; ++pn) {
        const std::size_t cols = std::min(NR, std::size_t{g.out_c} - pn * NR);
        for (std::size_t blk = 0; blk < blocks; ++blk) {
          const std::size_t rows = std::min(MR, std::size_t{g.out_w} - blk * MR);
          for (std::size_t m = 0; m < rows; ++m) outs[m] = row_out + (blk * MR + m) * g.out_c + pn * NR;
          micro_f32<Arch>(rows, cols, &ptrs[blk * taps * MR], taps, cin, p.panel(pn), bias + pn * NR, lo, hi, outs);
        }
      }
    }
  };
  const std::size_t rows = std::size_t{g.batches} * g.out_h;
  if (par && par->concurrency() > 1) par->parallel_for(rows, 1, rows_fn);
  else rows_fn(0, rows);
}

/// out[i][j] = act(sum_k in[i][k] * w[j][k] + bias[j]) for i < m: FULLY_CONNECTED.
template <class Arch>
void gemm_f32(std::size_t m, const float* in, const packed_f32& p, const float* bias, float lo, float hi, float* out) {
  using tile = f32_tile<Arch>;
  constexpr std::size_t MR = tile::mr, NR = tile::nr;
  const std::size_t k = p.cin, n = p.out_c;
  for (std::size_t pn = 0; pn < p.panels; ++pn) {
    const std::size_t cols = std::min(NR, n - pn * NR);
    for (std::size_t i0 = 0; i0 < m; i0 += MR) {
      const std::size_t rows = std::min(MR, m - i0);
      const float* a[MR];
      float* outs[MR] = {};
      for (std::size_t r = 0; r < MR; ++r) a[r] = in + std::min(i0 + r, m - 1) * k;
      for (std::size_t r = 0; r < rows; ++r) outs[r] = out + (i0 + r) * n + pn * NR;
      micro_f32<Arch>(rows, cols, a, 1, k, p.panel(pn), bias + pn * NR, lo, hi, outs);
    }
  }
}

/// DEPTHWISE_CONV_2D float32 in NHWC with depth_multiplier 1: each output pixel sums its
/// in-bounds taps lane-wise over channels (full vectors, then a scalar tail), adds the bias
/// and clamps. `w` is the filter [1, fh, fw, channels].
template <class Arch>
void depthwise_f32_nhwc(const geometry& g, const float* in, const float* w, const float* bias, float lo, float hi,
                        float* out, exec::parallel_context* par) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t L = B::size;
  const std::size_t ch = g.out_c, full = ch / L * L;
  auto rows_fn = [&](std::size_t r0, std::size_t r1) {
    std::vector<const float*> taps_in, taps_w;  // the in-bounds taps of one pixel
    taps_in.reserve(std::size_t{g.filter_h} * g.filter_w);
    taps_w.reserve(std::size_t{g.filter_h} * g.filter_w);
    const B vlo(lo), vhi(hi);
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        taps_in.clear();
        taps_w.clear();
        for_each_input_tap(g, oy, ox, [&](std::size_t ky, std::size_t kx, std::size_t iy, std::size_t ix) {
          taps_in.push_back(in + ((b * g.in_h + iy) * g.in_w + ix) * ch);
          taps_w.push_back(w + (ky * g.filter_w + kx) * ch);
        });
        float* o = out + ((b * g.out_h + oy) * g.out_w + ox) * ch;
        const std::size_t n = taps_in.size();
        for (std::size_t c = 0; c < full; c += L) {
          B acc(0.0f);
          for (std::size_t t = 0; t < n; ++t)
            acc = xsimd::fma(B::load_unaligned(taps_in[t] + c), B::load_unaligned(taps_w[t] + c), acc);
          acc += B::load_unaligned(bias + c);
          acc = xsimd::select(acc < vlo, vlo, acc);
          acc = xsimd::select(acc > vhi, vhi, acc);
          acc.store_unaligned(o + c);
        }
        for (std::size_t c = full; c < ch; ++c) {
          float acc = 0.0f;
          for (std::size_t t = 0; t < n; ++t) acc += taps_in[t][c] * taps_w[t][c];
          o[c] = clamp_activation(acc + bias[c], float_range{lo, hi});
        }
      }
    }
  };
  const std::size_t rows = std::size_t{g.batches} * g.out_h;
  if (par && par->concurrency() > 1) par->parallel_for(rows, 1, rows_fn);
  else rows_fn(0, rows);
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

/// The bound CONV_2D float32 kernel (also GROUPED_CONV_2D with one group): the filter is
/// packed here when it is a constant, else at each execution. NCHW runs through NHWC
/// copies of the input and output.
template <class Arch = xsimd::default_arch>
kernel bind_conv_f32(const bind_context& c, conv_kind k, conv_slots_fn slots) {
  auto pack = [](const operand_desc& f) {
    const std::size_t taps = std::size_t{f.dims[1]} * f.dims[2];
    return pack_f32(reinterpret_cast<const float*>(f.value), f.dims[0], taps, f.dims[3], f32_tile<Arch>::nr);
  };
  std::shared_ptr<const packed_f32> constant;
  if (const operand_desc& f = c.in[1]; f.has_value() && f.dims.size() == 4 && f.dims_known())
    constant = packed_constant_f32(
        c, packed_f32::shape(f.dims[0], std::size_t{f.dims[1]} * f.dims[2], f.dims[3], f32_tile<Arch>::nr),
        [&] { return pack(f); });
  return [constant, pack, k, slots](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, k, slots(io.in));
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const std::vector<float> bias =
        padded_bias(reinterpret_cast<const float*>(io.in[2].value), g.out_c, p.panels, p.nr);
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
  if (const operand_desc& w = c.in[1]; w.has_value() && w.dims.size() == 2 && w.dims_known())
    constant = packed_constant_f32(c, packed_f32::shape(w.dims[0], 1, w.dims[1], f32_tile<Arch>::nr),
                                   [&] { return pack(w); });
  return [constant, pack](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const std::vector<float> bias =
        padded_bias(reinterpret_cast<const float*>(io.in[2].value), p.out_c, p.panels, p.nr);
    const float_range r = activation_range_float(io.scalar<std::int32_t>(3));
    gemm_f32<Arch>(io.out[0].dims[0], reinterpret_cast<const float*>(io.in[0].value), p, bias.data(), r.lo, r.hi,
                   reinterpret_cast<float*>(io.out_data[0]));
  };
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

}  // namespace nnhal::ops::kernels::conv
