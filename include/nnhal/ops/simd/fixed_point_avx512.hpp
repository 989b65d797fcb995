// AVX-512 versions of the fixed-point requantization in ops/quant/fixed_point.hpp, 16
// int32 lanes at a time, equal to the scalar functions bit for bit (tests assert it):
// SRDHM is computed as floor((a*b + 2^30) / 2^31) on exact 64-bit products, which equals
// the scalar nudge-and-truncate form for every pair but (INT32_MIN, INT32_MIN), a pair a
// fixed_multiplier (mantissa < 2^31) never produces.
#pragma once

#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

#include <limits>
#include <type_traits>

namespace nnhal::simd::avx512 {

// All-lanes masks. The zero-masking forms of the intrinsics are used with them on
// purpose: GCC 12's unmasked forms pass an _mm512_undefined value through and then warn
// (-Wmaybe-uninitialized, GCC bug 105593) in every driver that includes us.
inline constexpr __mmask16 all16 = 0xFFFF;
inline constexpr __mmask8 all8 = 0xFF;

/// x / 2^right rounded to nearest, ties away from zero (quant::rounding_divide_by_pot),
/// per lane; right in [0, 31].
NNHAL_TARGET_AVX512 inline __m512i rounding_divide_by_pot(__m512i h, int right) {
  if (right == 0) return h;
  const __m512i mask = _mm512_set1_epi32(static_cast<std::int32_t>((std::int64_t{1} << right) - 1));
  const __m512i rem = _mm512_and_si512(h, mask);
  const __m512i threshold = _mm512_add_epi32(_mm512_maskz_srai_epi32(all16, mask, 1), _mm512_maskz_srli_epi32(all16, h, 31));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(rem, threshold);
  h = _mm512_maskz_sra_epi32(all16, h, _mm_cvtsi32_si128(right));
  return _mm512_mask_add_epi32(h, up, h, _mm512_set1_epi32(1));
}

/// x * m as quant::apply_multiplier does, per lane (including its saturating left shift).
NNHAL_TARGET_AVX512 inline __m512i apply_multiplier(__m512i x, ops::quant::fixed_multiplier m) {
  const int left = m.shift > 0 ? (m.shift < 31 ? m.shift : 31) : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  if (left > 0) {  // saturate instead of wrapping, like the scalar version
    const __m512i lim_hi = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max() >> left);
    const __m512i lim_lo = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min() >> left);
    x = _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, x, lim_lo), lim_hi);
    x = _mm512_maskz_sll_epi32(all16, x, _mm_cvtsi32_si128(left));
  }
  // Saturating rounding doubling high multiply on 64-bit products of even and odd lanes.
  const __m512i mm = _mm512_set1_epi64(m.mantissa_q31);
  const __m512i nudge = _mm512_set1_epi64(std::int64_t{1} << 30);
  const __m512i even = _mm512_maskz_srai_epi64(all8, _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, x, mm), nudge), 31);
  const __m512i odd = _mm512_maskz_srai_epi64(all8, _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, _mm512_maskz_srli_epi64(all8, x, 32), mm), nudge), 31);
  const __m512i h = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_maskz_slli_epi64(all8, odd, 32));
  return rounding_divide_by_pot(h, right);
}

