// LOCAL_RESPONSE_NORMALIZATION kernels; contract in
// types/signatures/local_response_normalization.hpp. Along the axis, element d becomes
// x[d] * (bias + alpha * sum(x[d - radius .. d + radius]^2))^-beta, the window clipped
// to the slice (a negative radius gives an empty window). Computed in double, f16
// widened on load and rounded once; float32 along the last axis on AVX-512 when the CPU
// has it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::local_response_normalization {

/// The scalar operands, in double as the computation uses them.
struct params {
  std::int64_t radius = 0;
  double bias = 1.0, alpha = 1.0, beta = 0.5;
  std::int32_t axis = -1;

  static params of(const kernel_io& io) {
    namespace an = types::sig::detail::axis_norm;
    params p;
    p.radius = io.scalar<std::int32_t>(1);
    p.bias = static_cast<double>(an::float_scalar(io.in[2]).value_or(1.0f));
    p.alpha = static_cast<double>(an::float_scalar(io.in[3]).value_or(1.0f));
    p.beta = static_cast<double>(an::float_scalar(io.in[4]).value_or(0.5f));
    p.axis = io.in.size() > 5 ? io.scalar<std::int32_t>(5, -1) : -1;
    return p;
  }
  /// The radius clipped to a slice of n (a wider window sees the same elements); 0 when
  /// negative.
  std::size_t clipped_radius(std::size_t n) const noexcept {
    return radius < 0 ? 0 : static_cast<std::size_t>(std::min<std::int64_t>(radius, static_cast<std::int64_t>(n) - 1));
  }
};

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const params prm = params::of(io);  // named copies: the lambda below captures them
  const std::int64_t radius = prm.radius;
  const double bias = prm.bias, alpha = prm.alpha, beta = prm.beta;
  const std::int32_t axis = prm.axis;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis);
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    auto at = [&](std::int64_t k) {
      return static_cast<double>(kernels::load_float(in.data[first + static_cast<std::size_t>(k) * stride]));
    };
    const auto n = static_cast<std::int64_t>(count);
    for (std::int64_t d = 0; d < n; ++d) {
      const std::int64_t lo = std::max<std::int64_t>(d - radius, 0);
      const std::int64_t hi = std::min<std::int64_t>(d + radius, n - 1);
      double sum = 0.0;
      for (std::int64_t k = lo; k <= hi; ++k) sum += at(k) * at(k);
      const double v = at(d) * std::pow(bias + alpha * sum, -beta);
      out.data[first + static_cast<std::size_t>(d) * stride] = kernels::store_float<S>(static_cast<float>(v));
    }
  });
}

#if NNHAL_HAVE_X86_KERNELS
/// `rows` contiguous slices of n floats on AVX-512, 8 outputs at a time in double. The
/// squares go to `sq` (n + 2 r + 8 doubles, r the radius clipped to n - 1) from index r,
/// between r zeros before and r + 8 after, so that every output sums its 2 r + 1
/// neighbours without bounds checks; the zeros add exactly nothing, so each sum is the
/// reference's, in its order. The power is e^(-beta ln base) (log512d, exp512d: about 1e-12 relative, against
/// float32's 6e-8, so at most one float ulp from the reference's std::pow); a lane whose
/// base is not a positive normal finite double takes std::pow, as in the reference.
NNHAL_TARGET_AVX512 inline void lrn_rows_avx512(const float* in, float* out, std::size_t rows, std::size_t n,
                                                const params& p, double* sq) {
  using simd::avx512::all8;
  namespace v5 = kernels::vunary::avx512;
  const std::size_t r = p.clipped_radius(n);
  const std::size_t window = p.radius < 0 ? 0 : 2 * r + 1;
  const __m512d bias = _mm512_set1_pd(p.bias), alpha = _mm512_set1_pd(p.alpha), neg_beta = _mm512_set1_pd(-p.beta);
  const __m512d smallest = _mm512_set1_pd(std::numeric_limits<double>::min());
  const __m512d inf = _mm512_set1_pd(std::numeric_limits<double>::infinity());
  std::fill(sq, sq + r, 0.0);
  std::fill(sq + r + n, sq + n + 2 * r + 8, 0.0);
  for (std::size_t o = 0; o < rows; ++o) {
    const float* x = in + o * n;
    float* y = out + o * n;
    for (std::size_t k = 0; k < n; k += 8) {
      const __mmask8 live = kernels::vunary::avx512::live8(k, n);
      const __m512d v = kernels::vunary::avx512::load8d(x + k, live);
      _mm512_mask_storeu_pd(sq + r + k, live, _mm512_mul_pd(v, v));
    }
    for (std::size_t d = 0; d < n; d += 8) {
      const __mmask8 live = kernels::vunary::avx512::live8(d, n);
      __m512d sum = _mm512_setzero_pd();
      for (std::size_t k = 0; k < window; ++k) sum = _mm512_add_pd(sum, _mm512_loadu_pd(sq + d + k));
      const __m512d base = _mm512_add_pd(bias, _mm512_mul_pd(alpha, sum));
      __m512d power = v5::exp512d(_mm512_mul_pd(neg_beta, v5::log512d(base)));
      const __mmask8 ordinary = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(base, smallest, _CMP_GE_OQ), base, inf, _CMP_LT_OQ);
      if ((ordinary & live) != live) {
        alignas(64) double b[8], w[8];
        _mm512_store_pd(b, base);
        _mm512_store_pd(w, power);
        for (int j = 0; j < 8; ++j)
          if (!((ordinary >> j) & 1)) w[j] = std::pow(b[j], -p.beta);
        power = _mm512_load_pd(w);
      }
      const __m512d v = kernels::vunary::avx512::load8d(x + d, live);
      kernels::vunary::avx512::store8d(y + d, live, _mm512_mul_pd(v, power));
    }
  }
}

/// Float32 slices along the last axis on AVX-512, parallel chunks of slices; other axes
/// run the reference.
inline void lrn_f32_avx512(const kernel_io& io) {
  const params p = params::of(io);
  kernels::pool_norm::last_axis_rows_f32(
      io, p.axis,
      [&p](const float* in, float* out, std::size_t rows, std::size_t n) {
        static thread_local std::vector<double> sq;  // kept: no allocation per execution
        sq.resize(std::max(sq.size(), n + 2 * p.clipped_radius(n) + 8));
        lrn_rows_avx512(in, out, rows, n, p, sq.data());
      },
      reference<types::f32>);
}
#endif

/// Types f32 (AVX-512 when the CPU has it) f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{lrn_f32_avx512};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::local_response_normalization
