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

/// x * relu6(x + 3) / 6, relu6 being RELU6's clamp (NaN gives 0, as std::min(6, std::max(0, .))).
struct lane {
  static constexpr kernels::vunary::clamp_lane relu6{0.0f, 6.0f};
  float operator()(float x) const noexcept { return x * relu6(x + 3.0f) / 6.0f; }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    return x * relu6(x + batch(3.0f)) / batch(6.0f);
  }
#if NNHAL_HAVE_X86_KERNELS
  /// x * relu6(x + 3) as the reference computes it (so it overflows where the reference
  /// does), then times RN(1/6) instead of divided by 6: RN(1/6) is within 0.75 * 2^-24 of
  /// 1/6, so the result is within one ulp of the reference's quotient (tested over a sweep
  /// of all bit patterns), far inside the CTS tolerance. vdivps alone made the loop twice
  /// XNNPACK's time on 64 KiB resident in L2 (one core, 3.8 us against 1.8 us).
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    const __m512 r6 = relu6.step512(_mm512_add_ps(x, _mm512_set1_ps(3.0f)));
    return _mm512_mul_ps(_mm512_mul_ps(x, r6), _mm512_set1_ps(1.0f / 6.0f));
  }
#endif
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

struct spec {
  /// nullopt when the output multiplier is >= 1 (output scale <= input scale / 128), which
  /// the AOSP path rejects.
  static std::optional<quant_params> quant8_params(const operand_desc& in, const operand_desc& out) noexcept {
    const float hires_input_scale = (1.0f / 128.0f) * in.scale;
    const float reluish_scale = 3.0f / 32768.0f;
    const float output_multiplier = hires_input_scale / out.scale;
    const float reluish_multiplier = hires_input_scale / reluish_scale;
    const auto om = quant::quantize_multiplier(static_cast<double>(output_multiplier));
    const auto rm = quant::quantize_multiplier(static_cast<double>(reluish_multiplier));
    if (om.shift > 0) return std::nullopt;
    quant_params p;
    p.input_zero_point = in.zero_point;
    p.output_zero_point = out.zero_point;
    p.output_multiplier = q31_to_q15(om.mantissa_q31);
    p.output_exponent = om.shift;
    p.reluish_multiplier = q31_to_q15(rm.mantissa_q31);
    p.reluish_exponent = rm.shift;
    return p;
  }

  /// One stored value through the 16-bit fixed-point pipeline.
  template <class S>
  static S quant8_value(S v, const quant_params& p) noexcept {
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
};
using op = kernels::vunary::unary_op<lane, spec>;

/// Types f32 f16 qu8 qs8; the float32 xsimd path is exact (the same IEEE operations in the
/// same order), the AVX-512 one within one ulp (lane::step512).
template <types::element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
template <class Arch>
void vectorized(const kernel_io& io) {
  op::vectorized<Arch>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::hard_swish
