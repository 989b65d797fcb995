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

/// The 8-bit AVX-512 kernel (pool_op::q8_avx512).
struct q8_max {
#if NNHAL_HAVE_X86_KERNELS
  template <class S>
  void operator()(const S* in, const kernels::pool_norm::nhwc_layout& il, S* out,
                  const kernels::pool_norm::nhwc_layout& ol, const types::sig::detail::pool2d::geometry& g,
                  std::int32_t lo, std::int32_t hi) const {
    kernels::pool_norm::avx512::max_pool_q8_nhwc(in, il, out, ol, g, lo, hi);
  }
#endif
};

/// Types f32 (AVX-512 or xsimd for NHWC) f16 qu8 qs8 (AVX-512 for NHWC) (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return pool::bind<q8_max, types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::max_pool_2d
