// ADD kernels; contract in types/signatures/add.hpp. Quantized ADD follows the AOSP CPU
// path bit for bit: both inputs are rescaled to 2 x the larger input scale with 20 bits
// of headroom, summed, then rescaled to the output.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::add {

/// quant_sum(x, y) before the clamp as one linear form of the stored values:
/// floor((v - [v < tie] tie_step) / 2^shift) with v = x a + y b + c in int32, i.e. the real
/// sum plus one half rounded down, ties below the zero point down (the final rounding's
/// ties away from zero). A corrected form also adds cx[x] + cy[y] (quant_params' tables,
/// |each| <= 63): the AOSP rescaled inputs' own rounding, per stored value. The AOSP
/// arithmetic rounds three times, so a form can differ from it where the real sum lies
/// close to a half; make_quant_params finds a form at prepare and compares it with
/// quant_sum on every pair of stored values (2^16): where they differ, the fraction of
/// v / 2^shift lies within `band` (a power of two) of a whole number, and the kernel
/// computes vectors with such a lane the AOSP way. band 0: equal everywhere; band < 0:
/// not used (no such form, or too many values near a half).
struct linear_form {
  std::int32_t a = 0, b = 0, c = 0, tie = 0, tie_step = 1, band = -1;
  int shift = 0;
  bool corrected = false;
  // one_table: a corrected form with a table for one input only, y's when y_table, else
  // x's (the other input's rescaling is exactly linear: that of the larger scale, whose
  // multiplier is 1/2, rounds nothing). words: an exact form (band 0) that runs through
  // words_run_avx512 (the CPU has VNNI and VBMI).
  bool one_table = false, y_table = true;
  bool words = false;
};

/// The multipliers and the linear form (what a run copies for itself).
struct quant_core {
  quant::fixed_multiplier in0, in1, out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
  linear_form linear;
};

/// quant_core and a corrected form's tables, indexed by the stored byte (its bit pattern).
struct quant_params : quant_core {
  alignas(64) std::array<std::int8_t, 256> cx{}, cy{};
};
inline constexpr int left_shift = 20;

/// Raw quantized sum of two stored values, before the activation clamp.
inline std::int32_t quant_sum(const quant_core& p, std::int32_t x, std::int32_t y) noexcept {
  const std::int32_t sx = quant::apply_multiplier((x - p.zp0) * (1 << left_shift), p.in0);
  const std::int32_t sy = quant::apply_multiplier((y - p.zp1) * (1 << left_shift), p.in1);
  return quant::add_wrapping(quant::apply_multiplier(sx + sy, p.out), p.zp_out);
}

/// The fixed-point multipliers for input scales s0, s1 and output scale so (no linear form).
inline quant_params make_multipliers(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  const double twice_max = 2.0 * static_cast<double>(std::max(a.scale, b.scale));
  quant_params p;
  p.in0 = quant::quantize_multiplier(static_cast<double>(a.scale) / twice_max);
  p.in1 = quant::quantize_multiplier(static_cast<double>(b.scale) / twice_max);
  p.out = quant::quantize_multiplier(twice_max / (static_cast<double>(1 << left_shift) * static_cast<double>(o.scale)));
  p.zp0 = a.zero_point;
  p.zp1 = b.zero_point;
  p.zp_out = o.zero_point;
  return p;
}

