// AVX-512 float32 GROUPED_CONV_2D in NHWC with few channels per group: 2, 4, 8 or 16
// input and output channels in each group (ResNeXt's 3x3 layers have 4 to 32). A GEMM per
// group would multiply matrices a few columns wide; here one vector holds 16 output
// channels, 16 / CG whole groups, and reads the same 16 input channels.
//
// Output channel g*CG + m of a group is the sum over input channels ic of x[g*CG + ic]
// times f[g*CG + m][ic]. Accumulator j multiplies the input vector as loaded by a weight
// vector whose lane g*CG + ic holds f[g*CG + (ic + j) % CG][ic]: its lane g*CG + ic adds
// to output (ic + j) % CG. So a tap costs CG FMAs on one loaded vector and no shuffle; at
// the end output lane g*CG + m sums lane g*CG + (m - j) % CG of each accumulator j, one
// permute per accumulator. Sums are the reference's products in another order. (One core,
// conv_bench 56x56x128 3x3 in 32 groups of 4: 1072 us as one GEMM per group, ~410 us here;
// XNNPACK ~1090 us in the same runs.)
#pragma once

#include "nnhal/ops/kernels/gemm_avx512.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace nnhal::ops::kernels::conv::avx512 {

/// A constant filter [out_c][fh][fw][CG] as [out_c / 16][tap][j][16]: lane l = g*CG + ic
/// of weight vector j holds f[c0 + g*CG + (ic + j) % CG][tap][ic].
inline std::vector<float> pack_grouped_small_f32(const float* f, std::size_t out_c, std::size_t taps, std::size_t cg) {
  std::vector<float> w(out_c * taps * cg);
  for (std::size_t c0 = 0; c0 < out_c; c0 += 16)
    for (std::size_t t = 0; t < taps; ++t)
      for (std::size_t j = 0; j < cg; ++j)
        for (std::size_t l = 0; l < 16; ++l) {
          const std::size_t g = l / cg, ic = l % cg, o = c0 + g * cg + (ic + j) % cg;
          w[((c0 / 16 * taps + t) * cg + j) * 16 + l] = f[(o * taps + t) * cg + ic];
        }
  return w;
}

