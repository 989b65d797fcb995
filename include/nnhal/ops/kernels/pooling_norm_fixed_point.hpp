// Q-format fixed-point arithmetic for quantized SOFTMAX and L2_NORMALIZATION, with the
// rounding of gemmlowp's FixedPoint<int32_t, IntegerBits> as the AOSP CPU path (through
// TFLite) uses it, so results are bit-exact with it.
//
// A raw int32 r in format Q(I) stands for r * 2^(I - 31): I integer bits, 31 - I
// fractional bits. mul(Q(a), Q(b)) is Q(a + b): the rounded high half of the doubled
// 64-bit product. All additions wrap (uint32) instead of invoking signed overflow.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::kernels::pool_norm::fixed {

inline constexpr std::int32_t raw_max = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int32_t raw_min = std::numeric_limits<std::int32_t>::min();

constexpr std::int32_t add(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
constexpr std::int32_t sub(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}
/// Q(a) x Q(b) -> Q(a + b).
constexpr std::int32_t mul(std::int32_t a, std::int32_t b) noexcept {
  return quant::saturating_rounding_doubling_high_mul(a, b);
}

/// x / 2^exponent rounded to nearest, ties away from zero; any exponent >= 0 (a shift
/// of 32 or more, which gemmlowp leaves undefined, gives the rounded quotient as well).
constexpr std::int32_t rounding_shift_right(std::int32_t x, int exponent) noexcept {
  if (exponent <= 0) return x;
  if (exponent < 31) return quant::rounding_divide_by_pot(x, exponent);
  const std::int64_t d = std::int64_t{1} << (exponent > 62 ? 62 : exponent);
  const std::int64_t q = (std::int64_t{x} < 0 ? std::int64_t{x} - d / 2 : std::int64_t{x} + d / 2) / d;
  return static_cast<std::int32_t>(q);
}

/// x * 2^exponent: a rounding right shift for exponent < 0, a saturating left shift for
/// exponent > 0 (gemmlowp SaturatingRoundingMultiplyByPOT).
constexpr std::int32_t mul_pot(std::int32_t x, int exponent) noexcept {
  if (exponent <= 0) return rounding_shift_right(x, -exponent);
  if (exponent >= 31) return x > 0 ? raw_max : (x < 0 ? raw_min : 0);
  const std::int32_t threshold = raw_max >> exponent;
  if (x > threshold) return raw_max;
  if (x < -threshold) return raw_min;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << exponent);
}

/// Q(from) -> Q(to), same real value (gemmlowp Rescale).
constexpr std::int32_t rescale(std::int32_t x, int from_bits, int to_bits) noexcept {
  return mul_pot(x, from_bits - to_bits);
}

