// HARD_SWISH kernels; contract in types/signatures/hard_swish.hpp. Floats: x * min(6,
// max(0, x + 3)) / 6 in float32 (as the AOSP CPU path, TFLite's reference). Quantized
// (output quantization free): TFLite's 16-bit fixed-point HardSwish that the AOSP path runs,
// bit-exact, with one deliberate difference: the final "+ output zero point" saturates
// instead of wrapping in int16 (TFLite wraps only when the output scale is ~100x finer than
// the input's; saturating keeps the signed result equal to the unsigned one - 128).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "nnhal/ops/kernels/unary.hpp"
#include "nnhal/ops/kernels/unary_fixed_point.hpp"

namespace nnhal::ops::hard_swish {

struct lane {
  float operator()(float x) const noexcept {
    const float t = x + 3.0f;
    const float relu6 = [&] {
      const float v = 0.0f < t ? t : 0.0f;  // std::max(0, x + 3)
      return v < 6.0f ? v : 6.0f;           // std::min(6, ...)
    }();
    return x * relu6 / 6.0f;
  }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    const batch zero(0.0f), six(6.0f);
    const batch t = x + batch(3.0f);
    const batch v = xsimd::select(zero < t, t, zero);
    return x * xsimd::select(v < six, v, six) / six;
  }
};

/// The int16 multipliers of the quantized path, derived as the AOSP path does (in float).
struct quant_params {
  std::int32_t input_zero_point = 0, output_zero_point = 0;
  std::int16_t output_multiplier = 0;   // Q15 mantissa of input_scale / 128 / output_scale
  int output_exponent = 0;              // <= 0
  std::int16_t reluish_multiplier = 0;  // Q15 mantissa of input_scale / 128 / (3 / 32768)
  int reluish_exponent = 0;
};

/// The top 16 bits of a Q31 multiplier, rounded (saturating just below 2^31).
inline std::int16_t q31_to_q15(std::int32_t m) noexcept {
  if (m >= std::numeric_limits<std::int32_t>::max() - (1 << 15)) return std::numeric_limits<std::int16_t>::max();
  return static_cast<std::int16_t>((m + (1 << 15)) >> 16);
}

/// nullopt when the output multiplier is >= 1 (output scale <= input scale / 128), which
/// the AOSP path rejects.
inline std::optional<quant_params> make_quant_params(float input_scale, std::int32_t input_zero_point,
                                                     float output_scale, std::int32_t output_zero_point) noexcept {
  const float hires_input_scale = (1.0f / 128.0f) * input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / output_scale;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  const auto om = quant::quantize_multiplier(static_cast<double>(output_multiplier));
  const auto rm = quant::quantize_multiplier(static_cast<double>(reluish_multiplier));
  if (om.shift > 0) return std::nullopt;
  quant_params p;
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  p.output_multiplier = q31_to_q15(om.mantissa_q31);
  p.output_exponent = om.shift;
  p.reluish_multiplier = q31_to_q15(rm.mantissa_q31);
  p.reluish_exponent = rm.shift;
  return p;
}

/// One stored value through the 16-bit fixed-point pipeline.
template <class S>
S quant_value(S v, const quant_params& p) noexcept {
  namespace fx = kernels::vunary::fixed;
  const auto input = static_cast<std::int16_t>(std::int32_t{v} - p.input_zero_point);  // |.| <= 255
  const auto hires = static_cast<std::int16_t>(input * 128);                           // |.| <= 32640
  // The input on the output scale, before the output's right shift.
  const std::int16_t preshift_output = fx::rounding_doubling_high_mul16(hires, p.output_multiplier);
  // The "relu-ish" factor: x rescaled so that 3 maps to 32768 (saturating), i.e. x / 3 in
  // [-1, 1]; a left shift is split around the multiply so saturation cannot lose bits.
  std::int16_t reluish = hires;
  if (p.reluish_exponent > 0) reluish = fx::saturating_shift_left16(reluish, p.reluish_exponent - 1);
  reluish = fx::rounding_doubling_high_mul16(reluish, p.reluish_multiplier);
  if (p.reluish_exponent > 0) reluish = fx::saturating_shift_left16(reluish, 1);
  if (p.reluish_exponent < 0) reluish = fx::rounding_divide_by_pot16(reluish, -p.reluish_exponent);
  reluish = static_cast<std::int16_t>((std::int32_t{reluish} + (1 << 15)) >> 1);  // [-1, 1] -> [0, 1]
  // Truncating (not rounding) multiply, as TFLite: it offsets the rounding bias above.
  const std::int16_t preshift = fx::doubling_high_mul16(reluish, preshift_output);
  const std::int32_t out =
      std::int32_t{fx::rounding_divide_by_pot16(preshift, -p.output_exponent)} + p.output_zero_point;
  constexpr std::int32_t lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
  return static_cast<S>(out < lo ? lo : (out > hi ? hi : out));
}

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  if constexpr (types::float_element<E>) {
    kernels::vunary::float_loop<E>(io, lane{});
  } else {
    using S = typename E::storage;
    const auto p = make_quant_params(io.in[0].scale, io.in[0].zero_point, io.out[0].scale, io.out[0].zero_point);
    if (!p) return;  // rejected by shape inference
    kernels::vunary::map<E, E>(io, [&p](S v) { return quant_value(v, *p); });
  }
}
/// float32; exact (the same IEEE operations in the same order).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) {
  const auto quant_kernel = [&]<class E>(E) -> types::result<kernel> {
    const auto p = make_quant_params(c.in[0].scale, c.in[0].zero_point, c.out[0].scale, c.out[0].zero_point);
    if (!p) return unsupported(c);
    return kernels::vunary::table8_kernel<E>([&p](typename E::storage v) { return quant_value(v, *p); });
  };
  switch (c.in[0].type) {
    case OperandType::TENSOR_QUANT8_ASYMM: return quant_kernel(types::qu8{});
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return quant_kernel(types::qs8{});
    default: return kernels::vunary::bind_float(c, lane{});
  }
}

}  // namespace nnhal::ops::hard_swish
