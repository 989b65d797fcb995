// ADD kernels; contract in types/signatures/add.hpp. Quantized ADD follows the AOSP CPU
// path bit for bit: both inputs are rescaled to 2 x the larger input scale with 20 bits
// of headroom, summed, then rescaled to the output.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::add {

/// quant_sum(x, y) before the clamp as one linear form of the stored values:
/// floor((v - [v < tie]) / 2^shift) with v = x a + y b + c in int32, i.e. the real sum plus
/// one half rounded down, ties below the zero point down (the final rounding's ties away
/// from zero). The AOSP arithmetic rounds three times, so the form can differ from it where
/// the real sum lies close to a half; make_quant_params finds the form at prepare and
/// compares it with quant_sum on every pair of stored values (2^16): where they differ,
/// the fraction of v / 2^shift lies within `band` (a power of two) of a whole number, and
/// the kernel computes vectors with such a lane the AOSP way. band 0: equal everywhere;
/// band < 0: not used (no such form, or too many values near a half).
struct linear_form {
  std::int32_t a = 0, b = 0, c = 0, tie = 0, band = -1;
  int shift = 0;
};

struct quant_params {
  quant::fixed_multiplier in0, in1, out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
  linear_form linear;
};
inline constexpr int left_shift = 20;

/// Raw quantized sum of two stored values, before the activation clamp.
inline std::int32_t quant_sum(const quant_params& p, std::int32_t x, std::int32_t y) noexcept {
  const std::int32_t sx = quant::apply_multiplier((x - p.zp0) * (1 << left_shift), p.in0);
  const std::int32_t sy = quant::apply_multiplier((y - p.zp1) * (1 << left_shift), p.in1);
  return quant::apply_multiplier(sx + sy, p.out) + p.zp_out;
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

/// The form's value before the shift: x a + y b + c, one lower at a tie below the zero point.
constexpr std::int32_t linear_value(const linear_form& f, std::int32_t x, std::int32_t y) noexcept {
  const std::int32_t v = x * f.a + y * f.b + f.c;
  return v - (v < f.tie ? 1 : 0);
}

/// The form for p's multipliers over stored values in [lo, hi]: slopes and offset of the
/// real sum, to the most fraction bits (shift) that keep every value in int32.
inline linear_form fit_linear(const quant_params& p, std::int32_t lo, std::int32_t hi) {
  if (p.out.shift > 0 || p.in0.shift > 0 || p.in1.shift > 0 || p.out.mantissa_q31 == 0) return {};
  // The AOSP value is floor-ish(2^20 d m / 2^31 / 2^r) per input, summed, times the output's.
  const double k = std::ldexp(static_cast<double>(p.out.mantissa_q31), p.out.shift - 31);
  const double alpha = std::ldexp(static_cast<double>(p.in0.mantissa_q31), left_shift + p.in0.shift - 31) * k;
  const double beta = std::ldexp(static_cast<double>(p.in1.mantissa_q31), left_shift + p.in1.shift - 31) * k;
  const double c = p.zp_out + 0.5 - p.zp0 * alpha - p.zp1 * beta;
  const double ext = std::max(std::abs(double(lo)), std::abs(double(hi)));
  for (int s = 30; s >= 8; --s) {
    const double as = std::round(std::ldexp(alpha, s)), bs = std::round(std::ldexp(beta, s)),
                 cs = std::round(std::ldexp(c, s)), tie = std::ldexp(2.0 * p.zp_out + 1.0, s - 1);
    const double limit = std::ldexp(1.0, 31) - 2.0;
    if (ext * (std::abs(as) + std::abs(bs)) + std::abs(cs) >= limit || std::abs(tie) >= limit) continue;
    linear_form f;
    f.a = static_cast<std::int32_t>(as);
    f.b = static_cast<std::int32_t>(bs);
    f.c = static_cast<std::int32_t>(cs);
    f.tie = static_cast<std::int32_t>(tie);
    f.shift = s;
    f.band = 0;
    return f;
  }
  return {};
}

#if NNHAL_HAVE_X86_KERNELS
/// The form's values v for x and y = y0 + 0..15 (linear_value), and the distance of their
/// fractions from a whole number.
NNHAL_TARGET_AVX512 inline __m512i linear_distance(const linear_form& f, std::int32_t x, std::int32_t y0, __m512i& v) {
  using simd::avx512::all16;
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i y = _mm512_add_epi32(_mm512_set1_epi32(y0), iota), one = _mm512_set1_epi32(std::int32_t{1} << f.shift);
  v = _mm512_add_epi32(_mm512_mullo_epi32(y, _mm512_set1_epi32(f.b)), _mm512_set1_epi32(x * f.a + f.c));
  v = _mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(v, _mm512_set1_epi32(f.tie)), v, _mm512_set1_epi32(1));
  const __m512i frac = _mm512_and_si512(v, _mm512_sub_epi32(one, _mm512_set1_epi32(1)));
  return _mm512_maskz_min_epi32(all16, frac, _mm512_sub_epi32(one, frac));
}

