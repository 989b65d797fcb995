// AVX-512 versions of the 2-D pooling window loop (kernels/pool.hpp) for NHWC data:
// float32 through a lane's 16-wide step / finish (MAX_POOL_2D, AVERAGE_POOL_2D), and
// 8-bit MAX_POOL_2D and AVERAGE_POOL_2D. The accumulators of up to 64 channels stay
// in registers across the whole window, and every output pixel is finished and stored
// once. Results equal pool.hpp's reference loops bit for bit: the same operations on
// each element in the same order (tests check it).
#pragma once

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/pool_window.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"
#include "nnhal/types/signatures/detail_pool2d.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

#include <algorithm>
#include <type_traits>

namespace nnhal::ops::kernels::pool_norm::avx512 {

// Zero-masking forms with all-lanes masks throughout: see simd/fixed_point_avx512.hpp
// (GCC 12 warns on the unmasked forms in every includer).
using simd::avx512::all16;
using simd::avx512::all8;
inline constexpr __mmask64 all64 = ~__mmask64{0};

/// A float32 pooling lane that also has an AVX-512 form (step512 / finish512).
template <class Lane>
concept lane_avx512 = requires(const Lane& l, __m512 v, std::int64_t n) {
  l.step512(v, v);
  l.finish512(v, n);
  { l.init() } -> std::convertible_to<float>;
};

/// The first `n` (<= 16) of 16 lanes.
NNHAL_TARGET_AVX512 inline __mmask16 first16(std::size_t n) noexcept {
  return n >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

/// Clamps to [lo, hi] as clamp_activation does, NaN passing through: vmaxps(a, b) is
/// a > b ? a : b and vminps(a, b) is a < b ? a : b, so max(lo, v) is v < lo ? lo : v.
NNHAL_TARGET_AVX512 inline __m512 clamp512(__m512 v, float_range r) noexcept {
  return _mm512_maskz_min_ps(all16, _mm512_set1_ps(r.hi), _mm512_maskz_max_ps(all16, _mm512_set1_ps(r.lo), v));
}

/// V vectors (16 V channels from `c0`, the last one masked by `tail`) of one output
/// pixel: accumulated over the window in registers, finished and stored once.
template <std::size_t V, class Lane>
NNHAL_TARGET_AVX512 inline void pool_f32_block(const float* in, const nhwc_layout& in_l, std::size_t n,
                                               const pool_window& w, std::int64_t count, std::size_t c0,
                                               __mmask16 tail, const Lane& lane, float* q) {
  __m512 acc[V];
#pragma GCC unroll 4
  for (std::size_t j = 0; j < V; ++j) acc[j] = _mm512_set1_ps(lane.init());
  for (std::int64_t y = w.y_begin; y < w.y_end; ++y) {
    const float* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(w.x_begin), c0);
    for (std::int64_t x = w.x_begin; x < w.x_end; ++x, p += in_l.stride_w) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j + 1 < V; ++j) acc[j] = lane.step512(acc[j], _mm512_loadu_ps(p + 16 * j));
      acc[V - 1] = lane.step512(acc[V - 1], _mm512_maskz_loadu_ps(tail, p + 16 * (V - 1)));
    }
  }
#pragma GCC unroll 4
  for (std::size_t j = 0; j + 1 < V; ++j) _mm512_storeu_ps(q + c0 + 16 * j, lane.finish512(acc[j], count));
  _mm512_mask_storeu_ps(q + c0 + 16 * (V - 1), tail, lane.finish512(acc[V - 1], count));
}

