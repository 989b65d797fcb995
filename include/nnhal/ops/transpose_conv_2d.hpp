// TRANSPOSE_CONV_2D kernels; contract in types/signatures/transpose_conv_2d.hpp. The
// reference gathers, for each output element, the input pixels whose filter footprint
// covers it (kernels/conv_common.hpp transpose_loops); AOSP scatters instead, which gives
// the same int32 sums (quantized: bit-exact) and float sums in another order.
// On AVX-512 CPUs the optimized kernels scatter too: one GEMM of the input pixels with the
// filter reordered tap-major (kernels/gemm_avx512.hpp; float32 FMA, quant8 VNNI with int32
// outputs) gives every pixel's products for every tap, added where each tap lands; quant8
// then requantizes the int32 sums, bit-exact with reference().
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/types/signatures/transpose_conv_2d.hpp"

namespace nnhal::ops::transpose_conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::transpose_conv_2d;

/// out[b, oy, ox, oc] = sum over (iy, ky) with iy * stride_h - pad_top + ky = oy (and
/// likewise for x) and k of input[b, iy, ix, k] * filter[oc, ky, kx, k], + bias[oc].
template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::transpose, contract::slots(io.in), q);
}

#if NNHAL_HAVE_X86_KERNELS
namespace detail {

namespace kc = kernels::conv;
namespace av = kernels::conv::avx512;

/// The filter [out_c][fh][fw][in_c] reordered tap-major: GEMM weights of fh * fw * out_c
/// outputs (output t * out_c + oc is channel oc of tap t) of in_c inputs each.
template <class T>
std::vector<T> by_tap(const operand_desc& f) {
  const std::size_t oc = f.dims[0], taps = std::size_t{f.dims[1]} * f.dims[2], ic = f.dims[3];
  const auto* w = reinterpret_cast<const T*>(f.value);
  std::vector<T> t(oc * taps * ic);
  for (std::size_t o = 0; o < oc; ++o)
    for (std::size_t k = 0; k < taps; ++k) std::copy_n(w + (o * taps + k) * ic, ic, t.data() + (k * oc + o) * ic);
  return t;
}

inline kc::packed_f32 pack_taps(const operand_desc& f) {
  const std::size_t outs = std::size_t{f.dims[0]} * f.dims[1] * f.dims[2];
  return kc::pack_f32(by_tap<float>(f).data(), outs, 1, f.dims[3], av::panel_width(outs));
}

/// The same for quant8 filters (per tensor or per channel; the channel sums are per GEMM
/// output): the packing's shape, then the packing.
inline av::packed_q8 taps_shape_q8(const operand_desc& f) {
  return av::packed_q8::shape(std::size_t{f.dims[0]} * f.dims[1] * f.dims[2], 1, f.dims[3], av::packed_zero_point(f));
}
inline av::packed_q8 pack_taps_q8(const operand_desc& f) {
  const av::packed_q8 shape = taps_shape_q8(f);
  return av::pack_q8(shape, by_tap<std::uint8_t>(f).data(), shape.cin, 1, f.type == OperandType::TENSOR_QUANT8_ASYMM);
}

/// dst[i] += src[i] for i < n.
NNHAL_TARGET_AVX512 inline void add_to(float* dst, const float* src, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, _mm512_add_ps(_mm512_loadu_ps(dst + i), _mm512_loadu_ps(src + i)));
  if (i < n) {
    const __mmask16 m = av::lanes_mask(n - i);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_add_ps(m, _mm512_maskz_loadu_ps(m, dst + i), _mm512_maskz_loadu_ps(m, src + i)));
  }
}
/// dst[i] += src[i] for i < n, wrapping.
NNHAL_TARGET_AVX512 inline void add_to(std::int32_t* dst, const std::int32_t* src, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_si512(dst + i, _mm512_add_epi32(_mm512_loadu_si512(dst + i), _mm512_loadu_si512(src + i)));
  if (i < n) {
    const __mmask16 m = av::lanes_mask(n - i);
    _mm512_mask_storeu_epi32(dst + i, m,
                             _mm512_maskz_add_epi32(m, _mm512_maskz_loadu_epi32(m, dst + i), _mm512_maskz_loadu_epi32(m, src + i)));
  }
}

