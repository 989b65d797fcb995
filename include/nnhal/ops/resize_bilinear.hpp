// RESIZE_BILINEAR kernels; contract in types/signatures/resize_bilinear.hpp. Bit-exact with
// the AOSP CPU path (TFLite reference ResizeBilinear): coordinates and weights in float,
//   s = y * scale, or (y + 0.5) * scale - 0.5 with half_pixel_centers,
//   y0 = max(floor(s), 0), y1 = min(ceil(s), in - 1), dy = s - y0 (columns alike),
//   v = in[y0,x0] (1-dy)(1-dx) + in[y1,x0] dy (1-dx) + in[y0,x1] (1-dy) dx + in[y1,x1] dy dx
// summed in that order. Quantized results round half up: trunc(v + 0.5). qs8 is computed on
// the stored values + 128, so it is exactly the qu8 result - 128 (the HAL parity rule).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::resize_bilinear {

/// One output coordinate's two input neighbours and the weight of the upper one.
struct tap {
  std::size_t lo = 0, hi = 0;
  float frac = 0.0f;  // s - lo; negative at a half-pixel border, where lo == hi
};

inline std::vector<tap> taps(std::size_t in, std::size_t out, bool align_corners, bool half_pixel_centers) {
  const float scale = kernels::spatial::resize_scale(in, out, align_corners);
  std::vector<tap> t(out);
  for (std::size_t i = 0; i < out; ++i) {
    const float s = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const auto lo = std::max<std::int64_t>(static_cast<std::int64_t>(std::floor(s)), 0);
    const auto hi = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(s)), static_cast<std::int64_t>(in) - 1);
    t[i] = {static_cast<std::size_t>(lo), static_cast<std::size_t>(hi), s - static_cast<float>(lo)};
  }
  return t;
}

/// A stored element as the float the interpolation works on (qs8 shifted into the qu8 domain).
template <class S>
float load(S v) noexcept {
  if constexpr (std::is_same_v<S, std::int8_t>) return static_cast<float>(static_cast<std::int32_t>(v) + 128);
  else if constexpr (std::is_same_v<S, std::uint8_t>) return static_cast<float>(v);
  else return kernels::load_float(v);
}
template <class S>
S store(float v) noexcept {
  if constexpr (std::is_integral_v<S>) {
    // Round half up in the qu8 domain, as TFLite adds 0.5 before its truncating cast.
    const auto q = std::clamp<std::int32_t>(static_cast<std::int32_t>(v + 0.5f), 0, 255);
    return static_cast<S>(std::is_same_v<S, std::int8_t> ? q - 128 : q);
  } else {
    return kernels::store_float<S>(v);
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Round to nearest, the reference's rounding, stated for the explicitly rounded intrinsics.
inline constexpr int rounding = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
#endif

/// One output row of one image: its four input neighbours come from input rows
/// ty[y].lo / ty[y].hi and columns tx[x].lo / tx[x].hi.
template <class S>
struct row_taps {
  const S* in;
  S* out;
  const kernels::spatial::image_layout &li, &lo;
  const std::vector<tap>&ty, &tx;
  std::size_t n, y;
  const S* at(std::size_t iy, std::size_t ix) const { return in + li.at(n, iy, ix); }
  S* out_at(std::size_t x) const { return out + lo.at(n, y, x); }
};

/// The frame of every RESIZE_BILINEAR kernel: layouts and taps once, then row(row_taps<S>)
/// for each output row (parallel chunks of rows).
template <class S, class Row>
void for_each_row(const kernel_io& io, Row&& row) {
  const bool nchw = kernels::spatial::flag(io, 3);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  if (lo.count() == 0) return;
  const bool align = kernels::spatial::flag(io, 4), half = kernels::spatial::flag(io, 5);
  const auto ty = taps(li.h, lo.h, align, half);
  const auto tx = taps(li.w, lo.w, align, half);
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  kernels::spatial::for_rows(io, lo.n * lo.h, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) row(row_taps<S>{in, out, li, lo, ty, tx, r / lo.h, r % lo.h});
  });
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  for_each_row<S>(io, [](const row_taps<S>& t) {
    const float dy = t.ty[t.y].frac;
    const std::size_t y0 = t.ty[t.y].lo, y1 = t.ty[t.y].hi;
    for (std::size_t x = 0; x < t.lo.w; ++x) {
      const float dx = t.tx[x].frac;
      const S* p00 = t.at(y0, t.tx[x].lo);
      const S* p10 = t.at(y1, t.tx[x].lo);
      const S* p01 = t.at(y0, t.tx[x].hi);
      const S* p11 = t.at(y1, t.tx[x].hi);
      S* o = t.out_at(x);
      for (std::size_t c = 0; c < t.lo.c; ++c) {
        const std::size_t i = c * t.li.sc;
        const float v = load(p00[i]) * (1 - dy) * (1 - dx) + load(p10[i]) * dy * (1 - dx) +
                        load(p01[i]) * (1 - dy) * dx + load(p11[i]) * dy * dx;
        o[c * t.lo.sc] = store<S>(v);
      }
    }
  });
}