/// apply_multiplier with a multiplier per lane (per-channel requantization): lane i uses
/// mantissa[i] and shift left[i] (> 0) or right[i] (> 0), at most one of them non-zero.
/// round_mask[i] = 2^right[i] - 1 and round_half[i] = round_mask[i] >> 1 are precomputed
/// by the caller (a GEMM epilogue reuses them); Left false skips the left shift, valid when
/// every left[i] is 0.
template <bool Left>
NNHAL_TARGET_AVX512 inline __m512i apply_multiplier_lanes(__m512i x, __m512i mantissa, __m512i left, __m512i right,
                                                          __m512i round_mask, __m512i round_half) {
  if constexpr (Left) {
    const __m512i lim_hi = _mm512_maskz_srav_epi32(all16, _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max()), left);
    const __m512i lim_lo = _mm512_maskz_srav_epi32(all16, _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min()), left);
    x = _mm512_maskz_sllv_epi32(all16, _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, x, lim_lo), lim_hi), left);
  }
  const __m512i nudge = _mm512_set1_epi64(std::int64_t{1} << 30);
  const __m512i even = _mm512_maskz_srai_epi64(all8, _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, x, mantissa), nudge), 31);
  // The odd lanes' results belong in the high halves: bits 31..62 of the product, which a
  // left shift by one puts there directly (one shift instead of two).
  const __m512i odd = _mm512_maskz_slli_epi64(
      all8,
      _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, _mm512_maskz_srli_epi64(all8, x, 32),
                                              _mm512_maskz_srli_epi64(all8, mantissa, 32)),
                       nudge),
      1);
  const __m512i h = _mm512_mask_blend_epi32(0xAAAA, even, odd);
  // Rounding divide by 2^right[i], ties away from zero (right = 0: mask 0, nothing added).
  const __m512i threshold = _mm512_add_epi32(round_half, _mm512_maskz_srli_epi32(all16, h, 31));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(h, round_mask), threshold);
  const __m512i q = _mm512_maskz_srav_epi32(all16, h, right);
  return _mm512_mask_add_epi32(q, up, q, _mm512_set1_epi32(1));
}

/// The same, computing the rounding constants from right[i].
NNHAL_TARGET_AVX512 inline __m512i apply_multiplier_lanes(__m512i x, __m512i mantissa, __m512i left, __m512i right) {
  const __m512i mask =
      _mm512_sub_epi32(_mm512_maskz_sllv_epi32(all16, _mm512_set1_epi32(1), right), _mm512_set1_epi32(1));
  return apply_multiplier_lanes<true>(x, mantissa, left, right, mask, _mm512_maskz_srai_epi32(all16, mask, 1));
}

/// 16 stored 8-bit values widened to int32 lanes.
template <class S>
NNHAL_TARGET_AVX512 inline __m512i load_x16(const S* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (std::is_signed_v<S>) return _mm512_maskz_cvtepi8_epi32(all16, v);
  else return _mm512_maskz_cvtepu8_epi32(all16, v);
}

/// Clamps 16 int32 lanes to [lo, hi] (within S's range) and stores them as S.
template <class S>
NNHAL_TARGET_AVX512 inline void store_x16(S* p, __m512i v, __m512i lo, __m512i hi) {
  v = _mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, v, lo), hi);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_maskz_cvtepi32_epi8(all16, v));
}

/// The high 16 bits of a's and b's int32 lanes packed with saturation as
/// _mm512_packs_epi32 packs (two shifts and a pack: a word permute gathering them takes
/// two cycles of the shuffle port on current cores).
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i packs_high_halves(__m512i a, __m512i b) {
  return _mm512_maskz_packs_epi32(~__mmask32{0}, _mm512_maskz_srai_epi32(all16, a, 16),
                                  _mm512_maskz_srai_epi32(all16, b, 16));
}

