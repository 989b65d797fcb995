// x86 DEPTHWISE_CONV_2D with depth_multiplier 1, NHWC. AVX-512: channels in vector lanes
// (16 per vector, a masked tail), eight output pixels per pass so eight independent
// accumulator chains hide the FMA latency. 3x3 filters with horizontal stride 1 or 2 have
// their own kernels (each input column loaded once per pass, see below). Other filters:
// interior pixels (every tap inside the input) address their taps as base + constant
// offsets; border pixels get one pointer per tap, a tap outside the input pointing at a
// row of padding values. The inner loops have no branches either way. Float32: the
// reference's products in another order. Quant8: exact int32 sums, sum (x - zx) * (w - zw)
// computed as sum x * (w - zw) - zx * sum (w - zw) (the second term folded into the bias),
// then the same fixed-point requantization: bit-exact.
// CPUs with AVX2 but no AVX-512 run the general kernels (dw_rows) with 8 channels per ymm
// (dw_f32_row_avx2, dw_q8_row_avx2), 3x3 filters included.
#pragma once

#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/ops/simd/aligned.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace nnhal::ops::kernels::conv::avx512 {

/// One output row. Pixels [lo, hi) have every tap inside the input: tap t of pixel ox
/// reads base + (ox - lo) * pstride + off[t]. Any other pixel reads ptrs[ox * taps + t],
/// which points into the input or at a row of padding values.
template <class T>
struct dw_row {
  std::size_t lo = 0, hi = 0;
  const T* base = nullptr;
  std::size_t pstride = 0;
  const std::ptrdiff_t* off = nullptr;
  const T* const* ptrs = nullptr;
};

/// Runs row(r, b, oy) over every output row (in parallel when `par` has workers).
template <class T, class Row>
void dw_rows(const geometry& g, const T* in, const T* pad, exec::parallel_context* par, Row&& row) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.in_c, ow = g.out_w;
  // Per-thread scratch, grown only: nothing is allocated per execution once it has run.
  // Every chunk reads the caller's offsets, through `offsets` (inside the loop's body the
  // name `off` would mean the running thread's own, not the caller's).
  thread_local std::vector<std::ptrdiff_t> off;
  if (off.size() < taps) off.resize(taps);
  const std::ptrdiff_t* const offsets = off.data();
  for (std::size_t ky = 0; ky < g.filter_h; ++ky)
    for (std::size_t kx = 0; kx < g.filter_w; ++kx)
      off[ky * g.filter_w + kx] =
          static_cast<std::ptrdiff_t>((ky * g.dil_h * std::size_t{g.in_w} + kx * g.dil_w) * ch);
  // Interior columns: ox * stride_w - pad_left >= 0 and the last tap < in_w.
  const std::int64_t span_w = (std::int64_t{g.filter_w} - 1) * g.dil_w;
  const std::int64_t first = (g.pad_left + g.stride_w - 1) / g.stride_w;
  const std::int64_t last_num = std::int64_t{g.in_w} - 1 - span_w + g.pad_left;
  const std::int64_t end = last_num < 0 ? 0 : last_num / g.stride_w + 1;
  const std::size_t col_lo = static_cast<std::size_t>(std::clamp<std::int64_t>(first, 0, std::int64_t(ow)));
  const std::size_t col_hi = std::max(col_lo, static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, std::int64_t(ow))));
  const std::int64_t span_h = (std::int64_t{g.filter_h} - 1) * g.dil_h;
  for_blocks(std::size_t{g.batches} * g.out_h, 1, par, [&](std::size_t r0, std::size_t r1) {
    thread_local std::vector<const T*> ptrs;
    if (ptrs.size() < ow * taps) ptrs.resize(ow * taps);
    for (std::size_t r = r0; r < r1; ++r) {
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      const std::int64_t iy0 = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top;
      dw_row<T> d;
      d.off = offsets;
      d.ptrs = ptrs.data();
      d.pstride = std::size_t{static_cast<std::uint32_t>(g.stride_w)} * ch;
      if (iy0 >= 0 && iy0 + span_h < g.in_h && col_lo < col_hi) {
        d.lo = col_lo;
        d.hi = col_hi;
        const std::int64_t ix0 = static_cast<std::int64_t>(col_lo) * g.stride_w - g.pad_left;
        d.base = in + ((b * g.in_h + static_cast<std::size_t>(iy0)) * g.in_w + static_cast<std::size_t>(ix0)) * ch;
      }
      for (std::size_t ox = 0; ox < ow; ++ox) {
        if (ox == d.lo && d.lo < d.hi) ox = d.hi;  // interior pixels need no pointers
        if (ox >= ow) break;
        const std::int64_t ix0 = static_cast<std::int64_t>(ox) * g.stride_w - g.pad_left;
        std::size_t t = 0;
        for (std::size_t ky = 0; ky < g.filter_h; ++ky) {
          const std::int64_t iy = iy0 + static_cast<std::int64_t>(ky) * g.dil_h;
          for (std::size_t kx = 0; kx < g.filter_w; ++kx, ++t) {
            const std::int64_t ix = ix0 + static_cast<std::int64_t>(kx) * g.dil_w;
            const bool inside = iy >= 0 && iy < g.in_h && ix >= 0 && ix < g.in_w;
            ptrs[ox * taps + t] = inside ? in + ((b * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                                 static_cast<std::size_t>(ix)) * ch
                                         : pad;
          }
        }
      }
      row(d, b, oy);
    }
  });
}

// ---------------------------------------------------------------------------------
// 3x3 filters, horizontal stride 1 or 2, no horizontal dilation: the common case
// (MobileNet v1/v2 and most other depthwise networks). Eight output pixels side by side
// read 7 * stride + 3 input columns per filter row; each column is loaded once and
// multiplied by every tap that uses it (up to three), with the filter's taps held in
// registers, instead of one load per tap and pixel. Border passes either read input rows
// copied with their left and right padding (dw3_padded_rows: every pass then loads whole
// columns, with no per-column test), or read the input in place, a border pass skipping
// the columns outside (a test per column, the same for every channel block), which costs
// float32 less than the copy (see depthwise_f32_nhwc).
// ---------------------------------------------------------------------------------

/// Output pixels per pass of the 3x3 kernels, and the input columns such a pass reads.
inline constexpr std::size_t dw3_px = 8;
template <unsigned S>
inline constexpr std::size_t dw3_cols = (dw3_px - 1) * S + 3;

/// True when the 3x3 kernels handle `g` (NHWC geometry, depth multiplier 1).
inline bool dw3_applies(const geometry& g) {
  return g.filter_h == 3 && g.filter_w == 3 && g.dil_w == 1 && (g.stride_w == 1 || g.stride_w == 2);
}

/// One pass of the 3x3 kernels: output pixels [ox0, ox0 + n) of one output row, whose
/// filter rows read `rows` (null: the row lies in the padding; `pad_row`, with padded
/// rows, is a row of padding values for kernels that read it). When `interior`, a pass
/// reads columns from column `col` of `rows` on: dw3_cols of them with padded rows (also
/// when n < dw3_px); in place, the `need` its n pixels use that lie inside the input.
/// Otherwise (input rows read in place only) it reads input columns from ix0 on, of which
/// pass columns [inside_lo, inside_hi) lie inside the input and are used by its pixels.
template <class T>
struct dw3_pass {
  std::array<const T*, 3> rows{};
  const T* pad_row = nullptr;
  std::size_t ox0 = 0, n = 0, col = 0, need = 0;
  std::int64_t ix0 = 0;
  std::size_t inside_lo = 0, inside_hi = 0;
  bool interior = true;
};

/// dst[i] = src[i] ^ flip for n bytes.
NNHAL_TARGET_AVX512 inline void copy_flipped(const std::uint8_t* src, std::uint8_t* dst, std::size_t n,
                                             std::uint8_t flip) {
  const __m512i f = _mm512_set1_epi8(static_cast<char>(flip));
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(dst + i, _mm512_xor_si512(_mm512_loadu_si512(src + i), f));
  if (i < n) {
    const __mmask64 m = (__mmask64{1} << (n - i)) - 1;
    _mm512_mask_storeu_epi8(dst + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + i), f));
  }
}

