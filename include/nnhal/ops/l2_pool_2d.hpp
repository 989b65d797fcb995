// L2_POOL_2D kernels; contract in types/signatures/l2_pool_2d.hpp. sqrt(mean of the
// squares) over the window's input elements (padding excluded), then the activation
// clamp. Float types only.
#pragma once

#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pool.hpp"

namespace nnhal::ops::l2_pool_2d {

namespace pool2d = types::sig::detail::pool2d;

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

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
  kernels::pool_norm::pool_2d(in.data, kernels::pool_norm::nhwc_layout::of(in.dims, g.nchw), out.data,
                   kernels::pool_norm::nhwc_layout::of(out.dims, g.nchw), g,
                   float_l2<S>{kernels::activation_range_float(g.activation)});
}

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

/// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
/// Versus reference: float32 instead of double accumulation, within the CTS float32
/// tolerance (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  if (out.size() == 0) return;
  const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
  if (g.nchw) return reference<types::f32>(io);
  kernels::pool_norm::pool_2d_f32_nhwc<Arch>(in.data, kernels::pool_norm::nhwc_layout::of(in.dims, false), out.data,
                                             kernels::pool_norm::nhwc_layout::of(out.dims, false), g,
                                             f32_l2_lane{kernels::activation_range_float(g.activation)});
}

/// Types f32 (vectorized for NHWC when the build has SIMD) f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
      if constexpr (kernels::pool_norm::has_simd) return kernel{vectorized<kernels::pool_norm::simd_arch>};
      return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::l2_pool_2d
