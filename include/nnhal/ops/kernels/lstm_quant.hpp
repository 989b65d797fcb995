// Integer building blocks of the quantized LSTM cells (QUANTIZED_16BIT_LSTM and
// QUANTIZED_LSTM), bit-exact with the AOSP CPU path: gemmlowp's 16-bit fixed-point
// logistic and tanh, the Newton-Raphson inverse square root of the integer layer norm,
// and the int8 x int8 matrix-vector products that requantize into int16 gate buffers.
//
// A raw int16 `x` with `ib` integer bits stands for x / 2^(15 - ib). gemmlowp's int16
// arithmetic wraps on plain adds and saturates where named; `wrap16` marks the former.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "nnhal/ops/kernels/unary_fixed_point.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::kernels::lstm {

namespace fx = vunary::fixed;
using quant::fixed_multiplier;

// --- 16-bit fixed point (gemmlowp FixedPoint<int16_t, N>) ------------------------------

constexpr std::int16_t wrap16(std::int32_t v) noexcept { return static_cast<std::int16_t>(v); }

/// A gemmlowp constant given as its Q31 (int32) initializer, as int16: rounded >> 16.
constexpr std::int16_t q15_constant(std::int32_t q31) noexcept {
  return static_cast<std::int16_t>(quant::rounding_divide_by_pot(q31, 16));
}

constexpr std::int16_t mul16(std::int16_t a, std::int16_t b) noexcept { return fx::rounding_doubling_high_mul16(a, b); }

constexpr std::int16_t saturating_add16(std::int16_t a, std::int16_t b) noexcept {
  const std::int32_t s = std::int32_t{a} + b;
  return static_cast<std::int16_t>(s > 32767 ? 32767 : (s < -32768 ? -32768 : s));
}

constexpr std::int16_t rounding_half_sum16(std::int16_t a, std::int16_t b) noexcept {
  const std::int32_t s = std::int32_t{a} + b;
  return static_cast<std::int16_t>((s + (s >= 0 ? 1 : -1)) / 2);
}

inline constexpr std::int16_t one_q15 = 32767;  // the Q0.15 "one"

/// exp(a) for a in [-1/4, 0), Q0.15 in and out: degree-4 Taylor expansion around -1/8.
constexpr std::int16_t exp_quarter16(std::int16_t a) noexcept {
  const std::int16_t exp_minus_eighth = q15_constant(1895147668);
  const std::int16_t one_third = q15_constant(715827883);
  const std::int16_t x = wrap16(a + (1 << 12));  // a + 1/8
  const std::int16_t x2 = mul16(x, x);
  const std::int16_t x3 = mul16(x2, x);
  const std::int16_t x4 = mul16(x2, x2);
  const std::int16_t x4_over_4 = fx::rounding_divide_by_pot16(x4, 2);
  const std::int16_t poly =
      fx::rounding_divide_by_pot16(wrap16(mul16(wrap16(x4_over_4 + x3), one_third) + x2), 1);
  return saturating_add16(exp_minus_eighth, mul16(exp_minus_eighth, wrap16(x + poly)));
}

/// exp(a) for a <= 0 with `IntegerBits` integer bits; the result in Q0.15.
template <int IntegerBits>
constexpr std::int16_t exp_on_negative_values16(std::int16_t a) noexcept {
  static_assert(IntegerBits >= 0 && IntegerBits <= 13, "exp16: unsupported integer bits");
  constexpr int fractional_bits = 15 - IntegerBits;
  constexpr std::int16_t quarter = std::int16_t{1} << (fractional_bits - 2);
  const std::int16_t residue = wrap16((a & (quarter - 1)) - quarter);  // in [-1/4, 0)
  std::int16_t result = exp_quarter16(IntegerBits == 0 ? residue : fx::saturating_shift_left16(residue, IntegerBits));
  const std::int16_t remainder = wrap16(residue - a);  // a non-negative multiple of 1/4
  // exp(-2^k) for k = -2 .. 4, gemmlowp's Q31 initializers.
  constexpr std::int32_t factors[] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (IntegerBits <= k) break;
    if (remainder & (1 << (fractional_bits + k))) result = mul16(result, q15_constant(factors[k + 2]));
  }
  if constexpr (IntegerBits > 5) {  // below -32 the result is 0
    constexpr std::int16_t clamp = static_cast<std::int16_t>(-(1 << (20 - IntegerBits)));
    if (a < clamp) result = 0;
  }
  return a == 0 ? one_q15 : result;
}

