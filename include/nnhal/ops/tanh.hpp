// TANH kernels; contract in types/signatures/tanh.hpp. Floats: std::tanh in float32 (as the
// AOSP CPU path). Quantized (output scale 1/128, zero point 128 or 0): bit-exact with the
// AOSP path, TFLite's quantized Tanh: the centred input is rescaled to Q4.27, gemmlowp's
// fixed-point tanh gives Q0.31, rounded to 1/128 steps.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::tanh {

struct lane {
  float operator()(float x) const noexcept { return std::tanh(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::tanh(x);
  }
};

/// One stored value: the result on the unsigned 0..255 scale (zero point 128), shifted for
/// the signed type.
template <class S>
S quant_value(S v, const kernels::vunary::input_rescale& p) noexcept {
  const std::int32_t centered = std::int32_t{v} - p.zero_point;
  std::int32_t u;
  if (centered <= -p.radius) {
    u = 0;
  } else if (centered >= p.radius) {
    u = 255;
  } else {
    const std::int32_t y =
        kernels::vunary::fixed::tanh<kernels::vunary::input_integer_bits>(kernels::vunary::to_q4(centered, p));
    u = quant::rounding_divide_by_pot(y, 24) + 128;  // Q0.31 -> 1/128 steps, zero point 128
    if (u > 255) u = 255;                            // tanh(x) -> 1 rounds to 128
  }
  return static_cast<S>(u + (std::numeric_limits<S>::min() < 0 ? -128 : 0));
}

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  if constexpr (types::float_element<E>) {
    kernels::vunary::float_loop<E>(io, lane{});
  } else {
    using S = typename E::storage;
    const auto p = kernels::vunary::make_input_rescale(io.in[0].scale, io.in[0].zero_point);
    if (!p) return;  // rejected by shape inference
    kernels::vunary::map<E, E>(io, [&p](S v) { return quant_value(v, *p); });
  }
}
/// float32 with xsimd::tanh; within the CTS float32 tolerance of the reference (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) {
  const auto quant_kernel = [&]<class E>(E) -> types::result<kernel> {
    const auto p = kernels::vunary::make_input_rescale(c.in[0].scale, c.in[0].zero_point);
    if (!p) return unsupported(c);
    return kernels::vunary::table8_kernel<E>([&p](typename E::storage v) { return quant_value(v, *p); });
  };
  switch (c.in[0].type) {
    case OperandType::TENSOR_QUANT8_ASYMM: return quant_kernel(types::qu8{});
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return quant_kernel(types::qs8{});
    default: return kernels::vunary::bind_float(c, lane{});
  }
}

}  // namespace nnhal::ops::tanh