/// pool_2d for float32 NHWC through `lane`'s AVX-512 form.
template <lane_avx512 Lane>
NNHAL_TARGET_AVX512 void pool_f32_nhwc(const float* in, const nhwc_layout& in_l, float* out, const nhwc_layout& out_l,
                                       const types::sig::detail::pool2d::geometry& g, const Lane& lane) {
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  for (std::size_t n = 0; n < out_l.n; ++n)
    for (std::size_t oh = 0; oh < out_l.h; ++oh)
      for (std::size_t ow = 0; ow < out_l.w; ++ow) {
        const pool_window w = pool_window::of(oh, ow, in_l, g);
        const std::int64_t count = w.count();
        float* q = out + out_l.offset(n, oh, ow, 0);
        std::size_t c0 = 0;
        // Wide channel blocks where there are that many channels (448: 28 of the 32
        // registers, then 256): each pixel of the window is read in long contiguous runs
        // (a global pool over 7x7x1024 runs 1.5x faster with 256 than with 64, and about
        // 5% faster again with 448).
        for (; c0 + 448 <= channels; c0 += 448) pool_f32_block<28>(in, in_l, n, w, count, c0, 0xFFFF, lane, q);
        for (; c0 + 256 <= channels; c0 += 256) pool_f32_block<16>(in, in_l, n, w, count, c0, 0xFFFF, lane, q);
        for (; c0 + 64 <= channels; c0 += 64) pool_f32_block<4>(in, in_l, n, w, count, c0, 0xFFFF, lane, q);
        const std::size_t left = channels - c0;
        if (left == 0) continue;
        const __mmask16 tail = first16(left - (left - 1) / 16 * 16);
        switch ((left + 15) / 16) {
          case 1: pool_f32_block<1>(in, in_l, n, w, count, c0, tail, lane, q); break;
          case 2: pool_f32_block<2>(in, in_l, n, w, count, c0, tail, lane, q); break;
          case 3: pool_f32_block<3>(in, in_l, n, w, count, c0, tail, lane, q); break;
          default: pool_f32_block<4>(in, in_l, n, w, count, c0, tail, lane, q); break;
        }
      }
}

/// MAX_POOL_2D for 8-bit NHWC (S uint8_t or int8_t): the window's maximum of the stored
/// values, clamped to [lo, hi] (the activation in the stored domain).
template <class S>
NNHAL_TARGET_AVX512 void max_pool_q8_nhwc(const S* in, const nhwc_layout& in_l, S* out, const nhwc_layout& out_l,
                                          const types::sig::detail::pool2d::geometry& g, std::int32_t lo,
                                          std::int32_t hi) {
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  constexpr bool is_signed = std::is_signed_v<S>;
  const __m512i vlo = _mm512_set1_epi8(static_cast<char>(lo)), vhi = _mm512_set1_epi8(static_cast<char>(hi));
  const __m512i init = _mm512_set1_epi8(static_cast<char>(is_signed ? -128 : 0));
  for (std::size_t n = 0; n < out_l.n; ++n)
    for (std::size_t oh = 0; oh < out_l.h; ++oh)
      for (std::size_t ow = 0; ow < out_l.w; ++ow) {
        const pool_window w = pool_window::of(oh, ow, in_l, g);
        S* q = out + out_l.offset(n, oh, ow, 0);
        for (std::size_t c0 = 0; c0 < channels; c0 += 64) {
          const std::size_t left = channels - c0;
          const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
          __m512i acc = init;
          const S* row = in + in_l.offset(n, static_cast<std::size_t>(w.y_begin), static_cast<std::size_t>(w.x_begin), c0);
          for (std::int64_t y = w.y_begin; y < w.y_end; ++y, row += in_l.stride_h) {
            const S* p = row;
            for (std::int64_t x = w.x_begin; x < w.x_end; ++x, p += in_l.stride_w) {
              const __m512i v = _mm512_maskz_loadu_epi8(m, p);
              acc = is_signed ? _mm512_maskz_max_epi8(all64, acc, v) : _mm512_maskz_max_epu8(all64, acc, v);
            }
          }
          acc = is_signed ? _mm512_maskz_min_epi8(all64, _mm512_maskz_max_epi8(all64, acc, vlo), vhi)
                        : _mm512_maskz_min_epu8(all64, _mm512_maskz_max_epu8(all64, acc, vlo), vhi);
          _mm512_mask_storeu_epi8(q + c0, m, acc);
        }
      }
}

