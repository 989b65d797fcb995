// AVX-512 GEMM kernels of the conv family (CONV_2D, GROUPED_CONV_2D with one group,
// FULLY_CONNECTED): register-blocked micro-kernels, FMA for float32 and VNNI (vpdpbusd)
// for quant8, over GEMM rows that are output pixels or batch rows. A conv row lists one
// input pointer per filter tap (a 1x1 conv reads the NHWC input in place; a padding tap
// points at a row holding the padding value), so there is no im2col, except for filters
// with few input channels (the first layer of an image model), gathered into a per-thread
// scratch so the K loop is long. Filters are packed
// once, at bind, when they are constants. Intrinsics live in functions compiled for
// AVX-512 by target attributes: bind() picks them from simd::cpu(), whatever the TU's flags.
// CPUs without AVX-512 bind AVX2 micro-kernels over the same packings and rows (gemm_isa)
// instead of the portable xsimd GEMM of the build's instruction set: float32 with FMA, quant8
// with AVX-VNNI's vpdpbusd on ymm where the CPU has it, else with vpmaddwd on the 16-bit
// halves of the bytes (exact too), and the fixed-point requantization only. CPUs with AMX
// (and an OS that lets the process use its tiles) run quant8 GEMMs whose rows are evenly
// spaced (1x1 convs, im2col rows, FULLY_CONNECTED and BATCH_MATMUL of 32 rows or more) on
// the tiles, reading the same packing: a VNNI panel's groups of 4 bytes are a weight tile's rows.
//  - float32: the reference's products summed in another order (float rounding only);
//  - quant8: exact int32 sums wrapping like the reference's, then the same fixed-point
//    requantization (q8_lanes: a float path proven equal to it, the fixed point where a
//    result lies next to a rounding boundary): bit-exact with reference().
#pragma once

#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/ops/simd/aligned.hpp"
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "nnhal/ops/kernels/q8_lanes_avx512.hpp"
#include "nnhal/ops/simd/fixed_point_avx2.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::kernels::conv::avx512 {

/// Output channels per packed panel (16 float or int32 lanes per vector) for `out_c`:
/// 64 unless panels of 32 pad fewer channels (80 channels: 96 columns, not 128; one core,
/// conv_bench's 3 groups of 80: float32 267 -> 214 us, quant8 about 14% less; panels of
/// 16 were no faster there).
constexpr std::size_t panel_width(std::size_t out_c) noexcept {
  if (out_c <= 16) return 16;
  if (out_c <= 32) return 32;
  return (out_c + 31) / 32 * 32 < (out_c + 63) / 64 * 64 ? 32 : 64;
}
/// GEMM rows per micro-kernel call for a panel of NV vectors (NV * MR accumulators <= 24).
constexpr std::size_t rows_per_tile(std::size_t nv) noexcept { return nv == 4 ? 6 : 8; }
/// Rows per cache block: the block's input stays in L2 while every panel passes over it.
constexpr std::size_t block_rows(std::size_t row_bytes, std::size_t mr) noexcept {
  const std::size_t rows = (std::size_t{256} << 10) / (row_bytes ? row_bytes : 1);
  return rows < mr ? mr : rows / mr * mr;
}
/// The instruction set a GEMM runs its micro-kernels in (chosen at bind): all read the
/// same packed panels, so a packing found in a compilation cache serves any of them.
/// avx512: float32 AVX-512 FMA, quant8 AVX-512 VNNI; avx2: float32 AVX2 FMA, quant8 AVX2
/// vpmaddwd; avx_vnni: quant8 AVX-VNNI (ymm vpdpbusd); amx: quant8 AMX tiles (tdpbusd /
/// tdpbssd) where the rows allow them (amx_takes), else AVX-512 VNNI.
enum class gemm_isa { avx512, avx2, avx_vnni, amx };
/// The best float32 GEMM this CPU allows (simd::cpu()); nullopt: the portable xsimd one.
inline std::optional<gemm_isa> f32_gemm_isa() noexcept {
  const simd::cpu_features f = simd::cpu();
  if (f.avx512) return gemm_isa::avx512;
  if (f.avx2 && f.fma) return gemm_isa::avx2;
  return std::nullopt;
}
/// The best quant8 GEMM this CPU allows; nullopt: the portable xsimd one.
inline std::optional<gemm_isa> q8_gemm_isa() noexcept {
  const simd::cpu_features f = simd::cpu();
  if (f.amx_int8) return gemm_isa::amx;
  if (f.avx512_vnni) return gemm_isa::avx512;
  if (f.avx2 && f.fma) return f.avx_vnni ? gemm_isa::avx_vnni : gemm_isa::avx2;
  return std::nullopt;
}
/// GEMM rows per AVX2 micro-kernel call: 6 rows x 16 channels are 12 accumulators of the
/// 16 ymm registers, with two for the weights and one for the broadcast input.
constexpr std::size_t avx2_rows = 6;
/// Rows per micro-kernel call for `isa` and panels of NV vectors of 16: float32, and
/// quant8 (AVX2 without VNNI: 4 rows x 2 ymm accumulators, with 4 registers of weight
/// halves and 2 of input halves).
constexpr std::size_t tile_rows(gemm_isa isa, std::size_t nv) noexcept {
  return isa == gemm_isa::avx512 ? rows_per_tile(nv) : avx2_rows;
}
constexpr std::size_t q8_tile_rows(gemm_isa isa, std::size_t nv) noexcept {
  if (isa == gemm_isa::amx) return 32;  // two tiles of 16 rows
  return isa == gemm_isa::avx512 ? rows_per_tile(nv) : (isa == gemm_isa::avx_vnni ? avx2_rows : 4);
}

constexpr __mmask16 lanes_mask(std::size_t n) noexcept {
  return n >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << n) - 1u);
}

// ---------------------------------------------------------------------------------
// GEMM rows: where each row's input comes from
// ---------------------------------------------------------------------------------

/// Rows of a dense matrix (FULLY_CONNECTED, or a 1x1 stride-1 unpadded NHWC conv): one tap.
template <class T>
struct dense_rows {
  const T* a;
  std::size_t lda;
  std::size_t taps() const noexcept { return 1; }
  /// Elements the micro-kernel reads per row and tap for `cin` inputs (rows_k concept).
  static constexpr std::size_t row_k(std::size_t cin) noexcept { return cin; }
  /// ptrs[(blk * taps + t) * mr + m] for the rows [r0, r0 + n); a tail block repeats its last row.
  void fill(std::size_t r0, std::size_t n, std::size_t mr, const T** ptrs) const noexcept {
    for (std::size_t i = 0; i < (n + mr - 1) / mr * mr; ++i) ptrs[i] = a + (r0 + (i < n ? i : n - 1)) * lda;
  }
};

/// Rows of an NHWC convolution: row r is output pixel r (batch, oy, ox flattened), one
/// pointer per filter tap; taps outside the input point at `pad` (in_c padding values).
template <class T>
struct conv_rows {
  const geometry* g;
  const T* in;
  const T* pad;
  std::size_t taps() const noexcept { return std::size_t{g->filter_h} * g->filter_w; }
  static constexpr std::size_t row_k(std::size_t cin) noexcept { return cin; }
  void fill(std::size_t r0, std::size_t n, std::size_t mr, const T** ptrs) const noexcept {
    const std::size_t taps_n = taps(), ow = g->out_w, oh = g->out_h;
    std::size_t ox = r0 % ow, oy = (r0 / ow) % oh, b = r0 / (ow * oh);
    const std::size_t blocks = (n + mr - 1) / mr;
    for (std::size_t i = 0; i < blocks * mr; ++i) {
      const std::size_t blk = i / mr, m = i % mr;
      const T** dst = ptrs + blk * taps_n * mr + m;
      if (i >= n) {  // tail block (the last row's block): repeat the last row
        const std::size_t last = (n - 1) % mr;
        for (std::size_t t = 0; t < taps_n; ++t) dst[t * mr] = ptrs[(blk * taps_n + t) * mr + last];
        continue;
      }
      const std::int64_t iy0 = static_cast<std::int64_t>(oy) * g->stride_h - g->pad_top;
      const std::int64_t ix0 = static_cast<std::int64_t>(ox) * g->stride_w - g->pad_left;
      std::size_t t = 0;
      for (std::size_t ky = 0; ky < g->filter_h; ++ky) {
        const std::int64_t iy = iy0 + static_cast<std::int64_t>(ky) * g->dil_h;
        const bool row_in = iy >= 0 && iy < g->in_h;
        for (std::size_t kx = 0; kx < g->filter_w; ++kx, ++t) {
          const std::int64_t ix = ix0 + static_cast<std::int64_t>(kx) * g->dil_w;
          dst[t * mr] = row_in && ix >= 0 && ix < g->in_w
                            ? in + ((b * g->in_h + static_cast<std::size_t>(iy)) * g->in_w +
                                    static_cast<std::size_t>(ix)) * g->in_c
                            : pad;
        }
      }
      if (++ox == ow) {
        ox = 0;
        if (++oy == oh) {
          oy = 0;
          ++b;
        }
      }
    }
  }
};

/// Output columns [lo, hi).
struct column_range {
  std::size_t lo = 0, hi = 0;
};
/// The output columns whose filter row lies inside the input horizontally (no dilation):
/// ox * stride_w - pad_left >= 0 and ox * stride_w - pad_left + filter_w <= in_w.
inline column_range inside_columns(const geometry& g) noexcept {
  const std::int64_t sw = g.stride_w, pl = g.pad_left, ow = g.out_w;
  const std::int64_t lo = std::min(ow, std::max<std::int64_t>(0, pl + sw - 1) / sw);
  const std::int64_t last = std::int64_t{g.in_w} - std::int64_t{g.filter_w} + pl;  // ox * sw <= last
  const std::int64_t hi = last < 0 ? lo : std::max(lo, std::min(ow, last / sw + 1));
  return {static_cast<std::size_t>(lo), static_cast<std::size_t>(hi)};
}

/// Where a fill of few-channel conv rows is: output pixel (b, oy, ox), its filter's first
/// input column ix0, and per filter row its input row (null: vertical padding).
template <class T>
struct pixel_walk {
  const geometry& g;
  const T* in;
  std::vector<const T*>& in_rows;
  std::size_t ox, oy, b;
  std::int64_t ix0 = 0;
  bool rows_in = false;  // every filter row of this output row inside the input

  pixel_walk(const geometry& g_, const T* in_, std::vector<const T*>& rows, std::size_t r0)
      : g(g_), in(in_), in_rows(rows), ox(r0 % g_.out_w), oy((r0 / g_.out_w) % g_.out_h), b(r0 / (std::size_t{g_.out_w} * g_.out_h)) {
    in_rows.resize(g.filter_h);
    start_row();
    ix0 = static_cast<std::int64_t>(ox) * g.stride_w - g.pad_left;
  }
  /// The output row's filter rows, set at its first pixel.
  void start_row() {
    const std::int64_t iy0 = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top;
    rows_in = true;
    for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
      const std::int64_t iy = iy0 + static_cast<std::int64_t>(ky) * g.dil_h;
      const bool in_y = iy >= 0 && iy < static_cast<std::int64_t>(g.in_h);
      in_rows[ky] = in_y ? in + (b * g.in_h + static_cast<std::size_t>(iy)) * g.in_w * g.in_c : nullptr;
      rows_in = rows_in && in_y;
    }
  }
  /// Moves on by `c` pixels of the output row (a whole row ends at its last pixel); `more`:
  /// rows follow, so a new output row needs its filter rows.
  void advance(std::size_t c, bool more) {
    ix0 += static_cast<std::int64_t>(c) * g.stride_w;
    if ((ox += c) == g.out_w) {
      ox = 0;
      ix0 = -static_cast<std::int64_t>(g.pad_left);
      if (++oy == g.out_h) {
        oy = 0;
        ++b;
      }
      if (more) start_row();
    }
  }
};

