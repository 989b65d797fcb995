// Fixed-point transcendental functions on raw int32 Q-format values, as gemmlowp's
// fixedpoint.h evaluates them (exp on negative values, logistic, tanh) and as the AOSP CPU
// path reaches them through TFLite's quantized LOGISTIC/TANH; plus the int16 primitives of
// TFLite's quantized HARD_SWISH. Every function here is bit-exact with those references.
//
// A raw int32 `x` with `ib` integer bits stands for x / 2^(31 - ib) (range [-2^ib, 2^ib)).
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::kernels::vunary::fixed {

inline constexpr std::int32_t i32_max = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int32_t i32_min = std::numeric_limits<std::int32_t>::min();

/// Product of two Q values (integer bits add up): rounding doubling high multiply.
constexpr std::int32_t mul(std::int32_t a, std::int32_t b) noexcept {
  return quant::saturating_rounding_doubling_high_mul(a, b);
}

/// x * 2^exponent for exponent > 0, saturating at the int32 range.
constexpr std::int32_t saturating_shift_left(std::int32_t x, int exponent) noexcept {
  const std::int32_t threshold = static_cast<std::int32_t>((std::int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return i32_max;
  if (x < -threshold) return i32_min;
  return static_cast<std::int32_t>(static_cast<std::int64_t>(x) * (std::int64_t{1} << exponent));
}

/// (a + b) / 2 rounded half away from zero.
constexpr std::int32_t rounding_half_sum(std::int32_t a, std::int32_t b) noexcept {
  const std::int64_t sum = std::int64_t{a} + std::int64_t{b};
  return static_cast<std::int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/// The Q0.31 one: the largest raw value (1 itself is not representable).
inline constexpr std::int32_t one_q0 = i32_max;

/// exp(a) for a in [-1/4, 0), a and the result in Q0.31: a degree-4 Taylor expansion
/// around -1/8.
constexpr std::int32_t exp_on_interval_minus_quarter_to_zero(std::int32_t a) noexcept {
  constexpr std::int32_t exp_minus_one_eighth = 1895147668;  // exp(-1/8) in Q0.31
  constexpr std::int32_t one_third = 715827883;              // 1/3 in Q0.31
  const std::int32_t x = a + (1 << 28);                      // a + 1/8
  const std::int32_t x2 = mul(x, x);
  const std::int32_t x3 = mul(x2, x);
  const std::int32_t x4 = mul(x2, x2);
  const std::int32_t x4_over_4 = quant::rounding_divide_by_pot(x4, 2);
  const std::int32_t poly = quant::rounding_divide_by_pot(mul(x4_over_4 + x3, one_third) + x2, 1);
  return exp_minus_one_eighth + mul(exp_minus_one_eighth, x + poly);
}

/// exp(a) for a <= 0 given with `IntegerBits` integer bits; the result in Q0.31. The input
/// is split into its residue in [-1/4, 0) and multiples of 1/4, 1/2, 1, 2, ... whose
/// exponentials are constant factors (a barrel shifter over the bits of the remainder).
template <int IntegerBits>
constexpr std::int32_t exp_on_negative_values(std::int32_t a) noexcept {
  static_assert(IntegerBits >= 0 && IntegerBits <= 5, "inputs beyond -32 would need gemmlowp's clamp");
  constexpr int fractional_bits = 31 - IntegerBits;
  constexpr std::int32_t one_quarter = std::int32_t{1} << (fractional_bits - 2);
  const std::int32_t residue = (a & (one_quarter - 1)) - one_quarter;  // in [-1/4, 0)
  const std::int32_t residue_q0 = IntegerBits == 0 ? residue : saturating_shift_left(residue, IntegerBits);
  std::int32_t result = exp_on_interval_minus_quarter_to_zero(residue_q0);
  const std::int32_t remainder = residue - a;  // a non-negative multiple of 1/4
  // exp(-2^k) in Q0.31 for k = -2 .. 4.
  constexpr std::int32_t factors[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (IntegerBits <= k) break;
    const int bit = fractional_bits + k;
    if (remainder & (std::int32_t{1} << bit)) result = mul(result, factors[k + 2]);
  }
  return a == 0 ? one_q0 : result;
}

/// Three Newton-Raphson steps for 1 / half_denominator (half_denominator in [1/2, 1), Q0.31);
/// the reciprocal in Q2.29.
constexpr std::int32_t reciprocal_of_half_denominator_q2(std::int32_t half_denominator) noexcept {
  constexpr std::int32_t c48_over_17 = 1515870810;       // 48/17 in Q2.29
  constexpr std::int32_t c_neg32_over_17 = -1010580540;  // -32/17 in Q2.29
  constexpr std::int32_t one_q2 = std::int32_t{1} << 29;
  std::int32_t x = c48_over_17 + mul(half_denominator, c_neg32_over_17);
  for (int i = 0; i < 3; ++i) {
    const std::int32_t one_minus_dx = one_q2 - mul(half_denominator, x);
    x = x + saturating_shift_left(mul(x, one_minus_dx), 2);  // Q4.27 back to Q2.29
  }
  return x;
}

/// 1 / (1 + a) for a in (0, 1], Q0.31 in and out.
constexpr std::int32_t one_over_one_plus_x(std::int32_t a) noexcept {
  const std::int32_t x = reciprocal_of_half_denominator_q2(rounding_half_sum(a, one_q0));
  return saturating_shift_left(x, 1);  // x / 2: Q2.29 read as Q1.30, then to Q0.31
}

/// (1 - a) / (1 + a) for a in (0, 1], Q0.31 in and out.
constexpr std::int32_t one_minus_x_over_one_plus_x(std::int32_t a) noexcept {
  const std::int32_t x = reciprocal_of_half_denominator_q2(rounding_half_sum(a, one_q0));
  return saturating_shift_left(x - (std::int32_t{1} << 29), 2);
}

/// logistic(a) = 1 / (1 + exp(-a)); a with `IntegerBits` integer bits, the result in Q0.31.
template <int IntegerBits>
constexpr std::int32_t logistic(std::int32_t a) noexcept {
  if (a == 0) return std::int32_t{1} << 30;  // 1/2
  const std::int32_t magnitude = a > 0 ? a : -a;
  const std::int32_t positive = one_over_one_plus_x(exp_on_negative_values<IntegerBits>(-magnitude));
  return a > 0 ? positive : one_q0 - positive;
}

/// tanh(a); a with `IntegerBits` integer bits, the result in Q0.31.
template <int IntegerBits>
constexpr std::int32_t tanh(std::int32_t a) noexcept {
  if (a == 0) return 0;
  const std::int32_t negative = a < 0 ? a : -a;
  // tanh(|a|) = (1 - exp(-2|a|)) / (1 + exp(-2|a|)); doubling is exact: one more integer bit.
  const std::int32_t t = one_minus_x_over_one_plus_x(exp_on_negative_values<IntegerBits + 1>(negative));
  return a < 0 ? -t : t;
}

// --- int16 primitives (TFLite's quantized HARD_SWISH works on 16-bit fixed point) ---------

/// Rounding doubling high multiply on int16 (ARM SQRDMULH semantics).
constexpr std::int16_t rounding_doubling_high_mul16(std::int16_t a, std::int16_t b) noexcept {
  if (a == b && a == std::numeric_limits<std::int16_t>::min()) return std::numeric_limits<std::int16_t>::max();
  const std::int32_t ab = std::int32_t{a} * std::int32_t{b};
  const std::int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<std::int16_t>((ab + nudge) / (1 << 15));
}

/// Doubling high multiply on int16 rounding toward zero (ARM SQDMULH semantics).
constexpr std::int16_t doubling_high_mul16(std::int16_t a, std::int16_t b) noexcept {
  if (a == b && a == std::numeric_limits<std::int16_t>::min()) return std::numeric_limits<std::int16_t>::max();
  return static_cast<std::int16_t>((std::int32_t{a} * std::int32_t{b}) / (1 << 15));
}

/// x * 2^amount saturated to int16.
constexpr std::int16_t saturating_shift_left16(std::int16_t x, int amount) noexcept {
  const std::int64_t r = static_cast<std::int64_t>(x) * (std::int64_t{1} << amount);
  if (r > std::numeric_limits<std::int16_t>::max()) return std::numeric_limits<std::int16_t>::max();
  if (r < std::numeric_limits<std::int16_t>::min()) return std::numeric_limits<std::int16_t>::min();
  return static_cast<std::int16_t>(r);
}

/// x / 2^exponent rounded half away from zero, computed as gemmlowp does on int16: the
/// mask and threshold are int16 values too, which only matters for exponents >= 15.
constexpr std::int16_t rounding_divide_by_pot16(std::int16_t x, int exponent) noexcept {
  const auto mask = static_cast<std::int16_t>((std::int64_t{1} << exponent) - 1);
  const auto remainder = static_cast<std::int16_t>(x & mask);
  const auto threshold = static_cast<std::int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<std::int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

}  // namespace nnhal::ops::kernels::vunary::fixed