/// Input rows with their padding, for one thread's output rows in increasing order:
/// padded column j holds input column j - pad_left, or `pad` outside the input, for every
/// column a pass reads. Keeps the last few rows, so with stride 1 each output row copies
/// one new input row. Bytes may be copied with bits flipped (`flip`, xor): int8 data with
/// 0x80 becomes its uint8 value plus 128.
template <class T>
class dw3_padded_rows {
 public:
  dw3_padded_rows(const geometry& g, const T* in, T pad, T flip = T{}) : g_(g), in_(in), pad_(pad), flip_(flip) {
    const std::size_t passes = (std::size_t{g.out_w} + dw3_px - 1) / dw3_px;
    width_ = ((passes * dw3_px - 1) * static_cast<std::size_t>(g.stride_w) + 3) * g.in_c;
    // Kept per thread (this runs on the worker), so an execution allocates nothing.
    thread_local simd::aligned_vector<T> storage;
    if (storage.size() < (slots + 1) * width_) storage.resize((slots + 1) * width_);
    buf_ = storage.data();
    std::fill(buf_ + slots * width_, buf_ + (slots + 1) * width_, pad_);
  }
  /// Padded input row iy of batch b; null when iy is in the padding. `needed`: the tags
  /// (b * in_h + iy) of the rows the caller reads with it (at most slots), which stay.
  const T* row(std::size_t b, std::int64_t iy, std::span<const std::int64_t> needed) {
    if (iy < 0 || iy >= std::int64_t{g_.in_h}) return nullptr;
    const std::int64_t tag = static_cast<std::int64_t>(b) * g_.in_h + iy;
    std::size_t s = slots;
    for (std::size_t i = 0; i < slots; ++i)
      if (tags_[i] == tag) return buf_ + i * width_;
    // Replace a row the caller does not read: the slots hold distinct tags, not this
    // one's, so at most slots - 1 of them are needed and one is free.
    for (std::size_t i = 0; i < slots && s == slots; ++i)
      if (std::find(needed.begin(), needed.end(), tags_[i]) == needed.end()) s = i;
    tags_[s] = tag;
    T* dst = buf_ + s * width_;
    const std::size_t ch = g_.in_c;
    const std::int64_t cols = static_cast<std::int64_t>(width_ / ch);
    const std::int64_t lead = std::clamp<std::int64_t>(g_.pad_left, 0, cols);        // padded columns before the input
    const std::int64_t first = std::max<std::int64_t>(0, -std::int64_t{g_.pad_left});  // first input column copied
    const std::int64_t copied = std::clamp<std::int64_t>(std::int64_t{g_.in_w} - first, 0, cols - lead);
    const T* src = in_ + ((b * g_.in_h + static_cast<std::size_t>(iy)) * g_.in_w + static_cast<std::size_t>(first)) * ch;
    std::fill(dst, dst + lead * ch, pad_);
    bool flipped = false;
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      flipped = flip_ != 0;
      if (flipped) copy_flipped(src, dst + lead * ch, static_cast<std::size_t>(copied) * ch, flip_);
    }
    if (!flipped) std::copy(src, src + copied * ch, dst + lead * ch);
    std::fill(dst + (lead + copied) * ch, dst + width_, pad_);
    return dst;
  }
  /// A padded row of padding values.
  const T* pad_row() const { return buf_ + slots * width_; }

 private:
  static constexpr std::size_t slots = 5;
  const geometry& g_;
  const T* in_;
  T pad_, flip_;
  std::size_t width_ = 0;  // elements of one padded row
  T* buf_ = nullptr;  // slots rows, then the row of padding values
  static constexpr std::int64_t empty = std::numeric_limits<std::int64_t>::min();  // never a row's tag
  std::array<std::int64_t, slots> tags_{empty, empty, empty, empty, empty};
};

/// Runs pass(p, out_row) over every pass of every output row (rows in parallel when
/// `par` has workers); out_row is the output row's first element. With `padded`, passes
/// read rows copied with their padding columns (of value `pad`) and are all interior;
/// otherwise they read the input rows in place. `flip` as dw3_padded_rows's.
template <class T, class O, class Pass>
void dw3_passes(const geometry& g, const T* in, O* out, bool padded, T pad, T flip, exec::parallel_context* par,
                Pass&& pass) {
  const std::size_t out_row = std::size_t{g.out_w} * g.out_c, row_len = std::size_t{g.in_w} * g.in_c;
  // The first output column whose filter columns start inside the input.
  const std::size_t first_inside = (static_cast<std::size_t>(std::max(g.pad_left, 0)) + g.stride_w - 1) / g.stride_w;
  for_blocks(std::size_t{g.batches} * g.out_h, 1, par, [&](std::size_t r0, std::size_t r1) {
    std::optional<dw3_padded_rows<T>> copies;
    dw3_pass<T> p;
    if (padded) p.pad_row = copies.emplace(g, in, pad, flip).pad_row();
    for (std::size_t k = r0; k < r1; ++k) {
      // In place, the rows go bottom up: the operation before wrote `in` top down, so its
      // last rows are the ones still in L2, and the one after reads these outputs top down,
      // the last written first.
      const std::size_t r = padded ? k : r1 - 1 - (k - r0);
      const std::size_t b = r / g.out_h, oy = r % g.out_h;
      std::array<std::int64_t, 3> iy{}, needed{};
      for (std::size_t ky = 0; ky < 3; ++ky) {
        iy[ky] = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top + static_cast<std::int64_t>(ky) * g.dil_h;
        needed[ky] = static_cast<std::int64_t>(b) * g.in_h + iy[ky];
      }
      for (std::size_t ky = 0; ky < 3; ++ky) {
        const bool inside = iy[ky] >= 0 && iy[ky] < std::int64_t{g.in_h};
        p.rows[ky] = copies                ? copies->row(b, iy[ky], needed)
                     : inside             ? in + (b * g.in_h + static_cast<std::size_t>(iy[ky])) * row_len
                                          : nullptr;
      }
      if (copies) {
        for (p.ox0 = 0; p.ox0 < g.out_w; p.ox0 += dw3_px) {
          p.n = std::min<std::size_t>(dw3_px, g.out_w - p.ox0);
          p.col = p.ox0 * static_cast<std::size_t>(g.stride_w);
          pass(p, out + r * out_row);
        }
        continue;
      }
      // In place: a pass from the first pixel whose columns start inside the input on is
      // interior (rows in the padding are null and skipped), reading the `need` columns
      // its pixels use up to the input's right edge: columns past it are padding, which
      // adds nothing. A pass with a pixel whose columns start left of the input is a
      // border pass, which tests each column. (One core, conv_bench float32, interleaved best
      // of 4, before the right edge's passes were interior: 112x112x64 k3s2 78 -> 64 us,
      // 56x56x128 k3s2 41 -> 36, 14x14x512 k3s1 27 -> 25, k3s2 10.8 -> 9.7.)
      for (p.ox0 = 0; p.ox0 < g.out_w; p.ox0 += dw3_px) {
        p.n = std::min<std::size_t>(dw3_px, g.out_w - p.ox0);
        p.ix0 = static_cast<std::int64_t>(p.ox0) * g.stride_w - g.pad_left;
        const auto used = static_cast<std::int64_t>((p.n - 1) * g.stride_w + 3);
        p.interior = p.ox0 >= first_inside;
        p.need = static_cast<std::size_t>(std::clamp<std::int64_t>(g.in_w - p.ix0, 0, used));
        p.col = p.interior && p.need > 0 ? static_cast<std::size_t>(p.ix0) : 0;
        p.inside_lo = static_cast<std::size_t>(std::clamp<std::int64_t>(-p.ix0, 0, used));
        p.inside_hi = std::max(p.inside_lo, p.need);
        pass(p, out + r * out_row);
      }
    }
  });
}

// ---------------------------------------------------------------------------------
// Quant8 3x3 over quad rows. At horizontal stride 1, two output rows (vertical stride
// equal to vertical dilation) read four input rows; interleaved byte by byte, each input column
// of 16 channels is one register of dwords (row 0, row 1, row 2, row 3), and one vpdpbusd
// by the filter bytes (w0, w1, w2, 0) of a tap column adds the upper output row's three
// filter rows' products, by (0, w0, w1, w2) the lower's: 3 vpdpbusd per output vector,
// where the pairs kernel (dw3_q8_block) takes 6 vpdpwssd and pairs its rows on the shuffle
// port for every output row. Filters need every w - zw below 255 (two int8 parts: see
// dw_q8_filter::quads3). At stride 2 (horizontal and vertical, no vertical dilation) two
// output rows read five input rows: the upper one quad rows 0 to 2, the lower one quad
// rows 2 and 3 and the row after (widened, one more vpdpbusd), so every input row is
// interleaved once. A block of 16 channels whose w - zw all fit int8 takes one part,
// whatever the other blocks need (dw_q8_filter::split_blocks); with two parts, stride 2
// takes 9 vpdpbusd per pair of output vectors, no faster than the pairs kernel, which
// takes filters split in every block.
// ---------------------------------------------------------------------------------

/// Four padded uint8 rows (`n` bytes from each of r) interleaved byte by byte into `q`:
/// dword j holds byte j of rows 0, 1, 2, 3 (low to high), for j < n rounded up to 64 (the
/// rest read as zeros). Per 64 bytes, vpermd first transposes each row's 4x4 dwords, so
/// that the unpacks (which work within 128-bit lanes) leave the bytes in order in four
/// registers.
NNHAL_TARGET_AVX512 inline void dw3_quad(const std::array<const std::uint8_t*, 4>& r, std::size_t n, std::int32_t* q) {
  const __m512i transpose = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  for (std::size_t j = 0; j < n; j += 64) {
    const __mmask64 m = n - j >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - j)) - 1;
    __m512i v[4];
#pragma GCC unroll 4
    for (std::size_t k = 0; k < 4; ++k)
      v[k] = _mm512_maskz_permutexvar_epi32(simd::avx512::all16, transpose, _mm512_maskz_loadu_epi8(m, r[k] + j));
    const __m512i lo01 = _mm512_unpacklo_epi8(v[0], v[1]), hi01 = _mm512_unpackhi_epi8(v[0], v[1]);
    const __m512i lo23 = _mm512_unpacklo_epi8(v[2], v[3]), hi23 = _mm512_unpackhi_epi8(v[2], v[3]);
    _mm512_storeu_si512(q + j, _mm512_unpacklo_epi16(lo01, lo23));
    _mm512_storeu_si512(q + j + 16, _mm512_unpackhi_epi16(lo01, lo23));
    _mm512_storeu_si512(q + j + 32, _mm512_unpacklo_epi16(hi01, hi23));
    _mm512_storeu_si512(q + j + 48, _mm512_unpackhi_epi16(hi01, hi23));
  }
}

/// Channels per quad of dw3_quad_passes: a pass's 10 columns (17 at stride 2) of 128
/// channels are 5 KiB (8.5) of quad, which stays in L1 with the rows it is built from. A
/// quad of a whole row would not (qc8 56x56x128, one core: 115 us with quads of whole
/// rows, 90 with a pass's).
inline constexpr std::size_t dw3_quad_channels = 128;