/// Rows of a conv with few input channels per tap, gathered (im2col) into a contiguous
/// [rows][taps * in_c] scratch: the micro-kernel then runs one long K loop instead of a
/// short one per tap. The scratch is per thread and lives until the thread's next fill.
/// 8-bit rows are zero-padded to a multiple of 4 elements, so the quant8 micro-kernel
/// reads whole groups of 4 (the packed filter's padding weights are zero).
template <class T>
struct im2col_rows {
  conv_rows<T> src;
  bool avx512 = true;  // copies with AVX-512 (false: plain copies, for the AVX2 GEMM)
  static constexpr std::size_t k_align = sizeof(T) == 1 ? 4 : 1;
  std::size_t taps() const noexcept { return 1; }
  static constexpr std::size_t row_k(std::size_t k) noexcept { return (k + k_align - 1) / k_align * k_align; }
  /// Elements from one row of the scratch to the next: 8-bit rows of at most 32 bytes take
  /// 32, so that one 64-byte load holds two whole rows (row_terms_32); others row_k(k).
  static constexpr std::size_t stride(std::size_t k) noexcept { return sizeof(T) == 1 && k <= 32 ? 32 : row_k(k); }
  /// Copies `len` elements (at most 64 bytes) with one masked load and store.
  NNHAL_TARGET_AVX512 static void copy_short(T* dst, const T* s, std::size_t len) noexcept {
    const std::size_t bytes = len * sizeof(T);
    const __mmask64 mask = bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1;
    _mm512_mask_storeu_epi8(dst, mask, _mm512_maskz_loadu_epi8(mask, s));
  }
  /// The same copy for any CPU.
  static void copy_short_plain(T* dst, const T* s, std::size_t len) noexcept { std::memcpy(dst, s, len * sizeof(T)); }
  /// `cnt` pixels' rows of `fh` runs (FH: fh known at compile time, 0: not) from offset
  /// `off` of each input row on, `step` apart, as 16-byte copies: row i's run ky to
  /// dst + i * ks + ky * len. Returns the end of the last row.
  template <std::size_t FH>
  static T* copy_runs(T* dst, const T* const* rows, std::size_t fh, std::size_t len, std::size_t ks, std::size_t off,
                      std::size_t step, std::size_t cnt) noexcept {
    constexpr std::size_t max_rows = FH ? FH : 1;
    const T* local[max_rows];  // the row pointers in registers: the char stores below could alias `rows`
    if constexpr (FH != 0)
      for (std::size_t ky = 0; ky < FH; ++ky) local[ky] = rows[ky];
    for (std::size_t c = 0; c < cnt; ++c, off += step, dst += ks) {
      if constexpr (FH != 0) {
#pragma GCC unroll 8
        for (std::size_t ky = 0; ky < FH; ++ky)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + ky * len),
                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(local[ky] + off)));
      } else {
        for (std::size_t ky = 0; ky < fh; ++ky)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + ky * len),
                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[ky] + off)));
      }
    }
    return dst;
  }

  void fill(std::size_t r0, std::size_t n, std::size_t mr, const T** ptrs) const {
    if (avx512) fill_avx512(r0, n, mr, ptrs);
    else fill_with<&copy_short_plain>(r0, n, mr, ptrs);
  }
  NNHAL_TARGET_AVX512 void fill_avx512(std::size_t r0, std::size_t n, std::size_t mr, const T** ptrs) const {
    fill_with<&copy_short>(r0, n, mr, ptrs);
  }
  /// The fill, copying short runs with `Copy` (inlined into each caller, and so compiled
  /// for its instruction set).
  template <void (*Copy)(T*, const T*, std::size_t) noexcept>
  [[gnu::always_inline]] inline void fill_with(std::size_t r0, std::size_t n, std::size_t mr, const T** ptrs) const {
    static thread_local simd::aligned_vector<T> buf;  // rows start on cache lines for the tile loads
    // Locals, not g's fields: T may be a char type, whose stores could alias them.
    const geometry& g = *src.g;
    const std::size_t cin = g.in_c, fh = g.filter_h, fw = g.filter_w, k = fh * fw * cin;
    const std::size_t in_h = g.in_h, in_w = g.in_w, len = fw * cin;
    const std::int64_t sw = g.stride_w, dw = g.dil_w;
    const T* const in = src.in;
    const T* const pad = src.pad;
    const std::size_t ks = stride(k), total = std::size_t{g.batches} * in_h * in_w * cin;
    // 16 bytes of slack: runs of at most 16 bytes copy whole 16-byte vectors. Grown only, so
    // blocks of alternating sizes do not clear it at every fill.
    if (buf.size() < n * ks + 16 / sizeof(T)) buf.resize(n * ks + 16 / sizeof(T));
    T* dst = buf.data();
    // Per filter row, its input row (null: padding), set at each output row's first pixel.
    static thread_local std::vector<const T*> in_rows;
    pixel_walk<T> at(g, in, in_rows, r0);
    // Short runs with every filter row inside: 16-byte copies, pixel after pixel, while
    // the last filter row's 16 bytes are inside the tensor. The bytes past a run are
    // overwritten by the next run or pixel (or lie in the slack). The row's padding is
    // left as it is: it meets zero weights, and row_terms reads only k bytes.
    const column_range inside = dw == 1 && len * sizeof(T) <= 16 ? inside_columns(g) : column_range{};
    const std::size_t step = static_cast<std::size_t>(sw) * cin;
    for (std::size_t i = 0; i < n;) {
      if (at.rows_in && at.ox >= inside.lo && at.ox < inside.hi) {
        const std::size_t last_row = static_cast<std::size_t>(in_rows[fh - 1] - in);
        const std::size_t first = static_cast<std::size_t>(at.ix0) * cin;
        std::size_t cnt = std::min(n - i, inside.hi - at.ox);
        while (cnt > 0 && last_row + first + (cnt - 1) * step + 16 / sizeof(T) > total) --cnt;
        if (cnt > 0) {
          switch (fh) {
            case 3: dst = copy_runs<3>(dst, in_rows.data(), fh, len, ks, first, step, cnt); break;
            case 5: dst = copy_runs<5>(dst, in_rows.data(), fh, len, ks, first, step, cnt); break;
            case 7: dst = copy_runs<7>(dst, in_rows.data(), fh, len, ks, first, step, cnt); break;
            default: dst = copy_runs<0>(dst, in_rows.data(), fh, len, ks, first, step, cnt); break;
          }
          i += cnt;
          at.advance(cnt, i < n);
          continue;
        }
      }
      const std::int64_t ix0 = at.ix0;
      // With every column inside and no horizontal dilation, a filter row is one run.
      const bool run = dw == 1 && ix0 >= 0 && ix0 + static_cast<std::int64_t>(fw) <= static_cast<std::int64_t>(in_w);
      for (std::size_t ky = 0; ky < fh; ++ky) {
        const T* const row = in_rows[ky];
        const bool row_in = row != nullptr;
        if (run && row_in && len * sizeof(T) <= 64) {
          Copy(dst, row + static_cast<std::size_t>(ix0) * cin, len);
          dst += len;
          continue;
        }
        if (run && row_in) {
          std::copy_n(row + static_cast<std::size_t>(ix0) * cin, len, dst);
          dst += len;
          continue;
        }
        for (std::size_t kx = 0; kx < fw; ++kx) {
          const std::int64_t ix = ix0 + static_cast<std::int64_t>(kx) * dw;
          const T* s = row_in && ix >= 0 && ix < static_cast<std::int64_t>(in_w) ? row + static_cast<std::size_t>(ix) * cin : pad;
          Copy(dst, s, cin);  // flat_filter(): cin < 16, so at most 64 bytes
          dst += cin;
        }
      }
      for (std::size_t c = k; c < ks; ++c) *dst++ = T{};
      ++i;
      at.advance(1, i < n);
    }
    for (std::size_t i = 0; i < (n + mr - 1) / mr * mr; ++i) ptrs[i] = buf.data() + (i < n ? i : n - 1) * ks;
  }
};

/// Rows of a float32 conv whose filter was packed flat (one tap of fh * fw * cin, see
/// flat_filter), read one filter row at a time: fh taps of fw * cin values. Where a filter
/// row lies inside the input (no horizontal dilation), its values are contiguous there and
/// the row points at them; one touching the padding is gathered into a per-thread scratch.
/// (The flat packing of fh * fw * cin values is the same as fh taps of fw * cin. Quant8
/// pads each tap's values to a multiple of 4, so it keeps im2col_rows.)
struct filter_row_rows {
  conv_rows<float> src;
  std::size_t taps() const noexcept { return src.g->filter_h; }
  std::size_t row_k(std::size_t k) const noexcept { return k / src.g->filter_h; }
  /// Points the taps of `cnt` rows (from slot m of `block` on) at offset `off` of each
  /// input row, `step` further per row (FH: fh known at compile time, 0: not).
  template <std::size_t FH>
  static void point_runs(const float**& block, std::size_t& m, std::size_t mr, const float* const* rows,
                         std::size_t fh, std::size_t off, std::size_t step, std::size_t cnt) noexcept {
    const float* local[FH ? FH : 1];  // in registers: the stores below could alias `rows`
    if constexpr (FH != 0)
      for (std::size_t ky = 0; ky < FH; ++ky) local[ky] = rows[ky];
    for (std::size_t c = 0; c < cnt; ++c, off += step) {
      if constexpr (FH != 0) {
#pragma GCC unroll 8
        for (std::size_t ky = 0; ky < FH; ++ky) block[ky * mr + m] = local[ky] + off;
      } else {
        for (std::size_t ky = 0; ky < fh; ++ky) block[ky * mr + m] = rows[ky] + off;
      }
      if (++m == mr) {
        m = 0;
        block += fh * mr;
      }
    }
  }

  void fill(std::size_t r0, std::size_t n, std::size_t mr, const float** ptrs) const {
    static thread_local simd::aligned_vector<float> scratch;
    static thread_local std::vector<const float*> in_rows;  // per filter row: its input row, or null (padding)
    const geometry& g = *src.g;
    const std::size_t cin = g.in_c, fh = g.filter_h, fw = g.filter_w, len = fw * cin;
    const std::int64_t in_w = g.in_w, sw = g.stride_w;
    if (scratch.size() < n * fh * len) scratch.resize(n * fh * len);  // grown only: not cleared at every fill
    float* gather = scratch.data();
    pixel_walk<float> at(g, src.in, in_rows, r0);
    // Row i's tap t goes to ptrs[(i / mr * fh + t) * mr + i % mr]: `block` is the first of
    // its block's, m = i % mr.
    const float** block = ptrs;
    std::size_t m = 0;
    const column_range inside = inside_columns(g);
    const std::size_t step = static_cast<std::size_t>(sw) * cin;
    for (std::size_t i = 0; i < n;) {
      if (at.rows_in && at.ox >= inside.lo && at.ox < inside.hi) {  // a run of pixels with every tap inside
        const std::size_t cnt = std::min(n - i, inside.hi - at.ox), off = static_cast<std::size_t>(at.ix0) * cin;
        switch (fh) {
          case 3: point_runs<3>(block, m, mr, in_rows.data(), fh, off, step, cnt); break;
          case 5: point_runs<5>(block, m, mr, in_rows.data(), fh, off, step, cnt); break;
          case 7: point_runs<7>(block, m, mr, in_rows.data(), fh, off, step, cnt); break;
          default: point_runs<0>(block, m, mr, in_rows.data(), fh, off, step, cnt); break;
        }
        i += cnt;
        at.advance(cnt, i < n);
        continue;
      }
      const std::int64_t ix0 = at.ix0;
      const bool inside_x = ix0 >= 0 && ix0 + static_cast<std::int64_t>(fw) <= in_w;
      for (std::size_t ky = 0; ky < fh; ++ky) {
        const float* row = in_rows[ky];
        if (row && inside_x) {
          block[ky * mr + m] = row + static_cast<std::size_t>(ix0) * cin;
          continue;
        }
        for (std::size_t kx = 0; kx < fw; ++kx) {
          const std::int64_t ix = ix0 + static_cast<std::int64_t>(kx);
          const float* s = row && ix >= 0 && ix < in_w ? row + static_cast<std::size_t>(ix) * cin : src.pad;
          std::copy_n(s, cin, gather + kx * cin);
        }
        block[ky * mr + m] = gather;
        gather += len;
      }
      if (++m == mr) {
        m = 0;
        block += fh * mr;
      }
      ++i;
      at.advance(1, i < n);
    }
    // A tail block repeats its last row.
    if (m != 0)
      for (const std::size_t last = m - 1; m < mr; ++m)
        for (std::size_t t = 0; t < fh; ++t) block[t * mr + m] = block[t * mr + last];
  }
};

/// Whether a filter with `taps` taps of `cin` channels is packed as one tap of taps * cin
/// (and its conv run through im2col_rows).
constexpr bool flat_filter(std::size_t taps, std::size_t cin) noexcept { return taps > 1 && cin < 16; }

/// Runs fn(r0, r1) over [0, rows) in blocks of `block` rows, in parallel when `par` has workers.
template <class Fn>
void for_blocks(std::size_t rows, std::size_t block, exec::parallel_context* par, Fn&& fn) {
  const std::size_t blocks = (rows + block - 1) / block;
  auto run = [&](std::size_t b0, std::size_t b1) { fn(b0 * block, std::min(rows, b1 * block)); };
  if (par && par->concurrency() > 1 && blocks > 1) par->parallel_for(blocks, 1, run);
  else run(0, blocks);
}

/// Runs fn(r0, r1, p0, p1) over output rows [0, rows) in blocks of `block` rows and the
/// filter's panels [0, panels), in parallel when `par` has workers and the GEMM has at
/// least `split_work` multiply-adds (below that, waking a worker costs more than it saves;
/// such a GEMM runs its blocks in parallel only when it has several).
///
/// In parallel the tasks are equal parts of the rows (at most `block` each), times groups
/// of panels, as many as a multiple of the threads, so that every thread gets the same
/// share. With too few row blocks for two tasks per thread, a GEMM with more output
/// channels (counted as 64 a panel) than rows, its weights the larger operand (a one-row
/// FULLY_CONNECTED, the 14x14 and 7x7 convs), shares out groups of panels; one with more
/// rows than channels, parts of at least 16 rows (each part re-reads the weights, while a
/// group of panels re-reads every row, and quant8 recomputes each row's term). Two cores
/// (AMD Zen 5), conv_bench, min of 3, us, against whole blocks and a remainder: qu8
/// 224x224x3 k3s2 (blocks of 8192 and 4352 rows) 58.3 -> 40.5, qu8 112x112x32 -> 64
/// 87.3 -> 65.5, float32 28x28x256 -> 256 (three blocks of 252 rows and one of 28) 330 ->
/// 270, float32 GROUPED_CONV_2D 28x28x240 in 3 groups (a task per panel: 2 + 1 per
/// thread) 127 -> 104; the rest unchanged within 3%.
template <class Fn>
void for_tiles(std::size_t rows, std::size_t block, std::size_t panels, std::size_t macs, std::size_t split_work,
               exec::parallel_context* par, Fn&& fn) {
  const std::size_t blocks = (rows + block - 1) / block;
  const std::size_t threads = par ? par->concurrency() : 1;
  if (threads <= 1 || rows == 0 || macs < split_work) {
    for_blocks(rows, block, par, [&](std::size_t r0, std::size_t r1) { fn(r0, r1, std::size_t{0}, panels); });
    return;
  }
  const std::size_t tasks = 2 * threads;
  std::size_t parts = blocks, per = panels;  // row parts; panels per group
  if (parts < tasks && panels >= 2 && rows < 64 * panels) {
    const std::size_t want = (tasks + parts - 1) / parts;  // panel groups
    per = (panels + want - 1) / want;
  }
  const std::size_t groups = (panels + per - 1) / per;
  if (parts * groups < tasks) {
    const std::size_t most = std::max<std::size_t>(1, rows / 16);  // parts of at least 16 rows
    parts = std::max(parts, std::min(most, (tasks + groups - 1) / groups));
  }
  if (parts * groups % threads != 0) parts = (parts + threads - 1) / threads * threads;
  const std::size_t part = (rows + parts - 1) / parts;
  parts = (rows + part - 1) / part;
  auto run = [&](std::size_t t0, std::size_t t1) {
    for (std::size_t t = t0; t < t1; ++t) {
      const std::size_t b = t / groups, g = t % groups;
      fn(b * part, std::min(rows, (b + 1) * part), g * per, std::min(panels, (g + 1) * per));
    }
  };
  par->parallel_for(parts * groups, 1, run);
}

