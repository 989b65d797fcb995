// INSTANCE_NORMALIZATION kernels; contract in types/signatures/instance_normalization.hpp.
// For each (batch, channel): (x - mean) * gamma / sqrt(var + epsilon) + beta over the
// spatial extent, mean and (biased) variance in two passes in double; NHWC or NCHW
// through the shared layout view; f16 widened on load and rounded once. Float32 on
// AVX-512 when the CPU has it, in both layouts.
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::instance_normalization {

/// The scalar operands, in double as the computation uses them.
struct params {
  double gamma = 1.0, beta = 0.0, epsilon = 0.0;
  bool nchw = false;

  static params of(const kernel_io& io) {
    namespace an = types::sig::detail::axis_norm;
    params p;
    p.gamma = static_cast<double>(an::float_scalar(io.in[1]).value_or(1.0f));
    p.beta = static_cast<double>(an::float_scalar(io.in[2]).value_or(0.0f));
    p.epsilon = static_cast<double>(an::float_scalar(io.in[3]).value_or(0.0f));
    p.nchw = io.scalar<types::bool8>(4) != 0;
    return p;
  }
};

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto [gamma, beta, epsilon, nchw] = params::of(io);
  const auto l = kernels::pool_norm::nhwc_layout::of(in.dims, nchw);
  const auto count = static_cast<double>(l.h * l.w);
  for (std::size_t n = 0; n < l.n; ++n) {
    for (std::size_t c = 0; c < l.c; ++c) {
      auto at = [&](std::size_t h, std::size_t w) { return l.offset(n, h, w, c); };
      double sum = 0.0;
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) sum += static_cast<double>(kernels::load_float(in.data[at(h, w)]));
      const double mean = sum / count;
      double sq = 0.0;
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) {
          const double d = static_cast<double>(kernels::load_float(in.data[at(h, w)])) - mean;
          sq += d * d;
        }
      const double scale = gamma / std::sqrt(sq / count + epsilon);
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) {
          const double x = static_cast<double>(kernels::load_float(in.data[at(h, w)]));
          out.data[at(h, w)] = kernels::store_float<S>(static_cast<float>((x - mean) * scale + beta));
        }
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Up to nhwc_block (64) channels of one NHWC image on AVX-512, 8 per double vector:
/// `in` and `out` point at the image's first channel of the block, pixels are `stride`
/// floats apart. The same three passes as the reference (sum, squared deviations, output),
/// each channel's sums in the reference's pixel order.
inline constexpr std::size_t nhwc_block = 64;
NNHAL_TARGET_AVX512 inline void nhwc_channels_avx512(const float* in, float* out, std::size_t pixels, std::size_t stride,
                                                     std::size_t channels, const params& p) {
  using simd::avx512::all8;
  namespace v5 = kernels::vunary::avx512;
  constexpr std::size_t lanes = nhwc_block / 8;
  const std::size_t vecs = (channels + 7) / 8;
  __m512d mean[lanes], scale[lanes];
  __mmask8 live[lanes];
  for (std::size_t j = 0; j < vecs; ++j) {
    mean[j] = scale[j] = _mm512_setzero_pd();
    live[j] = v5::live8(8 * j, channels);
  }
  for (std::size_t px = 0; px < pixels; ++px)
    for (std::size_t j = 0; j < vecs; ++j) mean[j] = _mm512_add_pd(mean[j], v5::load8d(in + px * stride + 8 * j, live[j]));
  const __m512d count = _mm512_set1_pd(static_cast<double>(pixels));
  for (std::size_t j = 0; j < vecs; ++j) mean[j] = _mm512_div_pd(mean[j], count);
  for (std::size_t px = 0; px < pixels; ++px)
    for (std::size_t j = 0; j < vecs; ++j) {
      const __m512d d = _mm512_sub_pd(v5::load8d(in + px * stride + 8 * j, live[j]), mean[j]);
      scale[j] = _mm512_add_pd(scale[j], _mm512_mul_pd(d, d));
    }
  const __m512d gamma = _mm512_set1_pd(p.gamma), beta = _mm512_set1_pd(p.beta), epsilon = _mm512_set1_pd(p.epsilon);
  for (std::size_t j = 0; j < vecs; ++j)
    scale[j] = _mm512_div_pd(gamma, _mm512_maskz_sqrt_pd(all8, _mm512_add_pd(_mm512_div_pd(scale[j], count), epsilon)));
  for (std::size_t px = 0; px < pixels; ++px)
    for (std::size_t j = 0; j < vecs; ++j) {
      const __m512d x = v5::load8d(in + px * stride + 8 * j, live[j]);
      v5::store8d(out + px * stride + 8 * j, live[j], _mm512_add_pd(_mm512_mul_pd(_mm512_sub_pd(x, mean[j]), scale[j]), beta));
    }
}

