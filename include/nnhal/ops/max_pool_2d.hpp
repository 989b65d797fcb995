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

namespace pool2d = types::sig::detail::pool2d;

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

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
  const auto in_l = kernels::pool_norm::nhwc_layout::of(in.dims, g.nchw);
  const auto out_l = kernels::pool_norm::nhwc_layout::of(out.dims, g.nchw);
  if constexpr (types::float_element<E>) {
    kernels::pool_norm::pool_2d(in.data, in_l, out.data, out_l, g, float_max<S>{kernels::activation_range_float(g.activation)});
  } else {
    const auto r = quant::activation_range(g.activation, out.scale, out.zero_point, std::numeric_limits<S>::min(),
                                           std::numeric_limits<S>::max());
    kernels::pool_norm::pool_2d(in.data, in_l, out.data, out_l, g, quant_max<S>{r});
  }
}

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
};

/// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
/// Versus reference: bit-identical (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  if (out.size() == 0) return;
  const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
  if (g.nchw) return reference<types::f32>(io);
  kernels::pool_norm::pool_2d_f32_nhwc<Arch>(in.data, kernels::pool_norm::nhwc_layout::of(in.dims, false), out.data,
                                             kernels::pool_norm::nhwc_layout::of(out.dims, false), g,
                                             f32_max_lane{kernels::activation_range_float(g.activation)});
}

/// Types f32 (vectorized for NHWC when the build has SIMD) f16 qu8 qs8 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
      if constexpr (kernels::pool_norm::has_simd) return kernel{vectorized<kernels::pool_norm::simd_arch>};
      return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::max_pool_2d