// ---------------------------------------------------------------------------------
// Float32
// ---------------------------------------------------------------------------------

/// A prefetch run alongside a loop: `lines` cache lines from `at` on, into L2, one per step.
struct line_prefetch {
  const float* at = nullptr;
  std::size_t lines = 0;
  [[gnu::always_inline]] void step() noexcept {
    if (lines == 0) return;
    _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T1);
    at += 16;
    --lines;
  }
};

/// R rows x NV vectors of one panel: acc = sum over taps and cin of a * w, then + bias,
/// clamped to [lo, hi] (NaN kept), stored for the first `cols` channels of each row.
/// `a` holds MR pointers per tap; w is the panel ([taps][cin][16 * NV]); each step of k
/// is a step of `pf` (a share of the next panel's prefetch).
template <std::size_t R, std::size_t NV, std::size_t MR>
NNHAL_TARGET_AVX512 void micro_f32(const float* const* a, std::size_t taps, std::size_t cin, const float* w,
                                   const float* bias, float lo, float hi, float* out, std::size_t ldo,
                                   std::size_t cols, line_prefetch pf) {
  constexpr std::size_t NR = 16 * NV;
  __m512 acc[R][NV];
#pragma GCC unroll 8
  for (std::size_t m = 0; m < R; ++m)
#pragma GCC unroll 4
    for (std::size_t j = 0; j < NV; ++j) acc[m][j] = _mm512_setzero_ps();
  for (std::size_t t = 0; t < taps; ++t) {
    const float* ap[R];
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m) ap[m] = a[t * MR + m];
#pragma GCC unroll 2
    for (std::size_t k = 0; k < cin; ++k, w += NR) {
      pf.step();
      __m512 wv[NV];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) wv[j] = _mm512_loadu_ps(w + 16 * j);
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) {
        const __m512 x = _mm512_set1_ps(ap[m][k]);
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j) acc[m][j] = _mm512_fmadd_ps(x, wv[j], acc[m][j]);
      }
    }
  }
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#pragma GCC unroll 4
  for (std::size_t j = 0; j < NV; ++j) {
    const __m512 b = _mm512_loadu_ps(bias + 16 * j);
    if (cols <= 16 * j) break;
    const __mmask16 mask = lanes_mask(cols - 16 * j);
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m) {
      // max(lo, v) and min(hi, v) return v when v is NaN, like the scalar clamp.
      const __m512 v = _mm512_maskz_min_ps(simd::avx512::all16, vhi, _mm512_maskz_max_ps(simd::avx512::all16, vlo, _mm512_add_ps(acc[m][j], b)));
      _mm512_mask_storeu_ps(out + m * ldo + 16 * j, mask, v);
    }
  }
}

/// micro_f32 in AVX2 + FMA, for CPUs without AVX-512: the panel's NV vectors of 16 channels
/// J at a time, each as R rows x 2 ymm (strided through the panel's rows of 16 * NV). J
/// keeps 2 * J * R <= 12 accumulators: one row (FULLY_CONNECTED's) takes every vector in
/// one pass, so the panel's rows are read whole, once; two rows take two vectors a pass.
/// Prefetches as micro_f32 does.
template <std::size_t R, std::size_t NV, std::size_t MR>
NNHAL_TARGET_AVX2_FMA void micro_f32_avx2(const float* const* a, std::size_t taps, std::size_t cin, const float* w,
                                          const float* bias, float lo, float hi, float* out, std::size_t ldo,
                                          std::size_t cols, line_prefetch pf) {
  constexpr std::size_t NR = 16 * NV;
  constexpr std::size_t J = R == 1 ? NV : (R == 2 && NV >= 2 ? 2 : 1);
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  for (std::size_t j0 = 0; j0 < NV && 16 * j0 < cols; j0 += J) {
    __m256 acc[R][2 * J];
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m)
#pragma GCC unroll 8
      for (std::size_t v = 0; v < 2 * J; ++v) acc[m][v] = _mm256_setzero_ps();
    const float* wj = w + 16 * j0;
    for (std::size_t t = 0; t < taps; ++t) {
      const float* ap[R];
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) ap[m] = a[t * MR + m];
#pragma GCC unroll 2
      for (std::size_t k = 0; k < cin; ++k, wj += NR) {
        pf.step();
        __m256 wv[2 * J];
#pragma GCC unroll 8
        for (std::size_t v = 0; v < 2 * J; ++v) wv[v] = _mm256_loadu_ps(wj + 8 * v);
#pragma GCC unroll 8
        for (std::size_t m = 0; m < R; ++m) {
          const __m256 x = _mm256_broadcast_ss(ap[m] + k);
#pragma GCC unroll 8
          for (std::size_t v = 0; v < 2 * J; ++v) acc[m][v] = _mm256_fmadd_ps(x, wv[v], acc[m][v]);
        }
      }
    }
#pragma GCC unroll 8
    for (std::size_t v = 0; v < 2 * J; ++v) {
      const std::size_t c0 = 16 * j0 + 8 * v;  // this vector's first channel
      if (c0 >= cols) break;
      const __m256 b = _mm256_loadu_ps(bias + c0);
      const std::size_t n = cols - c0;
      // Lanes [0, n) set: lane i's index compared with n.
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n < 8 ? n : 8)),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) {
        // max(lo, v) and min(hi, v) return v when v is NaN (the second operand), like the scalar clamp.
        const __m256 y = _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_add_ps(acc[m][v], b)));
        if (n >= 8) _mm256_storeu_ps(out + m * ldo + c0, y);
        else _mm256_maskstore_ps(out + m * ldo + c0, mask, y);
      }
    }
  }
}

template <gemm_isa I, std::size_t NV, std::size_t... R>
constexpr auto micro_f32_table(std::index_sequence<R...>) {
  if constexpr (I == gemm_isa::avx512) return std::array{&micro_f32<R + 1, NV, tile_rows(I, NV)>...};
  else return std::array{&micro_f32_avx2<R + 1, NV, tile_rows(I, NV)>...};
}

/// Rows [r0, r1) of out = act(rows * W + bias), panels [p0, p1); `ptrs` is scratch.
/// While a panel is multiplied, its row tiles prefetch the next panel into L2, each an
/// equal share of its cache lines, one line per step of k (not with a single row tile,
/// e.g. FULLY_CONNECTED's one row, which streams each panel itself). A filter larger than
/// L2, or one not yet in cache (in a model), made the first row tile of each panel wait
/// on memory. One core: conv_bench's 7x7x1024 -> 1024 (4 MiB filter) 722 -> 630 us;
/// MobileNet v1 f32 8.90 -> 8.38 ms (its 14x14 and 7x7 1x1 convs gain 10-25% each).
template <gemm_isa I, std::size_t NV, class Rows>
void gemm_f32_block(const Rows& rows, std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1,
                    const packed_f32& p, const float* bias, float lo, float hi, float* out, std::size_t ldo,
                    std::vector<const float*>& ptrs) {
  constexpr std::size_t MR = tile_rows(I, NV), NR = 16 * NV;
  static constexpr auto micro = micro_f32_table<I, NV>(std::make_index_sequence<MR>{});
  const std::size_t n = r1 - r0, taps = rows.taps();
  ptrs.resize((n + MR - 1) / MR * MR * taps);
  rows.fill(r0, n, MR, ptrs.data());
  const std::size_t k = taps * rows.row_k(p.cin), lines = p.taps * p.cin * NR / 16, tiles = (n + MR - 1) / MR;
  const std::size_t share = std::min(k, (lines + tiles - 1) / tiles);
  for (std::size_t pn = p0; pn < p1; ++pn) {
    const std::size_t cols = std::min(NR, p.out_c - pn * NR);
    for (std::size_t i = 0, t = 0; i < n; i += MR, ++t) {
      const std::size_t r = std::min(MR, n - i);
      const std::size_t first = std::min(lines, t * share);
      line_prefetch pf;
      if (tiles > 1 && pn + 1 < p1) pf = {p.panel(pn + 1) + first * 16, std::min(share, lines - first)};
      micro[r - 1](ptrs.data() + i * taps, taps, rows.row_k(p.cin), p.panel(pn), bias + pn * NR, lo, hi,
                   out + (r0 + i) * ldo + pn * NR, ldo, cols, pf);
    }
  }
}

/// out[r][0, out_c) = act(sum of row r's taps times the packed filter + bias) for r < m;
/// rows of `out` are `ldo` apart (0: out_c); micro-kernels in `isa`.
template <class Rows>
void gemm_f32(const Rows& rows, std::size_t m, const packed_f32& p, const float* bias, float lo, float hi,
              float* out, exec::parallel_context* par, std::size_t ldo = 0, gemm_isa isa = gemm_isa::avx512) {
  if (ldo == 0) ldo = p.out_c;
  const std::size_t k = rows.taps() * rows.row_k(p.cin);  // per row
  const std::size_t block = block_rows(k * sizeof(float), tile_rows(isa, p.nr / 16));
  // Float32 GEMMs run at about 30 multiply-adds per cycle: 2^19 is some 15 us.
  const std::size_t macs = m * k * p.out_c;
  for_tiles(m, block, p.panels, macs, std::size_t{1} << 19, par,
            [&](std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1) {
    static thread_local std::vector<const float*> ptrs;  // kept: no allocation per execution
    for (std::size_t b0 = r0; b0 < r1; b0 += block) {
      const std::size_t b1 = std::min(r1, b0 + block);
      if (isa == gemm_isa::avx512) {
        switch (p.nr) {
          case 16: gemm_f32_block<gemm_isa::avx512, 1>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
          case 32: gemm_f32_block<gemm_isa::avx512, 2>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
          default: gemm_f32_block<gemm_isa::avx512, 4>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
        }
      } else {
        switch (p.nr) {
          case 16: gemm_f32_block<gemm_isa::avx2, 1>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
          case 32: gemm_f32_block<gemm_isa::avx2, 2>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
          default: gemm_f32_block<gemm_isa::avx2, 4>(rows, b0, b1, p0, p1, p, bias, lo, hi, out, ldo, ptrs); break;
        }
      }
    }
  });
}

/// How a float32 filter [out_c][fh][fw][cin] (or FULLY_CONNECTED weights [units][depth])
/// is packed: its shape.
inline packed_f32 filter_shape_f32(const operand_desc& f) {
  const std::size_t out_c = f.dims[0], cin = f.dims.back();
  const std::size_t taps = f.dims.size() == 4 ? std::size_t{f.dims[1]} * f.dims[2] : 1;
  if (flat_filter(taps, cin)) return packed_f32::shape(out_c, 1, taps * cin, panel_width(out_c));
  return packed_f32::shape(out_c, taps, cin, panel_width(out_c));
}

/// The filter packed.
inline packed_f32 pack_filter_f32(const operand_desc& f) {
  const packed_f32 s = filter_shape_f32(f);
  return pack_f32(reinterpret_cast<const float*>(f.value), s.out_c, s.taps, s.cin, s.nr);
}

/// A constant filter packed at bind, or found packed by an earlier preparation.
inline std::shared_ptr<const packed_f32> constant_f32(const bind_context& c, std::size_t rank) {
  const operand_desc& f = c.in[1];
  if (!f.has_value() || f.dims.size() != rank || !f.dims_known()) return nullptr;
  return packed_constant_f32(c, filter_shape_f32(f), [&] { return pack_filter_f32(f); });
}

/// True when the conv reads its input as a dense [pixels][in_c] matrix (1x1, stride 1, no padding).
inline bool is_pointwise(const geometry& g) noexcept {
  return g.filter_h == 1 && g.filter_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_top == 0 &&
         g.pad_left == 0 && g.in_h == g.out_h && g.in_w == g.out_w;
}

/// NHWC float32 convolution with one group through the packed GEMM.
inline void conv_f32_nhwc(const geometry& g, const float* in, const packed_f32& p, const float* bias, float lo,
                          float hi, float* out, exec::parallel_context* par, gemm_isa isa) {
  const std::size_t m = std::size_t{g.batches} * g.out_h * g.out_w;
  if (is_pointwise(g)) return gemm_f32(dense_rows<float>{in, g.in_c}, m, p, bias, lo, hi, out, par, 0, isa);
  const std::vector<float> zeros(g.in_c, 0.0f);
  const conv_rows<float> rows{&g, in, zeros.data()};
  if (p.taps == 1 && rows.taps() > 1) {
    if (g.dil_w == 1) return gemm_f32(filter_row_rows{rows}, m, p, bias, lo, hi, out, par, 0, isa);
    return gemm_f32(im2col_rows<float>{rows, isa == gemm_isa::avx512}, m, p, bias, lo, hi, out, par, 0, isa);
  }
  gemm_f32(rows, m, p, bias, lo, hi, out, par, 0, isa);
}