/// dw3_passes for the quad kernels at stride St (dw3_quad_applies): runs pass(q, ldq, c0,
/// cn, n, out0, out1, x4) over every pass of every pair of output rows, in chunks of
/// channels [c0, c0 + cn): q holds the dw3_quad of the pass's columns of the pair's first
/// four padded input rows (copied as dw3_padded_rows's, with `pad` and `flip`), column j's
/// channel c0 + k at q[j * ldq + k]; n the pass's pixels; out0 and out1 the two output
/// rows at the pass's first pixel; at stride 2, x4 the fifth input row at the pass's
/// column 0 and channel c0. The last output row of an odd count pairs with none (out1 and
/// x4 null; the quad's rows past its three, the padding row).
template <unsigned St, class O, class Pass>
void dw3_quad_passes(const geometry& g, const std::uint8_t* in, O* out, std::uint8_t pad, std::uint8_t flip,
                     exec::parallel_context* par, Pass&& pass) {
  const std::size_t out_row = std::size_t{g.out_w} * g.out_c, ch = g.in_c, pairs = (std::size_t{g.out_h} + 1) / 2;
  const std::size_t cols = dw3_cols<St>, ldq = std::min(ch, dw3_quad_channels);
  for_blocks(std::size_t{g.batches} * pairs, 1, par, [&](std::size_t u0, std::size_t u1) {
    dw3_padded_rows<std::uint8_t> copies(g, in, pad, flip);
    thread_local simd::aligned_vector<std::int32_t> quad;
    if (quad.size() < cols * ldq + 64) quad.resize(cols * ldq + 64);
    for (std::size_t u = u0; u < u1; ++u) {
      const std::size_t b = u / pairs, oy = u % pairs * 2, rows = std::min<std::size_t>(2, g.out_h - oy);
      // Input rows read: 4 (stride 1) or 5 for two output rows, 3 for one.
      const std::size_t reads = rows == 1 ? 3 : 3 + St;
      std::array<std::int64_t, 5> iy{}, needed{};
      for (std::size_t k = 0; k < 5; ++k) {
        iy[k] = static_cast<std::int64_t>(oy) * g.stride_h - g.pad_top + static_cast<std::int64_t>(k) * g.dil_h;
        needed[k] = static_cast<std::int64_t>(b) * g.in_h + iy[k];
      }
      const std::span<const std::int64_t> used(needed.data(), reads);
      std::array<const std::uint8_t*, 5> r{};
      for (std::size_t k = 0; k < 5; ++k) {
        const std::uint8_t* row = k < reads ? copies.row(b, iy[k], used) : nullptr;
        r[k] = row ? row : copies.pad_row();
      }
      O* o0 = out + (b * g.out_h + oy) * out_row;
      O* o1 = rows == 2 ? o0 + out_row : nullptr;
      for (std::size_t ox0 = 0; ox0 < g.out_w; ox0 += dw3_px) {
        const std::size_t n = std::min<std::size_t>(dw3_px, g.out_w - ox0);
        for (std::size_t c0 = 0; c0 < ch; c0 += ldq) {
          const std::size_t cn = std::min(ldq, ch - c0);
          const auto at = [&](std::size_t j) {
            const std::size_t off = (ox0 * St + j) * ch + c0;
            return std::array<const std::uint8_t*, 4>{r[0] + off, r[1] + off, r[2] + off, r[3] + off};
          };
          if (ldq == ch) dw3_quad(at(0), cols * ch, quad.data());  // the columns are contiguous
          else
            for (std::size_t j = 0; j < cols; ++j) dw3_quad(at(j), cn, quad.data() + j * ldq);
          const std::size_t off = ox0 * ch;
          pass(quad.data(), ldq, c0, cn, n, o0 + off, o1 ? o1 + off : nullptr,
               St == 2 && o1 ? r[4] + ox0 * St * ch + c0 : nullptr);
        }
      }
    }
  });
}

/// Output pixel and tap of input column J when it is read through tap column Kx:
/// p * S + Kx == J with p in [0, dw3_px).
template <unsigned S, std::size_t J, std::size_t Kx>
inline constexpr bool dw3_uses = J >= Kx && (J - Kx) % S == 0 && (J - Kx) / S < dw3_px;
template <unsigned S, std::size_t J, std::size_t Kx>
inline constexpr std::size_t dw3_pixel = (J - Kx) / S;

/// Runs pixels(PX, Direct, out pixel, tap pointers or interior base) over one output row:
/// its interior pixels 8, 4, 2 and 1 at a time through base + offsets, the others one at
/// a time through their tap pointers. Every depthwise row kernel (AVX-512 and AVX2, float32
/// and quant8) walks its row so. No target of its own: it is inlined into its caller (a row
/// function, or for AVX2 quant8 the block of 8 channels) which carries the instruction set
/// and [[gnu::flatten]], and which so inlines the pixels functor too: a class whose
/// operator() carries that instruction set (a lambda would not).
template <class T, class Pixels>
[[gnu::always_inline]] inline void dw_row_walk(const dw_row<T>& r, std::size_t ow, std::size_t taps,
                                               Pixels&& pixels) {
  for (std::size_t ox = 0; ox < ow; ++ox) {
    if (ox == r.lo && r.lo < r.hi) {
      std::size_t i = r.lo;
      for (; i + 8 <= r.hi; i += 8) pixels.template operator()<8, true>(i, nullptr, r.base + (i - r.lo) * r.pstride);
      if (i + 4 <= r.hi) {
        pixels.template operator()<4, true>(i, nullptr, r.base + (i - r.lo) * r.pstride);
        i += 4;
      }
      if (i + 2 <= r.hi) {
        pixels.template operator()<2, true>(i, nullptr, r.base + (i - r.lo) * r.pstride);
        i += 2;
      }
      for (; i < r.hi; ++i) pixels.template operator()<1, true>(i, nullptr, r.base + (i - r.lo) * r.pstride);
      ox = r.hi;
      if (ox >= ow) break;
    }
    pixels.template operator()<1, false>(ox, r.ptrs + ox * taps, nullptr);
  }
}

// ---------------------------------------------------------------------------------
// Float32
// ---------------------------------------------------------------------------------

/// PX pixels, channels [c, c + 16) under `mask`: tap t of pixel p reads `at(p, t) + c`,
/// a tap pointer (Direct false: tp[p * taps + t]) or base + p * pstride + off[t].
template <std::size_t PX, bool Direct, bool Full>
NNHAL_TARGET_AVX512 inline void dw_f32_pixels(const float* const* tp, const float* base, std::size_t pstride,
                                              const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                              __mmask16 mask, const float* w, std::size_t ch, __m512 bias, __m512 lo,
                                              __m512 hi, float* out) {
  __m512 acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = bias;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m512 wv = _mm512_maskz_loadu_ps(mask, w + t * ch + c);
    const float* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const float* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      // A full vector loads unmasked, so the load folds into the FMA.
      acc[p] = _mm512_fmadd_ps(Full ? _mm512_loadu_ps(x) : _mm512_maskz_loadu_ps(mask, x), wv, acc[p]);
    }
  }
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p)
    _mm512_mask_storeu_ps(out + p * ch + c, mask,
                          _mm512_maskz_min_ps(simd::avx512::all16, hi, _mm512_maskz_max_ps(simd::avx512::all16, lo, acc[p])));
}

/// dw_row_walk's pixels for dw_f32_row: channels [c, c + 16) of PX pixels under `mask`.
template <bool Full>
struct dw_f32_pixels_fn {
  const dw_row<float>& r;
  std::size_t taps, ch, c;
  __mmask16 mask;
  const float* w;
  __m512 b, vlo, vhi;
  float* out;
  template <std::size_t PX, bool Direct>
  NNHAL_TARGET_AVX512 void operator()(std::size_t ox, const float* const* tp, const float* base) const {
    dw_f32_pixels<PX, Direct, Full>(tp, base, r.pstride, r.off, taps, c, mask, w, ch, b, vlo, vhi, out + ox * ch);
  }
};

/// One output row (ow pixels) of the float32 depthwise conv, 16 channels at a time.
[[gnu::flatten]] NNHAL_TARGET_AVX512 inline void dw_f32_row(const dw_row<float>& r, std::size_t ow, std::size_t taps,
                                                            std::size_t ch, const float* w, const float* bias, float lo,
                                                            float hi, float* out) {
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  for (std::size_t c = 0; c < ch; c += 16) {
    const __mmask16 mask = lanes_mask(ch - c);
    const __m512 b = _mm512_maskz_loadu_ps(mask, bias + c);
    if (ch - c >= 16) dw_row_walk(r, ow, taps, dw_f32_pixels_fn<true>{r, taps, ch, c, mask, w, b, vlo, vhi, out});
    else dw_row_walk(r, ow, taps, dw_f32_pixels_fn<false>{r, taps, ch, c, mask, w, b, vlo, vhi, out});
  }
}

/// Lanes [0, n) of a ymm (n <= 8) set, for maskload / maskstore.
NNHAL_TARGET_AVX2_FMA inline __m256i ymm_lanes(std::size_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// dw_f32_pixels in AVX2: channels [c, c + 8) under `mask` (Full: all 8).
template <std::size_t PX, bool Direct, bool Full>
NNHAL_TARGET_AVX2_FMA inline void dw_f32_pixels_avx2(const float* const* tp, const float* base, std::size_t pstride,
                                                     const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                                     __m256i mask, const float* w, std::size_t ch, __m256 bias,
                                                     __m256 lo, __m256 hi, float* out) {
  __m256 acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = bias;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m256 wv = Full ? _mm256_loadu_ps(w + t * ch + c) : _mm256_maskload_ps(w + t * ch + c, mask);
    const float* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const float* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      acc[p] = _mm256_fmadd_ps(Full ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, mask), wv, acc[p]);
    }
  }
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) {
    // max(lo, v) and min(hi, v) return v when v is NaN, like the scalar clamp.
    const __m256 v = _mm256_min_ps(hi, _mm256_max_ps(lo, acc[p]));
    if (Full) _mm256_storeu_ps(out + p * ch + c, v);
    else _mm256_maskstore_ps(out + p * ch + c, mask, v);
  }
}

