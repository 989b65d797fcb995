// The exact quant8 requantization of int32 sums on AVX-512, 16 lanes at a time, each lane
// with its own multiplier (per output channel) or all with one: q8_lanes, a float path
// proven equal to the fixed point (quant::apply_multiplier, then the zero point) wherever
// a result does not lie next to a rounding boundary, and the fixed point there. Used by
// the quant8 GEMMs and depthwise kernels of the conv family and by quant8 MUL.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

namespace nnhal::ops::kernels::conv::avx512 {

/// The offset C (units of 2^-16 of an output step) of q8_lanes' float path, and its
/// window: a result whose low 16 bits are below fast_window is redone exactly.
/// (C = 8 >= E and W = 16 >= C + E, see q8_lanes; W a power of 2 for its bit mask. With
/// W = 32, C = 14, a bound over all |v M| <= 2^26, a conv_bench first layer spent about
/// 8% of its time redoing blocks exactly.)
inline constexpr double fast_offset = 8.0;
inline constexpr std::int32_t fast_window = 16;

/// 2^k as a double, for |k| < 1000 (exact, without a library call).
inline double pow2(int k) noexcept { return std::bit_cast<double>(static_cast<std::uint64_t>(1023 + k) << 52); }

/// The requantization of a quant8 GEMM's channels, per channel padded to whole vectors:
/// it depends on the scales only, so a bind makes it once (bound_scaling).
struct q8_scaling {
  std::vector<std::int32_t> mantissa, left, right, round_mask, round_half;
  std::vector<float> fast_m, fast_pos, fast_neg;  // q8_lanes' float path (without left shifts)
  std::int32_t out_zp = 0;
  bool any_left = false;  // some channel's multiplier is above 1
};

/// The scaling of `n` channels padded to `padded`, channel c's multiplier at(c), the
/// output zero point out_zp.
template <class At>
std::shared_ptr<const q8_scaling> make_q8_scaling(At&& at, std::int32_t out_zp, std::size_t n, std::size_t padded) {
  auto e = std::make_shared<q8_scaling>();
  e->mantissa.assign(padded, 0);
  e->left.assign(padded, 0);
  e->right.assign(padded, 0);
  e->round_mask.assign(padded, 0);
  e->round_half.assign(padded, 0);
  for (std::size_t c = 0; c < n; ++c) {
    const quant::fixed_multiplier m = at(c);
    e->mantissa[c] = m.mantissa_q31;
    e->left[c] = m.shift > 0 ? m.shift : 0;
    e->right[c] = m.shift > 0 ? 0 : -m.shift;
    e->round_mask[c] = static_cast<std::int32_t>((std::int64_t{1} << e->right[c]) - 1);
    e->round_half[c] = e->round_mask[c] >> 1;
    e->any_left = e->any_left || e->left[c] > 0;
  }
  e->out_zp = out_zp;
  e->fast_m.assign(padded, 0.0f);
  e->fast_pos.assign(padded, 0.0f);
  e->fast_neg.assign(padded, 0.0f);
  if (!e->any_left)
    for (std::size_t c = 0; c < padded; ++c) {
      // See q8_lanes: M = mantissa 2^-(15+r); B = A 2^-(15+r) + zp 2^16 + C per sign of p.
      const int r = e->right[c];
      const double pos = pow2(15 - r) + (r > 0 ? 32768.0 : 0.0) + 65536.0 * out_zp + fast_offset;
      e->fast_m[c] = static_cast<float>(static_cast<double>(e->mantissa[c]) * pow2(-15 - r));
      e->fast_pos[c] = static_cast<float>(pos);
      e->fast_neg[c] = static_cast<float>(pos - (r > 0 ? pow2(16 - r) : 0.0));
    }
  return e;
}

/// Per-execution epilogue data of one quant8 GEMM, per padded channel.
struct q8_epilogue {
  std::vector<std::int32_t> offset;  // bias - zx * colsum + K * zx * zw (wrapping)
  std::shared_ptr<const q8_scaling> scaling;
  std::int32_t lo = 0, hi = 0;
};

/// The requantization of channels [c, c + 16), loaded once into registers and applied to
/// every row's accumulators of those channels.
///
/// Without left shifts (every multiplier below 1) it rounds once. The fixed-point multiply
/// rounds the 64-bit product p = v * mantissa to h = floor((p + 2^30) / 2^31); dividing by
/// 2^r (r = right > 0), ties away from zero, gives floor((h + 2^(r-1) - [h < 0]) / 2^r).
/// Nested floors of integers merge (floor((floor(a / m) + k) / n) = floor((a + k m) /
/// (m n))), so q = floor((p + 2^30 + 2^(30+r) - [h < 0] 2^31) / 2^(31+r)); [h < 0] may be
/// read as [p < 0], as they differ only for p in [-2^30, 0), where h = 0 and both give
/// q = 0. With r = 0, q = h. |p| < 2^62: nothing overflows. The even and the odd lanes'
/// products are 64-bit lanes of their own, so each constant comes in an even and an odd
/// vector, derived from `right` here (loading them would take more cache than the
/// epilogue's other arrays together).
///
/// store() first tries float arithmetic: with M = mantissa 2^-(15+r), A = 2^30 +
/// [r > 0] (2^(30+r) - [p < 0] 2^31) and B = A 2^-(15+r) + zp 2^16 + C (C = fast_offset),
/// the exact g* = v M + B has floor((g* - C) / 2^16) = q + zp. G = round(fl(fl(v) M' + B'))
/// (M', B' the float constants; one fused multiply-add; round to nearest throughout) is
/// within E of g*. Only |v M| <= 2^25 needs it: beyond, |q| >= 2^9 - 1 = 511 and zp is in
/// [-128, 255], so q + zp is at least 2 steps outside [lo, hi] and clamps whatever an
/// error under one step does. There E <= 2^25 (2^-23 + 2^-48) (v and M rounded) + 1/2 (B:
/// |B| < 2^24) + 2 (the sum, below 2^26) + 1/2 (to integer) < 7.01. With C >= E, G >=
/// g* - E >= g* - C; and G < (the next multiple of 2^16 above g* - C) + C + E, so where
/// G's low 16 bits are at least W = fast_window >= C + E, floor(G / 2^16) = q + zp. A lane
/// below W (about 1 in 2^12) sends its block of rows (store_rows) to the exact path.
/// Where |v M| > 2^25, G errs by at most 2^-22 relative plus 3, under a step, so
/// floor(G / 2^16) is beyond the same end as q + zp, or G overflowed int32 and reads
/// 0x80000000, whose low bits send it to the exact path.
struct q8_lanes {
  const q8_scaling* s;
  std::size_t c;
  __m512i zp, lo, hi;
  __m512 fast_m, fast_pos, fast_neg;
  __m512i window;  // the low-bit mask of the float path's window
  bool any_left;
  /// `c` a multiple of 16.
  NNHAL_TARGET_AVX512 q8_lanes(const q8_epilogue& ep, std::size_t c_) : q8_lanes(*ep.scaling, ep.lo, ep.hi, c_) {}
  NNHAL_TARGET_AVX512 q8_lanes(const q8_scaling& e, std::int32_t lo_, std::int32_t hi_, std::size_t c_)
      : s(&e),
        c(c_),
        zp(_mm512_set1_epi32(e.out_zp)),
        lo(_mm512_set1_epi32(lo_)),
        hi(_mm512_set1_epi32(hi_)),
        fast_m(_mm512_setzero_ps()),
        fast_pos(_mm512_setzero_ps()),
        fast_neg(_mm512_setzero_ps()),
        window(_mm512_set1_epi32(0xFFFF & ~(fast_window - 1))),
        any_left(e.any_left) {
    if (any_left) return;
    fast_m = _mm512_loadu_ps(e.fast_m.data() + c);
    fast_pos = _mm512_loadu_ps(e.fast_pos.data() + c);
    fast_neg = _mm512_loadu_ps(e.fast_neg.data() + c);
  }