namespace detail {

/// Whether the form can stand for p's arithmetic at all: no left shift anywhere.
inline bool linear_possible(const quant_core& p) noexcept {
  return p.out.shift <= 0 && p.in0.shift <= 0 && p.in1.shift <= 0 && p.out.mantissa_q31 != 0;
}

/// The largest |a|, |b| of a form: words_run_avx512 multiplies by a slope as two int16
/// halves, a = 256 a_hi + a_lo with a_lo in [0, 255].
inline constexpr double max_slope = (1 << 23) - 256;

/// Fills in a form given its slopes, constant and tie at 2^shift (as doubles) and the
/// largest |x a + y b| plus corrections: false when they do not fit int32.
inline bool finish_form(linear_form& f, double as, double bs, double cs, double tie, double tie_step, double reach,
                        int s) {
  const double limit = std::ldexp(1.0, 31) - 2.0 - std::abs(tie_step);
  if (reach + std::abs(cs) >= limit || std::abs(tie) >= limit) return false;
  if (std::max(std::abs(as), std::abs(bs)) > max_slope) return false;
  f.a = static_cast<std::int32_t>(as);
  f.b = static_cast<std::int32_t>(bs);
  f.c = static_cast<std::int32_t>(cs);
  f.tie = static_cast<std::int32_t>(tie);
  f.tie_step = static_cast<std::int32_t>(tie_step);
  f.shift = s;
  f.band = 0;
  return true;
}

/// The plain form for p's multipliers over stored values in [lo, hi]: slopes and offset of
/// the real sum, to the most fraction bits (shift) that keep every value in int32.
inline linear_form fit_linear(const quant_core& p, std::int32_t lo, std::int32_t hi) {
  if (!linear_possible(p)) return {};
  // The AOSP value is about 2^20 d m / 2^31 / 2^r per input, summed, times the output's.
  const double k = std::ldexp(static_cast<double>(p.out.mantissa_q31), p.out.shift - 31);
  const double alpha = std::ldexp(static_cast<double>(p.in0.mantissa_q31), left_shift + p.in0.shift - 31) * k;
  const double beta = std::ldexp(static_cast<double>(p.in1.mantissa_q31), left_shift + p.in1.shift - 31) * k;
  const double c = p.zp_out + 0.5 - p.zp0 * alpha - p.zp1 * beta;
  const double ext = std::max(std::abs(double(lo)), std::abs(double(hi)));
  for (int s = 30; s >= 8; --s) {
    const double as = std::round(std::ldexp(alpha, s)), bs = std::round(std::ldexp(beta, s));
    linear_form f;
    if (finish_form(f, as, bs, std::round(std::ldexp(c, s)), std::ldexp(p.zp_out + 0.5, s), 1.0,
                    ext * (std::abs(as) + std::abs(bs)), s))
      return f;
  }
  return {};
}

/// Whether rescaled inputs t (of stored values lo, lo + 1, ...) are exactly linear.
inline bool exactly_linear(const std::array<double, 256>& t) noexcept {
  for (std::size_t v = 2; v < t.size(); ++v)
    if (t[v] - t[v - 1] != t[1] - t[0]) return false;
  return true;
}

/// The corrected form: the AOSP rescaled inputs t0[x], t1[y] (exact integers) make the
/// sum (t0 + t1) m 2^-(31 + r) plus the roundings' offsets; x a + cx[x] is t0[x]'s share at
/// 2^shift rounded, with a the mean slope and cx[x] the rest (|cx| <= 63, so that cx + cy
/// fits a byte). The most fraction bits that allow it. one_table: the exactly linear
/// side's table all zero (its slope's rounding, at most half a unit per step, left to
/// check_linear), the other's y_table (no form when neither side is exactly linear).
inline linear_form fit_corrected(quant_params& p, std::int32_t lo, std::int32_t hi, bool one_table = false) {
  if (!linear_possible(p)) return {};
  std::array<double, 256> t0{}, t1{};
  for (std::int32_t v = lo; v <= hi; ++v) {
    t0[static_cast<std::size_t>(v - lo)] = quant::apply_multiplier((v - p.zp0) * (1 << left_shift), p.in0);
    t1[static_cast<std::size_t>(v - lo)] = quant::apply_multiplier((v - p.zp1) * (1 << left_shift), p.in1);
  }
  const bool plain0 = one_table && exactly_linear(t0), plain1 = one_table && !plain0 && exactly_linear(t1);
  if (one_table && !plain0 && !plain1) return {};
  const int r = -p.out.shift;  // output: floor((t m + 2^30 + (2^(r-1) - [t < 0]) 2^31) / 2^(31 + r))
  const double ext = std::max(std::abs(double(lo)), std::abs(double(hi)));
  for (int s = 30; s >= 8; --s) {
    const double lambda = std::ldexp(static_cast<double>(p.out.mantissa_q31), s - 31 - r);
    // Slopes, and each value's remainder after its slope, centred (plain: all in the base).
    auto split = [&](const std::array<double, 256>& t, std::array<std::int8_t, 256>& table, double& slope, double& base,
                     bool plain) {
      slope = std::round(lambda * (t[255] - t[0]) / 255.0);
      double mn = 1e300, mx = -1e300;
      for (std::int32_t v = lo; v <= hi; ++v) {
        const double exact = lambda * t[static_cast<std::size_t>(v - lo)];
        const double rest = (plain ? exact : std::round(exact)) - slope * v;
        mn = std::min(mn, rest);
        mx = std::max(mx, rest);
      }
      base = std::round((mn + mx) / 2);
      table.fill(0);
      if (plain) return true;
      if (mx - base > 63 || base - mn > 63) return false;
      for (std::int32_t v = lo; v <= hi; ++v)
        table[static_cast<std::uint8_t>(v)] =
            static_cast<std::int8_t>(std::round(lambda * t[static_cast<std::size_t>(v - lo)]) - slope * v - base);
      return true;
    };
    double as = 0, bs = 0, base0 = 0, base1 = 0;
    if (!split(t0, p.cx, as, base0, plain0) || !split(t1, p.cy, bs, base1, plain1)) continue;
    const double offset = r > 0 ? std::ldexp(1.0, 30 - 31 - r + s) : 0.0;  // the 2^30 nudge, at 2^shift
    const double cs = std::round(std::ldexp(p.zp_out + 0.5, s) + offset) + base0 + base1;
    const double step = r > 0 ? std::max(1.0, std::round(std::ldexp(1.0, s - r))) : 0.0;
    linear_form f;
    f.corrected = true;
    f.one_table = one_table;
    f.y_table = !plain1;
    if (finish_form(f, as, bs, cs, std::round(std::ldexp(p.zp_out + 0.5, s) + offset), step,
                    ext * (std::abs(as) + std::abs(bs)) + 126, s))
      return f;
  }
  return {};
}

/// The form's value before the shift for stored values x, y (corrections cx, cy or null).
inline std::int32_t linear_value(const linear_form& f, const std::int8_t* cx, const std::int8_t* cy, std::int32_t x,
                                 std::int32_t y) noexcept {
  std::int32_t v = x * f.a + y * f.b + f.c;
  if (f.corrected) v += cx[static_cast<std::uint8_t>(x)] + cy[static_cast<std::uint8_t>(y)];
  return v - (v < f.tie ? f.tie_step : 0);
}

#if NNHAL_HAVE_X86_KERNELS
/// The form's values v for x and y = y0 + 0..15 (linear_value), and the distance of their
/// fractions from a whole number.
NNHAL_TARGET_AVX512 inline __m512i linear_distance(const linear_form& f, const quant_params& p, std::int32_t x,
                                                   std::int32_t y0, __m512i& v) {
  using simd::avx512::all16;
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i y = _mm512_add_epi32(_mm512_set1_epi32(y0), iota), one = _mm512_set1_epi32(std::int32_t{1} << f.shift);
  std::int32_t cx = 0;
  __m512i cy = _mm512_setzero_si512();
  if (f.corrected) {
    cx = p.cx[static_cast<std::uint8_t>(x)];
    cy = _mm512_maskz_cvtepi8_epi32(all16, _mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                               p.cy.data() + static_cast<std::uint8_t>(y0))));
  }
  v = _mm512_add_epi32(_mm512_mullo_epi32(y, _mm512_set1_epi32(f.b)), _mm512_set1_epi32(x * f.a + f.c + cx));
  v = _mm512_add_epi32(v, cy);
  v = _mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(v, _mm512_set1_epi32(f.tie)), v, _mm512_set1_epi32(f.tie_step));
  const __m512i frac = _mm512_and_si512(v, _mm512_sub_epi32(one, _mm512_set1_epi32(1)));
  return _mm512_maskz_min_epi32(all16, frac, _mm512_sub_epi32(one, frac));
}

