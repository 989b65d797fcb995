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

namespace pool2d = types::sig::detail::pool2d;

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
    kernels::pool_norm::pool_2d(in.data, in_l, out.data, out_l, g, float_mean<S>{kernels::activation_range_float(g.activation)});
  } else {
    const auto r = quant::activation_range(g.activation, out.scale, out.zero_point, std::numeric_limits<S>::min(),
                                           std::numeric_limits<S>::max());
    kernels::pool_norm::pool_2d(in.data, in_l, out.data, out_l, g, quant_mean<S>{r});
  }
}

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
                                             f32_mean_lane{kernels::activation_range_float(g.activation)});
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

}  // namespace nnhal::ops::average_pool_2d