/// f32, NHWC: the channel loop in xsimd batches (compile-time xsimd::default_arch). Each lane
/// does the reference's float operations in the reference's order, so the result is
/// bit-identical to reference<f32> (unless the build lets the compiler contract a*b+c into
/// FMAs differently in the two loops). NCHW and channel tails take the scalar path.
inline void vectorized_f32(const kernel_io& io) {
  using batch = xsimd::batch<float, xsimd::default_arch>;
  constexpr std::size_t lanes = batch::size;
  const bool nchw = kernels::spatial::flag(io, 3);
  if (nchw || kernels::spatial::image_layout::of(io.out[0].dims, nchw).c < lanes) return reference<types::f32>(io);
  for_each_row<float>(io, [](const row_taps<float>& t) {
    const float dy = t.ty[t.y].frac, wy = 1 - dy;
    const std::size_t y0 = t.ty[t.y].lo, y1 = t.ty[t.y].hi;
    for (std::size_t x = 0; x < t.lo.w; ++x) {
      const float dx = t.tx[x].frac, wx = 1 - dx;
      const float* p00 = t.at(y0, t.tx[x].lo);
      const float* p10 = t.at(y1, t.tx[x].lo);
      const float* p01 = t.at(y0, t.tx[x].hi);
      const float* p11 = t.at(y1, t.tx[x].hi);
      float* o = t.out_at(x);
      const batch bdy(dy), bwy(wy), bdx(dx), bwx(wx);
      std::size_t c = 0;
      for (; c + lanes <= t.lo.c; c += lanes) {
        const batch v = batch::load_unaligned(p00 + c) * bwy * bwx + batch::load_unaligned(p10 + c) * bdy * bwx +
                        batch::load_unaligned(p01 + c) * bwy * bdx + batch::load_unaligned(p11 + c) * bdy * bdx;
        v.store_unaligned(o + c);
      }
      for (; c < t.lo.c; ++c) o[c] = p00[c] * wy * wx + p10[c] * dy * wx + p01[c] * wy * dx + p11[c] * dy * dx;
    }
  });
}

#if NNHAL_HAVE_X86_KERNELS
/// 16 channels of S as float lanes (qs8 shifted into the qu8 domain, as load() does);
/// lanes outside `m` are 0.
template <class S>
NNHAL_TARGET_AVX512 inline __m512 load16(const S* p, __mmask16 m) {
  using simd::avx512::all16;
  if constexpr (std::is_same_v<S, float>) {
    return _mm512_maskz_loadu_ps(m, p);
  } else {
    const __m128i b = _mm_maskz_loadu_epi8(m, p);
    __m512i v;
    if constexpr (std::is_same_v<S, std::int8_t>)
      v = _mm512_maskz_add_epi32(m, _mm512_maskz_cvtepi8_epi32(all16, b), _mm512_set1_epi32(128));
    else v = _mm512_maskz_cvtepu8_epi32(all16, b);
    return _mm512_maskz_cvtepi32_ps(all16, v);
  }
}

/// Stores 16 lanes (those in `m`) as store() does.
template <class S>
NNHAL_TARGET_AVX512 inline void store16(S* p, __m512 v, __mmask16 m) {
  using simd::avx512::all16;
  if constexpr (std::is_same_v<S, float>) {
    _mm512_mask_storeu_ps(p, m, v);
  } else {
    const __m512 half = _mm512_set1_ps(0.5f);
    __m512i q =
        _mm512_maskz_cvtt_roundps_epi32(all16, _mm512_maskz_add_round_ps(all16, v, half, rounding), _MM_FROUND_NO_EXC);
    q = _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, q, _mm512_setzero_si512()), _mm512_set1_epi32(255));
    if constexpr (std::is_same_v<S, std::int8_t>) q = _mm512_maskz_sub_epi32(all16, q, _mm512_set1_epi32(128));
    _mm_mask_storeu_epi8(p, m, _mm512_maskz_cvtepi32_epi8(all16, q));
  }
}

/// (v * a) * b, each product rounded.
NNHAL_TARGET_AVX512 inline __m512 term(__m512 v, __m512 a, __m512 b) {
  using simd::avx512::all16;
  return _mm512_maskz_mul_round_ps(all16, _mm512_maskz_mul_round_ps(all16, v, a, rounding), b, rounding);
}