/// Compares the form with quant_sum on every pair of stored values in [lo, hi] (a range of
/// 256), clamped to that range (where two values clamp alike there, they clamp alike in any
/// activation's narrower range): sets the band that holds every difference, or -1 when
/// that band holds more than 1/64 of the pairs. 16 values of y at a time: about 20 us.
NNHAL_TARGET_AVX512 inline void check_linear(const quant_params& p, linear_form& f, std::int32_t lo, std::int32_t hi,
                                             std::vector<std::pair<std::int32_t, std::int32_t>>* misses = nullptr) {
  using namespace simd::avx512;
  if (f.band < 0) return;
  alignas(64) std::int32_t s1[256];
  for (std::int32_t v = lo; v <= hi; ++v) s1[v - lo] = quant::apply_multiplier((v - p.zp1) * (1 << left_shift), p.in1);
  const __m512i vlo = _mm512_set1_epi32(lo), vhi = _mm512_set1_epi32(hi), zo = _mm512_set1_epi32(p.zp_out);
  const __m512i unit = _mm512_set1_epi32(1);
  const __m128i shift = _mm_cvtsi32_si128(f.shift);
  __m512i band = _mm512_setzero_si512();
  for (std::int32_t x = lo; x <= hi; ++x) {
    const __m512i s0 = _mm512_set1_epi32(quant::apply_multiplier((x - p.zp0) * (1 << left_shift), p.in0));
    for (std::int32_t y0 = lo; y0 <= hi; y0 += 16) {
      __m512i v;
      const __m512i dist = linear_distance(f, p, x, y0, v);
      const __m512i fast =
          _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, _mm512_maskz_sra_epi32(all16, v, shift), vlo), vhi);
      const __m512i sum = _mm512_add_epi32(s0, _mm512_load_si512(s1 + (y0 - lo)));
      const __m512i exact = _mm512_maskz_min_epi32(
          all16, _mm512_maskz_max_epi32(all16, _mm512_add_epi32(apply_multiplier(sum, p.out), zo), vlo), vhi);
      const __mmask16 differ = _mm512_cmpneq_epi32_mask(fast, exact);
      band = _mm512_mask_max_epi32(band, differ, band, _mm512_add_epi32(dist, unit));
      if (misses && differ && misses->size() < 64)  // (x, y) of the differences, for repair_corrected
        for (unsigned m = differ; m; m &= m - 1) misses->emplace_back(x, y0 + __builtin_ctz(m));
    }
  }
  alignas(64) std::int32_t lanes[16];
  _mm512_store_si512(lanes, band);
  f.band = *std::max_element(lanes, lanes + 16);
  if (f.band == 0) return;
  f.band = static_cast<std::int32_t>(std::bit_ceil(static_cast<std::uint32_t>(f.band)));  // the kernel's test
  const __m512i width = _mm512_set1_epi32(f.band);
  std::size_t near = 0;
  for (std::int32_t x = lo; x <= hi; ++x)
    for (std::int32_t y0 = lo; y0 <= hi; y0 += 16) {
      __m512i v;
      near += static_cast<std::size_t>(__builtin_popcount(_mm512_cmplt_epi32_mask(linear_distance(f, p, x, y0, v), width)));
    }
  if (near * 64 > 256 * 256) f.band = -1;
}
#endif

/// Whether the form equals quant_sum (clamped to [lo, hi]) for x and every y (Row) or for
/// every x and y (column).
template <bool Row>
bool linear_line_exact(const quant_params& p, const linear_form& f, std::int32_t fixed, std::int32_t lo,
                       std::int32_t hi) noexcept {
  auto clamp = [lo, hi](std::int32_t v) { return v < lo ? lo : (v > hi ? hi : v); };
  for (std::int32_t t = lo; t <= hi; ++t) {
    const std::int32_t x = Row ? fixed : t, y = Row ? t : fixed;
    if (clamp(linear_value(f, p.cx.data(), p.cy.data(), x, y) >> f.shift) != clamp(quant_sum(p, x, y))) return false;
  }
  return true;
}

