// Byte-level copy loops shared by the data-movement operations (SQUEEZE, SPLIT, SLICE,
// STRIDED_SLICE, TRANSPOSE, TILE, GATHER, PACK, REVERSE, the lookups): their semantics do
// not depend on the element type, so each loop is written once over the element size.
// The destination is always dense row-major; contiguous source runs become one memcpy.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::kernels {

/// Highest rank the strided helpers accept (REVERSE allows 8; the HAL ops here allow <= 8).
inline constexpr std::size_t max_copy_rank = 8;

/// A strided walk over source bytes: `extent[d]` steps of `stride[d]` bytes (may be
/// negative) in dimension d, visited in row-major order. The caller guarantees that every
/// visited element lies inside the source buffer.
struct strided_source {
  const std::byte* base = nullptr;
  std::size_t rank = 0;
  std::array<std::size_t, max_copy_rank> extent{};
  std::array<std::ptrdiff_t, max_copy_rank> stride{};
};

/// Dense row-major byte strides of `dims` for elements of `es` bytes.
inline std::array<std::ptrdiff_t, max_copy_rank> dense_strides(std::span<const std::uint32_t> dims,
                                                               std::size_t es) noexcept {
  std::array<std::ptrdiff_t, max_copy_rank> s{};
  std::ptrdiff_t step = static_cast<std::ptrdiff_t>(es);
  for (std::size_t k = dims.size(); k-- > 0;) {
    s[k] = step;
    step *= static_cast<std::ptrdiff_t>(dims[k]);
  }
  return s;
}

/// The walk over all of dense row-major tensor `t` (rank <= max_copy_rank), elements of
/// `es` bytes; ops then move its base and change extents or strides.
inline strided_source dense_source(const operand_desc& t, std::size_t es) noexcept {
  strided_source s;
  s.base = t.value;
  s.rank = t.dims.size();
  const auto strides = dense_strides(t.dims, es);
  for (std::size_t d = 0; d < s.rank; ++d) {
    s.extent[d] = t.dims[d];
    s.stride[d] = strides[d];
  }
  return s;
}

inline std::size_t product(std::span<const std::uint32_t> dims, std::size_t from = 0,
                           std::size_t to = static_cast<std::size_t>(-1)) noexcept {
  std::size_t n = 1;
  for (std::size_t k = from; k < dims.size() && k < to; ++k) n *= dims[k];
  return n;
}

namespace detail {

// n elements of ES bytes, source stepping `step` bytes, destination dense. A fixed-size
// memcpy compiles to one load and one store.
template <std::size_t ES>
inline void copy_elements(std::byte* dst, const std::byte* src, std::size_t n, std::ptrdiff_t step) noexcept {
  for (std::size_t i = 0; i < n; ++i, src += step, dst += ES) std::memcpy(dst, src, ES);
}

inline void copy_elements(std::byte* dst, const std::byte* src, std::size_t n, std::ptrdiff_t step,
                          std::size_t es) noexcept {
  switch (es) {
    case 1: return copy_elements<1>(dst, src, n, step);
    case 2: return copy_elements<2>(dst, src, n, step);
    case 4: return copy_elements<4>(dst, src, n, step);
    case 8: return copy_elements<8>(dst, src, n, step);
    default:
      for (std::size_t i = 0; i < n; ++i, src += step, dst += es) std::memcpy(dst, src, es);
  }
}

/// Drops unit extents and merges neighbours whose strides chain (stride[d] ==
/// stride[d+1] * extent[d+1]), so a dense source collapses to one dimension.
inline strided_source simplify(const strided_source& in) noexcept {
  strided_source out;
  out.base = in.base;
  for (std::size_t d = 0; d < in.rank; ++d) {
    if (in.extent[d] == 1) continue;
    out.extent[out.rank] = in.extent[d];
    out.stride[out.rank] = in.stride[d];
    ++out.rank;
  }
  std::size_t r = 0;
  for (std::size_t d = 0; d < out.rank; ++d) {
    if (r > 0 && out.stride[r - 1] == out.stride[d] * static_cast<std::ptrdiff_t>(out.extent[d])) {
      out.extent[r - 1] *= out.extent[d];
      out.stride[r - 1] = out.stride[d];
      continue;
    }
    out.extent[r] = out.extent[d];
    out.stride[r] = out.stride[d];
    ++r;
  }
  out.rank = r;
  return out;
}

}  // namespace detail

#if NNHAL_HAVE_X86_KERNELS
NNHAL_TARGET_AVX512 inline void copy_rows_avx512(std::byte* dst, std::size_t ds, const std::byte* src,
                                                 std::ptrdiff_t ss, std::size_t rows, std::size_t bytes) noexcept {
  const std::size_t full = bytes / 64 * 64;
  const __mmask64 tail = (__mmask64{1} << (bytes % 64)) - 1;
  for (std::size_t r = 0; r < rows; ++r) {  // pointers formed per row: never past the last one
    std::byte* d = dst + r * ds;
    const std::byte* s = src + static_cast<std::ptrdiff_t>(r) * ss;
    for (std::size_t i = 0; i < full; i += 64) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
    if (tail) _mm512_mask_storeu_epi8(d + full, tail, _mm512_maskz_loadu_epi8(tail, s + full));
  }
}
#endif