/// The bound CONV_2D / GROUPED_CONV_2D (one group) float32 kernel.
inline kernel bind_conv_f32(const bind_context& c, conv_kind k, conv_slots_fn slots, gemm_isa isa) {
  return [constant = constant_f32(c, 4), k, slots, isa](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, k, slots(io.in));
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack_filter_f32(io.in[1]); });
    const std::vector<float> bias = padded_bias(reinterpret_cast<const float*>(io.in[2].value), g.out_c, p.padded_channels());
    const float_range r = activation_range_float(g.activation);
    run_as_nhwc(g, reinterpret_cast<const float*>(io.in[0].value), reinterpret_cast<float*>(io.out_data[0]),
                [&](const geometry& gn, const float* in, float* out) {
                  conv_f32_nhwc(gn, in, p, bias.data(), r.lo, r.hi, out, io.par, isa);
                });
  };
}

/// GROUPED_CONV_2D float32 in NHWC with a constant 1x1 filter of `groups` groups, whose
/// strides and padding make it pointwise (checked by the caller at bind; an execution
/// that is not, which validation should exclude, runs `other`): the groups' filters
/// packed at bind as one packing, and each group's GEMM reading its input channels of
/// every pixel in place (rows in_c apart) and writing its output channels in place (rows
/// out_c apart), with no regrouping copies. (One core, conv_bench 28x28x240 -> 240 in 3
/// groups, interleaved best of 4: 224 -> 178 us; XNNPACK 184.)
inline std::optional<kernel> bind_grouped_pointwise_f32(const bind_context& c, conv_slots_fn slots,
                                                        std::size_t groups, kernel other) {
  const operand_desc& f = c.in[1];
  const std::optional<gemm_isa> isa = f32_gemm_isa();
  if (!isa || c.in[0].type != OperandType::TENSOR_FLOAT32 || !f.has_value() || f.dims.size() != 4 ||
      !f.dims_known() || f.dims[1] != 1 || f.dims[2] != 1 || groups == 0 || f.dims[0] % groups != 0)
    return std::nullopt;
  const std::size_t group_out = f.dims[0] / groups, group_in = f.dims[3];
  const packed_f32 shape = packed_f32::shape(group_out, 1, group_in, panel_width(group_out), groups);
  auto constant = packed_constant_f32(c, shape, [&] {
    return pack_f32(reinterpret_cast<const float*>(f.value), group_out, 1, group_in, shape.nr, groups);
  });
  return kernel{[constant, slots, groups, other = std::move(other), isa = *isa](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, conv_kind::grouped, slots(io.in));
    if (g.nchw || !is_pointwise(g) || g.cin_per_group * groups != g.in_c || constant->out_c * groups != g.out_c)
      return other(io);
    const auto* x = reinterpret_cast<const float*>(io.in[0].value);
    const auto* bias = reinterpret_cast<const float*>(io.in[2].value);
    auto* y = reinterpret_cast<float*>(io.out_data[0]);
    const float_range r = activation_range_float(g.activation);
    const std::size_t m = std::size_t{g.batches} * g.out_h * g.out_w, cin_g = g.cin_per_group, cout_g = constant->out_c;
    for (std::size_t gi = 0; gi < groups; ++gi) {
      packed_f32 one = *constant;  // group gi's panels
      one.groups = 1;
      one.w = std::shared_ptr<const float>(constant->w, constant->panel(gi * constant->panels));
      thread_local std::vector<float> b;  // kept: no allocation once grown
      padded_bias_into(b, bias ? bias + gi * cout_g : nullptr, cout_g, one.padded_channels());
      gemm_f32(dense_rows<float>{x + gi * cin_g, g.in_c}, m, one, b.data(), r.lo, r.hi, y + gi * cout_g, io.par,
               g.out_c, isa);
    }
  }};
}

/// The bound FULLY_CONNECTED float32 kernel.
inline kernel bind_fully_connected_f32(const bind_context& c, gemm_isa isa) {
  return [constant = constant_f32(c, 2), isa](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    packed_f32 local;
    const packed_f32& p = prepared_or(constant, local, [&] { return pack_filter_f32(io.in[1]); });
    const std::vector<float> bias = padded_bias(reinterpret_cast<const float*>(io.in[2].value), p.out_c, p.padded_channels());
    const float_range r = activation_range_float(io.scalar<std::int32_t>(3));
    gemm_f32(dense_rows<float>{reinterpret_cast<const float*>(io.in[0].value), p.cin}, io.out[0].dims[0], p,
             bias.data(), r.lo, r.hi, reinterpret_cast<float*>(io.out_data[0]), io.par, 0, isa);
  };
}

// ---------------------------------------------------------------------------------
// Quant8 (VNNI)
// ---------------------------------------------------------------------------------
// vpdpbusd multiplies unsigned by signed bytes. With d_x = 128 for a signed input (0
// otherwise) and d_w = 128 for an unsigned filter (0 otherwise), xu = x + d_x is u8 and
// ws = w - d_w is s8, and with zx = input_zp + d_x, zw = filter_zp - d_w:
//   sum (x - input_zp)(w - filter_zp) = sum xu*ws - zw * sum xu - zx * sum ws + K*zx*zw.
// The identity holds in integers, hence modulo 2^32: wrapping int32 arithmetic gives the
// reference's wrapped accumulator exactly. sum ws is per channel (packed at bind); sum xu
// per row, needed only when zw != 0 (per-channel filters have zw = 0). A padding tap
// reads the stored input zero point, which contributes zero like the reference's skip.

/// A quant8 filter [out_c][taps][cin] as s8 panels [panel][taps][cin4 / 4][nr][4] (cin4:
/// cin rounded up to 4, zero-filled), with each channel's sum of packed values. One buffer
/// holds the sums (panels * nr int32), then the panels: packed here, or found in a
/// compilation cache (constant_q8).
struct packed_q8 {
  std::shared_ptr<const std::byte> data;  // bytes() long
  const std::int32_t* colsum = nullptr;   // panels * nr
  const std::int8_t* w = nullptr;
  std::size_t out_c = 0, taps = 0, cin = 0, cin4 = 0, panels = 0, nr = 0;
  std::int32_t zw = 0;  // the filter zero point in the s8 domain
  const std::int8_t* panel(std::size_t p) const noexcept { return w + p * taps * cin4 * nr; }
  /// The shape of a packing (no data yet) of out_c channels of taps x cin values, zero point zw.
  static packed_q8 shape(std::size_t out_c, std::size_t taps, std::size_t cin, std::int32_t zw) {
    packed_q8 p;
    p.out_c = out_c;
    p.taps = taps;
    p.cin = cin;
    p.cin4 = (cin + 3) / 4 * 4;
    p.nr = panel_width(out_c);
    p.panels = (out_c + p.nr - 1) / p.nr;
    p.zw = zw;
    return p;
  }
  std::size_t bytes() const noexcept { return panels * nr * sizeof(std::int32_t) + panels * taps * cin4 * nr; }
  /// Points colsum and w into `d` (bytes() long, aligned for int32).
  void attach(std::shared_ptr<const std::byte> d) {
    data = std::move(d);
    colsum = reinterpret_cast<const std::int32_t*>(data.get());
    w = reinterpret_cast<const std::int8_t*>(data.get() + panels * nr * sizeof(std::int32_t));
  }
};

/// A quant8 filter's zero point in the s8 domain of the packing (0 for per-channel filters).
inline std::int32_t packed_zero_point(const operand_desc& f) {
  if (f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return 0;
  return f.zero_point - (f.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0);
}

/// The shape of a quant8 filter's packing (no data yet).
inline packed_q8 filter_shape_q8(const operand_desc& f) {
  std::size_t cin = f.dims.back(), taps = f.dims.size() == 4 ? std::size_t{f.dims[1]} * f.dims[2] : 1;
  if (flat_filter(taps, cin)) {
    cin *= taps;
    taps = 1;
  }
  return packed_q8::shape(f.dims[0], taps, cin, packed_zero_point(f));
}

/// Four rows of k (4g .. 4g + 3) of an out_c x k quant8 matrix whose rows of out_c are
/// contiguous (element (oc, i) at src[i * ld_k + oc]) into the packing: 16 channels per
/// step, each interleaved to [16][4] bytes, so every source row is read once in order.
/// Channels past out_c and rows past k are zero; unsigned values become v - 128.
NNHAL_TARGET_AVX512 inline void pack_q8_columns(std::int8_t* w, const packed_q8& p, const std::uint8_t* src,
                                                std::size_t ld_k, bool unsigned_w, std::size_t p0,
                                                std::size_t p1) noexcept {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(unsigned_w ? 0x80 : 0));
  const std::size_t k = p.cin;
  for (std::size_t g = 0; g < p.cin4 / 4; ++g) {
    const std::size_t rows = std::min<std::size_t>(4, k - 4 * g);
    for (std::size_t c = p0 * p.nr; c < p1 * p.nr; c += 16) {
      const __mmask16 m = lanes_mask(c < p.out_c ? p.out_c - c : 0);
      __m128i r[4];
      for (std::size_t j = 0; j < 4; ++j)
        r[j] = j < rows ? _mm_maskz_mov_epi8(m, _mm_xor_si128(_mm_maskz_loadu_epi8(m, src + (4 * g + j) * ld_k + c), flip))
                        : _mm_setzero_si128();
      const __m128i lo01 = _mm_unpacklo_epi8(r[0], r[1]), hi01 = _mm_unpackhi_epi8(r[0], r[1]);
      const __m128i lo23 = _mm_unpacklo_epi8(r[2], r[3]), hi23 = _mm_unpackhi_epi8(r[2], r[3]);
      auto* dst = reinterpret_cast<__m128i*>(w + (c / p.nr) * p.cin4 * p.nr + (g * p.nr + c % p.nr) * 4);
      _mm_storeu_si128(dst + 0, _mm_unpacklo_epi16(lo01, lo23));  // channels c .. c + 3, rows 4g .. 4g + 3
      _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(lo01, lo23));
      _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(hi01, hi23));
      _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(hi01, hi23));
    }
  }
}

/// The packing of panels [p0, p1) element by element (any layout of the source).
inline void pack_q8_elements(std::int8_t* w, const packed_q8& p, const std::uint8_t* src, std::size_t ld_oc,
                             std::size_t ld_k, bool unsigned_w, std::size_t p0, std::size_t p1) noexcept {
  const std::size_t panel_bytes = p.taps * p.cin4 * p.nr;
  std::memset(w + p0 * panel_bytes, 0, (p1 - p0) * panel_bytes);
  for (std::size_t oc = p0 * p.nr; oc < std::min(p.out_c, p1 * p.nr); ++oc) {
    std::int8_t* dst = w + (oc / p.nr) * p.taps * p.cin4 * p.nr + (oc % p.nr) * 4;
    for (std::size_t t = 0; t < p.taps; ++t)
      for (std::size_t k = 0; k < p.cin; ++k) {
        const std::uint8_t raw = src[oc * ld_oc + (t * p.cin + k) * ld_k];
        dst[(t * p.cin4 + k / 4 * 4) * p.nr + k % 4] =
            static_cast<std::int8_t>(unsigned_w ? static_cast<int>(raw) - 128 : static_cast<std::int8_t>(raw));
      }
  }
}

/// Each channel's sum of its packed values (panels [p0, p1)): vpdpbusd of ones with the
/// panel, group by group.
NNHAL_TARGET_AVX512_VNNI inline void q8_column_sums(const packed_q8& p, const std::int8_t* w, std::int32_t* colsum,
                                                    std::size_t p0, std::size_t p1) noexcept {
  const __m512i ones = _mm512_set1_epi8(1);
  const std::size_t groups = p.taps * p.cin4 / 4;
  for (std::size_t pn = p0; pn < p1; ++pn)
    for (std::size_t j = 0; j < p.nr; j += 16) {
      const std::int8_t* col = w + pn * groups * 4 * p.nr + 4 * j;
      __m512i acc = _mm512_setzero_si512();
      for (std::size_t g = 0; g < groups; ++g) acc = _mm512_dpbusd_epi32(acc, ones, _mm512_loadu_si512(col + g * 4 * p.nr));
      _mm512_storeu_si512(colsum + pn * p.nr + j, acc);
    }
}

/// Packs the out_c x (taps * cin) quant8 matrix whose element (oc, i) is
/// src[oc * ld_oc + i * ld_k] (i = tap * cin + input channel) into `w` (p's panels, all of
/// them written, or only [p0, p1) so that threads can share the work) and its channel sums
/// into `colsum`; unsigned values become v - 128. Rows of channels (ld_oc 1) go 16
/// channels at a time; rows of k with k a multiple of 4 (signed) are a transpose of 4-byte
/// groups; anything else goes element by element.
NNHAL_TARGET_AVX512_VNNI inline void pack_q8_into(std::int8_t* w, std::int32_t* colsum, const packed_q8& p,
                                                  const std::uint8_t* src, std::size_t ld_oc, std::size_t ld_k,
                                                  bool unsigned_w, std::size_t p0 = 0,
                                                  std::size_t p1 = SIZE_MAX) noexcept {
  p1 = std::min(p1, p.panels);
  if (p.taps == 1 && ld_oc == 1) {
    pack_q8_columns(w, p, src, ld_k, unsigned_w, p0, p1);
  } else if (p.taps == 1 && ld_k == 1 && p.cin % 4 == 0 && !unsigned_w) {
    for (std::size_t pn = p0; pn < p1; ++pn) {
      const std::size_t oc0 = pn * p.nr, cols = std::min(p.nr, p.out_c - oc0);
      std::int8_t* panel = w + pn * p.cin4 * p.nr;
      if (cols < p.nr) std::memset(panel, 0, p.cin4 * p.nr);
      transpose_plane(reinterpret_cast<std::byte*>(panel), p.nr * 4, reinterpret_cast<const std::byte*>(src + oc0 * ld_oc),
                      ld_oc, cols, p.cin / 4, 4);
    }
  } else {
    pack_q8_elements(w, p, src, ld_oc, ld_k, unsigned_w, p0, p1);
  }
  q8_column_sums(p, w, colsum, p0, p1);
}