/// Moves a corrected form's few differences off it: a pair whose sum the form puts on the
/// wrong side of a whole number gets its x's (or else its y's) correction one unit toward
/// the right side, kept where that whole row (column) of pairs then agrees. At most 64
/// pairs; check_linear afterwards decides.
inline void repair_corrected(quant_params& p, const linear_form& f,
                             const std::vector<std::pair<std::int32_t, std::int32_t>>& misses, std::int32_t lo,
                             std::int32_t hi) {
  for (const auto& [x, y] : misses) {
    const std::int32_t fast = linear_value(f, p.cx.data(), p.cy.data(), x, y) >> f.shift;
    if (fast == quant_sum(p, x, y)) continue;  // repaired by an earlier move
    const std::int8_t step = fast > quant_sum(p, x, y) ? -1 : 1;
    auto try_move = [&](std::int8_t& entry, bool row, std::int32_t fixed) {
      if (entry + step > 63 || entry + step < -63) return false;
      entry = static_cast<std::int8_t>(entry + step);
      if (row ? linear_line_exact<true>(p, f, fixed, lo, hi) : linear_line_exact<false>(p, f, fixed, lo, hi)) return true;
      entry = static_cast<std::int8_t>(entry - step);
      return false;
    };
    // (With one table, only that one's entries move.)
    const bool x_table = !f.one_table || !f.y_table, y_table = !f.one_table || f.y_table;
    if (!(x_table && try_move(p.cx[static_cast<std::uint8_t>(x)], true, x)) && y_table)
      try_move(p.cy[static_cast<std::uint8_t>(y)], false, y);
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// check_linear of a corrected form f (p's tables), after repair_corrected when a few
/// sums are on the wrong side of a whole number.
inline void check_repaired(quant_params& p, linear_form& f, std::int32_t lo, std::int32_t hi) {
  std::vector<std::pair<std::int32_t, std::int32_t>> misses;
  check_linear(p, f, lo, hi, &misses);
  if (f.band > 0 && misses.size() < 64) {
    repair_corrected(p, f, misses, lo, hi);
    f.band = 0;
    check_linear(p, f, lo, hi);
  }
}
/// Whether corrected form f, repaired, equals quant_sum everywhere; then it is p's.
inline bool exact_corrected(quant_params& p, linear_form f, std::int32_t lo, std::int32_t hi) {
  check_repaired(p, f, lo, hi);
  if (f.band != 0) return false;
  p.linear = f;
  return true;
}
#endif

}  // namespace detail

/// Multipliers for input scales s0, s1 and output scale so, with their linear form when the
/// CPU runs the AVX-512 kernel (computed once, at prepare).
inline quant_params with_linear_form(const quant_params& multipliers, OperandType type) {
  // (by reference: GCC notes an ABI change for 64-byte aligned arguments passed by value)
  quant_params p = multipliers;
#if NNHAL_HAVE_X86_KERNELS
  if (!simd::cpu().avx512) return p;
  const bool is_signed = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const std::int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  p.linear = detail::fit_linear(p, lo, hi);
  detail::check_linear(p, p.linear, lo, hi);
  if (p.linear.band != 0 && simd::cpu().avx512_vbmi) {  // the corrected form, if it does better
    quant_params q = p;
    linear_form f = detail::fit_corrected(q, lo, hi);
    detail::check_repaired(q, f, lo, hi);
    if (f.band >= 0 && (p.linear.band < 0 || f.band < p.linear.band)) {
      q.linear = f;
      p = q;
    }
  }
  const bool words = simd::cpu().avx512_vnni && simd::cpu().avx512_vbmi;
  if (words && p.linear.corrected) {  // one table for the word kernel, if it is exact too
    quant_params q = p;
    if (detail::exact_corrected(q, detail::fit_corrected(q, lo, hi, true), lo, hi)) p = q;
  }
  p.linear.words = p.linear.band == 0 && words;
#else
  (void)type;
#endif
  return p;
}

inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  return with_linear_form(make_multipliers(a, b, o), a.type);
}