/// dw_row_walk's pixels for dw_f32_row_avx2 (a class, not a lambda: its operator() is
/// compiled for AVX2 too): every channel of PX pixels, 8 at a time. Channels inner: one
/// walk over the row, each pixel's channels read in order, instead of a walk per 8
/// channels (one core, conv_bench --nnhal_avx2, us: 112x112x64 k3s2 123 -> 87, 56x56x128
/// k3s1 210 -> 135, 14x14x512 k3s1 91 -> 56; 7x7x1024 79 either way. Quant8, whose
/// requantization constants would then be loaded per pixel group, was slower so.)
struct dw_f32_avx2_pixels {
  const dw_row<float>& r;
  std::size_t taps, ch;
  const float* w;
  const float* bias;
  __m256 vlo, vhi;
  float* out;
  template <std::size_t PX, bool Direct>
  NNHAL_TARGET_AVX2_FMA void operator()(std::size_t ox, const float* const* tp, const float* base) const {
    std::size_t c = 0;
    for (; c + 8 <= ch; c += 8)
      dw_f32_pixels_avx2<PX, Direct, true>(tp, base, r.pstride, r.off, taps, c, __m256i{}, w, ch, _mm256_loadu_ps(bias + c),
                                           vlo, vhi, out + ox * ch);
    if (c < ch) {
      const __m256i mask = ymm_lanes(ch - c);
      dw_f32_pixels_avx2<PX, Direct, false>(tp, base, r.pstride, r.off, taps, c, mask, w, ch,
                                            _mm256_maskload_ps(bias + c, mask), vlo, vhi, out + ox * ch);
    }
  }
};

/// One output row of the float32 depthwise conv in AVX2 (8 channels per vector).
[[gnu::flatten]] NNHAL_TARGET_AVX2_FMA inline void dw_f32_row_avx2(const dw_row<float>& r, std::size_t ow,
                                                                  std::size_t taps, std::size_t ch, const float* w,
                                                                  const float* bias, float lo, float hi, float* out) {
  dw_row_walk(r, ow, taps, dw_f32_avx2_pixels{r, taps, ch, w, bias, _mm256_set1_ps(lo), _mm256_set1_ps(hi), out});
}

/// The float32 depthwise conv (NHWC, depth multiplier 1) on CPUs with AVX2 and FMA.
inline void depthwise_f32_nhwc_avx2(const geometry& g, const float* in, const float* w, const float* bias, float lo,
                                    float hi, float* out, exec::parallel_context* par) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.out_c;
  thread_local std::vector<float> zeros;  // the padding row border taps point at
  if (zeros.size() < ch) zeros.assign(ch, 0.0f);
  dw_rows(g, in, zeros.data(), par, [&](const dw_row<float>& r, std::size_t b, std::size_t oy) {
    dw_f32_row_avx2(r, g.out_w, taps, ch, w, bias, lo, hi, out + (b * g.out_h + oy) * g.out_w * ch);
  });
}

/// Float32 3x3: input column J (x) of one filter row whose three taps are `w`.
template <unsigned S, std::size_t J>
NNHAL_TARGET_AVX512 inline void dw3_f32_column(__m512 x, const __m512* w, __m512* acc) {
  if constexpr (dw3_uses<S, J, 0>) acc[dw3_pixel<S, J, 0>] = _mm512_fmadd_ps(x, w[0], acc[dw3_pixel<S, J, 0>]);
  if constexpr (dw3_uses<S, J, 1>) acc[dw3_pixel<S, J, 1>] = _mm512_fmadd_ps(x, w[1], acc[dw3_pixel<S, J, 1>]);
  if constexpr (dw3_uses<S, J, 2>) acc[dw3_pixel<S, J, 2>] = _mm512_fmadd_ps(x, w[2], acc[dw3_pixel<S, J, 2>]);
}

/// Channel blocks [c, c + 16 NB) of a float32 3x3 pass: one block under mask m, or NB
/// whole blocks.
template <std::size_t NB>
struct dw3_f32_blocks {
  std::size_t c = 0;
  __mmask16 m = simd::avx512::all16;
  static_assert(NB >= 1);
  NNHAL_TARGET_AVX512 __m512 load(const float* p) const {
    if constexpr (NB == 1) return _mm512_maskz_loadu_ps(m, p);
    else return _mm512_loadu_ps(p);
  }
  NNHAL_TARGET_AVX512 void store(float* p, __m512 v) const {
    if constexpr (NB == 1) _mm512_mask_storeu_ps(p, m, v);
    else _mm512_storeu_ps(p, v);
  }
};

/// Column J of a border pass (see dw3_pass), when it lies inside the input; `row` the
/// input row.
template <unsigned S, std::size_t J, std::size_t NB>
NNHAL_TARGET_AVX512 inline void dw3_f32_border_column(const dw3_pass<float>& p, const float* row, std::size_t ch,
                                                      const dw3_f32_blocks<NB>& k, const __m512 (*w)[3],
                                                      __m512 (*acc)[dw3_px]) {
  if (J < p.inside_lo || J >= p.inside_hi) return;
  const float* x = row + static_cast<std::size_t>(p.ix0 + static_cast<std::int64_t>(J)) * ch + k.c;
  for (std::size_t b = 0; b < NB; ++b) dw3_f32_column<S, J>(k.load(x + 16 * b), w[b], acc[b]);
}

/// Column J of an interior pass from `x` (its first column, channel k.c), when one of
/// its pixels uses it (Full: all dw3_px pixels, so every column).
template <unsigned S, bool Full, std::size_t J, std::size_t NB>
NNHAL_TARGET_AVX512 inline void dw3_f32_interior_column(const dw3_pass<float>& p, const float* x, std::size_t ch,
                                                        const dw3_f32_blocks<NB>& k, const __m512 (*w)[3],
                                                        __m512 (*acc)[dw3_px]) {
  if (!Full && J >= p.need) return;
  for (std::size_t b = 0; b < NB; ++b)
    dw3_f32_column<S, J>(k.load(x + J * ch + 16 * b), w[b], acc[b]);
}

/// Channel blocks `k` of one float32 3x3 pass (Interior, Full: as dw3_f32_interior_column's).
/// Rows in the padding add nothing and are skipped.
template <unsigned S, bool Interior, bool Full, std::size_t NB, std::size_t... J>
NNHAL_TARGET_AVX512 inline void dw3_f32_block(const dw3_pass<float>& p, std::size_t ch, const dw3_f32_blocks<NB>& k,
                                              const float* w, const float* bias, __m512 lo, __m512 hi, float* out,
                                              std::index_sequence<J...>) {
  __m512 acc[NB][dw3_px];
#pragma GCC unroll 2
  for (std::size_t b = 0; b < NB; ++b) {
    const __m512 init = k.load(bias + k.c + 16 * b);
#pragma GCC unroll 8
    for (std::size_t i = 0; i < dw3_px; ++i) acc[b][i] = init;
  }
#pragma GCC unroll 3
  for (std::size_t ky = 0; ky < 3; ++ky) {
    const float* row = p.rows[ky];
    if (!row) continue;
    __m512 wk[NB][3];
#pragma GCC unroll 2
    for (std::size_t b = 0; b < NB; ++b) {
      const float* wr = w + ky * 3 * ch + k.c + 16 * b;
      for (std::size_t kx = 0; kx < 3; ++kx) wk[b][kx] = k.load(wr + kx * ch);
    }
    if constexpr (Interior) {
      const float* x = row + p.col * ch + k.c;
      (dw3_f32_interior_column<S, Full, J>(p, x, ch, k, wk, acc), ...);
    } else {
      (dw3_f32_border_column<S, J>(p, row, ch, k, wk, acc), ...);
    }
  }
  // A constant trip count keeps acc[] in registers (a variable bound would put it in memory).
#pragma GCC unroll 2
  for (std::size_t b = 0; b < NB; ++b)
#pragma GCC unroll 8
    for (std::size_t i = 0; i < dw3_px; ++i)
      if (i < p.n)
        k.store(out + i * ch + k.c + 16 * b,
                _mm512_maskz_min_ps(simd::avx512::all16, hi, _mm512_maskz_max_ps(simd::avx512::all16, lo, acc[b][i])));
}

/// dw3_f32_block for the kind of pass `p` is.
template <unsigned S, std::size_t NB>
NNHAL_TARGET_AVX512 inline void dw3_f32_blocks_of(const dw3_pass<float>& p, std::size_t ch,
                                                  const dw3_f32_blocks<NB>& k, const float* w, const float* bias,
                                                  __m512 lo, __m512 hi, float* out) {
  constexpr auto seq = std::make_index_sequence<dw3_cols<S>>{};
  if (p.interior && p.need == dw3_cols<S>) dw3_f32_block<S, true, true>(p, ch, k, w, bias, lo, hi, out, seq);
  else if (p.interior) dw3_f32_block<S, true, false>(p, ch, k, w, bias, lo, hi, out, seq);
  else dw3_f32_block<S, false, false>(p, ch, k, w, bias, lo, hi, out, seq);
}

/// One float32 3x3 pass over every channel; `out` is the pass's first output pixel.
///
/// A pass loads one line per column and row for each 16 channels. When a pixel holds a
/// multiple of 32 channels, its lines lie an even number of lines apart and the columns
/// of one channel block fall into few L1 sets (two at 512 channels: all 51 lines of a
/// stride-2 pass), which then evict one another. Such passes take two channel blocks at a
/// time, whose lines lie in different sets, unmasked. (One core, conv_bench, interleaved
/// best of 4, one block vs two, us: 14x14x512 k3s2 9.4 -> 7.1, 28x28x256 k3s2 16.9 ->
/// 13.9, 56x56x128 k3s2 33.0 -> 29.7, 7x7x1024 k3s1 20.7 -> 14.0. At 528 channels, whose
/// lines spread over all sets, one block took 5.6 us for 14x14 k3s2 and two 6.1.)
template <unsigned S>
NNHAL_TARGET_AVX512 void dw3_f32_pass(const dw3_pass<float>& p, std::size_t ch, const float* w, const float* bias,
                                      float lo, float hi, float* out) {
  const simd::upper_clean clean;  // called per pass from dw3_passes' generic loop
  const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  if (ch % 32 == 0) {
    for (std::size_t c = 0; c < ch; c += 32)
      dw3_f32_blocks_of<S>(p, ch, dw3_f32_blocks<2>{c}, w, bias, vlo, vhi, out);
    return;
  }
  for (std::size_t c = 0; c < ch; c += 16)
    dw3_f32_blocks_of<S>(p, ch, dw3_f32_blocks<1>{c, lanes_mask(ch - c)}, w, bias, vlo, vhi, out);
}