/// Three Newton-Raphson steps for 1 / half_denominator, the result in Q2.13.
constexpr std::int16_t reciprocal_q2_16(std::int16_t half_denominator) noexcept {
  const std::int16_t c48_over_17 = q15_constant(1515870810);
  const std::int16_t c_neg32_over_17 = q15_constant(-1010580540);
  constexpr std::int16_t one_q2 = 1 << 13;
  std::int16_t x = wrap16(c48_over_17 + mul16(half_denominator, c_neg32_over_17));
  for (int i = 0; i < 3; ++i) {
    const std::int16_t one_minus_dx = wrap16(one_q2 - mul16(half_denominator, x));
    x = wrap16(x + fx::saturating_shift_left16(mul16(x, one_minus_dx), 2));
  }
  return x;
}

/// 1 / (1 + a) for a in [0, 1], Q0.15.
constexpr std::int16_t one_over_one_plus_x16(std::int16_t a) noexcept {
  return fx::saturating_shift_left16(reciprocal_q2_16(rounding_half_sum16(a, one_q15)), 1);
}

/// (1 - a) / (1 + a) for a in [0, 1], Q0.15.
constexpr std::int16_t one_minus_x_over_one_plus_x16(std::int16_t a) noexcept {
  return fx::saturating_shift_left16(wrap16(reciprocal_q2_16(rounding_half_sum16(a, one_q15)) - (1 << 13)), 2);
}

/// logistic(a), a with `IntegerBits` integer bits, the result in Q0.15.
template <int IntegerBits>
constexpr std::int16_t logistic16(std::int16_t a) noexcept {
  if (a == 0) return 1 << 14;
  const std::int16_t magnitude = a > 0 ? a : wrap16(-a);
  const std::int16_t positive = one_over_one_plus_x16(exp_on_negative_values16<IntegerBits>(wrap16(-magnitude)));
  return a > 0 ? positive : wrap16(one_q15 - positive);
}

/// tanh(a), a with `IntegerBits` integer bits, the result in Q0.15.
template <int IntegerBits>
constexpr std::int16_t tanh16(std::int16_t a) noexcept {
  if (a == 0) return 0;
  const std::int16_t negative = a < 0 ? a : wrap16(-a);
  // exp(-2|a|): the doubling is exact, one more integer bit.
  const std::int16_t t = one_minus_x_over_one_plus_x16(exp_on_negative_values16<IntegerBits + 1>(negative));
  return a < 0 ? wrap16(-t) : t;
}

/// tanh over n values with a run-time number of integer bits (0..6).
inline void tanh16_n(int integer_bits, const std::int16_t* in, std::size_t n, std::int16_t* out) noexcept {
  auto run = [&](auto f) {
    for (std::size_t i = 0; i < n; ++i) out[i] = f(in[i]);
  };
  switch (integer_bits) {
    case 0: run(tanh16<0>); break;
    case 1: run(tanh16<1>); break;
    case 2: run(tanh16<2>); break;
    case 3: run(tanh16<3>); break;
    case 4: run(tanh16<4>); break;
    case 5: run(tanh16<5>); break;
    case 6: run(tanh16<6>); break;
    default: break;  // validation keeps the cell scale in range
  }
}

// --- scales -----------------------------------------------------------------------------