/// pack_q8_into for any CPU (the AVX2 GEMMs' bind): element by element, the same packing.
inline void pack_q8_into_plain(std::int8_t* w, std::int32_t* colsum, const packed_q8& p, const std::uint8_t* src,
                               std::size_t ld_oc, std::size_t ld_k, bool unsigned_w) noexcept {
  pack_q8_elements(w, p, src, ld_oc, ld_k, unsigned_w, 0, p.panels);
  const std::size_t groups = p.taps * p.cin4 / 4;
  for (std::size_t pn = 0; pn < p.panels; ++pn)
    for (std::size_t j = 0; j < p.nr; ++j) {
      const std::int8_t* col = w + pn * groups * 4 * p.nr + 4 * j;
      std::int32_t sum = 0;
      for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t b = 0; b < 4; ++b) sum += col[g * 4 * p.nr + b];
      colsum[pn * p.nr + j] = sum;
    }
}

/// A packing of shape `shape` in a new buffer.
inline packed_q8 pack_q8(const packed_q8& shape, const std::uint8_t* src, std::size_t ld_oc, std::size_t ld_k,
                         bool unsigned_w) {
  packed_q8 p = shape;
  const std::shared_ptr<std::byte[]> buf = types::large_bytes(p.bytes(), true);
  auto* colsum = reinterpret_cast<std::int32_t*>(buf.get());
  auto* w = reinterpret_cast<std::int8_t*>(buf.get() + p.panels * p.nr * sizeof(std::int32_t));
  if (simd::cpu().avx512_vnni) pack_q8_into(w, colsum, p, src, ld_oc, ld_k, unsigned_w);
  else pack_q8_into_plain(w, colsum, p, src, ld_oc, ld_k, unsigned_w);
  p.attach(std::shared_ptr<const std::byte>(buf, buf.get()));
  return p;
}

inline packed_q8 pack_filter_q8(const operand_desc& f) {
  const packed_q8 shape = filter_shape_q8(f);
  return pack_q8(shape, reinterpret_cast<const std::uint8_t*>(f.value), shape.taps * shape.cin, 1,
                 f.type == OperandType::TENSOR_QUANT8_ASYMM);
}

/// The scaling of `q` for `n` channels padded to `padded`.
inline std::shared_ptr<const q8_scaling> make_q8_scaling(const requant& q, std::size_t n, std::size_t padded) {
  return make_q8_scaling([&q](std::size_t c) { return q.at(c); }, q.out_zp, n, padded);
}

/// Requantization lanes of `q` for `n` channels padded to `padded`: `bound` when a bind
/// made them for as many channels, else made here.
inline void set_lanes(q8_epilogue& e, const requant& q, std::size_t n, std::size_t padded,
                      const std::shared_ptr<const q8_scaling>& bound = nullptr) {
  e.scaling = bound && bound->mantissa.size() == padded ? bound : make_q8_scaling(q, n, padded);
}

/// offset[c] = bias[c] - zx * colsum[c] + K * zx * zw for the channels of `p` (wrapping).
inline void set_offsets(q8_epilogue& e, const packed_q8& p, const std::int32_t* bias, std::int32_t zx) {
  e.offset.assign(p.panels * p.nr, 0);
  const auto kzz = static_cast<std::uint32_t>(p.taps * p.cin) * static_cast<std::uint32_t>(zx) *
                   static_cast<std::uint32_t>(p.zw);
  for (std::size_t c = 0; c < p.out_c; ++c) {
    const std::uint32_t b = bias ? static_cast<std::uint32_t>(bias[c]) : 0u;
    e.offset[c] =
        static_cast<std::int32_t>(b - static_cast<std::uint32_t>(zx) * static_cast<std::uint32_t>(p.colsum[c]) + kzz);
  }
}

inline q8_epilogue make_q8_epilogue(const packed_q8& p, const std::int32_t* bias, std::int32_t zx, const requant& q,
                                    const std::shared_ptr<const q8_scaling>& bound, quant::quant_range r) {
  q8_epilogue e;
  set_offsets(e, p, bias, zx);
  set_lanes(e, q, p.out_c, p.panels * p.nr, bound);
  e.lo = r.lo;
  e.hi = r.hi;
  return e;
}

/// Four input bytes of one row, broadcast as the u8 operand of vpdpbusd; signed inputs
/// (Flip) are made unsigned by xor with `flip` (0x80 in every byte). `n` < 4 reads only n
/// bytes, the rest zero (they meet zero weights). A vector xor of the broadcast load is one
/// instruction (vpxord with an embedded broadcast); a scalar xor first made GCC broadcast
/// from a general register, two more instructions per row and group of 4 inputs.
template <bool Flip>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i row_u32(const std::uint8_t* p, __m512i flip,
                                                             std::size_t n = 4) noexcept {
  std::uint32_t v = 0;
  std::memcpy(&v, p, n);
  const __m512i x = _mm512_set1_epi32(static_cast<int>(v));
  return Flip ? _mm512_xor_si512(x, flip) : x;
}

/// Requantizes R rows of NV vectors (16 NV channels from c0, all stored) by the float path
/// and stores each row with one store. The G values' high words (q + zp as int16) are gathered
/// by word permutes, packed to bytes (saturating to S's range), put back in order and
/// clamped to [lo, hi] bytewise (store_x64_words): 7 instructions a row, where
/// each vector's int32 clamp and narrowing store take 5. The G values replace the
/// accumulators, which are kept on the stack for the vectors j whose lanes (of any row) lie
/// next to a rounding boundary: those are redone in fixed point. (One core, conv_bench's
/// 1x1 112x112x32 -> 64: 147 -> 136 us for qu8.) With NV = 2 (a panel of 32 channels),
/// rows m and m + 1 share one narrowing, stored as two halves (the first layer,
/// 224x224x3 -> 32, one core: on AMX qu8 131 -> 109 us; on VNNI, min of 5, qu8 133 -> 127,
/// qs8 147 -> 137).
template <class S, std::size_t R, std::size_t NV>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void store_packed_rows(const q8_epilogue& e, std::size_t c0, S* out,
                                                                    std::size_t ldo, __m512i (&acc)[R][NV]) {
  static_assert(NV == 4 || (NV == 2 && R % 2 == 0));
  __m512i saved[R][NV];
#pragma GCC unroll 4
  for (std::size_t j = 0; j < NV; ++j) {
    const q8_lanes lanes(e, c0 + 16 * j);
    __m512i lows = q8_lanes::no_lows();
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m) {
      saved[m][j] = acc[m][j];
      acc[m][j] = lanes.fast_g(acc[m][j], lows);
    }
    if (lanes.fast_inexact(lows)) [[unlikely]] {
      // Unrolled like the loops around it: an index GCC cannot resolve at compile time
      // puts all of acc in memory, and the K loop then copies every accumulator at every step.
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) acc[m][j] = lanes.exact_g(saved[m][j]);
    }
  }
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(e.lo)), hi8 = _mm512_set1_epi8(static_cast<char>(e.hi));
  if constexpr (NV == 4) {
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m)
      simd::avx512::store_x64_words(out + m * ldo, high_words(acc[m][0], acc[m][1]), high_words(acc[m][2], acc[m][3]),
                                    lo8, hi8);
  } else {  // rows of 32 channels: one vector's low half stored at row m, its high half at row m + 1
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; m += 2) {
      const __m512i v = simd::avx512::narrow_x64_words<S>(high_words(acc[m][0], acc[m][1]),
                                                          high_words(acc[m + 1][0], acc[m + 1][1]), lo8, hi8);
      _mm512_mask_storeu_epi8(out + m * ldo, 0xFFFFFFFFu, v);
      _mm512_mask_storeu_epi8(out + (m + 1) * ldo - 32, ~std::uint64_t{0xFFFFFFFFu}, v);
    }
  }
}

/// out[i][c] = the requantized acc[i][c] for `rows` rows of `channels` int32 sums; `e`'s
/// lanes cover the channels rounded up to 16.
template <class S>
NNHAL_TARGET_AVX512 void requantize_channels(const std::int32_t* acc, std::size_t rows, std::size_t channels,
                                             const q8_epilogue& e, S* out) {
  for (std::size_t c = 0; c < channels; c += 16) {
    const __mmask16 mask = lanes_mask(channels - c);
    const q8_lanes lanes(e, c);
    for (std::size_t i = 0; i < rows; ++i)
      lanes.store(out + i * channels + c, mask, _mm512_maskz_loadu_epi32(mask, acc + i * channels + c));
  }
}

/// R rows x NV vectors of one quant8 panel; `rterm` (R values or null) is zw * sum xu of
/// each row, `c0` the panel's first channel. S is the input storage type; O the output's:
/// S (requantized) or int32 (the zero-point-corrected sums, e's offsets added, unscaled).
template <std::size_t R, std::size_t NV, std::size_t MR, class S, class O>
NNHAL_TARGET_AVX512_VNNI void micro_q8(const std::uint8_t* const* a, std::size_t taps, std::size_t cin,
                                       const std::int8_t* w, const q8_epilogue& e, std::size_t c0,
                                       const std::int32_t* rterm, O* out, std::size_t ldo, std::size_t cols) {
  constexpr bool flip = std::is_signed_v<S>;
  const __m512i flipv = _mm512_set1_epi8(static_cast<char>(0x80));
  constexpr std::size_t NB = 64 * NV;  // bytes of packed weights per group of 4 inputs
  const std::size_t groups = cin / 4, rest = cin % 4;
  // The sums start at each channel's offset less each row's term.
  __m512i acc[R][NV];
#pragma GCC unroll 4
  for (std::size_t j = 0; j < NV; ++j) {
    const __m512i off = _mm512_loadu_si512(e.offset.data() + c0 + 16 * j);
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m) acc[m][j] = rterm ? _mm512_sub_epi32(off, _mm512_set1_epi32(rterm[m])) : off;
  }
  for (std::size_t t = 0; t < taps; ++t) {
    const std::uint8_t* ap[R];
#pragma GCC unroll 8
    for (std::size_t m = 0; m < R; ++m) ap[m] = a[t * MR + m];
#pragma GCC unroll 2
    for (std::size_t gi = 0; gi < groups; ++gi, w += NB) {
      __m512i wv[NV];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) wv[j] = _mm512_loadu_si512(w + 64 * j);
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) {
        const __m512i x = row_u32<flip>(ap[m] + 4 * gi, flipv);
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j) acc[m][j] = _mm512_dpbusd_epi32(acc[m][j], x, wv[j]);
      }
    }
    if (rest) {
      __m512i wv[NV];
#pragma GCC unroll 4
      for (std::size_t j = 0; j < NV; ++j) wv[j] = _mm512_loadu_si512(w + 64 * j);
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) {
        const __m512i x = row_u32<flip>(ap[m] + 4 * groups, flipv, rest);
#pragma GCC unroll 4
        for (std::size_t j = 0; j < NV; ++j) acc[m][j] = _mm512_dpbusd_epi32(acc[m][j], x, wv[j]);
      }
      w += NB;
    }
  }
  if constexpr (!std::is_same_v<O, std::int32_t> && (NV == 4 || (NV == 2 && R % 2 == 0))) {
    if (cols == 16 * NV && !e.scaling->any_left) return store_packed_rows<S, R, NV>(e, c0, out, ldo, acc);
  }
#pragma GCC unroll 4
  for (std::size_t j = 0; j < NV; ++j) {
    if (cols <= 16 * j) break;
    const __mmask16 mask = lanes_mask(cols - 16 * j);
    if constexpr (std::is_same_v<O, std::int32_t>) {
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) _mm512_mask_storeu_epi32(out + m * ldo + 16 * j, mask, acc[m][j]);
    } else {
      const q8_lanes lanes(e, c0 + 16 * j);
      lanes.store_rows<S, R, NV>(out + 16 * j, ldo, mask, &acc[0][j]);
    }
  }
}

/// acc + the four byte products of each 32-bit lane of x (u8) and w (s8): vpdpbusd of
/// AVX-VNNI (the VEX form; inline assembly, so this function needs no target beyond AVX2).
[[gnu::always_inline]] NNHAL_TARGET_AVX2_FMA inline __m256i dpbusd_vex(__m256i acc, __m256i x, __m256i w) noexcept {
  asm("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(x), "x"(w));
  return acc;
}

/// One group of 4 inputs of micro_q8_ymm: R rows' bytes [k, k + n) (N: n known at compile
/// time, 0: not) times the group's 2J vectors of weights at wp.
template <std::size_t R, std::size_t J, bool Vnni, std::uint32_t Flip, std::size_t N>
[[gnu::always_inline]] NNHAL_TARGET_AVX2_FMA inline void group_q8_ymm(const std::uint8_t* const (&ap)[R], std::size_t k,
                                                                 const std::int8_t* wp, __m256i (&acc)[R][2 * J],
                                                                 std::size_t n = N) noexcept {
  __m256i wv[2 * J], wo[2 * J];
#pragma GCC unroll 8
  for (std::size_t v = 0; v < 2 * J; ++v) {
    wv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + 32 * v));
    if constexpr (!Vnni) {
      wo[v] = _mm256_srai_epi16(wv[v], 8);                          // odd bytes
      wv[v] = _mm256_srai_epi16(_mm256_slli_epi16(wv[v], 8), 8);  // even bytes
    }
  }
  const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