inline void depthwise_f32_nhwc(const geometry& g, const float* in, const float* w, const float* bias, float lo,
                               float hi, float* out, exec::parallel_context* par) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.out_c;
  if (dw3_applies(g)) {
    // Float32 reads its input in place: its border passes cost little more than interior
    // ones (a masked load folds into the FMA as a full one does), less than copying the
    // rows (conv_bench, one thread, MobileNet's layers from 112x112x32 to 14x14x512:
    // 101-118 us in place vs 106-128 copied at stride 1, 51-59 vs 76 us at 56x56x128
    // stride 2).
    dw3_passes(g, in, out, false, 0.0f, 0.0f, par, [&](const dw3_pass<float>& p, float* row) {
      if (g.stride_w == 1) dw3_f32_pass<1>(p, ch, w, bias, lo, hi, row + p.ox0 * ch);
      else dw3_f32_pass<2>(p, ch, w, bias, lo, hi, row + p.ox0 * ch);
    });
    return;
  }
  // The padding row border taps point at; kept per thread so an execution allocates nothing.
  thread_local std::vector<float> zeros;
  if (zeros.size() < ch) zeros.assign(ch, 0.0f);
  dw_rows(g, in, zeros.data(), par, [&](const dw_row<float>& r, std::size_t b, std::size_t oy) {
    dw_f32_row(r, g.out_w, taps, ch, w, bias, lo, hi, out + (b * g.out_h + oy) * g.out_w * ch);
  });
}

// ---------------------------------------------------------------------------------
// Quant8
// ---------------------------------------------------------------------------------

/// A depthwise quant8 filter [1][taps][ch] as int32 w - zw, and each channel's sum of them.
struct dw_q8_filter {
  std::vector<std::int32_t> w;    // [taps][ch]
  std::vector<std::int32_t> sum;  // [ch]
  // 3x3 filters, for vpdpwssd: [kx][ch] with rows 0 and 1 as int16 pairs (row 0 low),
  // then [kx][ch] with row 2 in the low half. Each w - zw fits int16 (|w - zw| <= 255).
  std::vector<std::int32_t> pairs3;
  // 3x3 filters with every w - zw below 255, for vpdpbusd over dw3_quad rows:
  // [part][variant][kx][ch], the filter bytes of tap column kx in four variants: 0 (row 0,
  // row 1, row 2, 0); 1 (0, row 0, row 1, row 2), for the output row below at stride 1,
  // whose filter rows start one quad row lower; 2 (0, 0, row 0, row 1) and 3 (row 2, 0, 0,
  // 0), for the lower output row at stride 2 (quad rows 2 and 3, and the row after the
  // quad). Part 0 holds w - zw clamped to int8; when some w - zw lies outside int8
  // (quads3_split), part 1 holds the rest, also in int8 (|rest| < 128 as w - zw is in
  // [-255, 254]), and split_blocks[b] tells whether block b (channels [16 b, 16 b + 16))
  // has a rest at all: with per-tensor zero points most blocks of a trained filter
  // don't (only the channels whose weights reach the far end of the range do), and take
  // one vpdpbusd per tap column. Empty otherwise.
  std::vector<std::int32_t> quads3;
  bool quads3_split = false;
  std::vector<std::uint8_t> split_blocks;
  /// Whether channel c's block of 16 takes the rest part.
  bool split_at(std::size_t c) const { return !split_blocks.empty() && split_blocks[c / 16] != 0; }
};
inline dw_q8_filter make_dw_q8_filter(const operand_desc& f) {
  const std::size_t ch = f.dims[3], taps = std::size_t{f.dims[1]} * f.dims[2];
  const bool per_channel = f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  const std::int32_t zw = per_channel ? 0 : f.zero_point;
  dw_q8_filter d;
  d.w.resize(taps * ch);
  d.sum.assign(ch, 0);
  for (std::size_t i = 0; i < taps * ch; ++i) {
    const auto raw = std::to_integer<std::uint8_t>(f.value[i]);
    const std::int32_t v = f.type == OperandType::TENSOR_QUANT8_ASYMM ? raw : static_cast<std::int8_t>(raw);
    d.w[i] = v - zw;
    d.sum[i % ch] += d.w[i];
  }
  if (f.dims[1] == 3 && f.dims[2] == 3) {
    const auto half = [](std::int32_t v) { return static_cast<std::uint32_t>(v) & 0xFFFFu; };
    d.pairs3.resize(6 * ch);
    for (std::size_t kx = 0; kx < 3; ++kx)
      for (std::size_t k = 0; k < ch; ++k) {
        const std::uint32_t r0 = half(d.w[kx * ch + k]), r1 = half(d.w[(3 + kx) * ch + k]);
        d.pairs3[kx * ch + k] = static_cast<std::int32_t>(r0 | (r1 << 16));
        d.pairs3[(3 + kx) * ch + k] = static_cast<std::int32_t>(half(d.w[(6 + kx) * ch + k]));
      }
    if (std::all_of(d.w.begin(), d.w.end(), [](std::int32_t v) { return v < 255; })) {
      d.quads3_split = !std::all_of(d.w.begin(), d.w.end(), [](std::int32_t v) { return v >= -128 && v <= 127; });
      d.quads3.resize((d.quads3_split ? 24 : 12) * ch);
      const auto part = [](std::int32_t v, bool rest) {
        const std::int32_t clamped = std::clamp(v, -128, 127);
        return static_cast<std::uint32_t>(rest ? v - clamped : clamped) & 0xFFu;
      };
      for (std::size_t h = 0; h < (d.quads3_split ? 2u : 1u); ++h)
        for (std::size_t kx = 0; kx < 3; ++kx)
          for (std::size_t k = 0; k < ch; ++k) {
            const std::uint32_t taps3 = part(d.w[kx * ch + k], h) | part(d.w[(3 + kx) * ch + k], h) << 8 |
                                        part(d.w[(6 + kx) * ch + k], h) << 16;
            const std::uint32_t variants[4] = {taps3, taps3 << 8, taps3 << 16, taps3 >> 16};
            for (std::size_t v = 0; v < 4; ++v)
              d.quads3[((4 * h + v) * 3 + kx) * ch + k] = static_cast<std::int32_t>(variants[v]);
          }
      if (d.quads3_split) {
        d.split_blocks.assign((ch + 15) / 16, 0);
        for (std::size_t i = 0; i < 9 * ch; ++i)
          if (d.w[i] < -128 || d.w[i] > 127) d.split_blocks[i % ch / 16] = 1;
      }
    }
  }
  return d;
}

/// 16 bytes of S widened to int32 lanes.
template <class S>
NNHAL_TARGET_AVX512 inline __m512i widen_x16(__m128i v) {
  if constexpr (std::is_signed_v<S>) return _mm512_maskz_cvtepi8_epi32(simd::avx512::all16, v);
  else return _mm512_maskz_cvtepu8_epi32(simd::avx512::all16, v);
}
template <bool Full, class S>
NNHAL_TARGET_AVX512 inline __m512i load_x16_masked(const S* p, __mmask16 mask) {
  // A full vector loads unmasked, so the load folds into the widening move.
  return widen_x16<S>(Full ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)) : _mm_maskz_loadu_epi8(mask, p));
}

template <std::size_t PX, bool Direct, bool Full, class S>
NNHAL_TARGET_AVX512 inline void dw_q8_pixels(const S* const* tp, const S* base, std::size_t pstride,
                                             const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                             __mmask16 mask, const std::int32_t* w, std::size_t ch,
                                             const q8_epilogue& e, S* out) {
  const __m512i init = _mm512_loadu_si512(e.offset.data() + c);
  __m512i acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = init;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m512i wv = _mm512_maskz_loadu_epi32(mask, w + t * ch + c);
    const S* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const S* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      acc[p] = _mm512_add_epi32(acc[p], _mm512_mullo_epi32(load_x16_masked<Full>(x, mask), wv));
    }
  }
  const q8_lanes lanes(e, c);
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) lanes.store(out + p * ch + c, mask, acc[p]);
}

/// dw_row_walk's pixels for dw_q8_row: channels [c, c + 16) of PX pixels under `mask`.
template <bool Full, class S>
struct dw_q8_pixels_fn {
  const dw_row<S>& r;
  std::size_t taps, ch, c;
  __mmask16 mask;
  const std::int32_t* w;
  const q8_epilogue& e;
  S* out;
  template <std::size_t PX, bool Direct>
  NNHAL_TARGET_AVX512 void operator()(std::size_t ox, const S* const* tp, const S* base) const {
    dw_q8_pixels<PX, Direct, Full, S>(tp, base, r.pstride, r.off, taps, c, mask, w, ch, e, out + ox * ch);
  }
};

/// One output row of the quant8 depthwise conv, 16 channels at a time.
template <class S>
[[gnu::flatten]] NNHAL_TARGET_AVX512 void dw_q8_row(const dw_row<S>& r, std::size_t ow, std::size_t taps,
                                                   std::size_t ch, const std::int32_t* w, const q8_epilogue& e, S* out) {
  const simd::upper_clean clean;  // called per row from dw_rows' generic loop
  for (std::size_t c = 0; c < ch; c += 16) {
    const __mmask16 mask = lanes_mask(ch - c);
    if (ch - c >= 16) dw_row_walk(r, ow, taps, dw_q8_pixels_fn<true, S>{r, taps, ch, c, mask, w, e, out});
    else dw_row_walk(r, ow, taps, dw_q8_pixels_fn<false, S>{r, taps, ch, c, mask, w, e, out});
  }
}

/// 8 values of S from p widened to int32 lanes; Full false: only the first n (the rest 0).
template <bool Full, class S>
[[gnu::always_inline]] NNHAL_TARGET_AVX2_FMA inline __m256i load_x8(const S* p, std::size_t n) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, Full ? 8 : n);
  const __m128i b = _mm_cvtsi64_si128(static_cast<long long>(v));
  if constexpr (std::is_signed_v<S>) return _mm256_cvtepi8_epi32(b);
  else return _mm256_cvtepu8_epi32(b);
}