/// One output pixel's channels, 16 at a time with a masked tail: the reference's products
/// and sums in the reference's order, each rounded on its own (the explicitly rounded
/// intrinsics cannot be fused into FMAs), so the result is bit-identical to reference().
template <class S>
NNHAL_TARGET_AVX512 inline void pixel_avx512(const S* p00, const S* p10, const S* p01, const S* p11, S* o,
                                             std::size_t channels, float dy, float dx) {
  const __m512 vdy = _mm512_set1_ps(dy), vwy = _mm512_set1_ps(1 - dy);
  const __m512 vdx = _mm512_set1_ps(dx), vwx = _mm512_set1_ps(1 - dx);
  using simd::avx512::all16;
  for (std::size_t c = 0; c < channels; c += 16) {
    const std::size_t left = channels - c;
    const auto m = static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
    __m512 v = _mm512_maskz_add_round_ps(all16, term(load16(p00 + c, m), vwy, vwx), term(load16(p10 + c, m), vdy, vwx),
                                         rounding);
    v = _mm512_maskz_add_round_ps(all16, v, term(load16(p01 + c, m), vwy, vdx), rounding);
    v = _mm512_maskz_add_round_ps(all16, v, term(load16(p11 + c, m), vdy, vdx), rounding);
    store16(o + c, v, m);
  }
}

/// One output row on AVX-512 (the pixel loop stays inside the target function).
template <class S>
NNHAL_TARGET_AVX512 void row_avx512(const row_taps<S>& t) {
  const std::size_t y0 = t.ty[t.y].lo, y1 = t.ty[t.y].hi;
  for (std::size_t x = 0; x < t.lo.w; ++x)
    pixel_avx512(t.at(y0, t.tx[x].lo), t.at(y1, t.tx[x].lo), t.at(y0, t.tx[x].hi), t.at(y1, t.tx[x].hi), t.out_at(x),
                 t.lo.c, t.ty[t.y].frac, t.tx[x].frac);
}

/// NCHW through the NHWC kernel: the input transposed to NHWC, `nhwc` run on descriptors
/// that say NHWC, the result transposed back (two tiled transposes instead of a per-element
/// strided loop). Buffers are per thread and reused.
template <class S, class Nhwc>
void through_nhwc(const kernel_io& io, Nhwc&& nhwc) {
  const auto& id = io.in[0].dims;
  const auto& od = io.out[0].dims;
  const std::size_t n = id[0], c = id[1], in_plane = std::size_t{id[2]} * id[3], out_plane = std::size_t{od[2]} * od[3];
  thread_local std::vector<S> in_nhwc, out_nhwc;
  thread_local std::vector<operand_desc> ins, outs;
  in_nhwc.resize(n * c * in_plane);
  out_nhwc.resize(n * c * out_plane);
  kernels::transpose_2d(reinterpret_cast<std::byte*>(in_nhwc.data()), io.in[0].value, n, c, in_plane, sizeof(S));
  const std::array<std::uint32_t, 4> in_dims{id[0], id[2], id[3], id[1]}, out_dims{od[0], od[2], od[3], od[1]};
  static constexpr std::uint8_t nhwc_flag = 0;
  ins.assign(io.in.begin(), io.in.end());
  outs.assign(io.out.begin(), io.out.end());
  ins[0].dims = in_dims;
  ins[0].value = reinterpret_cast<const std::byte*>(in_nhwc.data());
  ins[3].value = reinterpret_cast<const std::byte*>(&nhwc_flag);
  ins[3].value_size = 1;
  outs[0].dims = out_dims;
  std::byte* data[1] = {reinterpret_cast<std::byte*>(out_nhwc.data())};
  nhwc(kernel_io{ins, outs, data, io.par, io.scratch});
  kernels::transpose_2d(io.out_data[0], reinterpret_cast<const std::byte*>(out_nhwc.data()), n, out_plane, c, sizeof(S));
}

/// f32, qu8 and qs8 on AVX-512, NHWC directly and NCHW through_nhwc: bit-identical to
/// reference() (the same values, only moved).
template <class S>
void resize_avx512(const kernel_io& io) {
  auto run = [](const kernel_io& x) { for_each_row<S>(x, [](const row_taps<S>& t) { row_avx512(t); }); };
  if (kernels::spatial::flag(io, 3)) return through_nhwc<S>(io, run);
  run(io);
}
#endif

/// f32, qu8 and qs8 through AVX-512 when the CPU has it; f32 otherwise through xsimd; f16
/// through the f32 kernel on widened operands (reference<f16> computes each value in float
/// from the widened halves and rounds it once, so the results are the same bits); the rest
/// without AVX-512 through reference().
inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (!std::is_same_v<E, types::f16>)
      if (simd::cpu().avx512) return kernel{resize_avx512<typename E::storage>};
#endif
    if constexpr (std::is_same_v<E, types::f32>) return kernel{vectorized_f32};
    else return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::resize_bilinear