/// The NHWC transposed convolution in bands of output rows, one task per band (as many
/// bands as threads, or one): the band's accumulators are set (`init`), then for blocks of
/// the input rows whose taps reach the band, `gemm(b, y0, y1, products, par)` writes their
/// products ([pixel][tap][out_c], about 1 MiB a block) and the products landing in the
/// band are added to `acc`; then `finish` turns the band's sums into outputs. Bands are
/// independent (an input row near a band's edge is multiplied again by its neighbour), so
/// nothing is shared; with one band the GEMM itself gets the threads.
/// init(first output pixel, count) / finish(first output pixel, count) take pixels of acc.
template <class T, class Init, class Gemm, class Finish>
void by_output_bands(const kc::geometry& g, T* acc, exec::parallel_context* par, Init&& init, Gemm&& gemm,
                     Finish&& finish) {
  const std::size_t oc = g.out_c, cols = std::size_t{g.filter_h} * g.filter_w * oc;
  const std::size_t out_rows = std::size_t{g.batches} * g.out_h;
  const std::size_t threads = par ? par->concurrency() : 1;
  const std::size_t bands = std::min(out_rows, threads);
  const std::size_t row_values = std::max<std::size_t>(std::size_t{g.in_w} * cols, 1);
  const std::size_t block = std::max<std::size_t>(1, (std::size_t{1} << 18) / row_values);
  exec::parallel_context* inner = bands > 1 ? nullptr : par;
  const std::int64_t sh = g.stride_h, top = g.pad_top;
  auto band = [&](std::size_t r0, std::size_t r1) {  // output rows [r0, r1) over all batches
    thread_local std::vector<T> products;
    products.resize(std::min<std::size_t>(block, g.in_h) * g.in_w * cols);
    const std::size_t px = g.out_w;
    init(r0 * px, (r1 - r0) * px);
    for (std::size_t row = r0; row < r1;) {
      const std::size_t b = row / g.out_h;
      const auto oy0 = static_cast<std::int64_t>(row % g.out_h);
      const auto oy1 = static_cast<std::int64_t>(std::min<std::size_t>(r1 - b * g.out_h, g.out_h));
      row = b * g.out_h + static_cast<std::size_t>(oy1);
      // Input rows iy with some tap ky: oy0 <= iy * sh - top + ky < oy1.
      const std::int64_t lo = oy0 + top - static_cast<std::int64_t>(g.filter_h) + 1, hi = oy1 - 1 + top;
      if (hi < 0) continue;
      const std::size_t iy0 = lo <= 0 ? 0 : static_cast<std::size_t>((lo + sh - 1) / sh);
      const std::size_t iy1 = std::min<std::size_t>(g.in_h, static_cast<std::size_t>(hi / sh) + 1);
      for (std::size_t y0 = iy0; y0 < iy1; y0 += block) {
        const std::size_t y1 = std::min(iy1, y0 + block);
        gemm(b, y0, y1, products.data(), inner);
        for (std::size_t iy = y0; iy < y1; ++iy)
          for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
            const std::int64_t oy = static_cast<std::int64_t>(iy) * sh - top + static_cast<std::int64_t>(ky);
            if (oy < oy0 || oy >= oy1) continue;
            T* out_row = acc + (b * g.out_h + static_cast<std::size_t>(oy)) * g.out_w * oc;
            for (std::size_t ix = 0; ix < g.in_w; ++ix) {
              const T* prod = products.data() + ((iy - y0) * g.in_w + ix) * cols + ky * g.filter_w * oc;
              for (std::size_t kx = 0; kx < g.filter_w; ++kx) {
                const std::int64_t ox =
                    static_cast<std::int64_t>(ix) * g.stride_w - g.pad_left + static_cast<std::int64_t>(kx);
                if (ox < 0 || ox >= g.out_w) continue;
                add_to(out_row + static_cast<std::size_t>(ox) * oc, prod + kx * oc, oc);
              }
            }
          }
      }
    }
    finish(r0 * px, (r1 - r0) * px);
  };
  if (bands > 1) {
    const std::size_t per = (out_rows + bands - 1) / bands;
    auto task = [&](std::size_t t0, std::size_t t1) {
      for (std::size_t t = t0; t < t1; ++t) band(t * per, std::min(out_rows, (t + 1) * per));
    };
    par->parallel_for((out_rows + per - 1) / per, 1, task);
  } else {
    band(0, out_rows);
  }
}

