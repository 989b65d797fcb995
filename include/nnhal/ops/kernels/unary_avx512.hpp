// AVX-512 forms of the element-wise unary loops in kernels/unary.hpp, chosen at bind when
// the CPU has them:
//  - float32: a lane's step512 on 16 lanes at a time, the tail masked (lanes outside the
//    mask compute on zeros and are not stored);
//  - 8-bit tables: 64 lookups per vpermt2b pair (AVX512-VBMI), equal to the table itself;
//  - 8-bit clamps (RELU, RELU1, RELU6 on quantized data): byte min / max;
//  - the conversions QUANTIZE (float32 to 8-bit: in fixed point, bit-exact, the rare values
//    next to a rounding tie by the division) and DEQUANTIZE (8-bit to float32, the
//    reference's float operations), both bit-exact with the reference.
// exp512 is the shared exponential (LOGISTIC, TANH, ELU, EXP and SOFTMAX).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"
#include "nnhal/ops/simd/stream_avx512.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

namespace nnhal::ops::kernels::vunary::avx512 {

using simd::avx512::all16;
using simd::avx512::all8;
inline constexpr __mmask64 all64 = ~__mmask64{0};

/// The largest (Min: smallest) of 16 lanes, none of them NaN, or all (then NaN); through
/// memory, as GCC 12's _mm512_reduce_* forms warn in every includer.
template <bool Min>
NNHAL_TARGET_AVX512 inline float lanes_best(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float b = t[0];
  for (int i = 1; i < 16; ++i) b = (Min ? t[i] < b : t[i] > b) ? t[i] : b;
  return b;
}

/// The sum of 16 float (8 double) lanes, lane 0 first, through memory as lanes_best.
template <class T, std::size_t N>
inline T sum_in_order(const T (&t)[N]) noexcept {
  T s = 0;
  for (T x : t) s += x;
  return s;
}
NNHAL_TARGET_AVX512 inline float lanes_sum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  return sum_in_order(t);
}
NNHAL_TARGET_AVX512 inline double lanes_sum(__m512d v) {
  alignas(64) double t[8];
  _mm512_store_pd(t, v);
  return sum_in_order(t);
}

/// The live lanes of the 8 from `k` in a run of n (k < n).
inline __mmask8 live8(std::size_t k, std::size_t n) noexcept {
  return static_cast<__mmask8>(n - k >= 8 ? 0xFF : (1u << (n - k)) - 1);
}

/// The `live` floats of 8 at p, widened to double (other lanes 0).
NNHAL_TARGET_AVX512 inline __m512d load8d(const float* p, __mmask8 live) {
  return _mm512_maskz_cvtps_pd(live, _mm256_maskz_loadu_ps(live, p));
}
/// The `live` lanes of v, rounded to float, stored at p.
NNHAL_TARGET_AVX512 inline void store8d(float* p, __mmask8 live, __m512d v) {
  _mm256_mask_storeu_ps(p, live, _mm512_maskz_cvtpd_ps(live, v));
}

/// The first n (< 16) of 16 lanes.
inline __mmask16 first16(std::size_t n) noexcept { return static_cast<__mmask16>((1u << n) - 1); }