#pragma GCC unroll 8
  for (std::size_t m = 0; m < R; ++m) {
    std::uint32_t bytes = 0;
    std::memcpy(&bytes, ap[m] + k, N ? N : n);  // past n: zero, meeting zero weights
    const __m256i x = _mm256_set1_epi32(static_cast<int>(bytes ^ Flip));
    if constexpr (Vnni) {
#pragma GCC unroll 8
      for (std::size_t v = 0; v < 2 * J; ++v) acc[m][v] = dpbusd_vex(acc[m][v], x, wv[v]);
    } else {
      const __m256i xe = _mm256_and_si256(x, low_bytes), xo = _mm256_srli_epi16(x, 8);
#pragma GCC unroll 8
      for (std::size_t v = 0; v < 2 * J; ++v)
        acc[m][v] = _mm256_add_epi32(acc[m][v], _mm256_add_epi32(_mm256_madd_epi16(xe, wv[v]), _mm256_madd_epi16(xo, wo[v])));
    }
  }
}

/// micro_q8 with ymm registers, for CPUs without AVX-512: the panel's NV vectors of 16
/// channels J at a time (FULLY_CONNECTED's one row: all at once), each as 2 ymm of 8
/// channels x 4 bytes. Vnni: one vpdpbusd per group of 4 inputs; otherwise the same
/// exact sums from vpmaddwd of the bytes' 16-bit halves: the even bytes of x (u8, zero-
/// extended) with the even bytes of w (s8, sign-extended), plus the odd ones (each pair of
/// products is at most 2 * 255 * 128 in magnitude). The requantization is the fixed
/// point's (simd::avx2::apply_multiplier_lanes).
template <std::size_t R, std::size_t NV, std::size_t MR, class S, class O, bool Vnni>
NNHAL_TARGET_AVX2_FMA void micro_q8_ymm(const std::uint8_t* const* a, std::size_t taps, std::size_t cin,
                                        const std::int8_t* w, const q8_epilogue& e, std::size_t c0,
                                        const std::int32_t* rterm, O* out, std::size_t ldo, std::size_t cols) {
  constexpr std::uint32_t flip = std::is_signed_v<S> ? 0x80808080u : 0u;
  constexpr std::size_t NB = 64 * NV;  // bytes of packed weights per group of 4 inputs
  constexpr std::size_t J = R == 1 ? NV : 1;
  const std::size_t whole = cin / 4, rest = cin % 4;
  for (std::size_t j0 = 0; j0 < NV && 16 * j0 < cols; j0 += J) {
    // The sums start at each channel's offset less each row's term.
    __m256i acc[R][2 * J];
#pragma GCC unroll 8
    for (std::size_t v = 0; v < 2 * J; ++v) {
      const __m256i off = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.offset.data() + c0 + 16 * j0 + 8 * v));
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) acc[m][v] = rterm ? _mm256_sub_epi32(off, _mm256_set1_epi32(rterm[m])) : off;
    }
    const std::int8_t* wp = w + 64 * j0;
    for (std::size_t t = 0; t < taps; ++t) {
      const std::uint8_t* ap[R];
#pragma GCC unroll 8
      for (std::size_t m = 0; m < R; ++m) ap[m] = a[t * MR + m];
#pragma GCC unroll 2
      for (std::size_t gi = 0; gi < whole; ++gi, wp += NB) group_q8_ymm<R, J, Vnni, flip, 4>(ap, 4 * gi, wp, acc);
      if (rest) {
        group_q8_ymm<R, J, Vnni, flip, 0>(ap, 4 * whole, wp, acc, rest);
        wp += NB;
      }
    }
#pragma GCC unroll 8
    for (std::size_t v = 0; v < 2 * J; ++v) {
      const std::size_t c = 16 * j0 + 8 * v;  // this vector's first channel in the panel
      if (c >= cols) break;
      const std::size_t n = cols - c < 8 ? cols - c : 8;
      if constexpr (std::is_same_v<O, std::int32_t>) {
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
        for (std::size_t m = 0; m < R; ++m) _mm256_maskstore_epi32(out + m * ldo + c, mask, acc[m][v]);
      } else {
        const q8_scaling& sc = *e.scaling;  // (an int32 output has none)
        const __m256i zp = _mm256_set1_epi32(sc.out_zp), lo = _mm256_set1_epi32(e.lo), hi = _mm256_set1_epi32(e.hi);
        // (Loads written out: a lambda would not be compiled for AVX2.)
        const std::size_t at = c0 + c;
        const __m256i mantissa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.mantissa.data() + at));
        const __m256i left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.left.data() + at));
        const __m256i right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.right.data() + at));
        const __m256i rmask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.round_mask.data() + at));
        const __m256i rhalf = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.round_half.data() + at));
#pragma GCC unroll 8
        for (std::size_t m = 0; m < R; ++m) {
          const __m256i q = sc.any_left
                                ? simd::avx2::apply_multiplier_lanes<true>(acc[m][v], mantissa, left, right, rmask, rhalf)
                                : simd::avx2::apply_multiplier_lanes<false>(acc[m][v], mantissa, left, right, rmask, rhalf);
          simd::avx2::store_x8(out + m * ldo + c, _mm256_add_epi32(q, zp), lo, hi, n);
        }
      }
    }
  }
}

template <gemm_isa I, std::size_t NV, class S, class O, std::size_t... R>
constexpr auto micro_q8_table(std::index_sequence<R...>) {
  constexpr std::size_t MR = q8_tile_rows(I, NV);
  if constexpr (I == gemm_isa::avx512) return std::array{&micro_q8<R + 1, NV, MR, S, O>...};
  else return std::array{&micro_q8_ymm<R + 1, NV, MR, S, O, I == gemm_isa::avx_vnni>...};
}

/// The bytes of one row (tap t's cin bytes at tap[t * mr]) plus `flipped` (0x80 flips
/// the top bit), summed in 8 qword lanes.
NNHAL_TARGET_AVX512 inline __m512i row_byte_lanes(const std::uint8_t* const* tap, std::size_t mr, std::size_t taps,
                                                  std::size_t cin, __m512i flipped) {
  if (taps == 1 && cin <= 64) {  // one load (im2col rows, and 1x1 convs of few channels)
    const __mmask64 mask = cin == 64 ? ~__mmask64{0} : (__mmask64{1} << cin) - 1;
    return _mm512_sad_epu8(_mm512_maskz_add_epi8(mask, _mm512_maskz_loadu_epi8(mask, tap[0]), flipped),
                           _mm512_setzero_si512());
  }
  __m512i sum = _mm512_setzero_si512();
  for (std::size_t t = 0; t < taps; ++t) {
    const std::uint8_t* p = tap[t * mr];
    for (std::size_t k = 0; k < cin; k += 64) {
      const __mmask64 mask = cin - k >= 64 ? ~__mmask64{0} : (__mmask64{1} << (cin - k)) - 1;
      // Masked, the bytes past cin stay zero.
      const __m512i v = _mm512_maskz_add_epi8(mask, _mm512_maskz_loadu_epi8(mask, p + k), flipped);
      sum = _mm512_add_epi64(sum, _mm512_sad_epu8(v, _mm512_setzero_si512()));
    }
  }
  return sum;
}

/// 128-bit lanes 0 and 2 of x then of y, plus lanes 1 and 3: lane L of the result is the
/// sum of two lanes of x (L < 2) or of y.
NNHAL_TARGET_AVX512 inline __m512i lane_pair_sums(__m512i x, __m512i y) {
  return _mm512_add_epi64(_mm512_maskz_shuffle_i64x2(0xFF, x, y, 0b10001000),
                          _mm512_maskz_shuffle_i64x2(0xFF, x, y, 0b11011101));
}

/// zw * (the sum of the 8 qwords of `sum`), wrapping: one row's term.
NNHAL_TARGET_AVX512 inline std::int32_t one_row_term(__m512i sum, std::int32_t zw) {
  // The eight lanes summed, halves taken by maskz extracts (GCC 12 warns on the casts' and
  // unmasked extracts' undefined operand).
  const __m256i s4 =
      _mm256_add_epi64(_mm512_maskz_extracti64x4_epi64(0xFF, sum, 0), _mm512_maskz_extracti64x4_epi64(0xFF, sum, 1));
  const __m128i s2 = _mm_add_epi64(_mm256_maskz_extracti64x2_epi64(0x3, s4, 0), _mm256_maskz_extracti64x2_epi64(0x3, s4, 1));
  const auto s = static_cast<std::uint64_t>(_mm_cvtsi128_si64(s2)) + static_cast<std::uint64_t>(_mm_extract_epi64(s2, 1));
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(zw) * static_cast<std::uint32_t>(s));
}

/// rterm[j] = zw * (the sum of lanes[j]'s qwords), wrapping, for 8 rows: the lane sums
/// transposed and added so that qword j holds row j's total (pairs within 128-bit lanes,
/// then lanes across vectors).
NNHAL_TARGET_AVX512 inline void eight_row_terms(const __m512i (&lanes)[8], __m256i zwv, std::int32_t* rterm) {
  __m512i pair[4];
#pragma GCC unroll 4
  for (std::size_t j = 0; j < 4; ++j) {
    const __m512i a = lanes[2 * j], b = lanes[2 * j + 1];
    pair[j] = _mm512_add_epi64(_mm512_maskz_unpacklo_epi64(0xFF, a, b), _mm512_maskz_unpackhi_epi64(0xFF, a, b));
  }
  const __m512i total = lane_pair_sums(lane_pair_sums(pair[0], pair[1]), lane_pair_sums(pair[2], pair[3]));
  // The low 32 bits of each total suffice.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(rterm), _mm256_mullo_epi32(_mm512_maskz_cvtepi64_epi32(0xFF, total), zwv));
}

/// zw * (sum of the u8 operand bytes) of each row of a block, wrapping.
template <bool Flip>
NNHAL_TARGET_AVX512 void row_terms(const std::uint8_t* const* ptrs, std::size_t n, std::size_t mr, std::size_t taps,
                                   std::size_t cin, std::int32_t zw, std::int32_t* rterm) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(Flip ? 0x80 : 0));
  const __m256i zwv = _mm256_set1_epi32(zw);
  // Row r's first tap pointer: ptrs[(r / mr * taps) * mr + r % mr] (a block of mr rows
  // holds each tap's mr pointers in turn), ptrs[r] with one tap.
  auto first_tap = [&](std::size_t r) { return taps == 1 ? ptrs + r : ptrs + r / mr * taps * mr + r % mr; };
  std::size_t i = 0;
  // Eight rows at a time, their lane sums read first (unrolled, so that the loads overlap).
  for (; i + 8 <= n; i += 8) {
    __m512i lanes[8];
#pragma GCC unroll 8
    for (std::size_t k = 0; k < 8; ++k) lanes[k] = row_byte_lanes(first_tap(i + k), mr, taps, cin, flip);
    eight_row_terms(lanes, zwv, rterm + i);
  }
  for (; i < n; ++i) rterm[i] = one_row_term(row_byte_lanes(first_tap(i), mr, taps, cin, flip), zw);
}

/// Rows 2i and 2i + 1 of a 32-byte-strided block from p (their first k bytes under
/// `halves`, plus `flipped`), summed in 8 qword lanes: lanes 0-3 row 2i, 4-7 row 2i + 1.
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i two_row_lanes(const std::uint8_t* p, __mmask64 halves,
                                                                       __m512i flipped) {
  return _mm512_sad_epu8(_mm512_maskz_add_epi8(halves, _mm512_maskz_loadu_epi8(halves, p), flipped),
                         _mm512_setzero_si512());
}

/// row_terms of n rows 32 bytes apart from `base` (im2col_rows of k <= 32 bytes), whose
/// first k bytes count: two rows a load, eight rows' sums transposed together.
template <bool Flip>
NNHAL_TARGET_AVX512 void row_terms_32(const std::uint8_t* base, std::size_t n, std::size_t k, std::int32_t zw,
                                      std::int32_t* rterm) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(Flip ? 0x80 : 0));
  const __mmask64 halves = ((__mmask64{1} << k) - 1) * 0x100000001u;  // k bytes of each 32
  const __m256i zwv = _mm256_set1_epi32(zw);
  // p01 sums within 128-bit lanes the qwords of s0 (rows 0, 1) and s1 (rows 2, 3): lane 0
  // holds half of row 0 and of row 2, lane 1 the other halves, lanes 2 and 3 rows 1 and 3
  // (p23 the same for rows 4 to 7); lane_pair_sums of the two then gives qwords in row
  // order 0 2 1 3 4 6 5 7, whose low dwords `order` puts back in order.
  const __m512i order = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 14, 10, 12, 8, 6, 2, 4, 0);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint8_t* p = base + 32 * i;
    const __m512i s0 = two_row_lanes(p, halves, flip), s1 = two_row_lanes(p + 64, halves, flip);
    const __m512i s2 = two_row_lanes(p + 128, halves, flip), s3 = two_row_lanes(p + 192, halves, flip);
    const __m512i p01 = _mm512_add_epi64(_mm512_maskz_unpacklo_epi64(0xFF, s0, s1), _mm512_maskz_unpackhi_epi64(0xFF, s0, s1));
    const __m512i p23 = _mm512_add_epi64(_mm512_maskz_unpacklo_epi64(0xFF, s2, s3), _mm512_maskz_unpackhi_epi64(0xFF, s2, s3));
    const __m512i total = _mm512_maskz_permutexvar_epi32(0xFF, order, lane_pair_sums(p01, p23));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rterm + i),
                        _mm256_mullo_epi32(_mm512_maskz_extracti64x4_epi64(0xFF, total, 0), zwv));
  }
  // One row a load (the next row's half masked off) for the last n % 8.
  for (; i < n; ++i) rterm[i] = one_row_term(two_row_lanes(base + 32 * i, halves & 0xFFFFFFFFu, flip), zw);
}