/// 1 / sqrt(v) as a multiplier (the integer layer norm's stddev inverse), computed as
/// the AOSP path does it: v normalized into [2^27, 2^29), five Newton-Raphson steps in
/// Q3.28, times sqrt(2)/2. Returns the multiplier with a right shift as negative exponent.
inline fixed_multiplier inv_sqrt_multiplier(std::int32_t v) noexcept {
  if (v <= 1) return {std::numeric_limits<std::int32_t>::max(), 0};
  int shift = 11;
  while (v >= (1 << 29)) {
    v /= 4;
    ++shift;
  }
  const int max_left_bits = std::countl_zero(static_cast<std::uint32_t>(v)) - 1;
  const int left_pairs = max_left_bits / 2 - 1;
  shift -= left_pairs;
  v <<= 2 * left_pairs;
  const std::int32_t input_q3 = v >> 1;
  const std::int32_t half_input = quant::rounding_divide_by_pot(input_q3, 1);
  constexpr std::int32_t half_three = (1 << 28) + (1 << 27);  // 1.5 in Q3.28
  std::int32_t x = 1 << 28;                                    // 1 in Q3.28
  auto sub = [](std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
  };
  for (int i = 0; i < 5; ++i) {
    const std::int32_t x3 = fx::saturating_shift_left(fx::mul(fx::mul(x, x), x), 6);  // Q9 -> Q3
    x = fx::saturating_shift_left(sub(fx::mul(half_three, x), fx::mul(half_input, x3)), 3);  // Q6 -> Q3
  }
  x = fx::mul(x, 1518500250);  // * sqrt(2)/2
  if (shift < 0) {
    x = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << -shift);
    shift = 0;
  }
  return {x, -shift};
}

// --- matrix-vector products -------------------------------------------------------------

/// sum_k a[k] * b[k] in int32 with two's complement wraparound (as the AOSP int32
/// accumulator, minus its overflow UB).
inline std::int32_t dot_i8(const std::int8_t* a, const std::int8_t* b, std::size_t n) noexcept {
  std::uint32_t acc = 0;
  for (std::size_t k = 0; k < n; ++k)
    acc += static_cast<std::uint32_t>(std::int32_t{a[k]} * std::int32_t{b[k]});
  return static_cast<std::int32_t>(acc);
}

#if NNHAL_HAVE_X86_KERNELS
/// dot_i8 with AVX-512 VNNI: vpdpbusd wants unsigned x signed bytes, so a is biased by
/// +128 and 128 * sum(b) is subtracted at the end (exact in wrapping int32 arithmetic).
/// Tails use masked loads: nothing past a + n or b + n is read.
NNHAL_TARGET_AVX512_VNNI inline std::int32_t dot_i8_vnni(const std::int8_t* a, const std::int8_t* b,
                                                          std::size_t n) noexcept {
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i acc = _mm512_setzero_si512(), bsum = _mm512_setzero_si512();
  std::size_t k = 0;
  for (; k + 64 <= n; k += 64) {
    const __m512i va = _mm512_xor_si512(_mm512_loadu_si512(a + k), bias);
    const __m512i vb = _mm512_loadu_si512(b + k);
    acc = _mm512_dpbusd_epi32(acc, va, vb);
    bsum = _mm512_dpbusd_epi32(bsum, ones, vb);
  }
  if (k < n) {
    const __mmask64 m = (~std::uint64_t{0}) >> (64 - (n - k));
    const __m512i va = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + k), bias);
    const __m512i vb = _mm512_maskz_loadu_epi8(m, b + k);  // zero lanes add nothing
    acc = _mm512_dpbusd_epi32(acc, va, vb);
    bsum = _mm512_dpbusd_epi32(bsum, ones, vb);
  }
  // Lane sums through memory: GCC 12's _mm512_reduce_add_epi32 trips -Wmaybe-uninitialized
  // inside its own header (GCC bug 105593).
  alignas(64) std::int32_t lanes_acc[16], lanes_b[16];
  _mm512_store_si512(lanes_acc, acc);
  _mm512_store_si512(lanes_b, bsum);
  std::uint32_t s = 0;
  for (int i = 0; i < 16; ++i)
    s += static_cast<std::uint32_t>(lanes_acc[i]) - 128u * static_cast<std::uint32_t>(lanes_b[i]);
  return static_cast<std::int32_t>(s);
}
#endif

/// Which dot product a bound kernel uses: chosen once, at bind.
using dot_fn = std::int32_t (*)(const std::int8_t*, const std::int8_t*, std::size_t) noexcept;
inline dot_fn best_dot() noexcept {
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512_vnni) return &dot_i8_vnni;
#endif
  return &dot_i8;
}