/// e^x, 16 lanes: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by its degree-6 Taylor
/// polynomial (relative error below 2e-7), scaled by 2^n with vscalefps, which gives inf
/// past the float range and gradual underflow below it. x is first clamped to
/// [-104, 89], outside of which e^x is 0 or inf in float32; NaN passes through (vmaxps and
/// vminps return their second operand when one is NaN).
NNHAL_TARGET_AVX512 inline __m512 exp512(__m512 x) {
  x = _mm512_maskz_min_ps(all16, _mm512_set1_ps(89.0f), _mm512_maskz_max_ps(all16, _mm512_set1_ps(-104.0f), x));
  const __m512 n = _mm512_maskz_roundscale_ps(all16, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // r = x - n ln 2, with ln 2 split in two so that n * hi is exact.
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_maskz_scalef_ps(all16, p, n);
}

/// ln x, 8 double lanes, for positive normal finite x only (the caller routes zero,
/// negative, subnormal, infinite and NaN lanes elsewhere), to an absolute error about
/// 1e-13: far below float32 resolution, for float32 results computed in double. x = m 2^e
/// with m in [0.75, 1.5) (vgetmantpd; vgetexppd gives the exponent of m in [1, 2), one
/// less when m was halved), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.2, by its
/// odd series to s^17 (the rest below 2 s^19 / 19 < 6e-14); 1 / (m + 1) is vrcp14pd
/// refined twice by Newton's step (relative error about 2^-56), cheaper than a division.
NNHAL_TARGET_AVX512 inline __m512d log512d(__m512d x) {
  const __m512d m = _mm512_maskz_getmant_pd(all8, x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_zero);
  __m512d e = _mm512_maskz_getexp_pd(all8, x);
  const __m512d one = _mm512_set1_pd(1.0);
  e = _mm512_mask_add_pd(e, _mm512_cmp_pd_mask(m, one, _CMP_LT_OQ), e, one);
  const __m512d d = _mm512_add_pd(m, one);
  __m512d inv = _mm512_maskz_rcp14_pd(all8, d);
  inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(d, inv, one), inv);
  inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(d, inv, one), inv);
  const __m512d s = _mm512_mul_pd(_mm512_sub_pd(m, one), inv);
  const __m512d s2 = _mm512_mul_pd(s, s);
  __m512d p = _mm512_set1_pd(1.0 / 17);
  for (int k = 15; k >= 1; k -= 2) p = _mm512_fmadd_pd(p, s2, _mm512_set1_pd(1.0 / k));
  const __m512d ln_m = _mm512_mul_pd(_mm512_add_pd(s, s), p);
  // e ln 2 with ln 2 split so that e * hi is exact (|e| < 2^11).
  return _mm512_fmadd_pd(e, _mm512_set1_pd(0.693147180369123816490),
                         _mm512_fmadd_pd(e, _mm512_set1_pd(1.90821492927058770002e-10), ln_m));
}

/// e^x, 8 double lanes, to about 2e-13 relative (for float32 results, as log512d):
/// x = n ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor polynomial to r^10 (the rest
/// below (ln 2 / 2)^11 / 11! < 2.2e-13 relative), scaled by 2^n with vscalefpd (inf
/// past the double range, gradual underflow below it). x is clamped to [-1500, 1500] first; NaN passes through.
NNHAL_TARGET_AVX512 inline __m512d exp512d(__m512d x) {
  x = _mm512_maskz_min_pd(all8, _mm512_set1_pd(1500.0), _mm512_maskz_max_pd(all8, _mm512_set1_pd(-1500.0), x));
  const __m512d n = _mm512_maskz_roundscale_pd(all8, _mm512_mul_pd(x, _mm512_set1_pd(1.4426950408889634074)),
                                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0.693147180369123816490), x);
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(1.90821492927058770002e-10), r);
  double c = 1.0;
  for (int k = 2; k <= 10; ++k) c /= k;  // 1 / 10!
  __m512d p = _mm512_set1_pd(c);
  for (int k = 10; k >= 1; --k) {
    c *= k;  // 1 / (k - 1)!
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(c));
  }
  return _mm512_maskz_scalef_pd(all8, p, n);
}

/// Sign-bit helpers on float lanes.
NNHAL_TARGET_AVX512 inline __m512 sign_bits(__m512 x) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min())));
}
NNHAL_TARGET_AVX512 inline __m512 magnitude(__m512 x) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max())));
}

/// 2^(k/32) for k = 0..31, rounded to float (computed at compile time from the series of
/// e^(k ln 2 / 32) in double).
inline constexpr std::array<float, 32> exp2_32ths = [] {
  std::array<float, 32> t{};
  for (int k = 0; k < 32; ++k) {
    const double x = k * 0.69314718055994530942 / 32;
    double term = 1, sum = 1;
    for (int i = 1; i < 30; ++i) sum += (term *= x / i);
    t[static_cast<std::size_t>(k)] = static_cast<float>(sum);
  }
  return t;
}();