/// `rows` runs of `bytes` bytes, `ss` bytes apart in src (may be negative), to `ds` bytes
/// apart in dst (e.g. each input's share of the output rows of CONCATENATION). Short runs
/// are moved by vector loads and stores in line rather than a memcpy call each.
inline void copy_rows(std::byte* dst, std::size_t ds, const std::byte* src, std::ptrdiff_t ss, std::size_t rows,
                      std::size_t bytes) noexcept {
  if (bytes == 0) return;
#if NNHAL_HAVE_X86_KERNELS
  if (bytes <= 512 && simd::cpu().avx512) return copy_rows_avx512(dst, ds, src, ss, rows, bytes);
#endif
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(dst + r * ds, src + static_cast<std::ptrdiff_t>(r) * ss, bytes);
}

/// Copies the elements `src` walks, in row-major order, densely into `dst`. Returns the
/// number of bytes written. Never touches memory outside the walk and the dense output.
/// Contiguous innermost runs are moved a dimension of them at a time (copy_rows).
inline std::size_t copy_strided(std::byte* dst, const strided_source& src, std::size_t es) noexcept {
  for (std::size_t d = 0; d < src.rank; ++d)
    if (src.extent[d] == 0) return 0;
  const strided_source s = detail::simplify(src);
  if (s.rank == 0) {
    std::memcpy(dst, s.base, es);
    return es;
  }
  const std::size_t last = s.rank - 1;
  const std::size_t inner = s.extent[last];
  const bool contiguous = s.stride[last] == static_cast<std::ptrdiff_t>(es);
  const std::size_t run_bytes = inner * es;
  // One block: the last dimension, or the last two when its runs are contiguous.
  const std::size_t block_dims = contiguous && s.rank >= 2 ? 2 : 1, first = s.rank - block_dims;
  const std::size_t rows = block_dims == 2 ? s.extent[first] : 1;
  std::size_t outer = 1;
  for (std::size_t d = 0; d < first; ++d) outer *= s.extent[d];
  std::array<std::size_t, max_copy_rank> idx{};
  const std::byte* p = s.base;
  std::byte* q = dst;
  for (std::size_t o = 0; o < outer; ++o) {
    if (block_dims == 2) copy_rows(q, run_bytes, p, s.stride[first], rows, run_bytes);
    else if (contiguous) std::memcpy(q, p, run_bytes);
    else detail::copy_elements(q, p, inner, s.stride[last], es);
    q += rows * run_bytes;
    if (o + 1 == outer) break;  // do not step the source pointer past its last block
    // Odometer over the outer dimensions.
    for (std::size_t d = first; d-- > 0;) {
      p += s.stride[d];
      if (++idx[d] < s.extent[d]) break;
      idx[d] = 0;
      p -= s.stride[d] * static_cast<std::ptrdiff_t>(s.extent[d]);
    }
  }
  return outer * rows * run_bytes;
}

