// Fixed-point requantization (gemmlowp/TFLite conventions, as the AOSP CPU path uses):
// a real multiplier becomes a Q31 mantissa and a power-of-two shift, computed once at
// prepare; applying it is bit-exact with the AOSP reference kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace nnhal::ops::quant {

/// real ~= mantissa_q31 * 2^(shift - 31). shift > 0 is a left shift.
struct fixed_multiplier {
  std::int32_t mantissa_q31 = 0;
  int shift = 0;
};

/// Splits a non-negative real multiplier into a Q31 mantissa in [2^30, 2^31) and a shift.
inline fixed_multiplier quantize_multiplier(double real) noexcept {
  if (!(real > 0.0) || !std::isfinite(real)) return {0, 0};
  int exp = 0;
  const double q = std::frexp(real, &exp);  // real = q * 2^exp, q in [0.5, 1)
  auto m = static_cast<std::int64_t>(std::llround(q * static_cast<double>(1LL << 31)));
  if (m == (1LL << 31)) {  // rounding reached 1.0
    m /= 2;
    ++exp;
  }
  if (exp < -31) return {0, 0};  // underflows to zero
  return {static_cast<std::int32_t>(m), exp};
}

/// quantize_multiplier for requantizing sums to a quantized output (the conv family):
/// from 2^30 up, a multiplier puts any non-zero sum past every quantized range, as the
/// largest one with a left shift of 30 does, so it is capped to that one. Shifts of 31 or
/// more do not fit apply_multiplier's saturating left shift (a sum of 1 would clamp to 0).
inline fixed_multiplier quantize_output_multiplier(double real) noexcept {
  const fixed_multiplier m = quantize_multiplier(real);
  if (m.shift > 30) return {std::numeric_limits<std::int32_t>::max(), 30};
  return m;
}

/// (a * b * 2) >> 32 rounded to nearest, saturating the single overflow case.
constexpr std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) noexcept {
  if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
  const std::int64_t ab = std::int64_t{a} * std::int64_t{b};
  const std::int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  return static_cast<std::int32_t>((ab + nudge) / (1LL << 31));
}

/// x / 2^exponent rounded to nearest, ties away from zero.
constexpr std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) noexcept {
  if (exponent <= 0) return x;
  const std::int32_t mask = static_cast<std::int32_t>((1LL << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// x * multiplier, the TFLite "MultiplyByQuantizedMultiplier" rounding, saturating.
constexpr std::int32_t apply_multiplier(std::int32_t x, fixed_multiplier m) noexcept {
  // Shifts past 31 act as 31 (no shift by the int32 width or more).
  const int left = m.shift > 0 ? (m.shift < 31 ? m.shift : 31) : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  // A multiplier above 1 (an output scale smaller than the input's) shifts left first.
  // Where that would overflow, saturate: the result then clamps to the type's end, which
  // is the real-number answer (the AOSP code multiplies and overflows instead).
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max(), min = std::numeric_limits<std::int32_t>::min();
  const std::int32_t hi = max >> left, lo = min >> left;
  const std::int32_t clamped = x > hi ? hi : (x < lo ? lo : x);
  const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(clamped) << left);
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, m.mantissa_q31), right);
}

// Adding a zero point to an apply_multiplier result saturated by an extreme scale ratio
// may pass the int32 range. Kernels without a vector twin saturate (the real-number
// answer after the type's clamp); ADD and MUL wrap, as their vector kernels' adds (and
// the AOSP path, in two's complement) do, so the two stay equal bit for bit.
constexpr std::int32_t add_saturating(std::int32_t a, std::int32_t b) noexcept {
  const std::int64_t s = std::int64_t{a} + b;
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int32_t>(s < lo ? lo : (s > hi ? hi : s));
}
constexpr std::int32_t add_wrapping(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

/// x truncated toward zero to int32, saturating beyond its range, NaN giving 0. (Converting
/// a float outside int32's range directly is undefined behaviour; hostile scales reach it.)
inline std::int32_t saturating_int32(float x) noexcept {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<std::int32_t>::max();
  if (x < -2147483648.0f) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(x);
}

/// The quantize used for activation bounds: zero_point + round(f / scale), in float
/// arithmetic as the AOSP CPU path computes it (so bounds match it exactly).
inline std::int32_t quantize_bound(float f, float scale, std::int32_t zero_point) noexcept {
  const float q = std::round(f / scale);
  if (!(q < 1e9f)) return std::numeric_limits<std::int32_t>::max() / 2;
  if (!(q > -1e9f)) return std::numeric_limits<std::int32_t>::min() / 2;
  return zero_point + static_cast<std::int32_t>(q);
}

/// Clamp bounds of a fused activation, in the quantized domain of (scale, zero_point).
struct quant_range {
  std::int32_t lo, hi;
};
inline quant_range activation_range(std::int32_t act, float scale, std::int32_t zero_point, std::int32_t qmin,
                                    std::int32_t qmax) noexcept {
  auto q = [&](float f) { return quantize_bound(f, scale, zero_point); };
  auto mx = [](std::int32_t a, std::int32_t b) { return a > b ? a : b; };
  auto mn = [](std::int32_t a, std::int32_t b) { return a < b ? a : b; };
  switch (act) {
    case 1: return {mx(qmin, q(0.0f)), qmax};                  // RELU
    case 2: return {mx(qmin, q(-1.0f)), mn(qmax, q(1.0f))};    // RELU1
    case 3: return {mx(qmin, q(0.0f)), mn(qmax, q(6.0f))};     // RELU6
    default: return {qmin, qmax};                              // NONE
  }
}

template <class Int>
constexpr Int saturate(std::int32_t v) noexcept {
  constexpr std::int32_t lo = std::numeric_limits<Int>::min();
  constexpr std::int32_t hi = std::numeric_limits<Int>::max();
  return static_cast<Int>(v < lo ? lo : (v > hi ? hi : v));
}

}  // namespace nnhal::ops::quant