/// NHWC float32: out = act(bias + the scattered products of every input pixel and tap).
inline void nhwc_f32(const kc::geometry& g, const float* in, const kc::packed_f32& p, const float* bias,
                     kernels::float_range r, float* out, exec::parallel_context* par) {
  const std::size_t oc = g.out_c;
  thread_local std::vector<float> zero_bias;  // the caller's; the bands read it through this pointer
  zero_bias.assign(p.panels * p.nr, 0.0f);
  const float* const zeros = zero_bias.data();
  constexpr float inf = std::numeric_limits<float>::infinity();
  by_output_bands<float>(
      g, out, par,
      [&](std::size_t first, std::size_t n) {
        for (std::size_t i = first; i < first + n; ++i) {
          if (bias) std::copy_n(bias, oc, out + i * oc);
          else std::fill_n(out + i * oc, oc, 0.0f);
        }
      },
      [&](std::size_t b, std::size_t y0, std::size_t y1, float* products, exec::parallel_context* gpar) {
        const float* a = in + (b * g.in_h + y0) * g.in_w * g.in_c;
        av::gemm_f32(av::dense_rows<float>{a, g.in_c}, (y1 - y0) * g.in_w, p, zeros, -inf, inf, products, gpar);
      },
      [&](std::size_t first, std::size_t n) {
        if (r.lo > -inf || r.hi < inf)
          for (std::size_t i = first * oc; i < (first + n) * oc; ++i) out[i] = kernels::clamp_activation(out[i], r);
      });
}

/// NHWC quant8 (S: the storage type): int32 sums of bias and the scattered zero-point-
/// corrected products, then requantized per output channel (`eo`: lanes and range).
template <class S>
void nhwc_q8(const kc::geometry& g, const S* in, const av::packed_q8& p, const std::int32_t* bias, std::int32_t zx,
             const av::q8_epilogue& eo, S* out, exec::parallel_context* par) {
  const std::size_t oc = g.out_c, out_pixels = std::size_t{g.batches} * g.out_h * g.out_w;
  thread_local std::vector<std::int32_t> acc;
  acc.resize(out_pixels * oc);
  av::q8_epilogue eg;  // the GEMM's: offsets only, its outputs stay int32
  av::set_offsets(eg, p, nullptr, zx);
  std::int32_t* sums = acc.data();
  by_output_bands<std::int32_t>(
      g, sums, par,
      [&](std::size_t first, std::size_t n) {
        for (std::size_t i = first; i < first + n; ++i) {
          if (bias) std::copy_n(bias, oc, sums + i * oc);
          else std::fill_n(sums + i * oc, oc, 0);
        }
      },
      [&](std::size_t b, std::size_t y0, std::size_t y1, std::int32_t* products, exec::parallel_context* gpar) {
        const auto* a = reinterpret_cast<const std::uint8_t*>(in) + (b * g.in_h + y0) * g.in_w * g.in_c;
        av::gemm_q8_to<S, std::int32_t>(av::dense_rows<std::uint8_t>{a, g.in_c}, (y1 - y0) * g.in_w, p, eg, products,
                                        gpar);
      },
      [&](std::size_t first, std::size_t n) {
        av::requantize_channels(sums + first * oc, n, oc, eo, out + first * oc);
      });
}