/// Reference kernels: plain loops over the broadcast runs (also the test oracle).
template <types::element E>
void reference(const kernel_io& io, const quant_params& p) {
  if constexpr (types::float_element<E>) {
    kernels::binary_float<E>(io, 2, [](float x, float y) { return x + y; });
  } else if constexpr (std::is_same_v<E, types::i32>) {
    kernels::binary_int32(io, kernels::wrap_add);
  } else {
    kernels::binary_quant<E>(io, 2, [&p](std::int32_t x, std::int32_t y) { return quant_sum(p, x, y); });
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// The input stage, apply_multiplier((x - zp) 2^20, m) for a multiplier m without a left
/// shift, in int32 lanes: with d = x - zp (|d| <= 255), the doubling high product
/// floor((d 2^20 m + 2^30) / 2^31) is floor((d m + 2^10) / 2^11), and splitting
/// m = mh 2^11 + ml (0 <= ml < 2^11) makes it d mh + floor((d ml + 2^10) / 2^11), whose
/// products fit in 32 bits; then the rounding right shift. Equal to the 64-bit form.
struct input_stage {
  __m512i mh, ml;
  int right;
  NNHAL_TARGET_AVX512 static input_stage of(quant::fixed_multiplier m) {
    return {_mm512_set1_epi32(m.mantissa_q31 >> 11), _mm512_set1_epi32(m.mantissa_q31 & 2047), -m.shift};
  }
};
NNHAL_TARGET_AVX512 inline __m512i rescale_input(__m512i d, const input_stage& st) {
  using simd::avx512::all16;
  const __m512i low =
      _mm512_maskz_srai_epi32(all16, _mm512_add_epi32(_mm512_mullo_epi32(d, st.ml), _mm512_set1_epi32(1 << 10)), 11);
  return simd::avx512::rounding_divide_by_pot(_mm512_add_epi32(_mm512_mullo_epi32(d, st.mh), low), st.right);
}

/// 16 lanes of quant_sum the AOSP way (the input stage in int32 when no input multiplier
/// shifts left, which ADD's and SUB's never do).
NNHAL_TARGET_AVX512 inline __m512i quant_sum_x16(__m512i x, __m512i y, const quant_core& p) {
  using namespace simd::avx512;
  x = _mm512_sub_epi32(x, _mm512_set1_epi32(p.zp0));
  y = _mm512_sub_epi32(y, _mm512_set1_epi32(p.zp1));
  if (p.in0.shift <= 0 && p.in1.shift <= 0) {
    x = rescale_input(x, input_stage::of(p.in0));
    y = rescale_input(y, input_stage::of(p.in1));
  } else {
    x = apply_multiplier(_mm512_maskz_slli_epi32(all16, x, left_shift), p.in0);
    y = apply_multiplier(_mm512_maskz_slli_epi32(all16, y, left_shift), p.in1);
  }
  return _mm512_add_epi32(apply_multiplier(_mm512_add_epi32(x, y), p.out), _mm512_set1_epi32(p.zp_out));
}

/// A linear form's constants in registers.
struct form_regs {
  __m512i a, b, c, tie, tie_step, half, fraction_high, lo, hi;
  __m512i shift;  // in every lane: vpsravd is one uop, a shift by an xmm count two
};
NNHAL_TARGET_AVX512 inline form_regs make_form_regs(const linear_form& f, quant::quant_range r) {
  // Lanes whose fraction lies within band (a power of two, 2^(k-1)) of a whole number:
  // (v + 2^(k-1)) mod 2^shift below 2^k, i.e. no bit of it from k to shift.
  const int k = f.band > 0 ? std::bit_width(static_cast<std::uint32_t>(2 * f.band - 1)) : 1;  // in [1, shift]
  return {_mm512_set1_epi32(f.a),
          _mm512_set1_epi32(f.b),
          _mm512_set1_epi32(f.c),
          _mm512_set1_epi32(f.tie),
          _mm512_set1_epi32(f.tie_step),
          _mm512_set1_epi32(std::int32_t{1} << (k - 1)),
          _mm512_set1_epi32(static_cast<std::int32_t>(((std::uint32_t{1} << f.shift) - 1) >> k << k)),
          _mm512_set1_epi32(r.lo),
          _mm512_set1_epi32(r.hi),
          _mm512_set1_epi32(f.shift)};
}

/// The form's result, before the clamp, for 16 lanes of v = x a + y b + c (+ corrections);
/// with Checked, `near` gets the mask of lanes in the band.
template <bool Checked>
NNHAL_TARGET_AVX512 inline __m512i form_result(const form_regs& k, __m512i v, std::uint16_t& near) {
  using simd::avx512::all16;
  v = _mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(v, k.tie), v, k.tie_step);
  if constexpr (Checked) near = _mm512_testn_epi32_mask(_mm512_add_epi32(v, k.half), k.fraction_high);
  return _mm512_maskz_srav_epi32(all16, v, k.shift);
}

/// form_result, clamped and stored at o (16 values).
template <bool Checked, class S>
NNHAL_TARGET_AVX512 inline std::uint16_t finish_x16(const form_regs& k, __m512i v, S* o) {
  std::uint16_t near = 0;
  simd::avx512::store_x16(o, form_result<Checked>(k, v, near), k.lo, k.hi);
  return near;
}

/// Recomputes the AOSP way the vectors of a block (16 lanes each from `first`) marked in
/// `near`.
template <class S>
NNHAL_TARGET_AVX512 inline void redo_marked(const quant_core& p, const std::uint16_t* near, std::size_t vectors,
                                            std::size_t first, const S* a, std::size_t as, const S* b, std::size_t bs,
                                            S* o, const form_regs& k) {
  using namespace simd::avx512;
  std::uint64_t marked = 0;  // bit j: vector j has a lane in the band
  for (std::size_t j = 0; j < vectors; ++j) marked |= std::uint64_t{near[j] != 0} << j;
  for (; marked; marked &= marked - 1) {
    const std::size_t at = first + 16 * static_cast<std::size_t>(__builtin_ctzll(marked));
    const __m512i x = as ? load_x16(a + at) : _mm512_set1_epi32(a[0]), y = bs ? load_x16(b + at) : _mm512_set1_epi32(b[0]);
    store_x16(o + at, quant_sum_x16(x, y, p), k.lo, k.hi);
  }
}

/// The plain form's v = x a + y b + c for the 16 values at `at` (or a broadcast side).
template <class S>
NNHAL_TARGET_AVX512 inline __m512i plain_value(const form_regs& k, const S* a, std::size_t as, __m512i a_bcast,
                                               const S* b, std::size_t bs, __m512i b_bcast, std::size_t at) {
  using simd::avx512::load_x16;
  const __m512i x = as ? load_x16(a + at) : a_bcast, y = bs ? load_x16(b + at) : b_bcast;
  return _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(x, k.a), _mm512_mullo_epi32(y, k.b)), k.c);
}

/// The plain form's run (see linear_form): two multiplies, adds and a shift per 16 lanes.
/// With Checked, each vector's lanes in the band are noted as a mask (no branch), and after
/// a block of 64 vectors the vectors with any are recomputed the AOSP way. Returns how many
/// values it did (whole vectors).
template <bool Checked, class S>
NNHAL_TARGET_AVX512 std::size_t linear_run_avx512(const quant_core& p, const S* a, std::size_t as, const S* b,
                                                  std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  const form_regs k = make_form_regs(p.linear, r);
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(r.lo)), hi = _mm512_set1_epi8(static_cast<char>(r.hi));
  constexpr std::size_t block = 64;  // vectors
  alignas(64) std::uint16_t near[block];
  std::uint16_t ignored = 0;
  std::size_t i = 0;
  while (i + 16 <= n) {
    const std::size_t first = i, end = Checked ? std::min(n, i + 16 * block) : n;
    if constexpr (Checked) std::memset(near, 0, sizeof near);
    for (; i + 64 <= end; i += 64) {  // 64 at a time, narrowed by packs
      std::uint16_t* m = Checked ? near + (i - first) / 16 : &ignored;
      const __m512i q0 = form_result<Checked>(k, plain_value(k, a, as, a_bcast, b, bs, b_bcast, i), m[0]);
      const __m512i q1 = form_result<Checked>(k, plain_value(k, a, as, a_bcast, b, bs, b_bcast, i + 16), m[Checked ? 1 : 0]);
      const __m512i q2 = form_result<Checked>(k, plain_value(k, a, as, a_bcast, b, bs, b_bcast, i + 32), m[Checked ? 2 : 0]);
      const __m512i q3 = form_result<Checked>(k, plain_value(k, a, as, a_bcast, b, bs, b_bcast, i + 48), m[Checked ? 3 : 0]);
      simd::avx512::store_x64(o + i, q0, q1, q2, q3, lo, hi);
    }
    for (; i + 16 <= end; i += 16) {
      const std::uint16_t m = finish_x16<Checked>(k, plain_value(k, a, as, a_bcast, b, bs, b_bcast, i), o + i);
      if constexpr (Checked) near[(i - first) / 16] = m;
    }
    if constexpr (Checked) redo_marked(p, near, (i - first) / 16, first, a, as, b, bs, o, k);
  }
  return i;
}