/// (a + b) / 2 rounded half away from zero, without overflow.
constexpr std::int32_t rounding_half_sum(std::int32_t a, std::int32_t b) noexcept {
  const std::int64_t sum = std::int64_t{a} + std::int64_t{b};
  return static_cast<std::int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/// exp(a) for a in [-1/4, 0), a in Q0 -> Q0: a degree-4 Taylor polynomial around -1/8.
constexpr std::int32_t exp_on_interval_minus_quarter_to_0(std::int32_t a) noexcept {
  constexpr std::int32_t exp_minus_one_eighth = 1895147668;  // exp(-1/8) in Q0
  constexpr std::int32_t one_third = 715827883;              // 1/3 in Q0
  const std::int32_t x = add(a, std::int32_t{1} << 28);      // a + 1/8
  const std::int32_t x2 = mul(x, x);
  const std::int32_t x3 = mul(x2, x);
  const std::int32_t x4 = mul(x2, x2);
  const std::int32_t x4_over_4 = mul_pot(x4, -2);
  const std::int32_t poly = mul_pot(add(mul(add(x4_over_4, x3), one_third), x2), -1);  // x^4/24 + x^3/6 + x^2/2
  return add(exp_minus_one_eighth, mul(exp_minus_one_eighth, add(x, poly)));
}

/// exp(a) for a <= 0 in Q(IntegerBits), result in Q0 (gemmlowp exp_on_negative_values):
/// exp of a's fractional quarter by the polynomial, times exp(-2^k) for each set bit k
/// of the remaining multiple of 1/4.
template <int IntegerBits>
constexpr std::int32_t exp_on_negative_values(std::int32_t a) noexcept {
  static_assert(IntegerBits >= 0 && IntegerBits < 31);
  constexpr int fractional_bits = 31 - IntegerBits;
  constexpr std::int32_t one_quarter = std::int32_t{1} << (fractional_bits - 2);
  const std::int32_t a_mod_quarter_minus_quarter = sub(a & (one_quarter - 1), one_quarter);
  std::int32_t result = exp_on_interval_minus_quarter_to_0(rescale(a_mod_quarter_minus_quarter, IntegerBits, 0));
  const std::int32_t remainder = sub(a_mod_quarter_minus_quarter, a);
  // exp(-2^k) in Q0 for k = -2 .. 4.
  constexpr std::int32_t exp_minus_pot[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (IntegerBits <= k) break;
    const int bit = fractional_bits + k;
    if (bit < 31 && (remainder & (std::int32_t{1} << bit)) != 0) result = mul(result, exp_minus_pot[k + 2]);
  }
  if constexpr (IntegerBits > 5) {
    // Below -32 the result is zero in Q0.
    const std::int32_t clamp = -(std::int32_t{1} << (36 - IntegerBits));
    if (a < clamp) result = 0;
  }
  return a == 0 ? raw_max : result;
}

/// 1 / (1 + x) for x in [0, 1), Q0 -> Q0: three Newton-Raphson steps from 48/17 - 32/17 d.
constexpr std::int32_t one_over_one_plus_x_for_x_in_0_1(std::int32_t a) noexcept {
  const std::int32_t half_denominator = rounding_half_sum(a, raw_max);  // (1 + x) / 2 in Q0
  constexpr std::int32_t c48_over_17 = 1515870810;                      // Q2
  constexpr std::int32_t c_neg32_over_17 = -1010580540;                 // Q2
  constexpr std::int32_t one_q2 = std::int32_t{1} << 29;
  std::int32_t x = add(c48_over_17, mul(half_denominator, c_neg32_over_17));  // Q2
  for (int i = 0; i < 3; ++i) {
    const std::int32_t half_denominator_times_x = mul(half_denominator, x);  // Q2
    const std::int32_t one_minus = sub(one_q2, half_denominator_times_x);    // Q2
    x = add(x, rescale(mul(x, one_minus), 4, 2));                            // Q4 -> Q2
  }
  // x / 2 in Q1 has x's raw bits; rescale Q1 -> Q0.
  return rescale(x, 1, 0);
}

/// A multiplier m * 2^shift (m in Q0, shift <= 0 here) approximating 1 / sqrt(input),
/// input >= 0 (TFLite GetInvSqrtQuantizedMultiplierExp with reverse_shift = -1). 0 and 1
/// give the largest multiplier, as upstream does.
struct inv_sqrt_multiplier {
  std::int32_t multiplier = raw_max;
  int shift = 0;  // left shift; <= 0
};
constexpr inv_sqrt_multiplier inv_sqrt(std::int32_t input) noexcept {
  if (input <= 1) return {raw_max, 0};
  int right_shift = 11;
  while (input >= (std::int32_t{1} << 29)) {
    input /= 4;
    ++right_shift;
  }
  // Normalise input into [2^27, 2^29) by an even left shift.
  const unsigned max_left_shift_bits = static_cast<unsigned>(std::countl_zero(static_cast<std::uint32_t>(input))) - 1u;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2u - 1u;
  right_shift -= static_cast<int>(left_shift_bit_pairs);
  input = static_cast<std::int32_t>(static_cast<std::uint32_t>(input) << (2u * left_shift_bit_pairs));
  // Newton-Raphson for 1/sqrt in Q3: x <- 1.5 x - (input / 2) x^3.
  const std::int32_t q3_input = input >> 1;
  const std::int32_t q3_half_input = mul_pot(q3_input, -1);
  constexpr std::int32_t q3_three_halves = (std::int32_t{1} << 28) + (std::int32_t{1} << 27);
  std::int32_t x = std::int32_t{1} << 28;  // 1 in Q3
  for (int i = 0; i < 5; ++i) {
    const std::int32_t x3 = rescale(mul(mul(x, x), x), 9, 3);
    x = rescale(sub(mul(q3_three_halves, x), mul(q3_half_input, x3)), 6, 3);
  }
  constexpr std::int32_t half_sqrt2 = 1518500250;  // sqrt(2) / 2 in Q0
  x = mul(x, half_sqrt2);
  if (right_shift < 0) {
    x = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << -right_shift);
    right_shift = 0;
  }
  return {x, -right_shift};
}

/// x * m * 2^shift for shift <= 0 (TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp).
constexpr std::int32_t mul_by_multiplier_smaller_than_one(std::int32_t x, std::int32_t m, int shift) noexcept {
  return rounding_shift_right(mul(x, m), -shift);
}

}  // namespace nnhal::ops::kernels::pool_norm::fixed