/// e^z in place for N vectors of z in [-104, 0] (NaN kept), the exponential LOGISTIC and ELU
/// need: absolute error at most 1.1e-7, relative 2e-7 for z > -10 and 4.1e-7 for any
/// normal result (measured over 2^24 points; a single-constant ln 2 reduction, whose
/// rounding grows with |z| where e^z is tiny). z = (n + f) ln 2 / 32 with n from the magic
/// bias 1.5 * 2^18, whose float unit in the last place is 1/32: v's five low mantissa bits
/// are n mod 32 (vpermt2ps's index into 2^(k/32)) and v - bias is n / 32, for vscalefps
/// (2^floor, so results past the float range underflow to 0) and the reduction
/// r = z - (n / 32) ln 2, |r| <= ln 2 / 64. e^r is 1 + c1 r + c2 r^2 with the minimax
/// coefficients for that interval (relative error 5.3e-8; Taylor's 1 and 1/2 give 2.1e-7).
/// Stage by stage over the N vectors, so the core's pipes see N independent chains.
template <std::size_t N>
NNHAL_TARGET_AVX512 inline void exp_nonpositive(__m512 (&z)[N]) {
  const __m512 t0 = _mm512_loadu_ps(exp2_32ths.data()), t1 = _mm512_loadu_ps(exp2_32ths.data() + 16);
  const __m512 bias = _mm512_set1_ps(393216.0f), log2e = _mm512_set1_ps(1.44269504088896341f);
  const __m512 ln2 = _mm512_set1_ps(0.693147180559945309f);
  const __m512 c1 = _mm512_set1_ps(1.0000146627426147f), c2 = _mm512_set1_ps(0.4999999701976776f);
  __m512 v[N], t[N], n[N], r[N];
#pragma GCC unroll 8
  for (std::size_t j = 0; j < N; ++j) v[j] = _mm512_fmadd_ps(z[j], log2e, bias);
#pragma GCC unroll 8
  for (std::size_t j = 0; j < N; ++j) t[j] = _mm512_permutex2var_ps(t0, _mm512_castps_si512(v[j]), t1);
#pragma GCC unroll 8
  for (std::size_t j = 0; j < N; ++j) n[j] = _mm512_sub_ps(v[j], bias);
#pragma GCC unroll 8
  for (std::size_t j = 0; j < N; ++j) r[j] = _mm512_fnmadd_ps(n[j], ln2, z[j]);
#pragma GCC unroll 8
  for (std::size_t j = 0; j < N; ++j) {
    const __m512 tr = _mm512_mul_ps(t[j], r[j]);
    z[j] = _mm512_maskz_scalef_ps(all16, _mm512_fmadd_ps(tr, _mm512_fmadd_ps(c2, r[j], c1), t[j]), n[j]);
  }
}

/// A float32 lane with an AVX-512 form.
template <class Lane>
concept lane512 = requires(const Lane& l, __m512 v) {
  l.step512(v);
};

/// A lane whose AVX-512 form also takes 4 vectors at once (steps512<4>), interleaving
/// their work (worth it for the long chains of LOGISTIC and ELU).
template <class Lane>
concept lane512x4 = requires(const Lane& l, __m512 (&v)[4]) {
  l.template steps512<4>(v);
};

/// Runs loop(std::bool_constant<Stream>, first, count) over the n elements of an output at
/// `out`: in parallel chunks of at least `grain` (for_chunks), each split by
/// simd::avx512::streamed_run, streaming when the whole output is streamed_output().
template <class T, class Loop>
void streamed_chunks(const kernel_io& io, const T* out, std::size_t n, std::size_t grain, Loop&& loop) {
  const bool stream = streamed_output(n * sizeof(T));
  for_chunks(io, n, grain, [&](std::size_t b, std::size_t e) {
    simd::avx512::streamed_run(stream, out + b, e - b, [&]<bool S>(std::bool_constant<S> s, std::size_t i, std::size_t len) {
      loop(s, b + i, len);
    });
  });
}

/// dst[i] = lane(src[i]) for i < n, 16 at a time (64 when the lane takes 4 vectors at
/// once), the tail masked; Stream: whole vectors with streaming stores (dst line-aligned).
template <bool Stream, lane512 Lane>
NNHAL_TARGET_AVX512 void f32_loop(const float* src, float* dst, std::size_t n, const Lane& shared_lane) {
  using simd::avx512::store64;
  const Lane lane = shared_lane;  // a local copy: its parameters stay in registers across the stores
  std::size_t i = 0;
  if constexpr (lane512x4<Lane>) {
    for (; i + 64 <= n; i += 64) {
      __m512 v[4];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < 4; ++j) v[j] = _mm512_loadu_ps(src + i + 16 * j);
      lane.template steps512<4>(v);
#pragma GCC unroll 4
      for (std::size_t j = 0; j < 4; ++j) store64<Stream>(dst + i + 16 * j, v[j]);
    }
  }
#pragma GCC unroll 4
  for (; i + 16 <= n; i += 16) store64<Stream>(dst + i, lane.step512(_mm512_loadu_ps(src + i)));
  if (i < n) {
    const __mmask16 m = first16(n - i);
    _mm512_mask_storeu_ps(dst + i, m, lane.step512(_mm512_maskz_loadu_ps(m, src + i)));
  }
  simd::avx512::end_stream<Stream>();
}

