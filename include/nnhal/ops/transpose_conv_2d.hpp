// TRANSPOSE_CONV_2D kernels; contract in types/signatures/transpose_conv_2d.hpp. The
// reference gathers, for each output element, the input pixels whose filter footprint
// covers it (kernels/conv_common.hpp transpose_loops); AOSP scatters instead, which gives
// the same int32 sums (quantized: bit-exact) and float sums in another order. Not
// vectorized yet.
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
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

/// The filter [out_c][fh][fw][in_c] as GEMM weights of fh * fw * out_c outputs, tap-major
/// (output t * out_c + oc is channel oc of tap t), packed.
inline kc::packed_f32 pack_taps(const operand_desc& f) {
  const std::size_t oc = f.dims[0], taps = std::size_t{f.dims[1]} * f.dims[2], ic = f.dims[3];
  const auto* w = reinterpret_cast<const float*>(f.value);
  std::vector<float> by_tap(oc * taps * ic);
  for (std::size_t o = 0; o < oc; ++o)
    for (std::size_t t = 0; t < taps; ++t) std::copy_n(w + (o * taps + t) * ic, ic, by_tap.data() + (t * oc + o) * ic);
  return kc::pack_f32(by_tap.data(), taps * oc, 1, ic, av::panel_width(taps * oc));
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

/// NHWC: out = act(bias + the scattered products of every input pixel and tap).
inline void nhwc_f32(const kc::geometry& g, const float* in, const kc::packed_f32& p, const float* bias,
                     kernels::float_range r, float* out, exec::parallel_context* par) {
  const std::size_t oc = g.out_c, taps = std::size_t{g.filter_h} * g.filter_w, cols = taps * oc;
  const std::size_t out_pixels = std::size_t{g.batches} * g.out_h * g.out_w;
  for (std::size_t i = 0; i < out_pixels; ++i) {
    if (bias) std::copy_n(bias, oc, out + i * oc);
    else std::fill_n(out + i * oc, oc, 0.0f);
  }
  // Input rows in blocks whose products (cols floats per pixel) stay about 1 MiB.
  const std::size_t row_floats = std::max<std::size_t>(std::size_t{g.in_w} * cols, 1);
  const std::size_t block = std::max<std::size_t>(1, (std::size_t{1} << 18) / row_floats);
  thread_local std::vector<float> products, zeros;
  products.resize(std::min<std::size_t>(block, g.in_h) * g.in_w * cols);
  zeros.assign(p.panels * p.nr, 0.0f);
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (std::size_t b = 0; b < g.batches; ++b)
    for (std::size_t y0 = 0; y0 < g.in_h; y0 += block) {
      const std::size_t y1 = std::min<std::size_t>(g.in_h, y0 + block);
      const float* a = in + (b * g.in_h + y0) * g.in_w * g.in_c;
      av::gemm_f32(av::dense_rows<float>{a, g.in_c}, (y1 - y0) * g.in_w, p, zeros.data(), -inf, inf,
                   products.data(), par);
      for (std::size_t iy = y0; iy < y1; ++iy)
        for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
          const std::int64_t oy = static_cast<std::int64_t>(iy) * g.stride_h - g.pad_top + static_cast<std::int64_t>(ky);
          if (oy < 0 || oy >= g.out_h) continue;
          for (std::size_t ix = 0; ix < g.in_w; ++ix) {
            const float* prod = products.data() + ((iy - y0) * g.in_w + ix) * cols + ky * g.filter_w * oc;
            for (std::size_t kx = 0; kx < g.filter_w; ++kx) {
              const std::int64_t ox =
                  static_cast<std::int64_t>(ix) * g.stride_w - g.pad_left + static_cast<std::int64_t>(kx);
              if (ox < 0 || ox >= g.out_w) continue;
              add_to(out + ((b * g.out_h + static_cast<std::size_t>(oy)) * g.out_w + static_cast<std::size_t>(ox)) * oc,
                     prod + kx * oc, oc);
            }
          }
        }
    }
  if (r.lo > -inf || r.hi < inf)
    for (std::size_t i = 0; i < out_pixels * oc; ++i) out[i] = kernels::clamp_activation(out[i], r);
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

}  // namespace detail
#endif

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
#if NNHAL_HAVE_X86_KERNELS
  if (c.in[0].type == OperandType::TENSOR_FLOAT32 && simd::cpu().avx512) return detail::bind_f32(c);
#endif
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::transpose_conv_2d
