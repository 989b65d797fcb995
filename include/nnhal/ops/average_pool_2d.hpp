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

#if NNHAL_HAVE_X86_KERNELS
/// 8-bit NHWC (AVX-512), equal to reference(); NCHW runs the reference.
template <types::element E>
void q8_avx512(const kernel_io& io) {
  using S = typename E::storage;
  namespace pool2d = types::sig::detail::pool2d;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
  if (g.nchw) return reference<E>(io);
  const auto r = quant::activation_range(g.activation, out.scale, out.zero_point, std::numeric_limits<S>::min(),
                                         std::numeric_limits<S>::max());
  kernels::pool_norm::avx512::average_pool_q8_nhwc(in.data, kernels::pool_norm::nhwc_layout::of(in.dims, false),
                                                   out.data, kernels::pool_norm::nhwc_layout::of(out.dims, false), g,
                                                   r.lo, r.hi);
}
#endif

/// Types f32 (AVX-512 or xsimd for NHWC) f16 qu8 qs8 (AVX-512 for NHWC) (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512 && types::is_quantized(c.in[0].type))
    return bind_for<types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) { return kernel{q8_avx512<E>}; });
#endif
  return pool::bind<types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::average_pool_2d
