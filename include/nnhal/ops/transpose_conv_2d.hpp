// TRANSPOSE_CONV_2D kernels; contract in types/signatures/transpose_conv_2d.hpp. The
// reference gathers, for each output element, the input pixels whose filter footprint
// covers it (kernels/conv_common.hpp transpose_loops); AOSP scatters instead, which gives
// the same int32 sums (quantized: bit-exact) and float sums in another order.
// The optimized kernels scatter too: one GEMM of the input pixels with the filter
// reordered tap-major gives every pixel's products for every tap, added where each tap
// lands; quant8 then requantizes the int32 sums, bit-exact with reference(). The GEMM is
// kernels/gemm_avx512.hpp's on x86 CPUs that have it (float32: AVX-512 or AVX2 FMA; quant8:
// AVX-512 VNNI with int32 outputs),
// else kernels/conv_gemm.hpp's (xsimd, this build's architecture; quant8 in wrapping
// 32-bit lanes).
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
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

namespace detail {

namespace kc = kernels::conv;

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

/// The NHWC transposed convolution in bands of output rows, one task per band (as many
/// bands as threads, or one): the band's accumulators are set (`init`), then for blocks of
/// the input rows whose taps reach the band, `gemm(b, y0, y1, products, par)` writes their
/// products ([pixel][tap][out_c], about 1 MiB a block) and the products landing in the
/// band are added to `acc`; then `finish` turns the band's sums into outputs. Bands are
/// independent (an input row near a band's edge is multiplied again by its neighbour), so
/// nothing is shared; with one band the GEMM itself gets the threads.
/// init(first output pixel, count) / finish(first output pixel, count) take pixels of acc;
/// add(dst, src, n) adds n products to their sums.
template <class T, class Init, class Gemm, class Finish, class Add>
void by_output_bands(const kc::geometry& g, T* acc, exec::parallel_context* par, Init&& init, Gemm&& gemm,
                     Finish&& finish, Add&& add) {
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
                add(out_row + static_cast<std::size_t>(ox) * oc, prod + kx * oc, oc);
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
/// gemm(a, m, products, par) writes the products of the m input pixels at `a` (in_c
/// values each) as [pixel][tap][out_c]; add as by_output_bands'.
template <class Gemm, class Add>
void nhwc_f32(const kc::geometry& g, const float* in, const float* bias, kernels::float_range r, float* out,
              exec::parallel_context* par, Gemm&& gemm, Add&& add) {
  const std::size_t oc = g.out_c;
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
        gemm(in + (b * g.in_h + y0) * g.in_w * g.in_c, (y1 - y0) * g.in_w, products, gpar);
      },
      [&](std::size_t first, std::size_t n) {
        if (r.lo > -inf || r.hi < inf)
          for (std::size_t i = first * oc; i < (first + n) * oc; ++i) out[i] = kernels::clamp_activation(out[i], r);
      },
      add);
}

/// The bound float32 kernel: the by_tap filter packed in panels of nr_of(fh * fw *
/// out_c) channels (at bind when constant, else per execution); gemm(p, a, m, products,
/// par) is nhwc_f32's with that packing.
template <class Gemm, class Add>
kernel bind_f32_with(const bind_context& c, std::size_t (*nr_of)(std::size_t), Gemm gemm, Add add) {
  auto shape = [nr_of](const operand_desc& f) {
    const std::size_t outs = std::size_t{f.dims[0]} * f.dims[1] * f.dims[2];
    return kc::packed_f32::shape(outs, 1, f.dims[3], nr_of(outs));
  };
  auto pack = [shape](const operand_desc& f) {
    const kc::packed_f32 s = shape(f);
    return kc::pack_f32(by_tap<float>(f).data(), s.out_c, 1, s.cin, s.nr);
  };
  std::shared_ptr<const kc::packed_f32> constant;
  if (kc::constant_weights(c, 4)) constant = kc::packed_constant_f32(c, shape(c.in[1]), [&] { return pack(c.in[1]); });
  return [constant, pack, gemm, add](const kernel_io& io) {
    if (kc::element_count(io.out[0].dims) == 0) return;
    const kc::geometry g = kc::resolve_geometry(io, conv_kind::transpose, contract::slots(io.in));
    kc::packed_f32 local;
    const kc::packed_f32& p = kc::prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const auto* bias = io.in[2].has_value() ? reinterpret_cast<const float*>(io.in[2].value) : nullptr;
    const kernels::float_range r = kernels::activation_range_float(g.activation);
    kc::run_as_nhwc(g, reinterpret_cast<const float*>(io.in[0].value), reinterpret_cast<float*>(io.out_data[0]),
                    [&](const kc::geometry& gn, const float* x, float* y) {
                      nhwc_f32(
                          gn, x, bias, r, y, io.par,
                          [&](const float* a, std::size_t m, float* products, exec::parallel_context* gpar) {
                            gemm(p, a, m, products, gpar);
                          },
                          add);
                    });
  };
}