/// One contiguous NCHW plane of `pixels` floats on AVX-512: the sums 8 lanes at a time
/// (so in another order than the reference's), then the same expression.
NNHAL_TARGET_AVX512 inline void nchw_plane_avx512(const float* in, float* out, std::size_t pixels, const params& p) {
  namespace v5 = kernels::vunary::avx512;
  __m512d acc = _mm512_setzero_pd();
  for (std::size_t k = 0; k < pixels; k += 8) acc = _mm512_add_pd(acc, v5::load8d(in + k, v5::live8(k, pixels)));
  const double count = static_cast<double>(pixels);
  const __m512d mean = _mm512_set1_pd(v5::lanes_sum(acc) / count);
  acc = _mm512_setzero_pd();
  for (std::size_t k = 0; k < pixels; k += 8) {
    const __mmask8 live = v5::live8(k, pixels);
    const __m512d d = _mm512_maskz_sub_pd(live, v5::load8d(in + k, live), mean);
    acc = _mm512_add_pd(acc, _mm512_mul_pd(d, d));
  }
  const __m512d scale = _mm512_set1_pd(p.gamma / std::sqrt(v5::lanes_sum(acc) / count + p.epsilon));
  const __m512d beta = _mm512_set1_pd(p.beta);
  for (std::size_t k = 0; k < pixels; k += 8) {
    const __mmask8 live = v5::live8(k, pixels);
    v5::store8d(out + k, live, _mm512_add_pd(_mm512_mul_pd(_mm512_sub_pd(v5::load8d(in + k, live), mean), scale), beta));
  }
}

/// Float32 on AVX-512: NHWC in blocks of up to 64 channels of one image, NCHW one plane at
/// a time; parallel chunks of those units.
inline void instance_norm_f32_avx512(const kernel_io& io) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  if (out.size() == 0) return;
  const params p = params::of(io);
  const auto l = kernels::pool_norm::nhwc_layout::of(in.dims, p.nchw);
  const std::size_t pixels = l.h * l.w;
  if (p.nchw) {
    const std::size_t grain = std::max<std::size_t>(1, 16384 / pixels);
    for_chunks(io, l.n * l.c, grain, [&](std::size_t u0, std::size_t u1) {
      for (std::size_t u = u0; u < u1; ++u) nchw_plane_avx512(in.data + u * pixels, out.data + u * pixels, pixels, p);
    });
    return;
  }
  // Narrower blocks, to give a single image's channels to several threads, measured
  // slower on two cores than one thread on 64: each pass then strides over the image.
  const std::size_t width = nhwc_block;
  const std::size_t blocks = (l.c + width - 1) / width;
  const std::size_t grain = std::max<std::size_t>(1, 16384 / (pixels * width));
  for_chunks(io, l.n * blocks, grain, [&](std::size_t u0, std::size_t u1) {
    for (std::size_t u = u0; u < u1; ++u) {
      const std::size_t first = (u / blocks) * l.stride_n + (u % blocks) * width;
      nhwc_channels_avx512(in.data + first, out.data + first, pixels, l.c, std::min(width, l.c - (u % blocks) * width), p);
    }
  });
}
#endif

/// Types f32 (AVX-512 when the CPU has it) f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{instance_norm_f32_avx512};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::instance_normalization