/// dw_q8_pixels in AVX2: channels [c, c + 8), the first n of them (Full: 8).
template <std::size_t PX, bool Direct, bool Full, class S>
NNHAL_TARGET_AVX2_FMA inline void dw_q8_pixels_avx2(const S* const* tp, const S* base, std::size_t pstride,
                                                    const std::ptrdiff_t* off, std::size_t taps, std::size_t c,
                                                    std::size_t n, __m256i mask, const std::int32_t* w, std::size_t ch,
                                                    const q8_epilogue& e, S* out) {
  // e.offset and the scaling arrays are padded to whole vectors of 16.
  const __m256i init = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e.offset.data() + c));
  __m256i acc[PX];
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) acc[p] = init;
  for (std::size_t t = 0; t < taps; ++t) {
    const __m256i wv = Full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + t * ch + c))
                            : _mm256_maskload_epi32(reinterpret_cast<const int*>(w + t * ch + c), mask);
    const S* bt = Direct ? base + off[t] + c : nullptr;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < PX; ++p) {
      const S* x = Direct ? bt + p * pstride : tp[p * taps + t] + c;
      acc[p] = _mm256_add_epi32(acc[p], _mm256_mullo_epi32(load_x8<Full>(x, n), wv));
    }
  }
  const q8_scaling& sc = *e.scaling;
  const __m256i mantissa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.mantissa.data() + c));
  const __m256i left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.left.data() + c));
  const __m256i right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.right.data() + c));
  const __m256i rmask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.round_mask.data() + c));
  const __m256i rhalf = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc.round_half.data() + c));
  const __m256i zp = _mm256_set1_epi32(sc.out_zp), lo = _mm256_set1_epi32(e.lo), hi = _mm256_set1_epi32(e.hi);
#pragma GCC unroll 8
  for (std::size_t p = 0; p < PX; ++p) {
    const __m256i q = sc.any_left ? simd::avx2::apply_multiplier_lanes<true>(acc[p], mantissa, left, right, rmask, rhalf)
                                  : simd::avx2::apply_multiplier_lanes<false>(acc[p], mantissa, left, right, rmask, rhalf);
    simd::avx2::store_x8(out + p * ch + c, _mm256_add_epi32(q, zp), lo, hi, Full ? 8 : n);
  }
}

/// dw_row_walk's pixels for dw_q8_block_avx2.
template <bool Full, class S>
struct dw_q8_avx2_pixels {
  const dw_row<S>& r;
  std::size_t taps, ch, c, n;
  __m256i mask;
  const std::int32_t* w;
  const q8_epilogue& e;
  S* out;
  template <std::size_t PX, bool Direct>
  NNHAL_TARGET_AVX2_FMA void operator()(std::size_t ox, const S* const* tp, const S* base) const {
    dw_q8_pixels_avx2<PX, Direct, Full, S>(tp, base, r.pstride, r.off, taps, c, n, mask, w, ch, e, out + ox * ch);
  }
};

/// Channels [c, c + 8) of one output row of the quant8 depthwise conv in AVX2.
template <bool Full, class S>
[[gnu::flatten]] NNHAL_TARGET_AVX2_FMA void dw_q8_block_avx2(const dw_row<S>& r, std::size_t ow, std::size_t taps,
                                                            std::size_t ch, std::size_t c, const std::int32_t* w,
                                                            const q8_epilogue& e, S* out) {
  const simd::upper_clean clean;  // called per row and block from dw_rows' generic loop
  const std::size_t n = ch - c < 8 ? ch - c : 8;
  dw_row_walk(r, ow, taps, dw_q8_avx2_pixels<Full, S>{r, taps, ch, c, n, ymm_lanes(n), w, e, out});
}

/// One output row of the quant8 depthwise conv in AVX2 (8 channels per vector).
template <class S>
void dw_q8_row_avx2(const dw_row<S>& r, std::size_t ow, std::size_t taps, std::size_t ch, const std::int32_t* w,
                    const q8_epilogue& e, S* out) {
  for (std::size_t c = 0; c < ch; c += 8) {
    if (ch - c >= 8) dw_q8_block_avx2<true, S>(r, ow, taps, ch, c, w, e, out);
    else dw_q8_block_avx2<false, S>(r, ow, taps, ch, c, w, e, out);
  }
}

/// Quant8 3x3: input column J (x, int16 pairs in int32 lanes) of one pair of filter rows
/// whose three tap pairs are `w`.
template <unsigned S, std::size_t J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_q8_column(__m512i x, const __m512i* w, __m512i* acc) {
  if constexpr (dw3_uses<S, J, 0>) acc[dw3_pixel<S, J, 0>] = _mm512_dpwssd_epi32(acc[dw3_pixel<S, J, 0>], x, w[0]);
  if constexpr (dw3_uses<S, J, 1>) acc[dw3_pixel<S, J, 1>] = _mm512_dpwssd_epi32(acc[dw3_pixel<S, J, 1>], x, w[1]);
  if constexpr (dw3_uses<S, J, 2>) acc[dw3_pixel<S, J, 2>] = _mm512_dpwssd_epi32(acc[dw3_pixel<S, J, 2>], x, w[2]);
}

/// 16 inputs of filter row 0 and 16 of row 1 (uint8) as int16 pairs (row 0 in the low
/// half): one vpdpwssd then adds both rows' products, exactly. dw3_pair widens, shifts and
/// blends; dw3_pair_vbmi places both rows' bytes with one byte permute that zeroes the
/// high bytes.
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline __m512i dw3_pair(__m128i row0, __m128i row1) {
  return _mm512_mask_blend_epi16(0xAAAAAAAAu, widen_x16<std::uint8_t>(row0),
                                 _mm512_maskz_slli_epi32(simd::avx512::all16, widen_x16<std::uint8_t>(row1), 16));
}
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VBMI inline __m512i dw3_pair_vbmi(__m128i row0, __m128i row1) {
  // Byte 4i takes row 0's byte i, byte 4i + 2 row 1's (index 64 + i); odd bytes zero.
  const __m512i idx = _mm512_set_epi32(0x004F000F, 0x004E000E, 0x004D000D, 0x004C000C, 0x004B000B, 0x004A000A,
                                       0x00490009, 0x00480008, 0x00470007, 0x00460006, 0x00450005, 0x00440004,
                                       0x00430003, 0x00420002, 0x00410001, 0x00400000);
  return _mm512_maskz_permutex2var_epi8(0x5555555555555555u, _mm512_zextsi128_si512(row0), idx,
                                        _mm512_zextsi128_si512(row1));
}

/// The state of one quant8 3x3 block (channels [c, c + 16) of a pass): accumulators,
/// the filter's tap pairs, the three rows' first bytes. dw3_q8_block and
/// dw3_q8_block_vbmi differ only in how they pair rows 0 and 1.
struct dw3_q8_regs {
  __m512i acc[dw3_px], w01[3], w2[3];
  const std::uint8_t* x[3];
};
/// The accumulators at the channels' offsets, the filter vectors, the row pointers (a row
/// in the padding reads the pass's padding row).
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void dw3_q8_start(dw3_q8_regs& r, const dw3_pass<std::uint8_t>& p,
                                                                    std::size_t ch, std::size_t c, __mmask16 m,
                                                                    const std::int32_t* wp, const q8_epilogue& e) {
  const __m512i init = _mm512_loadu_si512(e.offset.data() + c);
#pragma GCC unroll 8
  for (std::size_t i = 0; i < dw3_px; ++i) r.acc[i] = init;
  for (std::size_t k = 0; k < 3; ++k) {
    r.w01[k] = _mm512_maskz_loadu_epi32(m, wp + k * ch + c);
    r.w2[k] = _mm512_maskz_loadu_epi32(m, wp + (3 + k) * ch + c);
    r.x[k] = (p.rows[k] ? p.rows[k] : p.pad_row) + p.col * ch + c;
  }
}
/// Filter row 2's products, each input column widened once.
template <unsigned St, std::size_t... J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_q8_row2(dw3_q8_regs& r, std::size_t ch, __mmask16 m,
                                                                        std::index_sequence<J...>) {
  (dw3_q8_column<St, J>(widen_x16<std::uint8_t>(_mm_maskz_loadu_epi8(m, r.x[2] + J * ch)), r.w2, r.acc), ...);
}
/// The pass's n output pixels, requantized. A whole pass (n = dw3_px) without left
/// shifts takes the float path for all its pixels (the fixed point for all if a lane lies
/// next to a rounding boundary), narrowed four pixels at a time: their 16-channel vectors
/// packed into one register (their G values' high words, q + zp, see q8_lanes), pixel
/// p's bytes in its 128-bit lane p, each stored by a
/// masked store at the pixel's place less 16 p bytes (where before each pixel narrowed
/// and stored on its own: vpmovdb is two shuffle-port uops).
template <class S>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void dw3_q8_finish(const __m512i* acc, std::size_t n,
                                                                     std::size_t ch, std::size_t c, __mmask16 m,
                                                                     const q8_epilogue& e, S* out) {
  using simd::avx512::all16;
  const q8_lanes lanes(e, c);
  if (lanes.any_left || n < dw3_px || ch < 16) {  // (ch >= 16: no store address before the row)
#pragma GCC unroll 8
    for (std::size_t i = 0; i < dw3_px; ++i)
      if (i < n) lanes.store(out + i * ch + c, m, acc[i]);
    return;
  }
  __m512i g[dw3_px];
  __m512i lows = q8_lanes::no_lows();
#pragma GCC unroll 8
  for (std::size_t i = 0; i < dw3_px; ++i) g[i] = lanes.fast_g(acc[i], lows);
  if (lanes.fast_inexact(lows)) [[unlikely]] {
#pragma GCC unroll 8
    for (std::size_t i = 0; i < dw3_px; ++i) g[i] = lanes.exact_g(acc[i]);
  }
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(e.lo)), hi8 = _mm512_set1_epi8(static_cast<char>(e.hi));
#pragma GCC unroll 2
  for (std::size_t i = 0; i < dw3_px; i += 4) {
    const __m512i v =
        simd::avx512::narrow_x64_words<S>(simd::avx512::packs_high_halves(g[i], g[i + 1]),
                                          simd::avx512::packs_high_halves(g[i + 2], g[i + 3]), lo8, hi8);
#pragma GCC unroll 4
    for (std::size_t q = 0; q < 4; ++q)
      _mm512_mask_storeu_epi8(out + (i + q) * ch + c - 16 * q, static_cast<__mmask64>(m) << (16 * q), v);
  }
}