/// Output pixels [ox0, ox0 + n) (n <= 16 / CG) of output row oy, channels [c0, c0 + 16).
/// Inside: every tap of these pixels lies inside the input horizontally (else each is tested).
template <std::size_t CG, bool Inside>
NNHAL_TARGET_AVX512 inline void grouped_small_pixels(const geometry& g, const float* in, const float* w,
                                                     const float* bias, const __m512i* rot, __m512 lo, __m512 hi,
                                                     std::size_t oy, std::size_t ox0, std::size_t n, std::size_t c0,
                                                     float* out) {
  constexpr std::size_t P = 16 / CG;
  __m512 acc[P][CG];
#pragma GCC unroll 16
  for (std::size_t p = 0; p < P; ++p)
#pragma GCC unroll 16
    for (std::size_t j = 0; j < CG; ++j) acc[p][j] = _mm512_setzero_ps();
  const std::size_t fh = g.filter_h, fw = g.filter_w, in_c = g.in_c, in_h = g.in_h, in_w = g.in_w;
  const std::size_t px = static_cast<std::size_t>(g.stride_w) * in_c;  // from one pixel's tap to the next's
  const std::int64_t y0 = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top;
  const std::int64_t x0 = static_cast<std::int64_t>(ox0) * g.stride_w - g.pad_left;
  const std::int64_t sw = g.stride_w;
  const float* wt = w + c0 / 16 * fh * fw * CG * 16;
  for (std::size_t ky = 0; ky < fh; ++ky, wt += fw * CG * 16) {
    const std::int64_t iy = y0 + static_cast<std::int64_t>(ky);
    if (iy < 0 || iy >= static_cast<std::int64_t>(in_h)) continue;
    const float* row = in + (static_cast<std::size_t>(iy) * in_w) * in_c + c0;  // input row iy, channel c0
    for (std::size_t kx = 0; kx < fw; ++kx) {
      __m512 wk[CG];
#pragma GCC unroll 16
      for (std::size_t j = 0; j < CG; ++j) wk[j] = _mm512_loadu_ps(wt + (kx * CG + j) * 16);
      if constexpr (Inside) {
        const float* x = row + (static_cast<std::size_t>(x0) + kx) * in_c;
#pragma GCC unroll 16
        for (std::size_t p = 0; p < P; ++p) {
          const __m512 v = _mm512_loadu_ps(x + p * px);
#pragma GCC unroll 16
          for (std::size_t j = 0; j < CG; ++j) acc[p][j] = _mm512_fmadd_ps(v, wk[j], acc[p][j]);
        }
      } else {
#pragma GCC unroll 16
        for (std::size_t p = 0; p < P; ++p) {
          const std::int64_t ix = x0 + static_cast<std::int64_t>(p) * sw + static_cast<std::int64_t>(kx);
          if (p >= n || ix < 0 || ix >= static_cast<std::int64_t>(in_w)) continue;
          const __m512 v = _mm512_loadu_ps(row + static_cast<std::size_t>(ix) * in_c);
#pragma GCC unroll 16
          for (std::size_t j = 0; j < CG; ++j) acc[p][j] = _mm512_fmadd_ps(v, wk[j], acc[p][j]);
        }
      }
    }
  }
  const __m512 b = bias ? _mm512_loadu_ps(bias + c0) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (std::size_t p = 0; p < P; ++p) {
    if (!Inside && p >= n) break;
    __m512 r = _mm512_add_ps(acc[p][0], b);
#pragma GCC unroll 16
    // (Masked forms: GCC 12 warns that the unmasked ones' undefined operand may be used.)
    for (std::size_t j = 1; j < CG; ++j)
      r = _mm512_add_ps(r, _mm512_maskz_permutexvar_ps(simd::avx512::all16, rot[j], acc[p][j]));
    _mm512_storeu_ps(out + (ox0 + p) * g.out_c + c0,
                     _mm512_maskz_min_ps(simd::avx512::all16, hi, _mm512_maskz_max_ps(simd::avx512::all16, lo, r)));
  }
}

/// Output rows [r0, r1) (batch * out_h + oy) of the whole operation (geometry as bound:
/// NHWC, CG channels per group in and out, in_c = out_c a multiple of 16, no dilation);
/// `w` from pack_grouped_small_f32. Scalars only in its signature: the for_blocks lambda
/// that calls it is not compiled for AVX-512, so no vector may cross that call.
template <std::size_t CG>
NNHAL_TARGET_AVX512 void grouped_small_rows(const geometry& g, const float* in, const float* w, const float* bias,
                                            float lo, float hi, float* out, std::size_t r0, std::size_t r1) {
  constexpr std::size_t P = 16 / CG;
  // rot[j]: output lane g*CG + m reads lane g*CG + (m - j) mod CG of accumulator j.
  __m512i rot[CG];
  for (std::size_t j = 0; j < CG; ++j) {
    alignas(64) std::int32_t idx[16];
    for (std::size_t l = 0; l < 16; ++l) idx[l] = static_cast<std::int32_t>(l / CG * CG + (l % CG + CG - j) % CG);
    rot[j] = _mm512_load_si512(idx);
  }
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  // Pixels [inside_lo, inside_hi) have every tap inside the input horizontally.
  const std::int64_t sw = g.stride_w, pl = g.pad_left;
  const auto inside_lo = static_cast<std::size_t>(std::min<std::int64_t>((pl + sw - 1) / sw, g.out_w));
  const std::int64_t last = std::int64_t{g.in_w} - std::int64_t{g.filter_w} + pl;  // the last first tap that fits
  const std::size_t inside_hi =
      last < 0 ? inside_lo
               : static_cast<std::size_t>(std::clamp<std::int64_t>(last / sw + 1, static_cast<std::int64_t>(inside_lo),
                                                                   g.out_w));
  const std::size_t in_batch = std::size_t{g.in_h} * g.in_w * g.in_c, out_row = std::size_t{g.out_w} * g.out_c;
  for (std::size_t r = r0; r < r1; ++r) {
    const std::size_t b = r / g.out_h, oy = r % g.out_h;
    const float* x = in + b * in_batch;
    float* y = out + r * out_row;
    for (std::size_t c0 = 0; c0 < g.out_c; c0 += 16) {
      std::size_t ox = 0;
      for (std::size_t n = 0; ox < inside_lo; ox += n) {  // pixels left of the inside ones
        n = std::min(P, inside_lo - ox);
        grouped_small_pixels<CG, false>(g, x, w, bias, rot, vlo, vhi, oy, ox, n, c0, y);
      }
      for (; ox + P <= inside_hi; ox += P) grouped_small_pixels<CG, true>(g, x, w, bias, rot, vlo, vhi, oy, ox, P, c0, y);
      for (; ox < g.out_w; ox += P)
        grouped_small_pixels<CG, false>(g, x, w, bias, rot, vlo, vhi, oy, ox, std::min<std::size_t>(P, g.out_w - ox), c0,
                                        y);
    }
  }
}