#if defined(NNHAL_TARGET_AVX512_VBMI)
/// Corrections of 64 stored bytes from a 256-entry byte table in four registers.
NNHAL_TARGET_AVX512_VBMI inline __m512i lookup_x64(__m512i idx, const __m512i (&t)[4]) {
  const __m512i low = _mm512_permutex2var_epi8(t[0], idx, t[1]), high = _mm512_permutex2var_epi8(t[2], idx, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high);
}

/// 16 lanes (quarter Q of 64) of the corrected form, before the clamp (form_result): x and
/// y widened from memory (or broadcast), the corrections from the register.
template <int Q, bool Checked, class S>
NNHAL_TARGET_AVX512_VBMI inline __m512i corrected_quarter(const form_regs& k, const S* a, __m512i a_bcast, const S* b,
                                                          __m512i b_bcast, __m512i corr, std::uint16_t& near) {
  using simd::avx512::all16;
  const __m512i x = a ? simd::avx512::load_x16(a + 16 * Q) : a_bcast;
  const __m512i y = b ? simd::avx512::load_x16(b + 16 * Q) : b_bcast;
  const __m512i c = _mm512_maskz_cvtepi8_epi32(all16, _mm512_maskz_extracti32x4_epi32(0xf, corr, Q));
  const __m512i v = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(x, k.a), _mm512_mullo_epi32(y, k.b)),
                                     _mm512_add_epi32(k.c, c));
  return form_result<Checked>(k, v, near);
}

/// The corrected form's run: 64 values at a time, their corrections looked up by byte
/// permutes (cx + cy added as bytes), then as the plain form. Returns how many values it
/// did (multiples of 64).
template <bool Checked, class S>
NNHAL_TARGET_AVX512_VBMI std::size_t corrected_run_avx512(const quant_core& p, const std::int8_t* cx,
                                                          const std::int8_t* cy, const S* a, std::size_t as, const S* b,
                                                          std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  const form_regs k = make_form_regs(p.linear, r);
  __m512i tx[4], ty[4];
  for (int t = 0; t < 4; ++t) {
    tx[t] = _mm512_loadu_si512(cx + 64 * t);
    ty[t] = _mm512_loadu_si512(cy + 64 * t);
  }
  const __m512i a_bytes = _mm512_set1_epi8(static_cast<char>(a[0])), b_bytes = _mm512_set1_epi8(static_cast<char>(b[0]));
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(r.lo)), hi = _mm512_set1_epi8(static_cast<char>(r.hi));
  constexpr std::size_t block = 64;  // vectors of 16
  alignas(64) std::uint16_t near[block];
  std::size_t i = 0;
  while (i + 64 <= n) {
    const std::size_t first = i, end = Checked ? std::min(n, i + 16 * block) : n;
    if constexpr (Checked) std::memset(near, 0, sizeof near);
    for (; i + 64 <= end; i += 64) {
      const __m512i x = as ? _mm512_loadu_si512(a + i) : a_bytes, y = bs ? _mm512_loadu_si512(b + i) : b_bytes;
      const __m512i corr = _mm512_add_epi8(lookup_x64(x, tx), lookup_x64(y, ty));
      const std::size_t j = (i - first) / 16;
      const S* ai = as ? a + i : nullptr;  // null: broadcast
      const S* bi = bs ? b + i : nullptr;
      std::uint16_t m[4] = {};
      const __m512i q0 = corrected_quarter<0, Checked>(k, ai, a_bcast, bi, b_bcast, corr, m[0]);
      const __m512i q1 = corrected_quarter<1, Checked>(k, ai, a_bcast, bi, b_bcast, corr, m[1]);
      const __m512i q2 = corrected_quarter<2, Checked>(k, ai, a_bcast, bi, b_bcast, corr, m[2]);
      const __m512i q3 = corrected_quarter<3, Checked>(k, ai, a_bcast, bi, b_bcast, corr, m[3]);
      simd::avx512::store_x64(o + i, q0, q1, q2, q3, lo, hi);
      if constexpr (Checked) std::memcpy(near + j, m, sizeof m);
    }
    if constexpr (Checked) redo_marked(p, near, (i - first) / 16, first, a, as, b, bs, o, k);
  }
  return i;
}
#endif

#if defined(NNHAL_TARGET_AVX512_VNNI_VBMI)
/// In each 128-bit lane, byte 4i + q from byte 4q + i (made once, not per run: a
/// broadcast calls the kernel once per short run).
alignas(64) inline constexpr std::array<std::uint8_t, 64> words_transpose = [] {
  std::array<std::uint8_t, 64> t{};
  for (std::size_t j = 0; j < 64; ++j) t[j] = static_cast<std::uint8_t>(4 * (j % 4) + (j % 16) / 4);
  return t;
}();

