// LOG_SOFTMAX kernels; contract in types/signatures/log_softmax.hpp. Each 1-D slice
// along the axis becomes beta (x - max) - log(sum exp(beta (x - max))), the max taken out
// for stability; exp, sum and log in double, f16 widened on load and rounded once. Float32
// along the last axis runs on AVX-512 when the CPU has it (exp in float, the rest in double).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/softmax.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::log_softmax {

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto beta = static_cast<double>(types::sig::detail::axis_norm::float_scalar(io.in[1]).value_or(1.0f));
  const auto split = kernels::pool_norm::axis_split::of(in.dims, io.scalar<std::int32_t>(2));
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    float max_v = -std::numeric_limits<float>::infinity();
    for (std::size_t k = 0; k < count; ++k) max_v = std::max(max_v, kernels::load_float(in.data[first + k * stride]));
    auto scaled = [&](std::size_t k) {
      return (static_cast<double>(kernels::load_float(in.data[first + k * stride])) - max_v) * beta;
    };
    double sum = 0.0;
    for (std::size_t k = 0; k < count; ++k) sum += std::exp(scaled(k));
    const double log_sum = std::log(sum);
    for (std::size_t k = 0; k < count; ++k)
      out.data[first + k * stride] = kernels::store_float<S>(static_cast<float>(scaled(k) - log_sum));
  });
}

#if NNHAL_HAVE_X86_KERNELS
/// `rows` contiguous slices of n floats, 16 lanes at a time: the maximum, exp512 of the
/// scaled differences summed in double, then beta (x - max) - log(sum) in double and
/// rounded once, as the reference does. Versus reference: only the exps differ (relative
/// error below 2e-7), within the CTS float32 tolerance (tests check it).
NNHAL_TARGET_AVX512 inline void log_softmax_rows_avx512(const float* in, float* out, std::size_t rows, std::size_t n,
                                                        float beta) {
  using simd::avx512::all16;
  using simd::avx512::all8;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  const std::size_t whole = n - n % 16;
  const __m512 vbeta = _mm512_set1_ps(beta);
  const __m512d dbeta = _mm512_set1_pd(static_cast<double>(beta));
  for (std::size_t o = 0; o < rows; ++o) {
    const float* x = in + o * n;
    float* y = out + o * n;
    const float max_v = softmax::row_max(x, n);
    const __m512 vmax = _mm512_set1_ps(max_v);
    __m512d sum_lo = _mm512_setzero_pd(), sum_hi = _mm512_setzero_pd();
    for (std::size_t k = 0; k < n; k += 16) {
      const __mmask16 live = k < whole ? all16 : tail;
      const __m512 d = _mm512_maskz_mul_ps(live, _mm512_sub_ps(_mm512_maskz_loadu_ps(live, x + k), vmax), vbeta);
      const __m512 e = _mm512_maskz_mov_ps(live, kernels::vunary::avx512::exp512(d));
      sum_lo = _mm512_add_pd(sum_lo, _mm512_maskz_cvtps_pd(all8, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(e), 0))));
      sum_hi = _mm512_add_pd(sum_hi, _mm512_maskz_cvtps_pd(all8, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(e), 1))));
    }
    const double sum = kernels::vunary::avx512::lanes_sum(_mm512_add_pd(sum_lo, sum_hi));
    const __m512d dmax = _mm512_set1_pd(static_cast<double>(max_v)), log_sum = _mm512_set1_pd(std::log(sum));
    for (std::size_t k = 0; k < n; k += 8) {
      const __mmask8 live = kernels::vunary::avx512::live8(k, n);
      const __m512d v = kernels::vunary::avx512::load8d(x + k, live);
      const __m512d r = _mm512_sub_pd(_mm512_mul_pd(_mm512_sub_pd(v, dmax), dbeta), log_sum);
      kernels::vunary::avx512::store8d(y + k, live, r);
    }
  }
}

/// Float32 slices along the last axis on AVX-512, parallel chunks of slices; other axes
/// run the reference.
inline void log_softmax_f32_avx512(const kernel_io& io) {
  const float beta = types::sig::detail::axis_norm::float_scalar(io.in[1]).value_or(1.0f);
  kernels::pool_norm::last_axis_rows_f32(
      io, io.scalar<std::int32_t>(2),
      [beta](const float* in, float* out, std::size_t rows, std::size_t n) { log_softmax_rows_avx512(in, out, rows, n, beta); },
      reference<types::f32>);
}
#endif

/// Types f32 (AVX-512 when the CPU has it) f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{log_softmax_f32_avx512};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::log_softmax