/// GROUPED_CONV_2D float32 with a constant filter of 2, 4, 8 or 16 channels per group
/// (in and out), in_c = out_c a multiple of 16, a constant NHWC layout: the kernel above;
/// at an execution whose geometry differs, `other`. nullopt where it does not apply.
inline std::optional<kernel> bind_grouped_small_f32(const bind_context& c, conv_slots_fn slots, std::size_t groups,
                                                    kernel other) {
  const operand_desc& f = c.in[1];
  if (!simd::cpu().avx512 || c.in[0].type != OperandType::TENSOR_FLOAT32 || !f.has_value() || f.dims.size() != 4 ||
      !f.dims_known() || groups < 2)
    return std::nullopt;
  const std::size_t out_c = f.dims[0], cg = f.dims[3], taps = std::size_t{f.dims[1]} * f.dims[2];
  if (out_c != groups * cg || out_c % 16 != 0 || (cg != 2 && cg != 4 && cg != 8 && cg != 16)) return std::nullopt;
  // Packed once, or found in a compilation cache (kept there like the GEMM panels).
  const std::size_t n = out_c * taps * cg;
  std::shared_ptr<const float> w = packed_constant<float>(
      c, types::str_cat("grouped_small_f32:", out_c, "x", taps, "x", cg), n * sizeof(float),
      [&] {
        auto v = std::make_shared<const std::vector<float>>(
            pack_grouped_small_f32(reinterpret_cast<const float*>(f.value), out_c, taps, cg));
        return std::shared_ptr<const float>(v, v->data());
      },
      [](const packed_blob& b) -> std::shared_ptr<const float> {
        if (reinterpret_cast<std::uintptr_t>(b.bytes.data()) % alignof(float) != 0) return nullptr;
        return std::shared_ptr<const float>(b.owner, reinterpret_cast<const float*>(b.bytes.data()));
      },
      [n](const std::shared_ptr<const float>& p) { return packed_blob{p, std::as_bytes(std::span(p.get(), n))}; });
  return kernel{[w, slots, cg, out_c, other = std::move(other)](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, conv_kind::grouped, slots(io.in));
    if (g.nchw || g.in_c != out_c || g.out_c != out_c || g.cin_per_group != cg || g.dil_h != 1 || g.dil_w != 1)
      return other(io);
    const float_range r = activation_range_float(g.activation);
    const auto* x = reinterpret_cast<const float*>(io.in[0].value);
    const auto* bias = reinterpret_cast<const float*>(io.in[2].value);
    auto* y = reinterpret_cast<float*>(io.out_data[0]);
    const auto rows = cg == 2 ? &grouped_small_rows<2>
                      : cg == 4 ? &grouped_small_rows<4>
                      : cg == 8 ? &grouped_small_rows<8>
                                : &grouped_small_rows<16>;
    for_blocks(std::size_t{g.batches} * g.out_h, 1, io.par, [&](std::size_t r0, std::size_t r1) {
      rows(g, x, w.get(), bias, r.lo, r.hi, y, r0, r1);
    });
  }};
}

}  // namespace nnhal::ops::kernels::conv::avx512

#endif