/// The word kernel's constants (see words_run_avx512).
struct words_regs {
  form_regs k;
  __m512i low, high;  // the slopes' word pairs: (a_lo, b_lo) and (a_hi, b_hi)
  __m512i c, flip, high_flip, lo, hi;
  __m512i select[4];  // byte q of each dword
  __m512i transpose;  // in each 128-bit lane, byte 4i + q from byte 4q + i
};
NNHAL_TARGET_AVX512_VNNI_VBMI inline words_regs make_words_regs(const linear_form& f, quant::quant_range r,
                                                                bool is_signed) {
  words_regs w;
  w.k = make_form_regs(f, r);
  // a = 256 a_hi + a_lo with a_lo in [0, 255]; likewise b.
  auto words = [](std::int32_t a, std::int32_t b) {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(b) << 16) | static_cast<std::uint32_t>(a & 0xFFFF));
  };
  w.low = _mm512_set1_epi32(words(f.a & 255, f.b & 255));
  w.high = _mm512_set1_epi32(words(f.a >> 8, f.b >> 8));
  // u a + w b = (u, w).(a_lo, b_lo) + (256 (u - 128), 256 (w - 128)).(a_hi, b_hi) + 32768
  // (a_hi + b_hi), with u = x - lo_value; the constant also takes lo_value (a + b)
  // (wrapping: every partial sum is exact mod 2^32 and the final one fits).
  const std::int64_t lo_value = is_signed ? -128 : 0;
  const std::int64_t c =
      std::int64_t{f.c} + lo_value * (std::int64_t{f.a} + f.b) + 32768 * (std::int64_t{f.a >> 8} + (f.b >> 8));
  w.c = _mm512_set1_epi32(static_cast<std::int32_t>(static_cast<std::uint32_t>(c)));
  w.flip = _mm512_set1_epi8(static_cast<char>(0x80));
  w.high_flip = _mm512_set1_epi16(static_cast<std::int16_t>(-32768));
  w.lo = _mm512_set1_epi8(static_cast<char>(r.lo));
  w.hi = _mm512_set1_epi8(static_cast<char>(r.hi));
  for (int q = 0; q < 4; ++q) w.select[q] = _mm512_set1_epi32(1 << (8 * q));
  w.transpose = _mm512_load_si512(words_transpose.data());
  return w;
}

/// Quarter Q's v = c + u a + w b + corrections (before the shift) from its word pairs
/// `pairs` = (u, w) and the corrections transposed (byte Q of dword i is its value's).
template <int Q, bool Corrected>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI_VBMI inline __m512i words_quarter(const words_regs& w, __m512i pairs,
                                                                                 __m512i corr) {
  const __m512i high = _mm512_xor_si512(_mm512_slli_epi16(pairs, 8), w.high_flip);  // 256 (u - 128), ...
  __m512i acc = _mm512_dpwssd_epi32(w.c, pairs, w.low);
  acc = _mm512_dpwssd_epi32(acc, high, w.high);
  if constexpr (Corrected) acc = _mm512_dpbusd_epi32(acc, w.select[Q], corr);
  return acc;
}

/// An exact form's run (band 0) on VNNI and VBMI, 64 values at a time. Unpacks widen
/// the stored values to word pairs (u, w) in dwords, without a byte permute (two cycles
/// each on this class of CPU) or vpmulld: quarter q, lane 4L + i holds value 16L + 4q + i.
/// Two vpdpwssd multiply by the full slopes, as words (u, w) against (a_lo, b_lo) and
/// (256 (u - 128), 256 (w - 128)) against (a_hi, b_hi). The corrections (from x's table
/// with CorrX, y's with CorrY), looked up by byte permutes and transposed within 128-bit
/// lanes, are added by one vpdpbusd that picks each dword's byte. Packs undo the unpacks'
/// order. Returns how many values it did (multiples of 64).
template <bool CorrX, bool CorrY, class S>
NNHAL_TARGET_AVX512_VNNI_VBMI std::size_t words_run_avx512(const quant_core& p, const std::int8_t* cx,
                                                           const std::int8_t* cy, const S* a, std::size_t as,
                                                           const S* b, std::size_t bs, S* o, std::size_t n,
                                                           quant::quant_range r) {
  constexpr bool Corrected = CorrX || CorrY;
  constexpr __mmask32 all32 = ~__mmask32{0};
  constexpr __mmask64 all64 = ~__mmask64{0};
  const words_regs w = make_words_regs(p.linear, r, std::is_signed_v<S>);
  __m512i tx[4], ty[4];
  for (int t = 0; t < 4; ++t) {
    tx[t] = CorrX ? _mm512_loadu_si512(cx + 64 * t) : _mm512_setzero_si512();
    ty[t] = CorrY ? _mm512_loadu_si512(cy + 64 * t) : _mm512_setzero_si512();
  }
  const __m512i a_bytes = _mm512_set1_epi8(static_cast<char>(a[0])), b_bytes = _mm512_set1_epi8(static_cast<char>(b[0]));
  const __m512i zero = _mm512_setzero_si512();
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i x = as ? _mm512_loadu_si512(a + i) : a_bytes, y = bs ? _mm512_loadu_si512(b + i) : b_bytes;
    __m512i corr = zero;
    if constexpr (CorrX && CorrY) corr = _mm512_add_epi8(lookup_x64(x, tx), lookup_x64(y, ty));
    else if constexpr (CorrX) corr = lookup_x64(x, tx);
    else if constexpr (CorrY) corr = lookup_x64(y, ty);
    if constexpr (Corrected) corr = _mm512_maskz_shuffle_epi8(all64, corr, w.transpose);
    // u = x - lo_value: the stored byte (unsigned) or its top bit flipped (signed).
    const __m512i u = std::is_signed_v<S> ? _mm512_xor_si512(x, w.flip) : x;
    const __m512i v = std::is_signed_v<S> ? _mm512_xor_si512(y, w.flip) : y;
    const __m512i u_low = _mm512_maskz_unpacklo_epi8(all64, u, zero), u_high = _mm512_maskz_unpackhi_epi8(all64, u, zero);
    const __m512i v_low = _mm512_maskz_unpacklo_epi8(all64, v, zero), v_high = _mm512_maskz_unpackhi_epi8(all64, v, zero);
    std::uint16_t unused = 0;
    const __m512i q0 = form_result<false>(
        w.k, words_quarter<0, Corrected>(w, _mm512_maskz_unpacklo_epi16(all32, u_low, v_low), corr), unused);
    const __m512i q1 = form_result<false>(
        w.k, words_quarter<1, Corrected>(w, _mm512_maskz_unpackhi_epi16(all32, u_low, v_low), corr), unused);
    const __m512i q2 = form_result<false>(
        w.k, words_quarter<2, Corrected>(w, _mm512_maskz_unpacklo_epi16(all32, u_high, v_high), corr), unused);
    const __m512i q3 = form_result<false>(
        w.k, words_quarter<3, Corrected>(w, _mm512_maskz_unpackhi_epi16(all32, u_high, v_high), corr), unused);
    const __m512i w01 = _mm512_maskz_packs_epi32(all32, q0, q1), w23 = _mm512_maskz_packs_epi32(all32, q2, q3);
    __m512i bytes;
    if constexpr (std::is_signed_v<S>) {
      bytes = _mm512_maskz_packs_epi16(all64, w01, w23);
      bytes = _mm512_maskz_min_epi8(all64, _mm512_maskz_max_epi8(all64, bytes, w.lo), w.hi);
    } else {
      bytes = _mm512_maskz_packus_epi16(all64, w01, w23);
      bytes = _mm512_maskz_min_epu8(all64, _mm512_maskz_max_epu8(all64, bytes, w.lo), w.hi);
    }
    _mm512_storeu_si512(o + i, bytes);
  }
  return i;
}
#endif