/// The float32 tensor form of f32_loop (input 0 to output 0), in parallel chunks for
/// large tensors, streaming the stores of outputs of streaming_output_bytes or more.
template <lane512 Lane>
void f32_tensor(const kernel_io& io, const Lane& lane) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  streamed_chunks(io, out.data, out.size(), elementwise_grain, [&]<bool S>(std::bool_constant<S>, std::size_t i, std::size_t n) {
    f32_loop<S>(in.data + i, out.data + i, n, lane);
  });
}

/// 64 table lookups: vpermt2b picks from 128 table bytes (t0:t1 or t2:t3) by the low 7
/// bits of the index, and the index's top bit chooses between the two halves.
NNHAL_TARGET_AVX512_VBMI inline __m512i lookup64(__m512i idx, __m512i t0, __m512i t1, __m512i t2, __m512i t3) {
  const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1), hi = _mm512_permutex2var_epi8(t2, idx, t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

/// dst[i] = table[src[i] - min(S)] for 8-bit S, 64 at a time (Stream: streaming stores,
/// dst line-aligned); call only when simd::cpu().avx512_vbmi is true. The index is the
/// stored byte itself for uint8, with its top bit flipped for int8.
template <bool Stream, class S>
NNHAL_TARGET_AVX512_VBMI void table8_loop(const S* src, S* dst, std::size_t n, const S* table) {
  static_assert(sizeof(S) == 1);
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(std::is_signed_v<S> ? 0x80 : 0));
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64)
    simd::avx512::store64<Stream>(dst + i, lookup64(_mm512_xor_si512(_mm512_loadu_si512(src + i), flip), t0, t1, t2, t3));
  if (i < n) {
    const __mmask64 m = (__mmask64{1} << (n - i)) - 1;
    _mm512_mask_storeu_epi8(dst + i, m, lookup64(_mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + i), flip), t0, t1, t2, t3));
  }
  simd::avx512::end_stream<Stream>();
}

/// clamp(x, lo, hi) on 64 bytes of S.
template <class S>
NNHAL_TARGET_AVX512 inline __m512i clamp64(__m512i x, __m512i lo, __m512i hi) {
  if constexpr (std::is_signed_v<S>) return _mm512_maskz_min_epi8(all64, _mm512_maskz_max_epi8(all64, x, lo), hi);
  else return _mm512_maskz_min_epu8(all64, _mm512_maskz_max_epu8(all64, x, lo), hi);
}

/// dst[i] = clamp(src[i], lo, hi) for 8-bit S (lo, hi within S's range), 64 at a time
/// (Stream: streaming stores, dst line-aligned).
template <bool Stream, class S>
NNHAL_TARGET_AVX512 void clamp8_loop(const S* src, S* dst, std::size_t n, std::int32_t lo, std::int32_t hi) {
  const __m512i vlo = _mm512_set1_epi8(static_cast<char>(lo)), vhi = _mm512_set1_epi8(static_cast<char>(hi));
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64)
    simd::avx512::store64<Stream>(dst + i, clamp64<S>(_mm512_loadu_si512(src + i), vlo, vhi));
  if (i < n) {
    const __mmask64 m = (__mmask64{1} << (n - i)) - 1;
    _mm512_mask_storeu_epi8(dst + i, m, clamp64<S>(_mm512_maskz_loadu_epi8(m, src + i), vlo, vhi));
  }
  simd::avx512::end_stream<Stream>();
}

/// The rest of QUANTIZE for 16 quotients v = x / scale (float division): rounded half away
/// from zero, plus the zero point in float, clamped with NaN giving the maximum.
template <class S>
NNHAL_TARGET_AVX512 inline __m128i quantize16_round(__m512 v, __m512 zero_point) {
  constexpr int exact = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  // std::round: the truncation, plus one away from zero when the dropped part (exact) is
  // at least one half.
  const __m512 t = _mm512_maskz_roundscale_ps(all16, v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512 dropped = _mm512_maskz_sub_round_ps(all16, v, t, exact);
  const __mmask16 away = _mm512_cmp_ps_mask(magnitude(dropped), _mm512_set1_ps(0.5f), _CMP_GE_OQ);
  const __m512 one = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(_mm512_set1_ps(1.0f)), _mm512_castps_si512(sign_bits(v))));
  const __m512 rounded = _mm512_mask_add_round_ps(t, away, t, one, exact);
  const __m512 q = _mm512_maskz_add_round_ps(all16, zero_point, rounded, exact);
  constexpr float lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
  // q < hi ? q : hi (NaN gives hi), then lo < c ? c : lo.
  const __m512 c = _mm512_maskz_max_ps(all16, _mm512_maskz_min_ps(all16, q, _mm512_set1_ps(hi)), _mm512_set1_ps(lo));
  return _mm512_maskz_cvtepi32_epi8(all16, _mm512_maskz_cvttps_epi32(all16, c));
}

