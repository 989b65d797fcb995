// AVX-512 DEPTHWISE_CONV_2D with depth_multiplier 1, NHWC: channels in vector lanes (16
// per vector, a masked tail), eight output pixels per pass so eight independent
// accumulator chains hide the FMA latency. Interior pixels (every tap inside the input)
// address their taps as base + constant offsets; border pixels get one pointer per tap,
// a tap outside the input pointing at a row of padding values. The inner loops have no
// branches either way. Float32: the reference's products in another order. Quant8: exact int32
// sums, sum (x - zx) * (w - zw) computed as sum x * (w - zw) - zx * sum (w - zw) (the second
// term folded into the bias), then the same fixed-point requantization: bit-exact.
#pragma once

#include "nnhal/ops/kernels/gemm_avx512.hpp"

#if NNHAL_HAVE_X86_KERNELS

namespace nnhal::ops::kernels::conv::avx512 {

/// One output row. Pixels [lo, hi) have every tap inside the input: tap t of pixel ox
/// reads base + (ox - lo) * pstride + off[t]. Any other pixel reads ptrs[ox * taps + t],
/// which points into the input or at a row of padding values.
template <class T>
struct dw_row {
  std::size_t lo = 0, hi = 0;
  const T* base = nullptr;
  std::size_t pstride = 0;
  const std::ptrdiff_t* off = nullptr;
  const T* const* ptrs = nullptr;
};

/// Runs row(r, b, oy) over every output row (in parallel when `par` has workers).
template <class T, class Row>
void dw_rows(const geometry& g, const T* in, const T* pad, exec::parallel_context* par, Row&& row) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.in_c, ow = g.out_w;
  std::vector<std::ptrdiff_t> off(taps);
  for (std::size_t ky = 0; ky < g.filter_h; ++ky)
    for (std::size_t kx = 0; kx < g.filter_w; ++kx)
      off[ky * g.filter_w + kx] =
          static_cast<std::ptrdiff_t>((ky * g.dil_h * std::size_t{g.in_w} + kx * g.dil_w) * ch);
  // Interior columns: ox * stride_w - pad_left >= 0 and the last tap < in_w.
  const std::int64_t span_w = (std::int64_t{g.filter_w} - 1) * g.dil_w;
  const std::int64_t first = (g.pad_left + g.stride_w - 1) / g.stride_w;
  const std::int64_t last_num = std::int64_t{g.in_w} - 1 - span_w + g.pad_left;
  const std::int64_t end = last_num < 0 ? 0 : last_num / g.stride_w + 1;
  const std::size_t col_lo = static_cast<std::size_t>(std::clamp<std::int64_t>(first, 0, std::int64_t(ow)));
  const std::size_t col_hi = std::max(col_lo, static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, std::int64_t(ow))));
  const std::int64_t span_h = (std::int64_t{g.filter_h} - 1) * g.dil_h;
  for_blocks(std::size_t{g.batches} * g.out_h, 1, par, [&](std::size_t r0, std::size_t r1) {
    std::vector<const T*> ptrs(ow * taps);
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      const std::int64_t iy0 = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top;
      dw_row<T> d;
      d.off = off.data();
      d.ptrs = ptrs.data();
      d.pstride = std::size_t{static_cast<std::uint32_t>(g.stride_w)} * ch;
      if (iy0 >= 0 && iy0 + span_h < g.in_h && col_lo < col_hi) {
        d.lo = col_lo;
        d.hi = col_hi;
        const std::int64_t ix0 = static_cast<std::int64_t>(col_lo) * g.stride_w - g.pad_left;
        d.base = in + ((b * g.in_h + static_cast<std::size_t>(iy0)) * g.in_w + static_cast<std::size_t>(ix0)) * ch;
      }
      for (std::size_t ox = 0; ox < ow; ++ox) {
        if (ox == d.lo && d.lo < d.hi) ox = d.hi;  // interior pixels need no pointers
        if (ox >= ow) break;
        const std::int64_t ix0 = static_cast<std::int64_t>(ox) * g.stride_w - g.pad_left;
        std::size_t t = 0;
        for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
          const std::int64_t iy = iy0 + static_cast<std::int64_t>(ky) * g.dil_h;
          for (std::size_t kx = 0; kx < g.filter_w; ++kx, ++t) {
            const std::int64_t ix = ix0 + static_cast<std::int64_t>(kx) * g.dil_w;
            const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
            ptrs[ox * taps + t] = inside ? in + ((b * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                                 static_cast<std::size_t>(ix)) * ch
                                         : pad;
          }
        }
      }
      row(d, b, oy);
    }
  });
}