  /// The rounding constants of 64-bit lanes whose right shifts are `r`.
  NNHAL_TARGET_AVX512 static void derive(__m512i r, __m512i& add, __m512i& sub, __m512i& shift) {
    const __m512i half = _mm512_set1_epi64(std::int64_t{1} << 30);
    const __mmask8 rounds = _mm512_test_epi64_mask(r, r);  // r > 0
    shift = _mm512_add_epi64(r, _mm512_set1_epi64(31));
    add = _mm512_mask_add_epi64(half, rounds, half, _mm512_maskz_sllv_epi64(simd::avx512::all8, half, r));
    sub = _mm512_maskz_mov_epi64(rounds, _mm512_set1_epi64(std::int64_t{1} << 31));
  }

  /// v times each lane's multiplier (below 1), rounded as quant::apply_multiplier does:
  /// (p + add - [p < 0] sub) >> shift on the even and the odd lanes' 64-bit products, their
  /// low halves interleaved back.
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i scaled(__m512i v) const {
    using simd::avx512::all8;
    const __m512i mantissa = _mm512_loadu_si512(s->mantissa.data() + c), right = _mm512_loadu_si512(s->right.data() + c);
    __m512i add_even, sub_even, shift_even, add_odd, sub_odd, shift_odd;
    derive(_mm512_maskz_mov_epi32(0x5555, right), add_even, sub_even, shift_even);
    derive(_mm512_maskz_srli_epi64(all8, right, 32), add_odd, sub_odd, shift_odd);
    const __m512i pe = _mm512_maskz_mul_epi32(all8, v, mantissa);
    const __m512i po = _mm512_maskz_mul_epi32(all8, _mm512_maskz_srli_epi64(all8, v, 32),
                                              _mm512_maskz_srli_epi64(all8, mantissa, 32));
    __m512i te = _mm512_add_epi64(pe, add_even), to = _mm512_add_epi64(po, add_odd);
    te = _mm512_mask_sub_epi64(te, _mm512_movepi64_mask(pe), te, sub_even);
    to = _mm512_mask_sub_epi64(to, _mm512_movepi64_mask(po), to, sub_odd);
    const __m512i pick = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0);
    return _mm512_maskz_permutex2var_epi32(simd::avx512::all16, _mm512_maskz_srav_epi64(all8, te, shift_even), pick,
                                           _mm512_maskz_srav_epi64(all8, to, shift_odd));
  }