/// QUANTIZE of 16 floats to 8-bit S as quantize::quantize_value computes it.
template <class S>
NNHAL_TARGET_AVX512 inline __m128i quantize16(__m512 x, __m512 scale, __m512 zero_point) {
  return quantize16_round<S>(_mm512_maskz_div_round_ps(all16, x, scale, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                             zero_point);
}

/// QUANTIZE in fixed point with 16 fraction bits, bit for bit the same as quantize16
/// (float division, round half away from zero, zero point, clamp):
///   g = round_to_nearest_int32(x * (2^16 / scale) + zero_point * 2^16 + 2^15 + 2)
/// The output is g's high 16 bits (floor(g / 2^16)) saturated to S, unless g's low 16 bits
/// are below 8 (near_tie; about one value in 8192), where the caller takes quantize16.
///
/// Why it is exact. Where the output is not saturated whatever the rounding, the float
/// quotient d = x / scale has |d| <= 255.5, so it is within 0.5 units of 2^-16 of the real
/// quotient; the reciprocal and the multiply-add (|result| < 2^25) round by at most 1 unit
/// each, the conversion by 0.5 where the multiply-add's is 0.25: g is within 2.5 of
/// t = (d + zero_point) * 2^16 + 2^15 + 2. A g with high bits j and low bits from 8 to
/// 2^16 - 1 then has t in [j * 2^16 + 5.5, (j + 1) * 2^16 + 1.5], so d + zero_point lies
/// strictly between j - 1/2 and j + 1/2 and the reference's result is j too (a tie gives low
/// bits 0..4). Past the range the multiply-add grows with x, so the output saturates as
/// the reference's does; beyond int32 (and for NaN) the conversion gives INT32_MIN, whose
/// low bits are 0: those lanes take quantize16 as well.
struct quantize_fixed {
  static constexpr float one = 65536.0f;  // 2^16
  static constexpr float offset = 32768.0f + 2.0f;
  static constexpr std::int32_t tie_below = 8;

  /// Whether these parameters may take the fixed-point path: the scale and 2^16 / scale
  /// normal numbers, the zero point within S (else quantize16 throughout).
  template <class S>
  static bool usable(float scale, std::int32_t zero_point) noexcept {
    return std::isnormal(scale) && std::isnormal(one / scale) && zero_point >= std::numeric_limits<S>::min() &&
           zero_point <= std::numeric_limits<S>::max();
  }
  NNHAL_TARGET_AVX512 static __m512i g16(__m512 x, __m512 mul, __m512 add) {
    return _mm512_maskz_cvt_roundps_epi32(all16, _mm512_maskz_fmadd_ps(all16, x, mul, add),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  /// The lanes of g whose low 16 bits are below tie_below.
  NNHAL_TARGET_AVX512 static __mmask16 near_tie(__m512i g) {
    return _mm512_testn_epi32_mask(g, _mm512_set1_epi32(0xFFFF & ~(tie_below - 1)));
  }
};

/// QUANTIZE float32 to 8-bit S over n elements: quantize_fixed 64 at a time, the 16-lane
/// vectors with a lane near a tie written again through quantize16; quantize16
/// throughout for parameters quantize_fixed cannot take. The high 16 bits of the four
/// vectors' lanes go to bytes in order by simd::avx512::pack_x64_high_words (Vbmi: its
/// byte permute; call with true only when simd::cpu().avx512_vbmi is). The low words'
/// minimum over the four vectors (word-wise unsigned min) checks all 64 with one compare.
/// Stream: the 64-byte stores of quantize_fixed stream (dst line-aligned).
template <bool Stream, class S, bool Vbmi>
NNHAL_TARGET_AVX512 void quantize_loop(const float* src, S* dst, std::size_t n, float scale, std::int32_t zero_point) {
  const __m512 vs = _mm512_set1_ps(scale), vz = _mm512_set1_ps(static_cast<float>(zero_point));
  std::size_t i = 0;
  if (quantize_fixed::usable<S>(scale, zero_point)) {
    const __m512 mul = _mm512_set1_ps(quantize_fixed::one / scale);
    const __m512 add = _mm512_set1_ps(static_cast<float>(zero_point) * quantize_fixed::one + quantize_fixed::offset);
    const __m512i tie_below = _mm512_set1_epi16(quantize_fixed::tie_below);
    constexpr __mmask32 low_words = 0x55555555u, all32 = ~__mmask32{0};
    for (; i + 64 <= n; i += 64) {
      __m512i g[4];
#pragma GCC unroll 4
      for (std::size_t k = 0; k < 4; ++k) g[k] = quantize_fixed::g16(_mm512_loadu_ps(src + i + 16 * k), mul, add);
      simd::avx512::store64<Stream>(dst + i, simd::avx512::pack_x64_high_words<S, Vbmi>(g));
      const __m512i lowest = _mm512_maskz_min_epu16(all32, _mm512_maskz_min_epu16(all32, g[0], g[1]),
                                                    _mm512_maskz_min_epu16(all32, g[2], g[3]));
      if (_mm512_mask_cmplt_epu16_mask(low_words, lowest, tie_below)) [[unlikely]]
        for (std::size_t k = 0; k < 4; ++k)
          if (quantize_fixed::near_tie(g[k]))
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 16 * k),
                             quantize16<S>(_mm512_loadu_ps(src + i + 16 * k), vs, vz));
    }
    const __m512i lo = _mm512_set1_epi32(std::numeric_limits<S>::min());
    const __m512i hi = _mm512_set1_epi32(std::numeric_limits<S>::max());
    for (; i < n; i += 16) {
      const __mmask16 m = first16(std::min<std::size_t>(n - i, 16));
      const __m512 x = _mm512_maskz_loadu_ps(m, src + i);
      const __m512i g = quantize_fixed::g16(x, mul, add);
      const __m512i j = _mm512_maskz_srai_epi32(all16, g, 16);
      _mm_mask_storeu_epi8(dst + i, m,
                           quantize_fixed::near_tie(g) & m
                               ? quantize16<S>(x, vs, vz)
                               : _mm512_maskz_cvtepi32_epi8(
                                     all16, _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, j, lo), hi)));
    }
    simd::avx512::end_stream<Stream>();
    return;
  }
