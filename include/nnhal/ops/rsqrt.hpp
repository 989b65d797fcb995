// RSQRT kernels; contract in types/signatures/rsqrt.hpp. Floats: 1 / sqrt(x) in float32 (two
// IEEE operations, so the SIMD path is exact). Quantized (AIDL V3; output quantization free):
// as the AOSP CPU path, in float: dequantize, 1 / sqrt, then zero point + round half away
// from zero, clamped; 1/sqrt(0) = inf and 1/sqrt(x < 0) = NaN both give the type's maximum.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::rsqrt {

struct lane {
  float operator()(float x) const noexcept { return 1.0f / std::sqrt(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::batch<float, Arch>(1.0f) / xsimd::sqrt(x);
  }
};

struct quant_params {
  float input_scale = 0.0f, output_scale = 0.0f;
  std::int32_t input_zero_point = 0, output_zero_point = 0;
};

/// One stored value, in the AOSP path's float operations and order.
template <class S>
S quant_value(S v, const quant_params& p) noexcept {
  const float x = static_cast<float>(std::int32_t{v} - p.input_zero_point) * p.input_scale;
  const float q = static_cast<float>(p.output_zero_point) + std::round(lane{}(x) / p.output_scale);
  constexpr float lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
  const float c = q < hi ? q : hi;  // NaN -> hi
  return static_cast<S>(lo < c ? c : lo);
}

inline quant_params params_of(const operand_desc& in, const operand_desc& out) noexcept {
  return {in.scale, out.scale, in.zero_point, out.zero_point};
}

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  if constexpr (types::float_element<E>) {
    kernels::vunary::float_loop<E>(io, lane{});
  } else {
    using S = typename E::storage;
    const quant_params p = params_of(io.in[0], io.out[0]);
    kernels::vunary::map<E, E>(io, [&p](S v) { return quant_value(v, p); });
  }
}
/// float32; exact.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) {
  const quant_params p = params_of(c.in[0], c.out[0]);
  switch (c.in[0].type) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      return kernels::vunary::table8_kernel<types::qu8>([&p](std::uint8_t v) { return quant_value(v, p); });
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return kernels::vunary::table8_kernel<types::qs8>([&p](std::int8_t v) { return quant_value(v, p); });
    default: return kernels::vunary::bind_float(c, lane{});
  }
}

}  // namespace nnhal::ops::rsqrt