/// Channels [c, c + 16) under `m` of one quant8 3x3 pass over uint8 rows (int8 input
/// copied with its top bit flipped: see depthwise_q8_nhwc). Taps in the padding read the
/// input zero point, as the reference's (the pass's padding values).
template <unsigned St, class S, std::size_t... J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_q8_block(const dw3_pass<std::uint8_t>& p, std::size_t ch, std::size_t c,
                                                 __mmask16 m, const std::int32_t* wp, const q8_epilogue& e, S* out,
                                                 std::index_sequence<J...> seq) {
  dw3_q8_regs r;
  dw3_q8_start(r, p, ch, c, m, wp, e);
  (dw3_q8_column<St, J>(dw3_pair(_mm_maskz_loadu_epi8(m, r.x[0] + J * ch), _mm_maskz_loadu_epi8(m, r.x[1] + J * ch)),
                        r.w01, r.acc),
   ...);
  dw3_q8_row2<St>(r, ch, m, seq);
  dw3_q8_finish(r.acc, p.n, ch, c, m, e, out);
}
/// dw3_q8_block pairing rows 0 and 1 with VBMI's byte permute.
template <unsigned St, class S, std::size_t... J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI_VBMI inline void dw3_q8_block_vbmi(const dw3_pass<std::uint8_t>& p, std::size_t ch,
                                                           std::size_t c, __mmask16 m, const std::int32_t* wp,
                                                           const q8_epilogue& e, S* out,
                                                           std::index_sequence<J...> seq) {
  dw3_q8_regs r;
  dw3_q8_start(r, p, ch, c, m, wp, e);
  (dw3_q8_column<St, J>(
       dw3_pair_vbmi(_mm_maskz_loadu_epi8(m, r.x[0] + J * ch), _mm_maskz_loadu_epi8(m, r.x[1] + J * ch)), r.w01, r.acc),
   ...);
  dw3_q8_row2<St>(r, ch, m, seq);
  dw3_q8_finish(r.acc, p.n, ch, c, m, e, out);
}

/// One quant8 3x3 pass over every channel; `wp` the filter as dw_q8_filter::pairs3.
/// dw3_q8_pass_vbmi: the same through dw3_q8_block_vbmi, when the CPU has VBMI.
template <unsigned St, class S>
NNHAL_TARGET_AVX512_VNNI void dw3_q8_pass(const dw3_pass<std::uint8_t>& p, std::size_t ch, const std::int32_t* wp,
                                         const q8_epilogue& e, S* out) {
  const simd::upper_clean clean;  // called per pass from dw3_passes' generic loop
  constexpr auto seq = std::make_index_sequence<dw3_cols<St>>{};
  for (std::size_t c = 0; c < ch; c += 16) dw3_q8_block<St, S>(p, ch, c, lanes_mask(ch - c), wp, e, out, seq);
}
template <unsigned St, class S>
NNHAL_TARGET_AVX512_VNNI_VBMI void dw3_q8_pass_vbmi(const dw3_pass<std::uint8_t>& p, std::size_t ch,
                                                   const std::int32_t* wp, const q8_epilogue& e, S* out) {
  const simd::upper_clean clean;  // called per pass from dw3_passes' generic loop
  constexpr auto seq = std::make_index_sequence<dw3_cols<St>>{};
  for (std::size_t c = 0; c < ch; c += 16) dw3_q8_block_vbmi<St, S>(p, ch, c, lanes_mask(ch - c), wp, e, out, seq);
}

/// Quant8 3x3 over quad rows (dw3_quad): input column J, 16 channels whose dwords hold the
/// four quad rows' bytes (x) and, at stride 2, the fifth row's widened (x4), read by tap
/// column Kx of each of the Rows output rows: w[r][Kx] that row's dw_q8_filter::quads3
/// variant for the quad (with Split, w[Rows + r][Kx] the rest's), w4[part][Kx] the lower
/// row's for x4. One vpdpbusd per tap column and part adds the three filter rows' products
/// (at stride 2, two for the lower row). dw3_quad_taps: one output row's, acc that row's
/// accumulators and w its three tap columns' bytes.
template <unsigned St, std::size_t J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_quad_taps(__m512i x, const __m512i* w, __m512i* acc) {
  if constexpr (dw3_uses<St, J, 0>) acc[dw3_pixel<St, J, 0>] = _mm512_dpbusd_epi32(acc[dw3_pixel<St, J, 0>], x, w[0]);
  if constexpr (dw3_uses<St, J, 1>) acc[dw3_pixel<St, J, 1>] = _mm512_dpbusd_epi32(acc[dw3_pixel<St, J, 1>], x, w[1]);
  if constexpr (dw3_uses<St, J, 2>) acc[dw3_pixel<St, J, 2>] = _mm512_dpbusd_epi32(acc[dw3_pixel<St, J, 2>], x, w[2]);
}
template <unsigned St, std::size_t J, std::size_t Rows, bool Split>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_quad_column(__m512i x, __m512i x4, const __m512i (*w)[3],
                                                                           const __m512i (*w4)[3],
                                                                           __m512i (*acc)[dw3_px]) {
#pragma GCC unroll 4
  for (std::size_t h = 0; h < (Split ? 2 : 1); ++h) {
#pragma GCC unroll 2
    for (std::size_t r = 0; r < Rows; ++r) dw3_quad_taps<St, J>(x, w[h * Rows + r], acc[r]);
    if constexpr (St == 2 && Rows == 2) dw3_quad_taps<St, J>(x4, w4[h], acc[1]);
  }
}
/// Channels [c, c + 16) under `m` of one pass of the quad kernel: n output pixels of Rows
/// output rows (out[r] each row's first pixel) from quad `q` (column J's first channel at
/// q + J * ldq) and, at stride 2 with two rows, the fifth row x4 (column J's at
/// x4 + J * ch).
template <unsigned St, std::size_t Rows, bool Split, class S, std::size_t... J>
[[gnu::always_inline]] NNHAL_TARGET_AVX512_VNNI inline void dw3_quad_block(const std::int32_t* q, std::size_t ldq,
                                                                          const std::uint8_t* x4, std::size_t n,
                                                                          std::size_t ch, std::size_t c, __mmask16 m,
                                                                          const std::int32_t* wq, const q8_epilogue& e,
                                                                          S* const* out, std::index_sequence<J...>) {
  constexpr std::size_t parts = Split ? 2 : 1;
  constexpr bool fifth = St == 2 && Rows == 2;
  __m512i acc[Rows][dw3_px], w[parts * Rows][3], w4[parts][3];
  const __m512i init = _mm512_loadu_si512(e.offset.data() + c);
#pragma GCC unroll 2
  for (std::size_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 8
    for (std::size_t i = 0; i < dw3_px; ++i) acc[r][i] = init;
  }
  // Each part's quads3 variants: at stride 1 the upper row's (0) and the lower's (1); at
  // stride 2 the upper row's (0), the lower row's for the quad (2) and for the fifth row (3).
#pragma GCC unroll 4
  for (std::size_t h = 0; h < parts; ++h)
#pragma GCC unroll 2
    for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 3
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t variant = 4 * h + (St == 2 ? 2 * r : r);
        w[h * Rows + r][k] = _mm512_maskz_loadu_epi32(m, wq + (3 * variant + k) * ch + c);
      }
#pragma GCC unroll 4
  for (std::size_t h = 0; h < parts; ++h)
#pragma GCC unroll 3
    for (std::size_t k = 0; k < 3; ++k)
      w4[h][k] = fifth ? _mm512_maskz_loadu_epi32(m, wq + (3 * (4 * h + 3) + k) * ch + c) : w[h * Rows][k];
  (dw3_quad_column<St, J, Rows, Split>(
       _mm512_maskz_loadu_epi32(m, q + J * ldq),
       fifth ? widen_x16<std::uint8_t>(_mm_maskz_loadu_epi8(m, x4 + J * ch)) : _mm512_setzero_si512(), w, w4, acc),
   ...);