/// row_terms for any CPU (the AVX2 GEMMs), a byte at a time.
template <bool Flip>
void row_terms_plain(const std::uint8_t* const* ptrs, std::size_t n, std::size_t mr, std::size_t taps, std::size_t cin,
                     std::int32_t zw, std::int32_t* rterm) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t sum = 0;
    for (std::size_t t = 0; t < taps; ++t) {
      const std::uint8_t* row = taps == 1 ? ptrs[i] : ptrs[(i / mr * taps + t) * mr + i % mr];
      for (std::size_t k = 0; k < cin; ++k) sum += static_cast<std::uint8_t>(row[k] ^ (Flip ? 0x80u : 0u));
    }
    rterm[i] = static_cast<std::int32_t>(sum * static_cast<std::uint32_t>(zw));
  }
}

/// Each row's term (zw times the sum of its u8 operand bytes) of a block of n rows whose
/// pointers `ptrs` holds (mr per tap and block), into rterm: false, and nothing done, when
/// the filter's zero point is 0. Avx512: with AVX-512 (else a byte at a time).
template <bool Avx512, class S, class Rows>
bool fill_row_terms(const Rows& rows, const std::vector<const std::uint8_t*>& ptrs, std::size_t n, std::size_t mr,
                    const packed_q8& p, std::vector<std::int32_t>& rterm) {
  if (p.zw == 0) return false;
  rterm.resize(n + mr);
  bool two_a_load = false;  // rows 32 bytes apart from ptrs[0]
  if constexpr (std::is_same_v<Rows, im2col_rows<std::uint8_t>>) two_a_load = Rows::stride(p.cin) == 32;
  constexpr bool flip = std::is_signed_v<S>;
  if constexpr (!Avx512) row_terms_plain<flip>(ptrs.data(), n, mr, rows.taps(), p.cin, p.zw, rterm.data());
  else if (two_a_load) row_terms_32<flip>(ptrs[0], n, p.cin, p.zw, rterm.data());
  else row_terms<flip>(ptrs.data(), n, mr, rows.taps(), p.cin, p.zw, rterm.data());
  return true;
}

/// Rows [r0, r1) of the quant8 GEMM, panels [p0, p1), micro-kernels in I.
template <gemm_isa I, std::size_t NV, class S, class O, class Rows>
void gemm_q8_block(const Rows& rows, std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1,
                   const packed_q8& p, const q8_epilogue& e, O* out, std::size_t ldo,
                   std::vector<const std::uint8_t*>& ptrs, std::vector<std::int32_t>& rterm) {
  constexpr std::size_t MR = q8_tile_rows(I, NV), NR = 16 * NV;
  static constexpr auto micro = micro_q8_table<I, NV, S, O>(std::make_index_sequence<MR>{});
  const std::size_t n = r1 - r0, taps = rows.taps();
  ptrs.resize((n + MR - 1) / MR * MR * taps);
  rows.fill(r0, n, MR, ptrs.data());
  const bool with_rows = fill_row_terms<I != gemm_isa::avx2 && I != gemm_isa::avx_vnni, S>(rows, ptrs, n, MR, p, rterm);
  for (std::size_t pn = p0; pn < p1; ++pn) {
    const std::size_t cols = std::min(NR, p.out_c - pn * NR);
    for (std::size_t i = 0; i < n; i += MR) {
      const std::size_t r = std::min(MR, n - i);
      micro[r - 1](ptrs.data() + i * taps, taps, rows.row_k(p.cin), p.panel(pn), e, pn * NR, with_rows ? rterm.data() + i : nullptr,
                   out + (r0 + i) * ldo + pn * NR, ldo, cols);
    }
  }
}

// ---------------------------------------------------------------------------------
// Quant8 on AMX tiles
// ---------------------------------------------------------------------------------

/// A tile configuration (palette 1) as ldtilecfg reads it: 64 bytes.
struct alignas(64) amx_tile_config {
  std::uint8_t palette = 1, start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};  // bytes per row of each tile
  std::uint8_t rows[16] = {};
};

/// The AMX GEMM's tiles for chunks of `kc` bytes of k: 0-3 the int32 sums of 16 rows x
/// 16 channels, 4-5 the inputs of 16 rows each, 6-7 the weights of 16 channels each
/// (kc / 4 rows of 16 x 4 bytes, the VNNI packing's own layout).
inline amx_tile_config amx_config(std::size_t kc) noexcept {
  amx_tile_config c;
  for (int t = 0; t < 4; ++t) {
    c.rows[t] = 16;
    c.colsb[t] = 64;
  }
  for (int t = 4; t < 6; ++t) {
    c.rows[t] = 16;
    c.colsb[t] = static_cast<std::uint16_t>(kc);
  }
  for (int t = 6; t < 8; ++t) {
    c.rows[t] = static_cast<std::uint8_t>(kc / 4);
    c.colsb[t] = 64;
  }
  return c;
}

/// Requantizes `rows` rows of a panel of 16 NV channels from c0 (sum(r, j): row r's int32
/// vector j) through store_packed_rows, 4 rows at a time, the last ones through a scratch
/// block.
template <class S, std::size_t NV, class Sum>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void store_panel_rows(const q8_epilogue& e, std::size_t c0,
                                                                   std::size_t rows, const Sum& sum, S* o,
                                                                   std::size_t ldo) {
  for (std::size_t r = 0; r < rows; r += 4) {
    __m512i acc[4][NV];
    for (std::size_t m = 0; m < 4; ++m)
      for (std::size_t j = 0; j < NV; ++j) acc[m][j] = sum(std::min(r + m, rows - 1), j);
    if (rows - r >= 4) {
      store_packed_rows<S, 4, NV>(e, c0, o + r * ldo, ldo, acc);
    } else {
      alignas(64) S rest[4][16 * NV];
      store_packed_rows<S, 4, NV>(e, c0, &rest[0][0], 16 * NV, acc);
      for (std::size_t m = 0; r + m < rows; ++m) std::memcpy(o + (r + m) * ldo, rest[m], 16 * NV);
    }
  }
}