/// out[b, r] = clamp_T(out[b, r] + zp + apply(bias[r] + in[b, :] . w[r, :], m)) for b < batches,
/// r < rows: AOSP MatrixBatchVectorMultiplyAccumulate. `bias` may be null (zeros).
template <class T>
void matvec_accumulate(dot_fn dot, const std::int8_t* in, const std::int8_t* w, const std::int32_t* bias,
                       fixed_multiplier m, std::size_t batches, std::size_t depth, std::size_t rows,
                       std::int32_t zp, T* out) noexcept {
  constexpr std::int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (std::size_t b = 0; b < batches; ++b)
    for (std::size_t r = 0; r < rows; ++r) {
      const std::uint32_t acc = static_cast<std::uint32_t>(bias ? bias[r] : 0) +
                                static_cast<std::uint32_t>(dot(in + b * depth, w + r * depth, depth));
      const std::int64_t v =
          std::int64_t{quant::apply_multiplier(static_cast<std::int32_t>(acc), m)} + zp + out[b * rows + r];
      out[b * rows + r] = static_cast<T>(v > hi ? hi : (v < lo ? lo : v));
    }
}

/// bias[r] + zp * sum_k w[r, k] for each row (wrapping int32), the zero-point correction
/// folded into a bias once: AOSP PrecomputeZeroPointTimesWeightWithBias. `bias` may be null.
inline std::vector<std::int32_t> zero_point_times_weights(std::int32_t zp, const std::int8_t* w, std::size_t rows,
                                                          std::size_t cols, const std::int32_t* bias) {
  std::vector<std::int32_t> out(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    std::uint32_t sum = 0;
    for (std::size_t k = 0; k < cols; ++k) sum += static_cast<std::uint32_t>(std::int32_t{w[r * cols + k]});
    out[r] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bias ? bias[r] : 0) +
                                       sum * static_cast<std::uint32_t>(zp));
  }
  return out;
}

/// Integer layer normalization of each row of x [batches, n] (in place): mean and variance
/// in 2^10-scaled integers, the stddev inverse from inv_sqrt_multiplier, then
/// * weights + bias and the layer-norm scale (AOSP ApplyLayerNorm, with the product
/// formed in 64 bits where AOSP's int32 product could overflow).
inline void layer_norm(std::int16_t* x, const std::int16_t* weights, const std::int32_t* bias, fixed_multiplier scale,
                       std::int32_t variance_limit, std::size_t batches, std::size_t n) noexcept {
  constexpr std::int64_t guard = 1 << 20;
  const fixed_multiplier out_scale{scale.mantissa_q31, scale.shift + 12};
  for (std::size_t b = 0; b < batches; ++b) {
    std::int16_t* row = x + b * n;
    std::int64_t sum = 0, sum_sq = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum += row[j];
      sum_sq += std::int32_t{row[j]} * row[j];
    }
    const auto nn = static_cast<std::int64_t>(n);
    const auto mean = static_cast<std::int32_t>(sum * 1024 / nn);
    const std::int64_t temp = guard / nn;
    const std::int64_t variance = sum_sq * temp - std::int64_t{mean} * mean;
    std::int32_t v2 = static_cast<std::int32_t>(variance / guard);
    if (v2 < 1) v2 = variance_limit;
    const fixed_multiplier inv = inv_sqrt_multiplier(v2);
    for (std::size_t j = 0; j < n; ++j) {
      const std::int32_t shifted = 1024 * std::int32_t{row[j]} - mean;
      const std::int32_t rescaled = quant::apply_multiplier(shifted, inv);
      const std::int64_t v3 = std::int64_t{rescaled} * weights[j] + (bias ? bias[j] : 0);
      const auto v4 = static_cast<std::int32_t>((v3 > 0 ? v3 + 512 : v3 - 512) / 1024);
      const std::int32_t v5 = quant::apply_multiplier(v4, out_scale);
      row[j] = static_cast<std::int16_t>(v5 > 32767 ? 32767 : (v5 < -32768 ? -32768 : v5));
    }
  }
}

}  // namespace nnhal::ops::kernels::lstm