/// Zeros for the bias of a GEMM packed as p (its padded channels), in a buffer kept per
/// thread: the caller's, which the GEMM's workers read through the pointer.
inline const float* zero_bias(const kc::packed_f32& p) {
  thread_local std::vector<float> zeros;
  zeros.assign(p.padded_channels(), 0.0f);
  return zeros.data();
}

/// dst[i] += src[i] for i < n in lanes of `Arch` (wrapping for integers).
template <class Arch, class T>
void add_lanes(T* dst, const T* src, std::size_t n) noexcept {
  using B = xsimd::batch<T, Arch>;
  std::size_t i = 0;
  for (; i + B::size <= n; i += B::size) (B::load_unaligned(dst + i) + B::load_unaligned(src + i)).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] += src[i];
}

/// The portable float32 kernel (xsimd, this build's architecture): the GEMM of
/// kernels/conv_gemm.hpp.
template <class Arch = xsimd::default_arch>
kernel bind_f32_portable(const bind_context& c) {
  return bind_f32_with(
      c, [](std::size_t) { return kc::f32_tile<Arch>::nr; },
      [](const kc::packed_f32& p, const float* a, std::size_t m, float* products, exec::parallel_context* par) {
        constexpr float inf = std::numeric_limits<float>::infinity();
        kc::gemm_f32<Arch>(m, a, p, zero_bias(p), -inf, inf, products, par);
      },
      [](float* dst, const float* src, std::size_t n) { add_lanes<Arch>(dst, src, n); });
}

/// The portable quant8 kernel (E: qu8 or qs8; the filter of E's type or per channel):
/// the by_tap filter packed as (w - zero point) in uint32 lanes, GEMM products of
/// (x - input zero point) summed in wrapping uint32 lanes (the reference's int32 sums,
/// modulo 2^32), then requantized per channel (q8_requant_lanes, with the bias):
/// bit-exact with reference().
template <types::element E, class Arch = xsimd::default_arch>
kernel bind_q8_portable(const bind_context& c) {
  using S = typename E::storage;
  using tile = kc::gemm_tile<std::uint32_t, Arch>;
  auto shape = [](const operand_desc& f) {
    return kc::packed_u32::shape(std::size_t{f.dims[0]} * f.dims[1] * f.dims[2], 1, f.dims[3], tile::nr);
  };
  auto pack = [shape](const operand_desc& f) {
    const std::vector<std::uint8_t> taps = by_tap<std::uint8_t>(f);  // bytes: u8 or s8 alike
    return kc::pack_q8_values(f, reinterpret_cast<const std::byte*>(taps.data()), shape(f));
  };
  std::shared_ptr<const kc::packed_u32> constant;
  if (kc::constant_weights(c, 4))
    constant = kc::packed_constant_panels<std::uint32_t>(c, "u32", shape(c.in[1]), [&] { return pack(c.in[1]); });
  return [constant, pack, q = kc::make_requant(c.in[0], c.in[1], c.out[0])](const kernel_io& io) {
    if (kc::element_count(io.out[0].dims) == 0) return;
    const kc::geometry g = kc::resolve_geometry(io, conv_kind::transpose, contract::slots(io.in));
    kc::packed_u32 local;
    const kc::packed_u32& p = kc::prepared_or(constant, local, [&] { return pack(io.in[1]); });
    const auto o = io.output<E>(0);
    const std::size_t oc = g.out_c, lanes = tile::lanes;
    const auto* bias = io.in[2].has_value() ? reinterpret_cast<const std::int32_t*>(io.in[2].value) : nullptr;
    const kc::q8_requant_lanes rq(q, bias, oc, (oc + lanes - 1) / lanes * lanes,
                                  quant::activation_range(g.activation, o.scale, o.zero_point,
                                                          std::numeric_limits<S>::min(), std::numeric_limits<S>::max()));
    const std::int32_t zx = io.in[0].zero_point;
    kc::run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const kc::geometry& gn, const S* in, S* out) {
      thread_local std::vector<std::uint32_t> acc;  // the caller's; the bands write it through the pointer
      acc.resize(std::size_t{gn.batches} * gn.out_h * gn.out_w * oc);
      std::uint32_t* sums = acc.data();
      by_output_bands<std::uint32_t>(
          gn, sums, io.par, [&](std::size_t first, std::size_t n) { std::fill_n(sums + first * oc, n * oc, 0u); },
          [&](std::size_t b, std::size_t y0, std::size_t y1, std::uint32_t* products, exec::parallel_context* gpar) {
            const S* a = in + (b * gn.in_h + y0) * gn.in_w * gn.in_c;
            kc::gemm_tiles<tile::mr, tile::nr>(
                (y1 - y0) * gn.in_w, gn.in_c, a, p.panels,
                [&](std::size_t rows, const S* const* ap, std::size_t pn, std::size_t first) {
                  typename tile::batch r[tile::mr][2];
                  kc::tile_sums<Arch>(ap, 1, p.cin, p.panel(pn), kc::minus_zero_point<S>{zx}, r);
                  alignas(64) std::uint32_t v[tile::nr];
                  for (std::size_t m = 0; m < rows; ++m) {
                    r[m][0].store_aligned(v);
                    r[m][1].store_aligned(v + tile::lanes);
                    std::copy_n(v, p.columns(pn), products + (first + m) * p.out_c + p.channel(pn));
                  }
                },
                gpar);
          },
          [&](std::size_t first, std::size_t n) {
            for (std::size_t i = first; i < first + n; ++i) rq.store_all<Arch>(sums + i * oc, oc, out + i * oc);
          },
          [](std::uint32_t* dst, const std::uint32_t* src, std::size_t n) { add_lanes<Arch>(dst, src, n); });
    });
  };
}

}  // namespace detail

