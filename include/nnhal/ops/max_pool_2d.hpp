// MAX_POOL_2D kernels; contract in types/signatures/max_pool_2d.hpp. The maximum over
// the window's input elements (padding never wins), then the activation clamp. The
// output's quantization equals the input's, so quantized values are compared as stored.
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pool.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::max_pool_2d {

template <class S>
struct float_max {
  using acc_t = float;
  kernels::float_range range;
  acc_t init() const noexcept { return -std::numeric_limits<float>::infinity(); }
  acc_t step(acc_t a, S x) const noexcept {
    const float v = kernels::load_float(x);
    return v > a ? v : a;
  }
  S finish(acc_t a, std::int64_t) const noexcept { return kernels::store_float<S>(kernels::clamp_activation(a, range)); }
};

template <class S>
struct quant_max {
  using acc_t = std::int32_t;
  quant::quant_range range;
  acc_t init() const noexcept { return std::numeric_limits<S>::min(); }
  acc_t step(acc_t a, S x) const noexcept { return x > a ? x : a; }
  S finish(acc_t a, std::int64_t) const noexcept {
    return static_cast<S>(a < range.lo ? range.lo : (a > range.hi ? range.hi : a));
  }
};

/// Float32 SIMD lane: the same compares as float_max, so results equal the reference's.
struct f32_max_lane {
  kernels::float_range range;
  float init() const noexcept { return -std::numeric_limits<float>::infinity(); }
  float step(float a, float x) const noexcept { return x > a ? x : a; }
  float finish(float a, std::int64_t) const noexcept { return kernels::clamp_activation(a, range); }
  template <class Arch>
  xsimd::batch<float, Arch> step(xsimd::batch<float, Arch> a, xsimd::batch<float, Arch> x) const noexcept {
    return xsimd::select(x > a, x, a);
  }
  template <class Arch>
  xsimd::batch<float, Arch> finish(xsimd::batch<float, Arch> a, std::int64_t) const noexcept {
    return kernels::pool_norm::clamp_activation_batch(a, range);
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 a, __m512 x) const noexcept {
    return _mm512_maskz_max_ps(simd::avx512::all16, x, a);  // x > a ? x : a, as step(): vmaxps keeps its second operand on NaN
  }
  NNHAL_TARGET_AVX512 __m512 finish512(__m512 a, std::int64_t) const noexcept {
    return kernels::pool_norm::avx512::clamp512(a, range);
  }
#endif
};

using pool = kernels::pool_norm::pool_op<float_max, quant_max, f32_max_lane>;

template <types::element E>
inline constexpr auto& reference = pool::reference<E>;

/// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
/// Versus reference: bit-identical (tests check it).
template <class Arch>
inline constexpr auto& vectorized = pool::vectorized<Arch>;

#if NNHAL_HAVE_X86_KERNELS
/// 8-bit NHWC 64 channels at a time (AVX-512); NCHW runs the reference.
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
  kernels::pool_norm::avx512::max_pool_q8_nhwc(in.data, kernels::pool_norm::nhwc_layout::of(in.dims, false), out.data,
                                               kernels::pool_norm::nhwc_layout::of(out.dims, false), g, r.lo, r.hi);
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

}  // namespace nnhal::ops::max_pool_2d