/// AVERAGE_POOL_2D for 8-bit NHWC (S uint8_t or int8_t) as average_pool_2d::quant_mean
/// computes it: the window's sum in the unsigned domain (stored value, + 128 when
/// signed), (sum + count / 2) / count, back to the stored domain, clamped to [lo, hi].
/// The quotient goes through double division, exact here: sum < 2^31 and count < 2^29,
/// so the rounded quotient never reaches the next integer. V vectors of 16 channels
/// from c0, the last masked by `tail`.
template <std::size_t V, class S>
NNHAL_TARGET_AVX512 inline void average_q8_block(const S* in, const nhwc_layout& in_l, std::size_t n,
                                                 const pool_window& w, std::int64_t count, std::size_t c0,
                                                 __mmask16 tail, __m512i lo, __m512i hi, S* q) {
  constexpr std::int32_t shift = std::is_signed_v<S> ? 128 : 0;
  const __m128i flip = _mm_set1_epi8(static_cast<char>(shift ? 0x80 : 0));
  __m512i acc[V];
#pragma GCC unroll 4
  for (std::size_t j = 0; j < V; ++j) acc[j] = _mm512_setzero_si512();
  for (std::int64_t y = w.y_begin; y < w.y_end; ++y) {
    const S* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(w.x_begin), c0);
    for (std::int64_t x = w.x_begin; x < w.x_end; ++x, p += in_l.stride_w) {
#pragma GCC unroll 4
      for (std::size_t j = 0; j < V; ++j) {
        const __mmask16 m = j + 1 < V ? __mmask16(0xFFFF) : tail;
        const __m128i b = _mm_xor_si128(_mm_maskz_loadu_epi8(m, p + 16 * j), flip);
        acc[j] = _mm512_add_epi32(acc[j], _mm512_maskz_cvtepu8_epi32(all16, b));
      }
    }
  }
  const __m512i half = _mm512_set1_epi32(static_cast<std::int32_t>(count / 2));
  const __m512d divisor = _mm512_set1_pd(static_cast<double>(count));
#pragma GCC unroll 4
  for (std::size_t j = 0; j < V; ++j) {
    const __m512i num = _mm512_add_epi32(acc[j], half);
    const __m256i lo8 =
        _mm512_maskz_cvttpd_epi32(all8, _mm512_div_pd(_mm512_maskz_cvtepi32_pd(all8, _mm512_maskz_extracti64x4_epi64(0xF, num, 0)), divisor));
    const __m256i hi8 = _mm512_maskz_cvttpd_epi32(
        all8, _mm512_div_pd(_mm512_maskz_cvtepi32_pd(all8, _mm512_maskz_extracti64x4_epi64(0xF, num, 1)), divisor));
    __m512i mean = _mm512_maskz_inserti64x4(all8, _mm512_castsi256_si512(lo8), hi8, 1);
    mean = _mm512_sub_epi32(_mm512_maskz_min_epi32(all16, _mm512_maskz_max_epi32(all16, mean, lo), hi), _mm512_set1_epi32(shift));
    _mm_mask_storeu_epi8(q + c0 + 16 * j, j + 1 < V ? __mmask16(0xFFFF) : tail, _mm512_maskz_cvtepi32_epi8(all16, mean));
  }
}

template <class S>
NNHAL_TARGET_AVX512 void average_pool_q8_nhwc(const S* in, const nhwc_layout& in_l, S* out, const nhwc_layout& out_l,
                                              const types::sig::detail::pool2d::geometry& g, std::int32_t lo,
                                              std::int32_t hi) {
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  constexpr std::int32_t shift = std::is_signed_v<S> ? 128 : 0;
  const __m512i vlo = _mm512_set1_epi32(lo + shift), vhi = _mm512_set1_epi32(hi + shift);
  for (std::size_t n = 0; n < out_l.n; ++n)
    for (std::size_t oh = 0; oh < out_l.h; ++oh)
      for (std::size_t ow = 0; ow < out_l.w; ++ow) {
        const pool_window w = pool_window::of(oh, ow, in_l, g);
        const std::int64_t count = w.count();
        S* q = out + out_l.offset(n, oh, ow, 0);
        std::size_t c0 = 0;
        for (; c0 + 64 <= channels; c0 += 64) average_q8_block<4>(in, in_l, n, w, count, c0, 0xFFFF, vlo, vhi, q);
        const std::size_t left = channels - c0;
        if (left == 0) continue;
        const __mmask16 tail = first16(left - (left - 1) / 16 * 16);
        switch ((left + 15) / 16) {
          case 1: average_q8_block<1>(in, in_l, n, w, count, c0, tail, vlo, vhi, q); break;
          case 2: average_q8_block<2>(in, in_l, n, w, count, c0, tail, vlo, vhi, q); break;
          case 3: average_q8_block<3>(in, in_l, n, w, count, c0, tail, vlo, vhi, q); break;
          default: average_q8_block<4>(in, in_l, n, w, count, c0, tail, vlo, vhi, q); break;
        }
      }
}

}  // namespace nnhal::ops::kernels::pool_norm::avx512
#endif