/// Compares the form with quant_sum on every pair of stored values in [lo, hi] (a range of
/// 256), clamped to that range (where two values clamp alike there, they clamp alike in any
/// activation's narrower range): sets the band that holds every difference, or -1 when
/// that band holds more than 1/64 of the pairs. 16 values of y at a time: about 20 us.
NNHAL_TARGET_AVX512 inline void check_linear(const quant_params& p, linear_form& f, std::int32_t lo, std::int32_t hi) {
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
      const __m512i dist = linear_distance(f, x, y0, v);
      const __m512i fast =
          _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, _mm512_maskz_sra_epi32(all16, v, shift), vlo), vhi);
      const __m512i sum = _mm512_add_epi32(s0, _mm512_load_si512(s1 + (y0 - lo)));
      const __m512i exact = _mm512_maskz_min_epi32(
          all16, _mm512_maskz_max_epi32(all16, _mm512_add_epi32(apply_multiplier(sum, p.out), zo), vlo), vhi);
      band = _mm512_mask_max_epi32(band, _mm512_cmpneq_epi32_mask(fast, exact), band, _mm512_add_epi32(dist, unit));
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
      near += static_cast<std::size_t>(__builtin_popcount(_mm512_cmplt_epi32_mask(linear_distance(f, x, y0, v), width)));
    }
  if (near * 64 > 256 * 256) f.band = -1;
}
#endif

}  // namespace detail

/// Multipliers for input scales s0, s1 and output scale so, with their linear form when the
/// CPU runs the AVX-512 kernel (computed once, at prepare).
inline quant_params with_linear_form(quant_params p, OperandType type) {
#if NNHAL_HAVE_X86_KERNELS
  if (!simd::cpu().avx512) return p;
  const bool is_signed = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const std::int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  p.linear = detail::fit_linear(p, lo, hi);
  detail::check_linear(p, p.linear, lo, hi);
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
NNHAL_TARGET_AVX512 inline __m512i quant_sum_x16(__m512i x, __m512i y, const quant_params& p) {
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

/// The linear form's run (see linear_form): two multiplies, adds and a shift per 16 lanes.
/// With Checked, each vector's lanes in the band are noted as a mask (no branch), and after
/// a block of 64 vectors the vectors with any are recomputed the AOSP way: about one in
/// ten where the scales put many sums near a half.
template <bool Checked, class S>
NNHAL_TARGET_AVX512 std::size_t linear_run_avx512(const quant_params& p, const S* a, std::size_t as, const S* b,
                                                  std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  const linear_form& f = p.linear;
  const __m512i va = _mm512_set1_epi32(f.a), vb = _mm512_set1_epi32(f.b), vc = _mm512_set1_epi32(f.c);
  const __m512i tie = _mm512_set1_epi32(f.tie), one = _mm512_set1_epi32(1);
  // Lanes whose fraction lies within band (a power of two, 2^(k-1)) of a whole number:
  // (v + 2^(k-1)) mod 2^shift below 2^k, i.e. no bit of it from k to shift.
  const int k = Checked ? std::bit_width(static_cast<std::uint32_t>(2 * f.band - 1)) : 1;  // in [1, shift]
  const __m512i half = _mm512_set1_epi32(std::int32_t{1} << (k - 1));
  const __m512i fraction_high = _mm512_set1_epi32(static_cast<std::int32_t>(((std::uint32_t{1} << f.shift) - 1) >> k << k));
  const __m128i shift = _mm_cvtsi32_si128(f.shift);
  const __m512i lo = _mm512_set1_epi32(r.lo), hi = _mm512_set1_epi32(r.hi);
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  constexpr std::size_t block = 64;  // vectors
  alignas(64) std::uint16_t near[block];
  std::size_t i = 0;
  while (i + 16 <= n) {
    const std::size_t first = i, end = Checked ? std::min(n, i + 16 * block) : n;
    for (; i + 16 <= end; i += 16) {
      const __m512i x = as ? load_x16(a + i) : a_bcast, y = bs ? load_x16(b + i) : b_bcast;
      __m512i v = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(x, va), _mm512_mullo_epi32(y, vb)), vc);
      v = _mm512_mask_sub_epi32(v, _mm512_cmplt_epi32_mask(v, tie), v, one);
      if constexpr (Checked) near[(i - first) / 16] = _mm512_testn_epi32_mask(_mm512_add_epi32(v, half), fraction_high);
      store_x16(o + i, _mm512_maskz_sra_epi32(all16, v, shift), lo, hi);
    }
    if constexpr (Checked) {
      const std::size_t vectors = (i - first) / 16;
      std::uint64_t marked = 0;  // bit j: vector j has a lane in the band
      for (std::size_t j = 0; j < vectors; ++j) marked |= std::uint64_t{near[j] != 0} << j;
      for (; marked; marked &= marked - 1) {
        const std::size_t at = first + 16 * static_cast<std::size_t>(__builtin_ctzll(marked));
        store_x16(o + at, quant_sum_x16(as ? load_x16(a + at) : a_bcast, bs ? load_x16(b + at) : b_bcast, p), lo, hi);
      }
    }
  }
  return i;
}

/// One run of quantized ADD, 16 lanes at a time; equal to quant_sum bit for bit.
template <class S>
NNHAL_TARGET_AVX512 void quant_run_avx512(const quant_params& params, const S* a, std::size_t as, const S* b,
                                          std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  // A local copy: the 8-bit stores through `o` may alias any object, so the compiler would
  // otherwise reload the parameters, and redo everything derived from them, per step.
  const quant_params p = params;
  std::size_t i = 0;
  if (p.linear.band == 0) {
    i = linear_run_avx512<false>(p, a, as, b, bs, o, n, r);
  } else if (p.linear.band > 0) {
    i = linear_run_avx512<true>(p, a, as, b, bs, o, n, r);
  } else {
    const __m512i lo = _mm512_set1_epi32(r.lo), hi = _mm512_set1_epi32(r.hi);
    const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
    for (; i + 16 <= n; i += 16)
      store_x16(o + i, quant_sum_x16(as ? load_x16(a + i) : a_bcast, bs ? load_x16(b + i) : b_bcast, p), lo, hi);
  }
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