namespace detail {

// dst[c][r] = src[r][c] for one plane [rows, cols]: src rows `ss` bytes apart, dst rows
// `ds` bytes apart, elements of ES bytes, in square tiles so both sides stay within a few
// cache lines.
template <std::size_t ES>
inline void transpose_region(std::byte* dst, std::size_t ds, const std::byte* src, std::size_t ss, std::size_t rows,
                             std::size_t cols) noexcept {
  constexpr std::size_t tile = ES >= 4 ? 16 : 32;
  for (std::size_t tr = 0; tr < rows; tr += tile) {
    const std::size_t tr1 = std::min(rows, tr + tile);
    for (std::size_t tc = 0; tc < cols; tc += tile) {
      const std::size_t tc1 = std::min(cols, tc + tile);
      for (std::size_t c = tc; c < tc1; ++c) {
        std::byte* out = dst + c * ds + tr * ES;
        const std::byte* in = src + tr * ss + c * ES;
        for (std::size_t r = tr; r < tr1; ++r, out += ES, in += ss) std::memcpy(out, in, ES);
      }
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
// Mask of the first `n` of 64 bytes (n <= 64).
inline __mmask64 first_bytes(std::size_t n) noexcept { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

// The block of 16 rows of 64 bytes at src (rows `ss` bytes apart), as 16 x 16 4-byte
// elements, transposed in registers: r[j] becomes column j. An Edge block reads only the
// first `nr` rows and `bytes` bytes of each, the rest being zero (the block kernels below
// are likewise instantiated for whole blocks and, with masked loads and stores, for the
// partial ones at the plane's edges). Pairs of rows interleaved by element, then by element
// pair, then 128-bit lanes exchanged in two rounds (64 shuffles for 16 vectors).
template <bool Edge>
NNHAL_TARGET_AVX512 inline void transpose_16x16_x32_load(__m512 (&r)[16], const std::byte* src, std::size_t ss,
                                                         std::size_t nr, std::size_t bytes) noexcept {
  // (maskz forms with every lane set: GCC 12 reports the plain forms' pass-through operand
  // as uninitialized)
  constexpr __mmask16 all16 = 0xffff;
  constexpr __mmask8 all8 = 0xff;
  __m512 t[16];
  if constexpr (Edge) {
    const __mmask64 cols = first_bytes(bytes);
    for (std::size_t i = 0; i < 16; ++i)
      r[i] = i < nr ? _mm512_castsi512_ps(_mm512_maskz_loadu_epi8(cols, src + i * ss)) : _mm512_setzero_ps();
  } else {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * ss);
  }
#pragma GCC unroll 8
  for (std::size_t k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_maskz_unpacklo_ps(all16, r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_maskz_unpackhi_ps(all16, r[2 * k], r[2 * k + 1]);
  }
  // r[4m + c], 128-bit lane L: column 4L + c of rows 4m .. 4m + 3.
#pragma GCC unroll 4
  for (std::size_t m = 0; m < 4; ++m) {
    const __m512d a = _mm512_castps_pd(t[4 * m]), b = _mm512_castps_pd(t[4 * m + 1]);
    const __m512d c = _mm512_castps_pd(t[4 * m + 2]), d = _mm512_castps_pd(t[4 * m + 3]);
    r[4 * m] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, a, c));
    r[4 * m + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, a, c));
    r[4 * m + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, b, d));
    r[4 * m + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, b, d));
  }
#pragma GCC unroll 4
  for (std::size_t c = 0; c < 4; ++c) {  // lanes L of r[c], r[4 + c], r[8 + c], r[12 + c]: column 4L + c
    const __m512 v0 = _mm512_maskz_shuffle_f32x4(all16, r[c], r[4 + c], 0x88);
    const __m512 v1 = _mm512_maskz_shuffle_f32x4(all16, r[c], r[4 + c], 0xdd);
    const __m512 v2 = _mm512_maskz_shuffle_f32x4(all16, r[8 + c], r[12 + c], 0x88);
    const __m512 v3 = _mm512_maskz_shuffle_f32x4(all16, r[8 + c], r[12 + c], 0xdd);
    t[c] = _mm512_maskz_shuffle_f32x4(all16, v0, v2, 0x88);
    t[4 + c] = _mm512_maskz_shuffle_f32x4(all16, v1, v3, 0x88);
    t[8 + c] = _mm512_maskz_shuffle_f32x4(all16, v0, v2, 0xdd);
    t[12 + c] = _mm512_maskz_shuffle_f32x4(all16, v1, v3, 0xdd);
  }
#pragma GCC unroll 16
  for (std::size_t j = 0; j < 16; ++j) r[j] = t[j];
}

// The 16 x 16 block of 4-byte elements at src (rows `ss` bytes apart) transposed to dst
// (rows `ds` bytes apart); an Edge block: its first nr rows and nc columns.
template <bool Edge>
NNHAL_TARGET_AVX512 inline void transpose_16x16_x32(std::byte* dst, std::size_t ds, const std::byte* src,
                                                    std::size_t ss, std::size_t nr = 16, std::size_t nc = 16) noexcept {
  __m512 r[16];
  transpose_16x16_x32_load<Edge>(r, src, ss, nr, 4 * nc);
  const auto rows = static_cast<__mmask16>((1u << nr) - 1);
#pragma GCC unroll 16
  for (std::size_t j = 0; j < 16; ++j) {
    if constexpr (Edge) {
      if (j >= nc) break;
      if (nr < 16) _mm512_mask_storeu_ps(dst + j * ds, rows, r[j]);
      else _mm512_storeu_ps(dst + j * ds, r[j]);  // (masked stores cost more: only where needed)
    } else {
      _mm512_storeu_ps(dst + j * ds, r[j]);
    }
  }
}