// The tile instructions as inline assembly (only the assembler must know them). Loads and
// stores clobber memory: GCC's own _tile_* macros declare no memory operand, so the
// compiler could move a scratch buffer's writes past the tile load that reads it, or its
// reads before the tile store that writes it. AT&T operand order: B, A, C.
#define NNHAL_AMX_LOAD(t, base, stride) \
  __asm__ volatile("tileloadd (%0,%1,1), %%tmm" #t ::"r"(base), "r"(static_cast<long>(stride)) : "memory")
#define NNHAL_AMX_STORE(t, base, stride) \
  __asm__ volatile("tilestored %%tmm" #t ", (%0,%1,1)" ::"r"(base), "r"(static_cast<long>(stride)) : "memory")
#define NNHAL_AMX_ZERO(t) __asm__ volatile("tilezero %%tmm" #t ::)
#define NNHAL_AMX_DOT(insn, c, a, b) __asm__ volatile(#insn " %%tmm" #b ", %%tmm" #a ", %%tmm" #c ::)

/// Loads a tile configuration (zeroing every tile) on this thread.
inline void amx_load_config(const amx_tile_config& c) noexcept { __asm__ volatile("ldtilecfg %0" ::"m"(c) : "memory"); }
/// Returns this thread's tiles to their initial state (nothing for the OS to save).
inline void amx_release() noexcept { __asm__ volatile("tilerelease" ::: "memory"); }

/// The chunk of k (bytes per input tile row) for a packed k of `k4` bytes (a multiple of
/// 4): k4 itself up to 64, else the largest multiple of 4 up to 64 that divides it; 0 when
/// that is below 32 (little work per tile product: the VNNI GEMM then).
constexpr std::size_t amx_chunk(std::size_t k4) noexcept {
  if (k4 <= 64) return k4;
  for (std::size_t kc = 64; kc >= 32; kc -= 4)
    if (k4 % kc == 0) return kc;
  return 0;
}

/// GEMM rows a tile can load: evenly spaced rows of one tap (a dense matrix, im2col rows).
template <class Rows>
constexpr bool amx_rows = std::is_same_v<Rows, dense_rows<std::uint8_t>> || std::is_same_v<Rows, im2col_rows<std::uint8_t>>;

/// Whether AMX takes a quant8 GEMM of `m` such rows: rows holding whole groups of 4 bytes
/// (im2col rows are padded so), a chunk of k, and at least one full pair of input tiles.
template <class Rows>
bool amx_takes(const Rows&, std::size_t m, const packed_q8& p) noexcept {
  static_assert(amx_rows<Rows>);
  constexpr bool im2col = std::is_same_v<Rows, im2col_rows<std::uint8_t>>;
  return p.taps == 1 && m >= 32 && amx_chunk(p.cin4) != 0 && (im2col || p.cin % 4 == 0);
}

/// The bytes from one GEMM row to the next in `rows` (those amx_takes).
inline std::size_t row_stride(const dense_rows<std::uint8_t>& r, const packed_q8&) noexcept { return r.lda; }
inline std::size_t row_stride(const im2col_rows<std::uint8_t>&, const packed_q8& p) noexcept {
  return im2col_rows<std::uint8_t>::stride(p.cin);
}

/// Rows [0, n) from `a` (each cin4 bytes, `lda` apart) times panels [p0, p1) on AMX tiles
/// (configured by the caller: amx_config(kc)), 32 rows by 32 channels at a time over k in
/// chunks of kc, a panel's sums for 32 rows stored, then micro_q8's epilogue on them: the
/// sums plus e's offsets less each row's term (rterm, or null), requantized to S (a whole
/// panel of 64 channels a row at a time, as store_packed_rows does; else 16 channels at a
/// time), or kept as int32 (O). Signed inputs (S signed) multiply as s8 (tdpbssd): their
/// sums are those of the VNNI kernels' flipped bytes (x + 128) less 128 times each
/// channel's weight sum, added back here. The last rows, when fewer than 32, are copied
/// into a zero-filled scratch first (a tile always loads 16 rows).
template <class S, class O>
NNHAL_TARGET_AMX void gemm_q8_amx(const std::uint8_t* a, std::size_t lda, std::size_t n, std::size_t kc,
                                  const packed_q8& p, std::size_t p0, std::size_t p1, const q8_epilogue& e,
                                  const std::int32_t* rterm, O* out, std::size_t ldo) {
  constexpr bool is_signed = std::is_signed_v<S>;
  const std::size_t k4 = p.cin4, ldw = p.nr * 4;  // bytes from one group of 4 k to the next
  alignas(64) std::int32_t sums[32][64];  // one panel's sums of 32 rows
  static thread_local simd::aligned_vector<std::uint8_t> tail;
  for (std::size_t i = 0; i < n; i += 32) {
    const std::size_t rows = std::min<std::size_t>(32, n - i);
    const std::uint8_t* rb = a + i * lda;
    std::size_t stride = lda;
    if (rows < 32) {
      tail.assign(32 * k4, 0);
      for (std::size_t r = 0; r < rows; ++r) std::memcpy(tail.data() + r * k4, rb + r * lda, k4);
      rb = tail.data();
      stride = k4;
    }
    const bool two = rows > 16;
    for (std::size_t pn = p0; pn < p1; ++pn) {
      const std::size_t cols = std::min(p.nr, p.out_c - pn * p.nr), c0 = pn * p.nr;
      for (std::size_t cb = 0; cb < cols; cb += 32) {  // the panel's sums, 32 channels at a time
        const bool wide = cols - cb > 16;
        NNHAL_AMX_ZERO(0);
        NNHAL_AMX_ZERO(1);
        NNHAL_AMX_ZERO(2);
        NNHAL_AMX_ZERO(3);
        const std::int8_t* wk = p.panel(pn) + cb * 4;
        for (std::size_t k = 0; k < k4; k += kc, wk += kc / 4 * ldw) {
          NNHAL_AMX_LOAD(4, rb + k, stride);
          NNHAL_AMX_LOAD(6, wk, ldw);
          if (wide) NNHAL_AMX_LOAD(7, wk + 64, ldw);
          if (two) NNHAL_AMX_LOAD(5, rb + 16 * stride + k, stride);
          if constexpr (is_signed) {
            NNHAL_AMX_DOT(tdpbssd, 0, 4, 6);
            if (wide) NNHAL_AMX_DOT(tdpbssd, 1, 4, 7);
            if (two) NNHAL_AMX_DOT(tdpbssd, 2, 5, 6);
            if (two && wide) NNHAL_AMX_DOT(tdpbssd, 3, 5, 7);
          } else {
            NNHAL_AMX_DOT(tdpbusd, 0, 4, 6);
            if (wide) NNHAL_AMX_DOT(tdpbusd, 1, 4, 7);
            if (two) NNHAL_AMX_DOT(tdpbusd, 2, 5, 6);
            if (two && wide) NNHAL_AMX_DOT(tdpbusd, 3, 5, 7);
          }
        }
        NNHAL_AMX_STORE(0, &sums[0][cb], sizeof sums[0]);
        if (wide) NNHAL_AMX_STORE(1, &sums[0][cb + 16], sizeof sums[0]);
        if (two) NNHAL_AMX_STORE(2, &sums[16][cb], sizeof sums[0]);
        if (two && wide) NNHAL_AMX_STORE(3, &sums[16][cb + 16], sizeof sums[0]);
      }
      // The epilogue: per vector of 16 channels, its offsets (and the signed inputs' weight
      // sums); row r's sums of the vector plus those, less the row's term.
      const std::size_t nv = (cols + 15) / 16;
      __m512i off[4];
      for (std::size_t j = 0; j < nv; ++j) {
        off[j] = _mm512_loadu_si512(e.offset.data() + c0 + 16 * j);
        if constexpr (is_signed)
          off[j] = _mm512_add_epi32(
              off[j], _mm512_maskz_slli_epi32(simd::avx512::all16, _mm512_loadu_si512(p.colsum + c0 + 16 * j), 7));
      }
      auto sum_of = [&](std::size_t r, std::size_t j) NNHAL_TARGET_AVX512 {
        const __m512i v = _mm512_add_epi32(_mm512_load_si512(&sums[r][16 * j]), off[j]);
        return rterm ? _mm512_sub_epi32(v, _mm512_set1_epi32(rterm[i + r])) : v;
      };
      O* o = out + i * ldo + c0;
      if constexpr (!std::is_same_v<O, std::int32_t>) {
        if ((cols == 32 || cols == 64) && !e.scaling->any_left) {  // whole rows of the panel
          if (cols == 32) store_panel_rows<S, 2>(e, c0, rows, sum_of, o, ldo);
          else store_panel_rows<S, 4>(e, c0, rows, sum_of, o, ldo);
          continue;
        }
      }
      for (std::size_t j = 0; j < nv; ++j) {
        const __mmask16 mask = lanes_mask(cols - 16 * j);
        __m512i v[32];
        for (std::size_t r = 0; r < rows; ++r) v[r] = sum_of(r, j);
        if constexpr (std::is_same_v<O, std::int32_t>) {
          for (std::size_t r = 0; r < rows; ++r) _mm512_mask_storeu_epi32(o + r * ldo + 16 * j, mask, v[r]);
        } else {
          const q8_lanes lanes(e, c0 + 16 * j);
          lanes.store_rows<S, 16>(o + 16 * j, ldo, mask, v, std::min<std::size_t>(rows, 16));
          if (two) lanes.store_rows<S, 16>(o + 16 * ldo + 16 * j, ldo, mask, v + 16, rows - 16);
        }
      }
    }
  }
}

#undef NNHAL_AMX_LOAD
#undef NNHAL_AMX_STORE
#undef NNHAL_AMX_ZERO
#undef NNHAL_AMX_DOT

/// gemm_q8_to on AMX tiles (for rows amx_takes): row blocks (and panels, as for_tiles
/// shares them) per task, each task configuring its thread's tiles and releasing them.
template <class S, class O, class Rows>
void gemm_q8_amx_to(const Rows& rows, std::size_t m, const packed_q8& p, const q8_epilogue& e, O* out,
                    exec::parallel_context* par) {
  // Blocks of at most 256 rows: the tiles run so fast that larger blocks left too few
  // tasks for the threads (conv_bench, two cores, min of 3, us, 2048-row blocks -> 256:
  // qu8 224x224x3 k3s2 140 -> 78, 112x112x32 -> 64 136 -> 100, 56x56x128 84 -> 76; one
  // core unchanged within noise).
  constexpr std::size_t MR = 32;
  const std::size_t kc = amx_chunk(p.cin4), block = std::min<std::size_t>(block_rows(p.cin4, MR), 256);
  const std::size_t macs = m * p.cin * p.out_c;
  for_tiles(m, block, p.panels, macs, std::size_t{1} << 22, par,
            [&](std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1) {
    static thread_local std::vector<const std::uint8_t*> ptrs;  // kept: no allocation per execution
    static thread_local std::vector<std::int32_t> rterm;
    const amx_tile_config config = amx_config(kc);
    amx_load_config(config);
    for (std::size_t b0 = r0; b0 < r1; b0 += block) {
      const std::size_t n = std::min(r1, b0 + block) - b0;
      ptrs.resize((n + MR - 1) / MR * MR);
      rows.fill(b0, n, MR, ptrs.data());
      const bool with_rows = fill_row_terms<true, S>(rows, ptrs, n, MR, p, rterm);
      gemm_q8_amx<S, O>(ptrs[0], row_stride(rows, p), n, kc, p, p0, p1, e, with_rows ? rterm.data() : nullptr,
                        out + b0 * p.out_c, p.out_c);
    }
    amx_release();
  });
}

/// out = the quant8 GEMM of `m` rows (S: the input storage type) through epilogue `e`:
/// O = S requantizes, O = int32 keeps the zero-point-corrected sums plus e's offsets.
template <class S, class O, class Rows>
void gemm_q8_to(const Rows& rows, std::size_t m, const packed_q8& p, const q8_epilogue& e, O* out,
                exec::parallel_context* par, gemm_isa isa = gemm_isa::avx512) {
  if (isa == gemm_isa::amx) {
    if constexpr (amx_rows<Rows>)
      if (amx_takes(rows, m, p)) return gemm_q8_amx_to<S, O>(rows, m, p, e, out, par);
    isa = gemm_isa::avx512;  // the rest of an AMX CPU's GEMMs: AVX-512 VNNI
  }
  const std::size_t block = block_rows(rows.taps() * p.cin, q8_tile_rows(isa, p.nr / 16));
  // VNNI runs about four times as many multiply-adds per cycle as float32 FMA.
  const std::size_t macs = m * rows.taps() * p.cin * p.out_c;
  for_tiles(m, block, p.panels, macs, std::size_t{1} << 21, par,
            [&](std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1) {
    static thread_local std::vector<const std::uint8_t*> ptrs;  // kept: no allocation per execution
    static thread_local std::vector<std::int32_t> rterm;
    for (std::size_t b0 = r0; b0 < r1; b0 += block) {
      const std::size_t b1 = std::min(r1, b0 + block);
      auto run = [&]<gemm_isa I>() {
        switch (p.nr) {
          case 16: gemm_q8_block<I, 1, S>(rows, b0, b1, p0, p1, p, e, out, p.out_c, ptrs, rterm); break;
          case 32: gemm_q8_block<I, 2, S>(rows, b0, b1, p0, p1, p, e, out, p.out_c, ptrs, rterm); break;
          default: gemm_q8_block<I, 4, S>(rows, b0, b1, p0, p1, p, e, out, p.out_c, ptrs, rterm); break;
        }
      };
      switch (isa) {
        case gemm_isa::avx512: run.template operator()<gemm_isa::avx512>(); break;
        case gemm_isa::avx_vnni: run.template operator()<gemm_isa::avx_vnni>(); break;
        case gemm_isa::avx2: run.template operator()<gemm_isa::avx2>(); break;
        case gemm_isa::amx: break;  // (taken above)
      }
    }
  });
}

/// The requantized quant8 GEMM.
template <class S, class Rows>
void gemm_q8(const Rows& rows, std::size_t m, const packed_q8& p, const q8_epilogue& e, S* out,
             exec::parallel_context* par, gemm_isa isa = gemm_isa::avx512) {
  gemm_q8_to<S, S>(rows, m, p, e, out, par, isa);
}

/// NHWC quant8 convolution with one group (S: the input/output storage type).
template <class S>
void conv_q8_nhwc(const geometry& g, const S* in, const packed_q8& p, const q8_epilogue& e, S in_zp, S* out,
                  exec::parallel_context* par, gemm_isa isa) {
  const std::size_t m = std::size_t{g.batches} * g.out_h * g.out_w;
  const auto* in8 = reinterpret_cast<const std::uint8_t*>(in);
  if (is_pointwise(g)) return gemm_q8(dense_rows<std::uint8_t>{in8, g.in_c}, m, p, e, out, par, isa);
  const std::vector<S> pad(g.in_c, in_zp);
  const conv_rows<std::uint8_t> rows{&g, in8, reinterpret_cast<const std::uint8_t*>(pad.data())};
  if (p.taps == 1 && rows.taps() > 1)
    return gemm_q8(im2col_rows<std::uint8_t>{rows, isa == gemm_isa::avx512 || isa == gemm_isa::amx}, m, p, e, out, par,
                   isa);
  gemm_q8(rows, m, p, e, out, par, isa);
}

/// A constant quant8 packing of shape `shape` (`what` names it in a compilation cache):
/// made by `pack` at bind, or found packed by an earlier preparation. A found blob's
/// channel sums are taken as they are: a corrupted cache gives wrong values, as a
/// corrupted filter would.
template <class Pack>
std::shared_ptr<const packed_q8> packed_constant_q8(const bind_context& c, const packed_q8& shape,
                                                    const std::string& what, Pack&& pack) {
  return packed_constant<packed_q8>(
      c, what, shape.bytes(), [&] { return std::make_shared<const packed_q8>(pack()); },
      [&](const packed_blob& b) -> std::shared_ptr<const packed_q8> {
        if (reinterpret_cast<std::uintptr_t>(b.bytes.data()) % alignof(std::int32_t) != 0) return nullptr;
        packed_q8 p = shape;
        p.attach(std::shared_ptr<const std::byte>(b.owner, b.bytes.data()));
        return std::make_shared<const packed_q8>(std::move(p));
      },
      [](const std::shared_ptr<const packed_q8>& p) {
        return packed_blob{p, std::span<const std::byte>(p->data.get(), p->bytes())};
      });
}

/// The filter, packed at bind when constant (shared by the conv and FULLY_CONNECTED binds).
inline std::shared_ptr<const packed_q8> constant_q8(const bind_context& c, std::size_t rank) {
  const operand_desc& f = c.in[1];
  if (!f.has_value() || f.dims.size() != rank || !f.dims_known()) return nullptr;
  const packed_q8 shape = filter_shape_q8(f);
  const std::string what =
      types::str_cat("q8:", shape.out_c, "x", shape.taps, "x", shape.cin, "/", shape.nr, f.type == OperandType::TENSOR_QUANT8_ASYMM ? "u" : "s");
  return packed_constant_q8(c, shape, what, [&] { return pack_filter_q8(f); });
}

/// The scaling of a filter's channels, made at bind when its shape is known (rank
/// `rank`); null otherwise (each execution makes its own).
inline std::shared_ptr<const q8_scaling> bound_scaling(const operand_desc& f, std::size_t rank, const requant& q) {
  if (f.dims.size() != rank || !f.dims_known()) return nullptr;
  const packed_q8 shape = filter_shape_q8(f);
  return make_q8_scaling(q, shape.out_c, shape.panels * shape.nr);
}

/// The bound CONV_2D / GROUPED_CONV_2D (one group) quant8 kernel: E qu8 or qs8.
template <types::element E>
kernel bind_conv_q8(const bind_context& c, conv_kind k, conv_slots_fn slots, gemm_isa isa) {
  using S = typename E::storage;
  const requant q = make_requant(c.in[0], c.in[1], c.out[0]);
  const std::int32_t zx = c.in[0].zero_point + (std::is_signed_v<S> ? 128 : 0);
  return [constant = constant_q8(c, 4), scaling = bound_scaling(c.in[1], 4, q), q, zx, k, slots,
          isa](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    const geometry g = resolve_geometry(io, k, slots(io.in));
    packed_q8 local;
    const packed_q8& p = prepared_or(constant, local, [&] { return pack_filter_q8(io.in[1]); });
    const auto o = io.output<E>(0);
    const q8_epilogue e = make_q8_epilogue(
        p, reinterpret_cast<const std::int32_t*>(io.in[2].value), zx, q, scaling,
        quant::activation_range(g.activation, o.scale, o.zero_point, std::numeric_limits<S>::min(),
                                std::numeric_limits<S>::max()));
    const auto in_zp = static_cast<S>(io.in[0].zero_point);
    run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const geometry& gn, const S* in, S* out) {
      conv_q8_nhwc<S>(gn, in, p, e, in_zp, out, io.par, isa);
    });
  };
}

/// The bound FULLY_CONNECTED quant8 kernel: E qu8 or qs8.
template <types::element E>
kernel bind_fully_connected_q8(const bind_context& c, gemm_isa isa) {
  using S = typename E::storage;
  const requant q = make_requant(c.in[0], c.in[1], c.out[0]);
  const std::int32_t zx = c.in[0].zero_point + (std::is_signed_v<S> ? 128 : 0);
  return [constant = constant_q8(c, 2), scaling = bound_scaling(c.in[1], 2, q), q, zx, isa](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    packed_q8 local;
    const packed_q8& p = prepared_or(constant, local, [&] { return pack_filter_q8(io.in[1]); });
    const auto o = io.output<E>(0);
    const q8_epilogue e = make_q8_epilogue(
        p, reinterpret_cast<const std::int32_t*>(io.in[2].value), zx, q, scaling,
        quant::activation_range(io.scalar<std::int32_t>(3), o.scale, o.zero_point, std::numeric_limits<S>::min(),
                                std::numeric_limits<S>::max()));
    gemm_q8(dense_rows<std::uint8_t>{reinterpret_cast<const std::uint8_t*>(io.in[0].value), p.cin},
            io.out[0].dims[0], p, e, o.data, io.par, isa);
  };
}

/// The x86 kernel of a CONV_2D-like op with one group for the operand types of `c`, when
/// this CPU has one (float32: AVX-512, else AVX2 + FMA; quant8: AVX-512 VNNI, else AVX2,
/// with AVX-VNNI where the CPU has it); nullopt otherwise.
inline std::optional<kernel> bind_conv(const bind_context& c, conv_kind k, conv_slots_fn slots) {
  const bool per_channel = c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  const std::optional<gemm_isa> q8 = q8_gemm_isa();
  const bool q8_filter = per_channel || c.in[1].type == c.in[0].type;
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
      if (const std::optional<gemm_isa> isa = f32_gemm_isa()) return bind_conv_f32(c, k, slots, *isa);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (q8 && q8_filter) return bind_conv_q8<types::qu8>(c, k, slots, *q8);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (q8 && q8_filter) return bind_conv_q8<types::qs8>(c, k, slots, *q8);
      break;
    default: break;
  }
  return std::nullopt;
}

/// The same for FULLY_CONNECTED.
inline std::optional<kernel> bind_fully_connected(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
      if (const std::optional<gemm_isa> isa = f32_gemm_isa()) return bind_fully_connected_f32(c, *isa);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (const std::optional<gemm_isa> isa = q8_gemm_isa()) return bind_fully_connected_q8<types::qu8>(c, *isa);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (const std::optional<gemm_isa> isa = q8_gemm_isa()) return bind_fully_connected_q8<types::qs8>(c, *isa);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace nnhal::ops::kernels::conv::avx512
#endif