  /// q + zp of each lane with left shifts (a multiplier above 1), in fixed point.
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i exact_left(__m512i v) const {
    const __m512i mantissa = _mm512_loadu_si512(s->mantissa.data() + c), left = _mm512_loadu_si512(s->left.data() + c);
    const __m512i right = _mm512_loadu_si512(s->right.data() + c);
    const __m512i rmask = _mm512_loadu_si512(s->round_mask.data() + c);
    const __m512i rhalf = _mm512_loadu_si512(s->round_half.data() + c);
    return _mm512_add_epi32(simd::avx512::apply_multiplier_lanes<true>(v, mantissa, left, right, rmask, rhalf), zp);
  }

  /// G = round(fl(v) M + b) of the float path, b the lanes' B for v's signs.
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i float_g(__m512i v, __m512 b) const {
    using simd::avx512::all16;
    constexpr int rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m512 y = _mm512_maskz_fmadd_round_ps(all16, _mm512_maskz_cvt_roundepi32_ps(all16, v, rn), fast_m, b, rn);
    return _mm512_maskz_cvt_roundps_epi32(all16, y, rn);
  }
  /// G of each lane by the float path (no left shifts): its high 16 bits are q + zp unless
  /// its low 16 bits (the even words, min-accumulated into `lows` for fast_inexact()) are
  /// below the window.
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i fast_g(__m512i v, __m512i& lows) const {
    // B of v's sign: a vector select (all ones where v < 0), not a mask register.
    const __m512i negative = _mm512_maskz_srai_epi32(simd::avx512::all16, v, 31);
    const __m512i g = float_g(v, _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
                                         negative, _mm512_castps_si512(fast_neg), _mm512_castps_si512(fast_pos), 0xCA)));
    lows = _mm512_maskz_min_epu16(~__mmask32{0}, lows, g);
    return g;
  }
  /// q + zp of each lane in fixed point, clamped to [lo, hi], as the high word of a G
  /// value (for a block whose fast_g() results lie next to a rounding boundary).
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i exact_g(__m512i v) const {
    using simd::avx512::all16;
    const __m512i q = _mm512_add_epi32(scaled(v), zp);
    return _mm512_maskz_slli_epi32(all16, _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, q, lo), hi), 16);
  }
  /// q + zp of each lane by the float path: fast_g()'s high halves.
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i fast(__m512i v, __m512i& lows) const {
    return _mm512_maskz_srai_epi32(simd::avx512::all16, fast_g(v, lows), 16);
  }
  /// Whether a result accumulated into `lows` needs the exact path.
  NNHAL_TARGET_AVX512 bool fast_inexact(__m512i lows) const {
    return _mm512_mask_cmplt_epu16_mask(0x55555555u, lows, _mm512_set1_epi16(fast_window)) != 0;
  }
  /// A new accumulator of fast()'s low bits.
  NNHAL_TARGET_AVX512 static __m512i no_lows() { return _mm512_set1_epi32(-1); }

  /// Clamps q + zp to [lo, hi] and stores the lanes in `mask` as S.
  template <class S>
  NNHAL_TARGET_AVX512 void put(S* o, __mmask16 mask, __m512i v) const {
    using simd::avx512::all16;
    v = _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, v, lo), hi);
    _mm_mask_storeu_epi8(o, mask, _mm512_maskz_cvtepi32_epi8(all16, v));
  }

  /// Requantizes rows v[0], v[Step], ... (the first n < N + 1) of 16 accumulators each and
  /// stores them, row i at o + i * ldo under `mask`: the float path for all, then, if a
  /// lane of any row lies next to a rounding boundary, the fixed point for all again.
  template <class S, std::size_t N, std::size_t Step = 1>
  NNHAL_TARGET_AVX512 void store_rows(S* o, std::size_t ldo, __mmask16 mask, const __m512i* v,
                                      std::size_t n = N) const {
    if (any_left) {
#pragma GCC unroll 8
      for (std::size_t i = 0; i < N; ++i)
        if (i < n) put(o + i * ldo, mask, exact_left(v[i * Step]));
      return;
    }
    __m512i lows = no_lows();
#pragma GCC unroll 8
    for (std::size_t i = 0; i < N; ++i)
      if (i < n) put(o + i * ldo, mask, fast(v[i * Step], lows));
    if (fast_inexact(lows)) [[unlikely]] {
#pragma GCC unroll 8
      for (std::size_t i = 0; i < N; ++i)
        if (i < n) put(o + i * ldo, mask, _mm512_add_epi32(scaled(v[i * Step]), zp));
    }
  }
  /// Requantizes one row of 16 accumulators and stores the lanes in `mask` as S: the float
  /// path with a mask-register select and its own window test (for one row this is
  /// quicker than fast()'s vector select and accumulated test).
  template <class S>
  NNHAL_TARGET_AVX512 void store(S* o, __mmask16 mask, __m512i v) const {
    if (any_left) put(o, mask, exact_left(v));
    else put(o, mask, biased(v));
  }
  /// q + zp of one row (no left shifts): see store().
  [[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i biased(__m512i v) const {
    using simd::avx512::all16;
    const __m512i g = float_g(v, _mm512_mask_mov_ps(fast_pos, _mm512_movepi32_mask(v), fast_neg));
    if (_mm512_testn_epi32_mask(g, window)) [[unlikely]]
      return _mm512_add_epi32(scaled(v), zp);
    return _mm512_maskz_srai_epi32(all16, g, 16);
  }
};

/// The G values' high words (q + zp as int16, see q8_lanes) of (a, b) where
/// _mm512_packs_epi32(a >> 16, b >> 16) would put them (128-bit lane L: lanes 4L .. 4L + 3
/// of a, then of b), for simd::avx512::store_x64_words.
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i high_words(__m512i a, __m512i b) {
  const __m512i pick =
      _mm512_set_epi16(63, 61, 59, 57, 31, 29, 27, 25, 55, 53, 51, 49, 23, 21, 19, 17, 47, 45, 43, 41, 15, 13, 11, 9,
                       39, 37, 35, 33, 7, 5, 3, 1);
  return _mm512_maskz_permutex2var_epi16(~__mmask32{0}, a, pick, b);
}

}  // namespace nnhal::ops::kernels::conv::avx512
#endif