// The 16 x 32 block of 2-byte elements at src (rows `ss` bytes apart) transposed to 32 rows
// of 16 at dst (`ds` bytes apart); an Edge block: its first nr rows and nc columns.
// Transposed as 16 x 16 pairs, column j of pairs holds output rows 2j (low halves) and
// 2j + 1 (high halves), split by two narrowing moves.
template <bool Edge>
NNHAL_TARGET_AVX512 inline void transpose_16x32_x16(std::byte* dst, std::size_t ds, const std::byte* src,
                                                    std::size_t ss, std::size_t nr = 16, std::size_t nc = 32) noexcept {
  constexpr __mmask16 all16 = 0xffff;
  __m512 r[16];
  transpose_16x16_x32_load<Edge>(r, src, ss, nr, 2 * nc);
  const auto rows = static_cast<__mmask16>((1u << nr) - 1);
#pragma GCC unroll 16
  for (std::size_t j = 0; j < 16; ++j) {
    const __m512i pairs = _mm512_castps_si512(r[j]);
    const __m256i even = _mm512_maskz_cvtepi32_epi16(all16, pairs);
    const __m256i odd = _mm512_maskz_cvtepi32_epi16(all16, _mm512_maskz_srli_epi32(all16, pairs, 16));
    if constexpr (Edge) {
      if (2 * j >= nc) break;
      if (nr < 16) _mm256_mask_storeu_epi16(dst + 2 * j * ds, rows, even);
      else _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * j * ds), even);
      if (2 * j + 1 >= nc) break;
      if (nr < 16) _mm256_mask_storeu_epi16(dst + (2 * j + 1) * ds, rows, odd);
      else _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + (2 * j + 1) * ds), odd);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 2 * j * ds), even);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + (2 * j + 1) * ds), odd);
    }
  }
}

// The 8 x 64 block of bytes at src (rows `ss` bytes apart) transposed to 64 rows of 8
// bytes at dst (`ds` bytes apart); an Edge block: its first nr rows and nc columns. The
// 8 x 8 matrix of 8-byte pieces transposed across the registers (three rounds of 64-bit
// permutes), then each piece's 8 x 8 bytes by one vpermb.
template <bool Edge>
NNHAL_TARGET_AVX512_VBMI inline void transpose_8x64_x8(std::byte* dst, std::size_t ds, const std::byte* src,
                                                       std::size_t ss, std::size_t nr = 8, std::size_t nc = 64) noexcept {
  __m512i r[8], t[8];
  const __mmask64 cols = first_bytes(nc);
  for (std::size_t i = 0; i < 8; ++i) {
    if constexpr (Edge) r[i] = i < nr ? _mm512_maskz_loadu_epi8(cols, src + i * ss) : _mm512_setzero_si512();
    else r[i] = _mm512_loadu_si512(src + i * ss);
  }
  // Round with distance h: rows i and i + h exchange the pieces whose index has bit h
  // set in the first and clear in the second.
  const __m512i lo1 = _mm512_set_epi64(14, 6, 12, 4, 10, 2, 8, 0), hi1 = _mm512_set_epi64(15, 7, 13, 5, 11, 3, 9, 1);
  const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  const __m512i lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  for (std::size_t i = 0; i < 8; i += 2) {
    t[i] = _mm512_permutex2var_epi64(r[i], lo1, r[i + 1]);
    t[i + 1] = _mm512_permutex2var_epi64(r[i], hi1, r[i + 1]);
  }
  for (std::size_t i : {0, 1, 4, 5}) {
    r[i] = _mm512_permutex2var_epi64(t[i], lo2, t[i + 2]);
    r[i + 2] = _mm512_permutex2var_epi64(t[i], hi2, t[i + 2]);
  }
  for (std::size_t i = 0; i < 4; ++i) {
    t[i] = _mm512_permutex2var_epi64(r[i], lo4, r[i + 4]);
    t[i + 4] = _mm512_permutex2var_epi64(r[i], hi4, r[i + 4]);
  }
  // Piece j of row i is now qword i of t[j]; out byte 8c + i <- byte 8i + c makes qword c
  // column 8j + c of the block, stored as 8 bytes of output row 8j + c.
  static constexpr auto swap_bytes = [] {
    std::array<std::uint8_t, 64> a{};
    for (std::size_t c = 0; c < 8; ++c)
      for (std::size_t i = 0; i < 8; ++i) a[8 * c + i] = static_cast<std::uint8_t>(8 * i + c);
    return a;
  }();
  const __m512i idx = _mm512_loadu_si512(swap_bytes.data());
  const auto rows = static_cast<__mmask16>((1u << nr) - 1);
  for (std::size_t j = 0; j < 8 && 8 * j < nc; ++j) {  // (no row pointer formed past the last)
    const __m512i v = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, idx, t[j]);  // maskz: as above
    std::byte* row = dst + 8 * j * ds;
    const __m128i q[4] = {_mm512_maskz_extracti32x4_epi32(0xf, v, 0), _mm512_maskz_extracti32x4_epi32(0xf, v, 1),
                          _mm512_maskz_extracti32x4_epi32(0xf, v, 2), _mm512_maskz_extracti32x4_epi32(0xf, v, 3)};
    for (std::size_t c = 0; c < 8; c += 2) {  // output rows 8j + c and 8j + c + 1
      const __m128i high = _mm_unpackhi_epi64(q[c / 2], q[c / 2]);
      if constexpr (Edge) {
        if (8 * j + c >= nc) break;
        if (nr < 8) _mm_mask_storeu_epi8(row + c * ds, rows, q[c / 2]);
        else _mm_storel_epi64(reinterpret_cast<__m128i*>(row + c * ds), q[c / 2]);
        if (8 * j + c + 1 >= nc) break;
        if (nr < 8) _mm_mask_storeu_epi8(row + (c + 1) * ds, rows, high);
        else _mm_storel_epi64(reinterpret_cast<__m128i*>(row + (c + 1) * ds), high);
      } else {
        // (not _mm_storeh_pd for the high half: it stores through a double*, which need not
        // be aligned here)
        _mm_storel_epi64(reinterpret_cast<__m128i*>(row + c * ds), q[c / 2]);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(row + (c + 1) * ds), high);
      }
    }
  }
}
#endif