/// The bound float32 kernel: the filter packed at bind when constant, else per execution.
inline kernel bind_f32(const bind_context& c) {
  std::shared_ptr<const kc::packed_f32> constant;
  if (const operand_desc& f = c.in[1]; f.has_value() && f.dims.size() == 4 && f.dims_known()) {
    const std::size_t outs = std::size_t{f.dims[0]} * f.dims[1] * f.dims[2];
    constant = kc::packed_constant_f32(c, kc::packed_f32::shape(outs, 1, f.dims[3], av::panel_width(outs)),
                                       [&] { return pack_taps(f); });
  }
  return [constant](const kernel_io& io) {
    if (kc::element_count(io.out[0].dims) == 0) return;
    const kc::geometry g = kc::resolve_geometry(io, conv_kind::transpose, contract::slots(io.in));
    kc::packed_f32 local;
    const kc::packed_f32& p = kc::prepared_or(constant, local, [&] { return pack_taps(io.in[1]); });
    const auto* bias = io.in[2].has_value() ? reinterpret_cast<const float*>(io.in[2].value) : nullptr;
    const kernels::float_range r = kernels::activation_range_float(g.activation);
    kc::run_as_nhwc(g, reinterpret_cast<const float*>(io.in[0].value), reinterpret_cast<float*>(io.out_data[0]),
                    [&](const kc::geometry& gn, const float* x, float* y) { nhwc_f32(gn, x, p, bias, r, y, io.par); });
  };
}

/// The bound quant8 kernel (E: qu8 or qs8; the filter of E's type or per channel).
template <types::element E>
kernel bind_q8(const bind_context& c) {
  using S = typename E::storage;
  std::shared_ptr<const av::packed_q8> constant;
  if (const operand_desc& f = c.in[1]; f.has_value() && f.dims.size() == 4 && f.dims_known()) {
    const av::packed_q8 shape = taps_shape_q8(f);
    const std::string what = types::str_cat("q8taps:", shape.out_c, "x", shape.cin, "/", shape.nr,
                                            f.type == OperandType::TENSOR_QUANT8_ASYMM ? "u" : "s");
    constant = av::packed_constant_q8(c, shape, what, [&] { return pack_taps_q8(f); });
  }
  const requant q = kc::make_requant(c.in[0], c.in[1], c.out[0]);
  const std::int32_t zx = c.in[0].zero_point + (std::is_signed_v<S> ? 128 : 0);
  return [constant, q, zx](const kernel_io& io) {
    if (kc::element_count(io.out[0].dims) == 0) return;
    const kc::geometry g = kc::resolve_geometry(io, conv_kind::transpose, contract::slots(io.in));
    av::packed_q8 local;
    const av::packed_q8& p = kc::prepared_or(constant, local, [&] { return pack_taps_q8(io.in[1]); });
    const auto o = io.output<E>(0);
    av::q8_epilogue eo;
    av::set_lanes(eo, q, g.out_c, (g.out_c + 15) / 16 * 16);
    const quant::quant_range r = quant::activation_range(g.activation, o.scale, o.zero_point,
                                                         std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
    eo.lo = r.lo;
    eo.hi = r.hi;
    const auto* bias = io.in[2].has_value() ? reinterpret_cast<const std::int32_t*>(io.in[2].value) : nullptr;
    kc::run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data,
                    [&](const kc::geometry& gn, const S* x, S* y) { nhwc_q8<S>(gn, x, p, bias, zx, eo, y, io.par); });
  };
}

}  // namespace detail
#endif

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
#if NNHAL_HAVE_X86_KERNELS
  if (c.in[0].type == OperandType::TENSOR_FLOAT32 && simd::cpu().avx512) return detail::bind_f32(c);
  if (simd::cpu().avx512_vnni && (c.in[1].type == c.in[0].type || c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)) {
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM) return detail::bind_q8<types::qu8>(c);
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return detail::bind_q8<types::qs8>(c);
  }
#endif
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::transpose_conv_2d