// ---------------------------------------------------------------------------------
// Float32
// ---------------------------------------------------------------------------------

/// PX pixels, channels [c, c + 16) under `mask`: tap t of pixel p reads `at(p, t) + c`,
/// a tap pointer (Direct false: tp[p * taps + t]) or base + p * pstride + off[t].
template <std::size_t PX, bool Direct, bool Full>
NNHAL_TARGET_AVX512 inline void dw_f32_pixels(const float* const* tp, const float* base, std::size_t pstride,
                                              const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                              __mmask16 mask, const float* w, std::size_t ch, __m512 bias, __m512 lo,
                                              __m512 hi, float* out) {
  __m512 acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = bias;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m512 wv = _mm512_maskz_loadu_ps(mask, w + t * ch + c);
    const float* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const float* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      // A full vector loads unmasked, so the load folds into the FMA.
      acc[p] = _mm512_fmadd_ps(Full ? _mm512_loadu_ps(x) : _mm512_maskz_loadu_ps(mask, x), wv, acc[p]);
    }
  }
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p)
    _mm512_mask_storeu_ps(out + p * ch + c, mask,
                          _mm512_maskz_min_ps(simd::avx512::all16, hi, _mm512_maskz_max_ps(simd::avx512::all16, lo, acc[p])));
}

/// Channels [c, c + 16) of one output row of the float32 depthwise conv.
template <bool Full>
NNHAL_TARGET_AVX512 inline void dw_f32_block(const dw_row<float>& r, std::size_t ow, std::size_t taps, std::size_t ch,
                                             std::size_t c, __mmask16 mask, const float* w, __m512 b, __m512 vlo,
                                             __m512 vhi, float* out) {
  for (std::size_t ox = 0; ox < ow; ++ox) {
    if (ox == r.lo && r.lo < r.hi) {
      std::size_t i = r.lo;
      for (; i + 8 <= r.hi; i += 8)
        dw_f32_pixels<8, true, Full>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w, ch,
                                     b, vlo, vhi, out + i * ch);
      if (i + 4 <= r.hi) {
        dw_f32_pixels<4, true, Full>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w, ch,
                                     b, vlo, vhi, out + i * ch);
        i += 4;
      }
      if (i + 2 <= r.hi) {
        dw_f32_pixels<2, true, Full>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w, ch,
                                     b, vlo, vhi, out + i * ch);
        i += 2;
      }
      for (; i < r.hi; ++i)
        dw_f32_pixels<1, true, Full>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w, ch,
                                     b, vlo, vhi, out + i * ch);
      ox = r.hi;
      if (ox >= ow) break;
    }
    dw_f32_pixels<1, false, Full>(r.ptrs + ox * taps, nullptr, 0, nullptr, taps, c, mask, w, ch, b, vlo, vhi,
                                  out + ox * ch);
  }
}

/// One output row (ow pixels) of the float32 depthwise conv.
NNHAL_TARGET_AVX512 inline void dw_f32_row(const dw_row<float>& r, std::size_t ow, std::size_t taps, std::size_t ch,
                                           const float* w, const float* bias, float lo, float hi, float* out) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (std::size_t c = 0; c < ch; c += 16) {
    const __mmask16 mask = lanes_mask(ch - c);
    const __m512 b = _mm512_maskz_loadu_ps(mask, bias + c);
    if (ch - c >= 16) dw_f32_block<true>(r, ow, taps, ch, c, mask, w, b, vlo, vhi, out);
    else dw_f32_block<false>(r, ow, taps, ch, c, mask, w, b, vlo, vhi, out);
  }
}