/// One plane [rows, cols] of elements of `es` bytes (N: es known at compile time, 0: not)
/// to [cols, rows], element by element (for elements too large for transpose_tiles). The
/// longer side is the outer loop: the short side's few streams are each read or written
/// in order and every line is touched once (the other order would pass over the whole
/// plane once per element of the short side).
template <std::size_t N>
void transpose_elements(std::byte* dst, std::size_t ds, const std::byte* src, std::size_t ss, std::size_t rows,
                        std::size_t cols, std::size_t es) noexcept {
  auto copy = [&](std::size_t r, std::size_t c) { std::memcpy(dst + c * ds + r * es, src + r * ss + c * es, N ? N : es); };
  if (rows >= cols) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) copy(r, c);
  } else {
    for (std::size_t c = 0; c < cols; ++c)
      for (std::size_t r = 0; r < rows; ++r) copy(r, c);
  }
}

// One plane [rows, cols] (src rows `ss` bytes apart) to [cols, rows] (dst rows `ds` bytes
// apart): by the AVX-512 kernels in 16 x 16 blocks of 4-byte elements, 16 x 32 of 2-byte
// ones or 8 x 64 of bytes when the CPU has them, otherwise by transpose_region.
template <std::size_t ES>
inline void transpose_tiles(std::byte* dst, std::size_t ds, const std::byte* src, std::size_t ss, std::size_t rows,
                            std::size_t cols) noexcept {
#if NNHAL_HAVE_X86_KERNELS
  // Whole blocks of 16 rows of one register (8 rows for bytes), then the partial blocks of
  // the right and bottom edges.
  if constexpr (ES == 4 || ES == 2) {
    if (simd::cpu().avx512) {
      constexpr std::size_t width = 64 / ES;
      const auto block = [&]<bool Edge>(std::size_t r, std::size_t c) {
        const std::size_t nr = std::min<std::size_t>(16, rows - r), nc = std::min(width, cols - c);
        std::byte* d = dst + c * ds + r * ES;
        const std::byte* s = src + r * ss + c * ES;
        if constexpr (ES == 4) transpose_16x16_x32<Edge>(d, ds, s, ss, nr, nc);
        else transpose_16x32_x16<Edge>(d, ds, s, ss, nr, nc);
      };
      const std::size_t rv = rows / 16 * 16, cv = cols / width * width;
      for (std::size_t r = 0; r < rv; r += 16)
        for (std::size_t c = 0; c < cv; c += width) block.template operator()<false>(r, c);
      for (std::size_t r = 0; cv < cols && r < rows; r += 16) block.template operator()<true>(r, cv);
      for (std::size_t c = 0; rv < rows && c < cv; c += width) block.template operator()<true>(rv, c);
      return;
    }
  } else if constexpr (ES == 1) {
    if (simd::cpu().avx512_vbmi) {
      const auto block = [&]<bool Edge>(std::size_t r, std::size_t c) {
        transpose_8x64_x8<Edge>(dst + c * ds + r, ds, src + r * ss + c, ss, std::min<std::size_t>(8, rows - r),
                                std::min<std::size_t>(64, cols - c));
      };
      const std::size_t rv = rows / 8 * 8, cv = cols / 64 * 64;
      for (std::size_t c = 0; c < cv; c += 64)
        for (std::size_t r = 0; r < rv; r += 8) block.template operator()<false>(r, c);
      for (std::size_t r = 0; cv < cols && r < rows; r += 8) block.template operator()<true>(r, cv);
      for (std::size_t c = 0; rv < rows && c < cv; c += 64) block.template operator()<true>(rv, c);
      return;
    }
  }
#endif
  transpose_region<ES>(dst, ds, src, ss, rows, cols);
}

/// Byte-permute tables for a plane with a narrow side of n <= 4 lines whose other side is
/// dense: few rows written as one dense run (an interleave: BATCH_TO_SPACE_ND in NCHW),
/// or few dense columns read into as many rows (a deinterleave: NHWC -> NCHW with 3
/// channels). Either way n 64-byte source vectors become n 64-byte output vectors, output
/// vector k taking byte p from byte idx[k][j][p] of source vector j where mask[k][j] has
/// bit p, so a group costs n loads, n * n byte permutes and n stores.
struct narrow_plane {
  static constexpr std::size_t max_lines = 4;
  std::size_t n = 0;
  bool interleave = false;
  alignas(64) std::uint8_t idx[max_lines][max_lines][64] = {};
  std::uint64_t mask[max_lines][max_lines] = {};