#pragma GCC unroll 2
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), quantize16<S>(_mm512_loadu_ps(src + i), vs, vz));
  if (i < n) {
    const __mmask16 m = first16(n - i);
    _mm_mask_storeu_epi8(dst + i, m, quantize16<S>(_mm512_maskz_loadu_ps(m, src + i), vs, vz));
  }
}

/// DEQUANTIZE of 16 values of 8-bit S to float32: scale * float(value - zero_point), one
/// rounding (the reference's operations).
template <class S>
NNHAL_TARGET_AVX512 inline __m512 dequantize16(__m128i b, __m512 scale, __m512i zero_point) {
  const __m512i v = std::is_signed_v<S> ? _mm512_maskz_cvtepi8_epi32(all16, b) : _mm512_maskz_cvtepu8_epi32(all16, b);
  return _mm512_maskz_mul_ps(all16, scale, _mm512_maskz_cvtepi32_ps(all16, _mm512_sub_epi32(v, zero_point)));
}

/// DEQUANTIZE 8-bit S to float32 over n elements (Stream: streaming stores, dst line-aligned).
template <bool Stream, class S>
NNHAL_TARGET_AVX512 void dequantize_loop(const S* src, float* dst, std::size_t n, float scale, std::int32_t zero_point) {
  const __m512 vs = _mm512_set1_ps(scale);
  const __m512i vz = _mm512_set1_epi32(zero_point);
  std::size_t i = 0;
#pragma GCC unroll 4
  for (; i + 16 <= n; i += 16)
    simd::avx512::store64<Stream>(dst + i,
                                  dequantize16<S>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)), vs, vz));
  if (i < n) {
    const __mmask16 m = first16(n - i);
    _mm512_mask_storeu_ps(dst + i, m, dequantize16<S>(_mm_maskz_loadu_epi8(m, src + i), vs, vz));
  }
  simd::avx512::end_stream<Stream>();
}

}  // namespace nnhal::ops::kernels::vunary::avx512
#endif