/// 64 values held as int16 in two registers laid out as _mm512_packs_epi32 leaves them
/// (128-bit lane L: values 4L .. 4L + 3 of the first and second of four sources in w01,
/// of the third and fourth in w23), narrowed to S with saturation and put in order: one
/// pack and one dword permute to undo the lane interleaving.
template <class S>
NNHAL_TARGET_AVX512 inline __m512i pack_x64_words(__m512i w01, __m512i w23) {
  constexpr __mmask64 all64 = ~__mmask64{0};
  // Byte lane L of the pack holds 4 values each of the four sources (values 4L .. 4L + 3).
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i packed = std::is_signed_v<S> ? _mm512_maskz_packs_epi16(all64, w01, w23)
                                             : _mm512_maskz_packus_epi16(all64, w01, w23);
  return _mm512_maskz_permutexvar_epi32(all16, order, packed);
}
/// The high 16 bits of the 16 int32 lanes of g[0..3], narrowed to S with saturation, in
/// order (g[0]'s lanes first). A pair of vectors shares one register: a's high words
/// shifted down into the low halves, b's kept in the high halves by a word blend, which
/// runs on either vector port (two shifts and a dword pack put three operations on the
/// shift and shuffle ports). After the byte pack, 128-bit lane L holds g[0] and g[1]
/// alternating for lanes 4L .. 4L + 3, then g[2] and g[3]; Vbmi: one byte permute puts
/// them in order (the caller checked simd::cpu().avx512_vbmi: written as inline assembly
/// so that this function, and the loops that inline it, keep the plain AVX-512 target),
/// else an in-lane byte shuffle and a dword permute.
template <class S, bool Vbmi>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i pack_x64_high_words(const __m512i (&g)[4]) {
  constexpr __mmask64 all64 = ~__mmask64{0};
  constexpr __mmask32 odd_words = 0xAAAAAAAAu;
  const __m512i w01 = _mm512_mask_blend_epi16(odd_words, _mm512_maskz_srli_epi32(all16, g[0], 16), g[1]);
  const __m512i w23 = _mm512_mask_blend_epi16(odd_words, _mm512_maskz_srli_epi32(all16, g[2], 16), g[3]);
  const __m512i packed = std::is_signed_v<S> ? _mm512_maskz_packs_epi16(all64, w01, w23)
                                             : _mm512_maskz_packus_epi16(all64, w01, w23);
  if constexpr (Vbmi) {
    // Output byte 16k + 4L + m comes from byte 16L + 8 (k / 2) + 2m + k % 2.
    alignas(64) static constexpr std::uint8_t from[64] = {
        0, 2,  4,  6,  16, 18, 20, 22, 32, 34, 36, 38, 48, 50, 52, 54,  // g[0]
        1, 3,  5,  7,  17, 19, 21, 23, 33, 35, 37, 39, 49, 51, 53, 55,  // g[1]
        8, 10, 12, 14, 24, 26, 28, 30, 40, 42, 44, 46, 56, 58, 60, 62,  // g[2]
        9, 11, 13, 15, 25, 27, 29, 31, 41, 43, 45, 47, 57, 59, 61, 63};  // g[3]
    __m512i out;
    __asm__("vpermb %[bytes], %[from], %[out]"
            : [out] "=v"(out)
            : [bytes] "v"(packed), [from] "v"(_mm512_load_si512(from)));
    return out;
  } else {
    // Dword k of each 128-bit lane gathers g[k]'s four bytes; the permute orders the lanes.
    const __m512i group =
        _mm512_maskz_broadcast_i32x4(all16, _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_maskz_permutexvar_epi32(all16, order, _mm512_maskz_shuffle_epi8(all64, packed, group));
  }
}
/// pack_x64_words clamped to [lo, hi] (bytes broadcast, within S's range).
template <class S>
NNHAL_TARGET_AVX512 inline __m512i narrow_x64_words(__m512i w01, __m512i w23, __m512i lo, __m512i hi) {
  constexpr __mmask64 all64 = ~__mmask64{0};
  const __m512i v = pack_x64_words<S>(w01, w23);
  if constexpr (std::is_signed_v<S>) return _mm512_maskz_min_epi8(all64, _mm512_maskz_max_epi8(all64, v, lo), hi);
  else return _mm512_maskz_min_epu8(all64, _mm512_maskz_max_epu8(all64, v, lo), hi);
}
/// narrow_x64_words' 64 bytes stored at p.
template <class S>
NNHAL_TARGET_AVX512 inline void store_x64_words(S* p, __m512i w01, __m512i w23, __m512i lo, __m512i hi) {
  _mm512_storeu_si512(p, narrow_x64_words<S>(w01, w23, lo, hi));
}

/// 64 int32 values (16 per register, in order) narrowed with saturation, clamped to
/// [lo, hi] and stored at p (see store_x64_words).
template <class S>
NNHAL_TARGET_AVX512 inline void store_x64(S* p, __m512i q0, __m512i q1, __m512i q2, __m512i q3, __m512i lo,
                                          __m512i hi) {
  constexpr __mmask32 all32 = ~__mmask32{0};
  store_x64_words(p, _mm512_maskz_packs_epi32(all32, q0, q1), _mm512_maskz_packs_epi32(all32, q2, q3), lo, hi);
}

}  // namespace nnhal::simd::avx512
#endif