inline void depthwise_f32_nhwc(const geometry& g, const float* in, const float* w, const float* bias, float lo,
                               float hi, float* out, exec::parallel_context* par) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.out_c;
  // The padding row border taps point at; kept per thread so an execution allocates nothing.
  thread_local std::vector<float> zeros;
  if (zeros.size() < ch) zeros.assign(ch, 0.0f);
  dw_rows(g, in, zeros.data(), par, [&](const dw_row<float>& r, std::size_t b, std::size_t oy) {
    dw_f32_row(r, g.out_w, taps, ch, w, bias, lo, hi, out + (b * g.out_h + oy) * g.out_w * ch);
  });
}

// ---------------------------------------------------------------------------------
// Quant8
// ---------------------------------------------------------------------------------

/// A depthwise quant8 filter [1][taps][ch] as int32 w - zw, and each channel's sum of them.
struct dw_q8_filter {
  std::vector<std::int32_t> w;    // [taps][ch]
  std::vector<std::int32_t> sum;  // [ch]
};
inline dw_q8_filter make_dw_q8_filter(const operand_desc& f) {
  const std::size_t ch = f.dims[3], taps = std::size_t{f.dims[1]} * f.dims[2];
  const bool per_channel = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  const std::int32_t zw = per_channel ? 0 : f.zero_point;
  dw_q8_filter d;
  d.w.resize(taps * ch);
  d.sum.assign(ch, 0);
  for (std::size_t i = 0; i < taps * ch; ++i) {
    const auto raw = std::to_integer<std::uint8_t>(f.value[i]);
    const std::int32_t v = f.type == OperandType::TENSOR_QUANT8_ASYMM ? raw : static_cast<std::int8_t>(raw);
    d.w[i] = v - zw;
    d.sum[i % ch] += d.w[i];
  }
  return d;
}

template <bool Full, class S>
NNHAL_TARGET_AVX512 inline __m512i load_x16_masked(const S* p, __mmask16 mask) {
  // A full vector loads unmasked, so the load folds into the widening move.
  const __m128i v = Full ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)) : _mm_maskz_loadu_epi8(mask, p);
  if constexpr (std::is_signed_v<S>) return _mm512_maskz_cvtepi8_epi32(simd::avx512::all16, v);
  else return _mm512_maskz_cvtepu8_epi32(simd::avx512::all16, v);
}

template <std::size_t PX, bool Direct, bool Full, class S>
NNHAL_TARGET_AVX512 inline void dw_q8_pixels(const S* const* tp, const S* base, std::size_t pstride,
                                             const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                             __mmask16 mask, const std::int32_t* w, std::size_t ch,
                                             const q8_epilogue& e, S* out) {
  const __m512i init = _mm512_loadu_si512(e.offset.data() + c);
  __m512i acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = init;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m512i wv = _mm512_maskz_loadu_epi32(mask, w + t * ch + c);
    const S* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const S* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      acc[p] = _mm512_add_epi32(acc[p], _mm512_mullo_epi32(load_x16_masked<Full>(x, mask), wv));
    }
  }
  const q8_lanes lanes(e, c);
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) lanes.store(out + p * ch + c, mask, acc[p]);
}

template <bool Full, class S>
NNHAL_TARGET_AVX512 inline void dw_q8_block(const dw_row<S>& r, std::size_t ow, std::size_t taps, std::size_t ch,
                                            std::size_t c, __mmask16 mask, const std::int32_t* w, const q8_epilogue& e,
                                            S* out) {
  for (std::size_t ox = 0; ox < ow; ++ox) {
    if (ox == r.lo && r.lo < r.hi) {
      std::size_t i = r.lo;
      for (; i + 8 <= r.hi; i += 8)
        dw_q8_pixels<8, true, Full, S>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w,
                                       ch, e, out + i * ch);
      if (i + 4 <= r.hi) {
        dw_q8_pixels<4, true, Full, S>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w,
                                       ch, e, out + i * ch);
        i += 4;
      }
      if (i + 2 <= r.hi) {
        dw_q8_pixels<2, true, Full, S>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w,
                                       ch, e, out + i * ch);
        i += 2;
      }
      for (; i < r.hi; ++i)
        dw_q8_pixels<1, true, Full, S>(nullptr, r.base + (i - r.lo) * r.pstride, r.pstride, r.off, taps, c, mask, w,
                                       ch, e, out + i * ch);
      ox = r.hi;
      if (ox >= ow) break;
    }
    dw_q8_pixels<1, false, Full, S>(r.ptrs + ox * taps, nullptr, 0, nullptr, taps, c, mask, w, ch, e, out + ox * ch);
  }
}

