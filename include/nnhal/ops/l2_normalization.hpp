// L2_NORMALIZATION kernels; contract in types/signatures/l2_normalization.hpp. Each 1-D
// slice along the axis is divided by its L2 norm. Float: the sum of squares in double,
// the norm floored at 1e-6 as the AOSP CPU path does (an all-zero slice gives zeros, the
// 1.3 rule); float32 along the last axis on AVX-512 when the CPU has it. Quantized: the
// AOSP fixed-point path bit for bit: (x - zp) * 128 times a
// Q0 multiplier for 1/sqrt(sum of squares) (TFLite GetInvSqrtQuantizedMultiplierExp),
// plus the output zero point 128 (qu8) or 0 (qs8), so qs8 is exactly qu8 - 128.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/kernels/pooling_norm_fixed_point.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::l2_normalization {

inline constexpr float min_norm = 1e-6f;

inline std::int32_t axis_of(const kernel_io& io) { return io.in.size() > 1 ? io.scalar<std::int32_t>(1, -1) : -1; }

template <class S>
void float_slices(const S* in, S* out, const kernels::pool_norm::axis_split& split) {
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    double sum = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
      const auto v = static_cast<double>(kernels::load_float(in[first + k * stride]));
      sum += v * v;
    }
    const double norm = std::max(std::sqrt(sum), static_cast<double>(min_norm));
    for (std::size_t k = 0; k < count; ++k)
      out[first + k * stride] =
          kernels::store_float<S>(static_cast<float>(static_cast<double>(kernels::load_float(in[first + k * stride])) / norm));
  });
}

template <class S>
void quant_slices(const S* in, S* out, const kernels::pool_norm::axis_split& split, std::int32_t zero_point) {
  namespace fx = kernels::pool_norm::fixed;
  constexpr std::int32_t out_zero_point = std::numeric_limits<S>::min() < 0 ? 0 : 128;
  constexpr std::int32_t qmin = std::numeric_limits<S>::min(), qmax = std::numeric_limits<S>::max();
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const std::int64_t v = std::int32_t{in[first + k * stride]} - zero_point;
      sum += v * v;
    }
    // Upstream sums in int32; saturate where it would overflow (> 33025 elements).
    const auto sum32 = static_cast<std::int32_t>(std::min<std::int64_t>(sum, std::numeric_limits<std::int32_t>::max()));
    const fx::inv_sqrt_multiplier m = fx::inv_sqrt(sum32);
    for (std::size_t k = 0; k < count; ++k) {
      const std::int32_t v = std::int32_t{in[first + k * stride]} - zero_point;
      const std::int32_t r = fx::mul_by_multiplier_smaller_than_one(v * 128, m.multiplier, m.shift) + out_zero_point;
      out[first + k * stride] = static_cast<S>(std::clamp(r, qmin, qmax));
    }
  });
}

template <types::element E>
void reference(const kernel_io& io) {
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis_of(io));
  if constexpr (types::float_element<E>) {
    float_slices(in.data, out.data, split);
  } else {
    quant_slices(in.data, out.data, split, in.zero_point);
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// `rows` contiguous slices of n floats on AVX-512: the sum of squares in double, 8 lanes
/// at a time, then x / max(sqrt(sum), 1e-6) in double, rounded once, as the reference
/// does. Versus reference: only the order of the double sum differs.
NNHAL_TARGET_AVX512 inline void l2_rows_avx512(const float* in, float* out, std::size_t rows, std::size_t n) {
  for (std::size_t o = 0; o < rows; ++o) {
    const float* x = in + o * n;
    float* y = out + o * n;
    __m512d acc = _mm512_setzero_pd();
    for (std::size_t k = 0; k < n; k += 8) {
      const __mmask8 live = kernels::vunary::avx512::live8(k, n);
      const __m512d v = kernels::vunary::avx512::load8d(x + k, live);
      acc = _mm512_add_pd(acc, _mm512_mul_pd(v, v));
    }
    const double sum = kernels::vunary::avx512::lanes_sum(acc);
    const __m512d norm = _mm512_set1_pd(std::max(std::sqrt(sum), static_cast<double>(min_norm)));
    for (std::size_t k = 0; k < n; k += 8) {
      const __mmask8 live = kernels::vunary::avx512::live8(k, n);
      const __m512d v = kernels::vunary::avx512::load8d(x + k, live);
      kernels::vunary::avx512::store8d(y + k, live, _mm512_div_pd(v, norm));
    }
  }
}

/// Float32 slices along the last axis on AVX-512, parallel chunks of slices; other axes
/// run the reference.
inline void l2_f32_avx512(const kernel_io& io) {
  kernels::pool_norm::last_axis_rows_f32(io, axis_of(io), l2_rows_avx512, reference<types::f32>);
}
#endif

/// Types f32 (AVX-512 when the CPU has it) f16 qu8 qs8 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{l2_f32_avx512};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::l2_normalization