/// One run of quantized ADD, 16 lanes at a time; equal to quant_sum bit for bit.
template <class S>
NNHAL_TARGET_AVX512 void quant_run_avx512(const quant_params& params, const S* a, std::size_t as, const S* b,
                                          std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  // A local copy: the 8-bit stores through `o` may alias any object, so the compiler would
  // otherwise reload the parameters, and redo everything derived from them, per step.
  const quant_core p = params;
  std::size_t i = 0;
  if (p.linear.band == 0 && p.linear.words) {
#if defined(NNHAL_TARGET_AVX512_VNNI_VBMI)
    const std::int8_t *cx = params.cx.data(), *cy = params.cy.data();
    const linear_form& f = p.linear;
    const auto run = [&]<bool CorrX, bool CorrY>() {
      return words_run_avx512<CorrX, CorrY>(p, cx, cy, a, as, b, bs, o, n, r);
    };
    if (!f.corrected) i = run.template operator()<false, false>();
    else if (!f.one_table) i = run.template operator()<true, true>();
    else if (f.y_table) i = run.template operator()<false, true>();
    else i = run.template operator()<true, false>();
#endif
  } else if (p.linear.band >= 0 && p.linear.corrected) {
#if defined(NNHAL_TARGET_AVX512_VBMI)
    i = p.linear.band == 0 ? corrected_run_avx512<false>(p, params.cx.data(), params.cy.data(), a, as, b, bs, o, n, r)
                           : corrected_run_avx512<true>(p, params.cx.data(), params.cy.data(), a, as, b, bs, o, n, r);
#endif
  } else if (p.linear.band == 0) {
    i = linear_run_avx512<false>(p, a, as, b, bs, o, n, r);
  } else if (p.linear.band > 0) {
    i = linear_run_avx512<true>(p, a, as, b, bs, o, n, r);
  }
  const __m512i lo = _mm512_set1_epi32(r.lo), hi = _mm512_set1_epi32(r.hi);
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  for (; i + 16 <= n; i += 16)  // no form, or the corrected form's last vectors
    store_x16(o + i, quant_sum_x16(as ? load_x16(a + i) : a_bcast, bs ? load_x16(b + i) : b_bcast, p), lo, hi);
  kernels::quant_run_scalar([&p](std::int32_t x, std::int32_t y) { return quant_sum(p, x, y); }, a + i * as, as,
                            b + i * bs, bs, o + i, n - i, r);
}
#endif

/// The fastest kernel this CPU has for quantized ADD (same results as reference()).
template <types::element E>
void vectorized(const kernel_io& io, const quant_params& p) {
#if NNHAL_HAVE_X86_KERNELS
  using S = typename E::storage;
  kernels::binary_quant_runs<E>(io, 2, [&p](const S* a, std::size_t as, const S* b, std::size_t bs, S* o, std::size_t n,
                                            quant::quant_range r) { quant_run_avx512(p, a, as, b, bs, o, n, r); });
#else
  reference<E>(io, p);
#endif
}

/// float32 and quant8 through their AVX-512 kernels when the CPU has AVX-512; the rest
/// (and every type without it) through reference().
inline types::result<kernel> bind(const bind_context& c) {
  using kernels::vbinary::arith;
  return kernels::bind_arithmetic<arith::add>(c, make_quant_params,
                                              []<class E>(E) -> kernels::arithmetic_fn<quant_params> {
    if constexpr (types::quantized_element<E>) return simd::cpu().avx512 ? vectorized<E> : reference<E>;
    else return reference<E>;
  });
}

}  // namespace nnhal::ops::add