  /// Tables for elements of `es` bytes (1, 2, 4 or 8).
  narrow_plane(std::size_t lines, bool inter, std::size_t es) noexcept : n(lines), interleave(inter) {
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t p = 0; p < 64; ++p) {
        std::size_t j = 0, from = 0;
        if (interleave) {  // output byte k*64 + p is column e / n of row e % n
          const std::size_t g = k * 64 + p, e = g / es;
          j = e % n;
          from = (e / n) * es + g % es;
        } else {  // output row k, element p / es, is dense source element (p / es) * n + k
          const std::size_t g = ((p / es) * n + k) * es + p % es;
          j = g / 64;
          from = g % 64;
        }
        idx[k][j][p] = static_cast<std::uint8_t>(from);
        mask[k][j] |= std::uint64_t{1} << p;
      }
  }
};

#if NNHAL_HAVE_X86_KERNELS
/// dst[c][r] = src[r][c] by narrow_plane `t` for a plane of `len` elements along the long
/// side (cols when interleaving, rows otherwise), in groups of 64 bytes per line; the last
/// group's loads and stores are masked.
NNHAL_TARGET_AVX512_VBMI inline void narrow_transpose(const narrow_plane& t, std::byte* dst, std::size_t ds,
                                                      const std::byte* src, std::size_t ss, std::size_t len,
                                                      std::size_t es) noexcept {
  const std::size_t n = t.n, per = 64 / es;  // elements of the long side per group
  for (std::size_t g0 = 0; g0 < len; g0 += per) {
    const std::size_t line = std::min<std::size_t>(64, (len - g0) * es);  // bytes of this group per line
    const std::size_t run = line * n;                                        // ... on the dense side
    __m512i in[narrow_plane::max_lines];
    for (std::size_t j = 0; j < n; ++j) {
      const std::byte* from = t.interleave ? src + j * ss + g0 * es : src + g0 * n * es + j * 64;
      const std::size_t valid = t.interleave ? line : (run > j * 64 ? std::min<std::size_t>(64, run - j * 64) : 0);
      in[j] = valid == 64 ? _mm512_loadu_si512(from) : _mm512_maskz_loadu_epi8(first_bytes(valid), from);
    }
    for (std::size_t k = 0; k < n; ++k) {
      __m512i v = _mm512_maskz_permutexvar_epi8(t.mask[k][0], _mm512_load_si512(t.idx[k][0]), in[0]);
      for (std::size_t j = 1; j < n; ++j)
        v = _mm512_mask_permutexvar_epi8(v, t.mask[k][j], _mm512_load_si512(t.idx[k][j]), in[j]);
      std::byte* to = t.interleave ? dst + g0 * n * es + k * 64 : dst + k * ds + g0 * es;
      const std::size_t valid = t.interleave ? (run > k * 64 ? std::min<std::size_t>(64, run - k * 64) : 0) : line;
      if (valid == 64) _mm512_storeu_si512(to, v);
      else if (valid) _mm512_mask_storeu_epi8(to, first_bytes(valid), v);
    }
  }
}
#endif

}  // namespace detail

/// A plane transpose set up once for many planes of one shape: dst[c][r] = src[r][c] for
/// the [rows, cols] elements of `es` bytes at src (rows `ss` bytes apart), dst rows `ds`
/// bytes apart. Planes with a narrow side of at most four lines and a dense other side
/// take the byte-permute path (detail::narrow_plane); the rest the cache tiles.
class plane_transpose {
 public:
  plane_transpose(std::size_t ds, std::size_t ss, std::size_t rows, std::size_t cols, std::size_t es) noexcept
      : ds_(ds), ss_(ss), rows_(rows), cols_(cols), es_(es) {
#if NNHAL_HAVE_X86_KERNELS
    if (!simd::cpu().avx512_vbmi || (es != 1 && es != 2 && es != 4 && es != 8)) return;
    constexpr std::size_t n = detail::narrow_plane::max_lines;
    if (rows >= 2 && rows <= n && ds == rows * es) {
      narrow_.emplace(rows, true, es);
      long_side_ = cols;
    } else if (cols >= 2 && cols <= n && ss == cols * es) {
      narrow_.emplace(cols, false, es);
      long_side_ = rows;
    }
#endif
  }

