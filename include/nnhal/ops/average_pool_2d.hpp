// AVERAGE_POOL_2D kernels; contract in types/signatures/average_pool_2d.hpp. The mean
// divides by the number of input elements the window covers (padding excluded).
// Quantized: (sum + count / 2) / count on the stored values, the AOSP CPU rounding
// (TFLite AveragePool), then the activation clamp. The signed type is computed in the
// unsigned domain (values + 128), so qs8 is exactly qu8 - 128.
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pool.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::average_pool_2d {

/// Float mean, accumulated in double; f16 is widened on load and rounded once on store.
template <class S>
struct float_mean {
  using acc_t = double;
  kernels::float_range range;
  acc_t init() const noexcept { return 0.0; }
  acc_t step(acc_t a, S x) const noexcept { return a + static_cast<double>(kernels::load_float(x)); }
  S finish(acc_t a, std::int64_t count) const noexcept {
    const auto mean = static_cast<float>(a / static_cast<double>(count));
    return kernels::store_float<S>(kernels::clamp_activation(mean, range));
  }
};

/// Quantized mean with round-half-up on the unsigned-domain sum.
template <class S>
struct quant_mean {
  using acc_t = std::int64_t;
  static constexpr std::int64_t domain_shift = std::numeric_limits<S>::min() < 0 ? 128 : 0;
  quant::quant_range range;
  acc_t init() const noexcept { return 0; }
  acc_t step(acc_t a, S x) const noexcept { return a + x; }
  S finish(acc_t a, std::int64_t count) const noexcept {
    const std::int64_t unsigned_sum = a + domain_shift * count;
    const auto mean = static_cast<std::int32_t>((unsigned_sum + count / 2) / count - domain_shift);
    return static_cast<S>(mean < range.lo ? range.lo : (mean > range.hi ? range.hi : mean));
  }
};

/// Float32 SIMD lane: the mean accumulated in float32 (the reference accumulates in double).
struct f32_mean_lane {
  kernels::float_range range;
  float init() const noexcept { return 0.0f; }
  float step(float a, float x) const noexcept { return a + x; }
  float finish(float a, std::int64_t n) const noexcept {
    return kernels::clamp_activation(a / static_cast<float>(n), range);
  }
  template <class Arch>
  xsimd::batch<float, Arch> step(xsimd::batch<float, Arch> a, xsimd::batch<float, Arch> x) const noexcept {
    return a + x;
  }
  template <class Arch>
  xsimd::batch<float, Arch> finish(xsimd::batch<float, Arch> a, std::int64_t n) const noexcept {
    return kernels::pool_norm::clamp_activation_batch(a / xsimd::batch<float, Arch>(static_cast<float>(n)), range);
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 a, __m512 x) const noexcept { return _mm512_add_ps(a, x); }
  NNHAL_TARGET_AVX512 __m512 finish512(__m512 a, std::int64_t n) const noexcept {
    return kernels::pool_norm::avx512::clamp512(_mm512_div_ps(a, _mm512_set1_ps(static_cast<float>(n))), range);
  }
#endif
};

using pool = kernels::pool_norm::pool_op<float_mean, quant_mean, f32_mean_lane>;

template <types::element E>
inline constexpr auto& reference = pool::reference<E>;

/// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
/// Versus reference: float32 instead of double accumulation, within the CTS float32
/// tolerance (tests check it).
template <class Arch>
inline constexpr auto& vectorized = pool::vectorized<Arch>;

/// The 8-bit AVX-512 kernel (pool_op::q8_avx512).
struct q8_average {
#if NNHAL_HAVE_X86_KERNELS
  template <class S>
  void operator()(const S* in, const kernels::pool_norm::nhwc_layout& il, S* out,
                  const kernels::pool_norm::nhwc_layout& ol, const types::sig::detail::pool2d::geometry& g,
                  std::int32_t lo, std::int32_t hi) const {
    kernels::pool_norm::avx512::average_pool_q8_nhwc(in, il, out, ol, g, lo, hi);
  }
#endif
};

/// Types f32 (AVX-512 or xsimd for NHWC) f16 qu8 qs8 (AVX-512 for NHWC) (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return pool::bind<q8_average, types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::average_pool_2d
