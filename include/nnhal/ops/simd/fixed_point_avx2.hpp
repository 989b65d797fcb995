// AVX2 versions of the fixed-point requantization in ops/quant/fixed_point.hpp, 8 int32
// lanes at a time, for CPUs without AVX-512, equal to the scalar functions bit for bit
// (tests assert it). As in fixed_point_avx512.hpp, SRDHM is floor((a*b + 2^30) / 2^31) on
// exact 64-bit products (vpmuldq of the even and of the odd lanes).
#pragma once

#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace nnhal::simd::avx2 {

/// quant::apply_multiplier per lane with a multiplier per lane: mantissa[i], shift left[i]
/// (0..30) or right[i] (0..31), at most one of them non-zero; round_mask[i] = 2^right[i] - 1
/// and round_half[i] = round_mask[i] >> 1. Left false skips the saturating left shift,
/// valid when every left[i] is 0.
template <bool Left>
NNHAL_TARGET_AVX2_FMA inline __m256i apply_multiplier_lanes(__m256i x, __m256i mantissa, __m256i left, __m256i right,
                                                            __m256i round_mask, __m256i round_half) {
  if constexpr (Left) {
    const __m256i lim_hi = _mm256_srav_epi32(_mm256_set1_epi32(std::numeric_limits<std::int32_t>::max()), left);
    const __m256i lim_lo = _mm256_srav_epi32(_mm256_set1_epi32(std::numeric_limits<std::int32_t>::min()), left);
    x = _mm256_sllv_epi32(_mm256_min_epi32(_mm256_max_epi32(x, lim_lo), lim_hi), left);
  }
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
  // Bits 31..62 of each product plus the nudge: the even lanes' by a logical right shift
  // (the low halves are the same as an arithmetic shift's), the odd lanes' moved into the
  // high halves by a left shift by one.
  const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, mantissa), nudge), 31);
  const __m256i odd = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(mantissa, 32)), nudge), 1);
  const __m256i h = _mm256_blend_epi32(even, odd, 0xAA);
  // Rounding divide by 2^right[i], ties away from zero (right = 0: mask 0, nothing added).
  const __m256i threshold = _mm256_add_epi32(round_half, _mm256_srli_epi32(h, 31));
  const __m256i up = _mm256_cmpgt_epi32(_mm256_and_si256(h, round_mask), threshold);  // all ones: add 1
  return _mm256_sub_epi32(_mm256_srav_epi32(h, right), up);
}

/// The first n (<= 8) of 8 int32 lanes, clamped to [lo, hi] (within S's range), stored as S.
template <class S>
NNHAL_TARGET_AVX2_FMA inline void store_x8(S* p, __m256i v, __m256i lo, __m256i hi, std::size_t n = 8) {
  v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));  // 8 int16, in order
  const __m128i b = std::numeric_limits<S>::is_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
  if (n >= 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), b);
  } else {
    alignas(16) S tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), b);
    for (std::size_t i = 0; i < n; ++i) p[i] = tmp[i];
  }
}

}  // namespace nnhal::simd::avx2
#endif