#pragma GCC unroll 2
  for (std::size_t r = 0; r < Rows; ++r) dw3_q8_finish(acc[r], n, ch, c, m, e, out[r]);
}
/// Channels [c0, c0 + cn) of one pass of the quad kernel, q, ldq and x4 as
/// dw3_quad_passes gives them; `wq` the filter as dw_q8_filter::quads3. Not inlined: in
/// the driver's loop (which GCC chose at stride 1), 112x112x32 took 8% longer.
template <unsigned St, std::size_t Rows, bool Split, class S>
[[gnu::noinline]] NNHAL_TARGET_AVX512_VNNI void dw3_quad_pass(const std::int32_t* q, std::size_t ldq, const std::uint8_t* x4,
                                           std::size_t c0, std::size_t cn, std::size_t n, std::size_t ch,
                                           const std::int32_t* wq, const q8_epilogue& e, S* const* out) {
  constexpr auto seq = std::make_index_sequence<dw3_cols<St>>{};
  for (std::size_t c = 0; c < cn; c += 16)
    dw3_quad_block<St, Rows, Split, S>(q + c, ldq, x4 ? x4 + c : nullptr, n, ch, c0 + c, lanes_mask(cn - c), wq, e,
                                       out, seq);
}
/// dw3_quad_pass at stride St choosing Rows (out[1] null: one) and, for each run of
/// 16-channel blocks alike in dw_q8_filter::split_blocks, Split: a branch per block inside
/// dw3_quad_pass changed GCC's code for unsplit filters too. Not inlined, so that its loop
/// leaves the driver's code (the quad building) as it was.
template <unsigned St, class S>
[[gnu::noinline]] void dw3_quad_pass_for(const std::int32_t* q, std::size_t ldq, const std::uint8_t* x4, std::size_t c0,
                       std::size_t cn, std::size_t n, std::size_t ch, const dw_q8_filter& f, const q8_epilogue& e,
                       S* const* out) {
  const std::int32_t* wq = f.quads3.data();
  for (std::size_t c = 0; c < cn;) {
    const bool split = f.split_at(c0 + c);
    std::size_t end = c + 16;
    while (end < cn && f.split_at(c0 + end) == split) end += 16;  // an unsplit filter: one run
    end = std::min(end, cn);
    const std::int32_t* qc = q + c;
    const std::uint8_t* x4c = x4 ? x4 + c : nullptr;
    if (out[1]) {
      split ? dw3_quad_pass<St, 2, true>(qc, ldq, x4c, c0 + c, end - c, n, ch, wq, e, out)
            : dw3_quad_pass<St, 2, false>(qc, ldq, x4c, c0 + c, end - c, n, ch, wq, e, out);
    } else {
      split ? dw3_quad_pass<St, 1, true>(qc, ldq, x4c, c0 + c, end - c, n, ch, wq, e, out)
            : dw3_quad_pass<St, 1, false>(qc, ldq, x4c, c0 + c, end - c, n, ch, wq, e, out);
    }
    c = end;
  }
}
/// Whether the quad kernels take `g` with filter `f` (given dw3_q8_applies).
inline bool dw3_quad_applies(const geometry& g, const dw_q8_filter& f) {
  if (f.quads3.empty()) return false;
  if (g.stride_w == 1) return g.stride_h == g.dil_h;
  // At stride 2 a block in two parts runs slower than the pairs kernel (0-15% on one
  // Intel core; on an AMD Zen 5 core conv_bench's qs8 28x28x256 k3s2, 82% of its blocks
  // split, took 18.1 us against the pairs kernel's 14.1), so a filter with more than a
  // quarter of its blocks split keeps the pairs kernel.
  const auto split = static_cast<std::size_t>(std::count(f.split_blocks.begin(), f.split_blocks.end(), 1));
  return g.stride_w == 2 && g.stride_h == 2 && g.dil_h == 1 && 4 * split <= f.split_blocks.size();
}

/// Whether depthwise_q8_nhwc runs `g` with filter `f` through the 3x3 kernels. Those read
/// int8 input as uint8 (its top bit flipped: the value plus 128), so the caller's
/// accumulator offset takes the input zero point plus 128 (dw3_q8_zero_point).
inline bool dw3_q8_applies(const geometry& g, const dw_q8_filter& f) {
  return dw3_applies(g) && !f.pairs3.empty() && simd::cpu().avx512_vnni;
}
template <class S>
std::int32_t dw3_q8_zero_point(std::int32_t zx) {
  return std::is_signed_v<S> ? zx + 128 : zx;
}

/// `e.offset` is the bias minus the input zero point times each channel's filter sum, the
/// zero point as dw3_q8_zero_point when dw3_q8_applies.
template <class S>
void depthwise_q8_nhwc(const geometry& g, const S* in, const dw_q8_filter& f, const q8_epilogue& e, S in_zp, S* out,
                       exec::parallel_context* par, bool avx2) {
  const std::size_t taps = std::size_t{g.filter_h} * g.filter_w, ch = g.out_c;
  // The 3x3 kernels read rows copied with their padding: their border passes, masked,
  // cost twice an interior one (MobileNet's 56x56x128 layer, qu8: 143 us with masks, 101
  // copied; conv_bench, one thread). Stride 2 copies as many input rows and gains less
  // (14x14x512: 11.8 -> 9.5 us; 112x112x64: 63.5 -> 66).
  if (dw3_q8_applies(g, f)) {
    constexpr std::uint8_t flip = std::is_signed_v<S> ? 0x80 : 0;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(in);
    const auto pad = static_cast<std::uint8_t>(static_cast<std::uint8_t>(in_zp) ^ flip);
    if (dw3_quad_applies(g, f)) {
      const auto pass = [&]<unsigned St>(std::integral_constant<unsigned, St>) {
        dw3_quad_passes<St>(g, bytes, out, pad, flip, par,
                            [&](const std::int32_t* q, std::size_t ldq, std::size_t c0, std::size_t cn, std::size_t n,
                                S* o0, S* o1, const std::uint8_t* x4) {
                              S* const o[2] = {o0, o1};
                              dw3_quad_pass_for<St>(q, ldq, x4, c0, cn, n, ch, f, e, o);
                            });
      };
      if (g.stride_w == 1) pass(std::integral_constant<unsigned, 1>{});
      else pass(std::integral_constant<unsigned, 2>{});
      return;
    }
    const bool vbmi = simd::cpu().avx512_vbmi;
    dw3_passes(g, bytes, out, true, pad, flip, par, [&](const dw3_pass<std::uint8_t>& p, S* row) {
      S* o = row + p.ox0 * ch;
      const std::int32_t* wp = f.pairs3.data();
      if (g.stride_w == 1) vbmi ? dw3_q8_pass_vbmi<1>(p, ch, wp, e, o) : dw3_q8_pass<1>(p, ch, wp, e, o);
      else vbmi ? dw3_q8_pass_vbmi<2>(p, ch, wp, e, o) : dw3_q8_pass<2>(p, ch, wp, e, o);
    });
    return;
  }
  // The padding row border taps point at; kept per thread so an execution allocates nothing.
  thread_local std::vector<S> pad;
  pad.assign(ch, in_zp);
  dw_rows(g, in, pad.data(), par, [&](const dw_row<S>& r, std::size_t b, std::size_t oy) {
    S* row = out + (b * g.out_h + oy) * g.out_w * ch;
    if (avx2) dw_q8_row_avx2<S>(r, g.out_w, taps, ch, f.w.data(), e, row);
    else dw_q8_row<S>(r, g.out_w, taps, ch, f.w.data(), e, row);
  });
}

/// The bound DEPTHWISE_CONV_2D quant8 kernel for depth_multiplier 1: E qu8 or qs8; `avx2`:
/// the AVX2 kernels (else AVX-512).
template <types::element E>
kernel bind_depthwise_q8(const bind_context& c, conv_slots_fn slots, bool avx2) {
  using S = typename E::storage;
  const requant q = make_requant(c.in[0], c.in[1], c.out[0]);
  std::shared_ptr<const dw_q8_filter> constant;
  std::shared_ptr<const q8_scaling> scaling;  // made here when the channel count is known
  if (c.in[1].has_value() && c.in[1].dims.size() == 4 && c.in[1].dims_known())
    constant = std::make_shared<const dw_q8_filter>(make_dw_q8_filter(c.in[1]));
  if (c.in[1].dims.size() == 4 && c.in[1].dims_known())
    scaling = make_q8_scaling(q, c.in[1].dims[3], (std::size_t{c.in[1].dims[3]} + 15) / 16 * 16);
  return [constant, scaling, q, slots, avx2](const kernel_io& io) {
    if (element_count(io.out[0].dims) == 0) return;
    geometry g = resolve_geometry(io, conv_kind::depthwise, slots(io.in));
    dw_q8_filter local;
    const dw_q8_filter& f = prepared_or(constant, local, [&] { return make_dw_q8_filter(io.in[1]); });
    const std::size_t ch = g.out_c, padded = (ch + 15) / 16 * 16;
    const auto o = io.output<E>(0);
    const auto* bias = reinterpret_cast<const std::int32_t*>(io.in[2].value);
    const std::int32_t zx = io.in[0].zero_point;
    const std::int32_t zx_sum = dw3_q8_applies(g, f) ? dw3_q8_zero_point<S>(zx) : zx;
    q8_epilogue e;
    e.offset.assign(padded, 0);
    for (std::size_t k = 0; k < ch; ++k) {
      const std::uint32_t zero_term = static_cast<std::uint32_t>(zx_sum) * static_cast<std::uint32_t>(f.sum[k]);
      e.offset[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(bias[k]) - zero_term);
    }
    set_lanes(e, q, ch, padded, scaling);
    const quant::quant_range r = quant::activation_range(g.activation, o.scale, o.zero_point,
                                                         std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
    e.lo = r.lo;
    e.hi = r.hi;
    const auto in_zp = static_cast<S>(zx);
    run_as_nhwc(g, reinterpret_cast<const S*>(io.in[0].value), o.data, [&](const geometry& gn, const S* in, S* out) {
      depthwise_q8_nhwc<S>(gn, in, f, e, in_zp, out, io.par, avx2);
    });
  };
}

/// The x86 DEPTHWISE_CONV_2D kernel for the operand types of `c` (the caller checks
/// depth_multiplier is a constant 1), when this CPU has AVX-512, or AVX2 and FMA; nullopt
/// otherwise.
inline std::optional<kernel> bind_depthwise(const bind_context& c, conv_slots_fn slots) {
  const simd::cpu_features cpu = simd::cpu();
  if (!cpu.avx512 && !(cpu.avx2 && cpu.fma)) return std::nullopt;
  const bool avx2 = !cpu.avx512;
  const bool per_channel = c.in[1].type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
      return conv::bind_depthwise_f32_with(slots, avx2 ? &depthwise_f32_nhwc_avx2 : &depthwise_f32_nhwc);
    case OperandType::TENSOR_QUANT8_ASYMM:
      if (per_channel || c.in[1].type == c.in[0].type) return bind_depthwise_q8<types::qu8>(c, slots, avx2);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      if (per_channel || c.in[1].type == c.in[0].type) return bind_depthwise_q8<types::qs8>(c, slots, avx2);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace nnhal::ops::kernels::conv::avx512
#endif
