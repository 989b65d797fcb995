// L2_POOL_2D kernels; contract in types/signatures/l2_pool_2d.hpp. sqrt(mean of the
// squares) over the window's input elements (padding excluded), then the activation
// clamp. Float types only.
#pragma once

#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pool.hpp"

namespace nnhal::ops::l2_pool_2d {

/// Sum of squares in double; f16 is widened on load and rounded once on store.
template <class S>
struct float_l2 {
  using acc_t = double;
  kernels::float_range range;
  acc_t init() const noexcept { return 0.0; }
  acc_t step(acc_t a, S x) const noexcept {
    const auto v = static_cast<double>(kernels::load_float(x));
    return a + v * v;
  }
  S finish(acc_t a, std::int64_t count) const noexcept {
    const auto rms = static_cast<float>(std::sqrt(a / static_cast<double>(count)));
    return kernels::store_float<S>(kernels::clamp_activation(rms, range));
  }
};

/// Float32 SIMD lane: squares accumulated in float32 (the reference accumulates in double).
struct f32_l2_lane {
  kernels::float_range range;
  float init() const noexcept { return 0.0f; }
  float step(float a, float x) const noexcept { return a + x * x; }
  float finish(float a, std::int64_t n) const noexcept {
    return kernels::clamp_activation(std::sqrt(a / static_cast<float>(n)), range);
  }
  template <class Arch>
  xsimd::batch<float, Arch> step(xsimd::batch<float, Arch> a, xsimd::batch<float, Arch> x) const noexcept {
    return a + x * x;
  }
  template <class Arch>
  xsimd::batch<float, Arch> finish(xsimd::batch<float, Arch> a, std::int64_t n) const noexcept {
    return kernels::pool_norm::clamp_activation_batch(xsimd::sqrt(a / xsimd::batch<float, Arch>(static_cast<float>(n))),
                                                      range);
  }
};

using pool = kernels::pool_norm::pool_op<float_l2, float_l2, f32_l2_lane>;

template <types::element E>
  requires types::float_element<E>
inline constexpr auto& reference = pool::reference<E>;

/// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
/// Versus reference: float32 instead of double accumulation, within the CTS float32
/// tolerance (tests check it).
template <class Arch>
inline constexpr auto& vectorized = pool::vectorized<Arch>;

/// Types f32 (vectorized for NHWC when the build has SIMD) f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) { return pool::bind<void, types::f16>(c); }

}  // namespace nnhal::ops::l2_pool_2d