template <class S>
NNHAL_TARGET_AVX512 void dw_q8_row(const dw_row<S>& r, std::size_t ow, std::size_t taps, std::size_t ch,
                                   const std::int32_t* w, const q8_epilogue& e, S* out) {
  for (std::size_t c = 0; c < ch; c += 16) {
    const __mmask16 mask = lanes_mask(ch - c);
    if (ch - c >= 16) dw_q8_block<true>(r, ow, taps, ch, c, mask, w, e, out);
    else dw_q8_block<false>(r, ow, taps, ch, c, mask, w, e, out);
  }
}

template <class S>
void depthwise_q8_nhwc(const geometry& g, const S* in, const dw_q8_filter& f, const q8_epilogue& e, S in_zp, S* out,
                       exec::parallel_context* par) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.out_c;
  const std::vector<S> pad(ch, in_zp);
  dw_rows(g, in, pad.data(), par, [&](const dw_row<S>& r, std::size_t b, std::size_t oy) {
    dw_q8_row<S>(r, g.out_w, taps, ch, f.w.data(), e, out + (b * g.out_h + oy) * g.out_w * ch);
  });
}

/// The bound DEPTHWISE_CONV_2D quant8 kernel for depth_multiplier 1: E qu8 or qs8.
template <types::element E>
kernel bind_depthwise_q8(const bind_context& c, conv_slots_fn slots) {
  using S = typename E::storage;
  const requant q = make_requant(c.in[0], c.in[1], c.out[0]);
  std::shared_ptr<const dw_q8_filter> constant;
  if (c.in[1].has_value() && c.in[1].dims.size() == 4 && c.in[1].dims_known())
    constant = std::make_shared<const dw_q8_filter>(make_dw_q8_filter(c.in[1]));
  return [constant, q, slots](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    geometry g = resolve_geometry(io, conv_kind::depthwise, slots(io.in));
    dw_q8_filter local;
    const dw_q8_filter& f = prepared_or(constant, local, [&] { return make_dw_q8_filter(io.in[1]); });
    const std::size_t ch = g.out_c, padded = (ch + 15) / 16 * 16;
    const auto o = io.output<E>(0);
    const auto* bias = reinterpret_cast<const std::int32_t*>(io.in[2].value);
    const std::int32_t zx = io.in[0].zero_point;
    q8_epilogue e;
    e.offset.assign(padded, 0);
    for (std::size_t k = 0; k < ch; ++k)
      e.offset[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bias[k]) -
                                              static_cast<std::uint32_t>(zx) * static_cast<std::uint32_t>(f.sum[k]));
    set_lanes(e, q, ch, padded);
    const quant::quant_range r = quant::activation_range(g.activation, o.scale, o.zero_point,
                                                         std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
    e.lo = r.lo;
    e.hi = r.hi;
    const auto in_zp = static_cast<S>(zx);
    run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const geometry& gn, const S* in, S* out) {
      depthwise_q8_nhwc<S>(gn, in, f, e, in_zp, out, io.par);
    });
  };
}

/// The AVX-512 DEPTHWISE_CONV_2D kernel for the operand types of `c` (the caller checks
/// depth_multiplier is a constant 1), when this CPU has AVX-512; nullopt otherwise.
inline std::optional<kernel> bind_depthwise(const bind_context& c, conv_slots_fn slots) {
  if (!simd::cpu().avx512) return std::nullopt;
  const bool per_channel = c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return conv::bind_depthwise_f32_with(slots, &depthwise_f32_nhwc);
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (per_channel || c.in[1].type == c.in[0].type) return bind_depthwise_q8<types::qu8>(c, slots);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (per_channel || c.in[1].type == c.in[0].type) return bind_depthwise_q8<types::qs8>(c, slots);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace nnhal::ops::kernels::conv::avx512
#endif