  void operator()(std::byte* dst, const std::byte* src) const noexcept {
#if NNHAL_HAVE_X86_KERNELS
    if (narrow_) return detail::narrow_transpose(*narrow_, dst, ds_, src, ss_, long_side_, es_);
#endif
    switch (es_) {
      case 1: return detail::transpose_tiles<1>(dst, ds_, src, ss_, rows_, cols_);
      case 2: return detail::transpose_tiles<2>(dst, ds_, src, ss_, rows_, cols_);
      case 4: return detail::transpose_tiles<4>(dst, ds_, src, ss_, rows_, cols_);
      case 8: return detail::transpose_tiles<8>(dst, ds_, src, ss_, rows_, cols_);
      case 16: return detail::transpose_elements<16>(dst, ds_, src, ss_, rows_, cols_, es_);
      case 32: return detail::transpose_elements<32>(dst, ds_, src, ss_, rows_, cols_, es_);
      case 64: return detail::transpose_elements<64>(dst, ds_, src, ss_, rows_, cols_, es_);
      default: return detail::transpose_elements<0>(dst, ds_, src, ss_, rows_, cols_, es_);
    }
  }

 private:
  std::size_t ds_, ss_, rows_, cols_, es_;
  std::size_t long_side_ = 0;  // with narrow_: the plane's extent along its dense side
  std::optional<detail::narrow_plane> narrow_;
};

/// One plane: dst[c][r] = src[r][c] for the [rows, cols] elements of `es` bytes at src
/// (rows `ss` bytes apart), dst rows `ds` bytes apart.
inline void transpose_plane(std::byte* dst, std::size_t ds, const std::byte* src, std::size_t ss, std::size_t rows,
                            std::size_t cols, std::size_t es) noexcept {
  plane_transpose(ds, ss, rows, cols, es)(dst, src);
}

/// `batches` dense matrices [rows, cols] in `src` become [cols, rows] in `dst` (the
/// NHWC <-> NCHW layouts are this with rows/cols = H*W and C).
inline void transpose_2d(std::byte* dst, const std::byte* src, std::size_t batches, std::size_t rows, std::size_t cols,
                         std::size_t es) noexcept {
  const std::size_t bytes = rows * cols * es;
  const plane_transpose plane(rows * es, cols * es, rows, cols, es);
  for (std::size_t b = 0; b < batches; ++b, src += bytes, dst += bytes) plane(dst, src);
}

namespace detail {

/// A permutation over collapsed dimensions: output dimension i reads input dimension
/// perm[i] of the collapsed input extents `in_dims`.
struct collapsed_perm {
  std::size_t rank = 0;
  std::array<std::size_t, max_copy_rank> in_dims{};
  std::array<std::size_t, max_copy_rank> perm{};
};

/// Drops unit extents and merges output positions that read consecutive input dimensions:
/// [N, H, W, C] with perm (0, 3, 1, 2) collapses to [N, H*W, C] with (0, 2, 1).
inline collapsed_perm collapse(std::span<const std::size_t> dims, std::span<const std::size_t> perm) noexcept {
  const std::size_t n = dims.size();
  std::array<std::size_t, max_copy_rank> index{};  // input dim -> kept position
  std::array<std::size_t, max_copy_rank> kept{};   // kept extents
  std::array<bool, max_copy_rank> unit{};
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    unit[i] = dims[i] == 1;
    if (!unit[i]) {
      index[i] = m;
      kept[m++] = dims[i];
    }
  }
  std::array<std::size_t, max_copy_rank> start{}, length{};
  std::size_t groups = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (unit[perm[i]]) continue;
    const std::size_t p = index[perm[i]];
    if (groups > 0 && p == start[groups - 1] + length[groups - 1]) {
      ++length[groups - 1];
    } else {
      start[groups] = p;
      length[groups] = 1;
      ++groups;
    }
  }
  collapsed_perm r;
  r.rank = groups;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t position = 0;  // the group's place in input order
    for (std::size_t h = 0; h < groups; ++h) position += start[h] < start[g] ? 1 : 0;
    std::size_t extent = 1;
    for (std::size_t t = start[g]; t < start[g] + length[g]; ++t) extent *= kept[t];
    r.perm[g] = position;
    r.in_dims[position] = extent;
  }
  return r;
}

}  // namespace detail