#if NNHAL_HAVE_X86_KERNELS
namespace detail {

namespace av = kernels::conv::avx512;

/// The by_tap quant8 filter (per tensor or per channel; the channel sums are per GEMM
/// output) packed for the VNNI GEMM: the packing's shape, then the packing.
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

/// NHWC quant8 (S: the storage type): int32 sums of bias and the scattered zero-point-
/// corrected products, then requantized per output channel (`eo`: lanes and range).
template <class S>
void nhwc_q8(const kc::geometry& g, const S* in, const av::packed_q8& p, const std::int32_t* bias, std::int32_t zx,
             const av::q8_epilogue& eo, S* out, exec::parallel_context* par, av::gemm_isa isa) {
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
                                        gpar, isa);
      },
      [&](std::size_t first, std::size_t n) {
        av::requantize_channels(sums + first * oc, n, oc, eo, out + first * oc);
      },
      [](std::int32_t* dst, const std::int32_t* src, std::size_t n) { add_to(dst, src, n); });
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
  const av::gemm_isa isa = av::q8_gemm_isa().value_or(av::gemm_isa::avx512);  // (bound with AVX-512 VNNI)
  return [constant, q, zx, isa](const kernel_io& io) {
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
                    [&](const kc::geometry& gn, const S* x, S* y) { nhwc_q8<S>(gn, x, p, bias, zx, eo, y, io.par, isa); });
  };
}

}  // namespace detail
#endif

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
#if NNHAL_HAVE_X86_KERNELS
  const auto isa = kernels::conv::avx512::f32_gemm_isa();
  if (c.in[0].type == OperandType::TENSOR_FLOAT32 && isa) {
    auto gemm = [isa = *isa](const kernels::conv::packed_f32& p, const float* a, std::size_t m, float* products,
                             exec::parallel_context* par) {
      constexpr float inf = std::numeric_limits<float>::infinity();
      kernels::conv::avx512::gemm_f32(kernels::conv::avx512::dense_rows<float>{a, p.cin}, m, p, detail::zero_bias(p),
                                      -inf, inf, products, par, 0, isa);
    };
    // The products' sums: AVX-512 where the GEMM is, else xsimd for the build's instruction set.
    if (*isa == kernels::conv::avx512::gemm_isa::avx512)
      return detail::bind_f32_with(c, &kernels::conv::avx512::panel_width, gemm,
                                   [](float* dst, const float* src, std::size_t n) { detail::add_to(dst, src, n); });
    return detail::bind_f32_with(c, &kernels::conv::avx512::panel_width, gemm,
                                 [](float* dst, const float* src, std::size_t n) {
                                   detail::add_lanes<xsimd::default_arch>(dst, src, n);
                                 });
  }
  if (simd::cpu().avx512_vnni && kernels::conv::q8_filter(c)) {
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM) return detail::bind_q8<types::qu8>(c);
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return detail::bind_q8<types::qs8>(c);
  }
#endif
  if (c.in[0].type == OperandType::TENSOR_FLOAT32) return detail::bind_f32_portable(c);
  if (kernels::conv::q8_filter(c)) {
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM) return detail::bind_q8_portable<types::qu8>(c);
    if (c.in[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return detail::bind_q8_portable<types::qs8>(c);
  }
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::transpose_conv_2d