/// dst (dense) = the dense row-major tensor `src` of extents `dims` (rank <= max_copy_rank,
/// elements of `es` bytes) with its dimensions permuted: output dimension i is input
/// dimension perm[i]. After collapsing, an identity is one memcpy, a permutation keeping the
/// input's last dimension last a strided gather of contiguous runs, and any other one a
/// batch of 2-D transposes of strided planes in cache tiles. TRANSPOSE, and the block
/// rearrangements (DEPTH_TO_SPACE, BATCH_TO_SPACE_ND, ...) viewed as higher-rank tensors.
inline void permute(std::byte* dst, const std::byte* src, std::span<const std::size_t> dims,
                    std::span<const std::size_t> perm, std::size_t es) noexcept {
  std::size_t total = 1;
  for (auto d : dims) total *= d;
  if (total == 0) return;
  const detail::collapsed_perm c = detail::collapse(dims, perm);
  bool identity = true;
  for (std::size_t i = 0; i < c.rank; ++i) identity = identity && c.perm[i] == i;
  if (identity) {
    std::memcpy(dst, src, total * es);
    return;
  }
  std::array<std::ptrdiff_t, max_copy_rank> in_stride{}, out_stride{};
  std::ptrdiff_t step = static_cast<std::ptrdiff_t>(es), out_step = step;
  for (std::size_t k = c.rank; k-- > 0;) {
    in_stride[k] = step;
    step *= static_cast<std::ptrdiff_t>(c.in_dims[k]);
    out_stride[k] = out_step;
    out_step *= static_cast<std::ptrdiff_t>(c.in_dims[c.perm[k]]);
  }
  const std::size_t last = c.rank - 1;
  if (c.perm[last] == last) {  // contiguous runs of the input's last dimension: a strided gather
    strided_source s;
    s.base = src;
    s.rank = c.rank;
    for (std::size_t i = 0; i < c.rank; ++i) {
      s.extent[i] = c.in_dims[c.perm[i]];
      s.stride[i] = in_stride[c.perm[i]];
    }
    copy_strided(dst, s, es);
    return;
  }
  // Otherwise planes: the output's last dimension reads input dimension `rows_dim`, and the
  // input's last dimension lands at output position `cols_at`; every other output position
  // indexes a plane, visited in output order.
  const std::size_t rows_dim = c.perm[last];
  std::size_t cols_at = 0;
  while (c.perm[cols_at] != last) ++cols_at;
  std::array<std::size_t, max_copy_rank> extent{}, idx{};
  std::array<std::ptrdiff_t, max_copy_rank> src_step{}, dst_step{};
  std::size_t batch_rank = 0, planes = 1;
  for (std::size_t i = 0; i < last; ++i) {
    if (i == cols_at) continue;
    extent[batch_rank] = c.in_dims[c.perm[i]];
    src_step[batch_rank] = in_stride[c.perm[i]];
    dst_step[batch_rank] = out_stride[i];
    planes *= extent[batch_rank++];
  }
  const std::size_t rows = c.in_dims[rows_dim], cols = c.in_dims[last];
  const auto ss = static_cast<std::size_t>(in_stride[rows_dim]), ds = static_cast<std::size_t>(out_stride[cols_at]);
  const plane_transpose plane(ds, ss, rows, cols, es);
  std::ptrdiff_t src_off = 0, dst_off = 0;
  for (std::size_t p = 0;;) {
    plane(dst + dst_off, src + src_off);
    if (++p == planes) break;
    for (std::size_t d = batch_rank; d-- > 0;) {  // odometer over the plane indices
      src_off += src_step[d];
      dst_off += dst_step[d];
      if (++idx[d] < extent[d]) break;
      idx[d] = 0;
      src_off -= src_step[d] * static_cast<std::ptrdiff_t>(extent[d]);
      dst_off -= dst_step[d] * static_cast<std::ptrdiff_t>(extent[d]);
    }
  }
}

/// Writes `count` copies of the `bytes`-long block at `dst` right after it (the block
/// is replicated in doubling memcpys).
inline void replicate_block(std::byte* dst, std::size_t bytes, std::size_t count) noexcept {
  if (bytes == 0 || count == 0) return;
  std::size_t done = bytes;  // bytes already valid at dst
  const std::size_t total = bytes * (count + 1);
  while (done < total) {
    const std::size_t n = std::min(done, total - done);
    std::memcpy(dst + done, dst, n);
    done += n;
  }
}

/// Fills `count` elements of `es` bytes at dst with the element at `value`.
inline void fill_bytes(std::byte* dst, const std::byte* value, std::size_t count, std::size_t es) noexcept {
  if (count == 0) return;
  std::memcpy(dst, value, es);
  replicate_block(dst, es, count - 1);
}

/// RESHAPE, SQUEEZE and EXPAND_DIMS: the output holds the input's bytes under other
/// extents, so the kernel is one copy, or none when both are one buffer (the memory plan
/// aliases temporaries: exec/prepared_model.hpp plan_memory).
inline void copy_as_is(const kernel_io& io) noexcept {
  const std::size_t bytes = io.in[0].element_count() * types::type_info(io.in[0].type).element_size;
  if (bytes != 0 && io.out_data[0] != io.in[0].value) std::memmove(io.out_data[0], io.in[0].value, bytes);
}

/// Binds `make(tag)` for the element types the data-movement operations share (f32, f16,
/// i32, qu8, qs8), chosen by operand type `t`; unsupported(c) for any other.
template <class MakeKernel>
types::result<kernel> bind_by_element(const bind_context& c, types::OperandType t, MakeKernel make) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, t, make);
}

/// Size in bytes of one element of tag E.
template <types::element E>
inline constexpr std::size_t element_bytes = sizeof(typename E::storage);

}  // namespace nnhal::ops::kernels
