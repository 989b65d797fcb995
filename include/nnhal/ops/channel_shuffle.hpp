// CHANNEL_SHUFFLE kernels; contract in types/signatures/channel_shuffle.hpp. Along the axis,
// output channel k * groups + g = input channel g * group_size + k: a transpose of the
// [groups, group_size] view of the axis, moving whole inner runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::channel_shuffle {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto& dims = io.in[0].dims;
  const auto groups = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  std::int32_t axis = io.scalar<std::int32_t>(2);
  if (axis < 0) axis += static_cast<std::int32_t>(dims.size());
  const auto a = static_cast<std::size_t>(axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= dims[d];
  for (std::size_t d = a + 1; d < dims.size(); ++d) inner *= dims[d];
  const std::size_t channels = dims[a], group_size = channels / groups;
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  if (inner == 1) {  // the last axis (NHWC channels): element moves, no run copies
    for (std::size_t o = 0; o < outer; ++o) {
      const S* src = in + o * channels;
      S* dst = out + o * channels;
      for (std::size_t k = 0; k < group_size; ++k)
        for (std::size_t g = 0; g < groups; ++g) dst[k * groups + g] = src[g * group_size + k];
    }
    return;
  }
  for (std::size_t o = 0; o < outer; ++o) {
    const S* src = in + o * channels * inner;
    S* dst = out + o * channels * inner;
    for (std::size_t k = 0; k < group_size; ++k)
      for (std::size_t g = 0; g < groups; ++g)
        kernels::spatial::copy_run(src + (g * group_size + k) * inner, 1, dst + (k * groups + g) * inner, 1, inner);
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Pixels (runs along the last axis) of at most 128 bytes, on AVX512-VBMI: each 64-byte
/// piece of an output pixel is one vpermt2b from the input pixel's two 64-byte halves,
/// byte indices made once per call.
NNHAL_TARGET_AVX512_VBMI inline void shuffle_small_pixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels,
                                                         std::size_t channels, std::size_t groups, std::size_t size) {
  const std::size_t bytes = channels * size, group_size = channels / groups;
  alignas(64) std::uint8_t idx[128] = {};
  for (std::size_t k = 0; k < group_size; ++k)
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t e = 0; e < size; ++e)
        idx[(k * groups + g) * size + e] = static_cast<std::uint8_t>((g * group_size + k) * size + e);
  const __m512i i0 = _mm512_load_si512(idx), i1 = _mm512_load_si512(idx + 64);
  auto first = [](std::size_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; };
  const __mmask64 m0 = first(bytes), m1 = bytes > 64 ? first(bytes - 64) : 0;
  for (std::size_t p = 0; p < pixels; ++p, src += bytes, dst += bytes) {
    const __m512i lo = _mm512_maskz_loadu_epi8(m0, src), hi = _mm512_maskz_loadu_epi8(m1, src + 64);
    _mm512_mask_storeu_epi8(dst, m0, _mm512_permutex2var_epi8(lo, i0, hi));
    if (m1) _mm512_mask_storeu_epi8(dst + 64, m1, _mm512_permutex2var_epi8(lo, i1, hi));
  }
}

/// Wider pixels as permutes too: the output pixel in 64-byte pieces (the last piece ends at
/// the pixel's end, overlapping the one before it), each piece built by steps of one
/// two-table permute (vpermt2d, vpermt2w or vpermt2b: the widest lane the element size
/// allows) over two 64-byte windows of the input pixel. Windows start at multiples of 64
/// bytes within the pixel (or end at its end), chosen greedily per piece: the lowest input
/// lane not yet placed picks the next one, two per step; later steps blend their lanes
/// over the earlier ones'.
struct wide_plan {
  struct step {
    alignas(64) std::array<std::uint8_t, 64> idx{};  // lane indices (unit bytes each, little-endian)
    std::uint64_t lanes = 0;                         // the piece's lanes this step writes
    std::uint32_t a = 0, b = 0;                      // windows: byte offsets in the input pixel
  };
  struct piece {
    std::uint32_t at = 0;   // byte offset in the output pixel
    std::uint32_t end = 0;  // its steps end here (they begin where the previous piece's end)
  };
  std::size_t bytes = 0, groups = 0, unit = 1;  // unit: lane width in bytes (4, 2 or 1)
  std::vector<step> steps;
  std::vector<piece> pieces;
};

/// Pixels this wide or narrower get a plan; wider, or needing more than
/// `max_steps_per_piece` steps on average, stay on element moves.
inline constexpr std::size_t wide_plan_max_bytes = 16384;
inline constexpr std::size_t max_steps_per_piece = 8;

/// The plan for pixels of `channels` elements of `size` bytes, 64 bytes or more in all, or
/// nothing when it would not pay.
inline std::shared_ptr<const wide_plan> make_wide_plan(std::size_t channels, std::size_t groups, std::size_t size) {
  if (groups == 0 || channels % groups != 0) return nullptr;
  const std::size_t bytes = channels * size, group_size = channels / groups;
  if (bytes < 64 || bytes > wide_plan_max_bytes) return nullptr;
  auto p = std::make_shared<wide_plan>();
  p->bytes = bytes;
  p->groups = groups;
  p->unit = size % 4 == 0 ? 4 : size % 2 == 0 ? 2 : 1;  // as lanes_for<size>
  const std::size_t unit = p->unit, lanes = 64 / unit, n = (bytes + 63) / 64;
  const std::uint64_t all = lanes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
  p->pieces.reserve(n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t at = std::min(64 * j, bytes - 64);
    std::array<std::uint32_t, 64> src{};  // input byte of each output lane of the piece
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t o = at + l * unit, e = o / size, k = e / groups, g = e % groups;
      src[l] = static_cast<std::uint32_t>((g * group_size + k) * size + o % size);
    }
    std::uint64_t placed = 0;
    while (placed != all) {
      wide_plan::step s;
      for (std::uint32_t w = 0; w < 2 && placed != all; ++w) {
        std::uint32_t low = UINT32_MAX;
        for (std::size_t l = 0; l < lanes; ++l)
          if (!(placed >> l & 1)) low = std::min(low, src[l]);
        const auto start = static_cast<std::uint32_t>(std::min<std::size_t>(low / 64 * 64, bytes - 64));
        (w == 0 ? s.a : s.b) = start;
        if (w == 0) s.b = start;
        for (std::size_t l = 0; l < lanes; ++l) {
          if (placed >> l & 1 || src[l] < start || src[l] >= start + 64) continue;
          const auto index = static_cast<std::uint32_t>((src[l] - start) / unit + lanes * w);
          for (std::size_t u = 0; u < unit; ++u) s.idx[l * unit + u] = static_cast<std::uint8_t>(index >> (8 * u));
          s.lanes |= std::uint64_t{1} << l;
          placed |= std::uint64_t{1} << l;
        }
      }
      p->steps.push_back(s);
    }
    p->pieces.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(p->steps.size())});
  }
  if (p->steps.size() > max_steps_per_piece * n) return nullptr;
  return p;
}

/// Lanes of `Bytes` bytes (4, 2 or 1) for the wide permutes, n per vector.
template <std::size_t Bytes>
struct lanes {
  static constexpr std::size_t n = 64 / Bytes;
  NNHAL_TARGET_AVX512_VBMI static __m512i permute(__m512i a, __m512i idx, __m512i b) {
    if constexpr (Bytes == 4) return _mm512_permutex2var_epi32(a, idx, b);
    else if constexpr (Bytes == 2) return _mm512_permutex2var_epi16(a, idx, b);
    else return _mm512_permutex2var_epi8(a, idx, b);
  }
  /// v's lanes set in k over r.
  NNHAL_TARGET_AVX512_VBMI static __m512i blend(__m512i r, std::uint64_t k, __m512i v) {
    if constexpr (Bytes == 4) return _mm512_mask_mov_epi32(r, static_cast<__mmask16>(k), v);
    else if constexpr (Bytes == 2) return _mm512_mask_mov_epi16(r, static_cast<__mmask32>(k), v);
    else return _mm512_mask_mov_epi8(r, k, v);
  }
};

/// Pixels by a wide_plan made for lanes L.
template <class L>
NNHAL_TARGET_AVX512_VBMI void shuffle_wide_pixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels,
                                                 const wide_plan& p) {
  const wide_plan::step* steps = p.steps.data();
  for (std::size_t px = 0; px < pixels; ++px, src += p.bytes, dst += p.bytes) {
    const wide_plan::step* s = steps;
    for (const auto& piece : p.pieces) {
      __m512i r = L::permute(_mm512_loadu_si512(src + s->a), _mm512_load_si512(s->idx.data()),
                             _mm512_loadu_si512(src + s->b));
      for (++s; s != steps + piece.end; ++s)
        r = L::blend(r, s->lanes,
                     L::permute(_mm512_loadu_si512(src + s->a), _mm512_load_si512(s->idx.data()),
                                _mm512_loadu_si512(src + s->b)));
      _mm512_storeu_si512(dst + piece.at, r);
    }
  }
}

/// Zip tables for G groups and N lanes per vector. Output vector t of a block of N
/// elements per group (lane l: element t * N + l of the interleave) takes group
/// (t * N + l) % G at (t * N + l) / G; its step p permutes groups 2p and 2p + 1.
template <std::size_t N, std::size_t G>
struct zip_tables {
  static constexpr std::size_t steps = (G + 1) / 2;
  std::array<std::array<std::array<std::uint8_t, 64>, steps>, G> idx{};  // N lanes of 64 / N bytes
  std::array<std::array<std::uint64_t, steps>, G> lanes{};
  constexpr zip_tables() {
    constexpr std::size_t unit = 64 / N;
    for (std::size_t t = 0; t < G; ++t)
      for (std::size_t l = 0; l < N; ++l) {
        const std::size_t e = t * N + l, g = e % G, index = e / G + N * (g % 2);
        for (std::size_t u = 0; u < unit; ++u)
          idx[t][g / 2][l * unit + u] = static_cast<std::uint8_t>(index >> (8 * u));
        lanes[t][g / 2] |= std::uint64_t{1} << l;
      }
  }
};
template <std::size_t N, std::size_t G>
inline constexpr zip_tables<N, G> zip_table{};

/// Output vector t of a zipped block of the G vectors `v`.
template <class L, std::size_t G, std::size_t S = zip_tables<L::n, G>::steps>
NNHAL_TARGET_AVX512_VBMI inline __m512i zip_one(const __m512i (&v)[G], const __m512i (&idx)[G][S], std::size_t t) {
  __m512i r = L::permute(v[0], idx[t][0], v[1]);
  for (std::size_t p = 1; p < S; ++p)
    r = L::blend(r, zip_table<L::n, G>.lanes[t][p], L::permute(v[2 * p], idx[t][p], v[std::min(2 * p + 1, G - 1)]));
  return r;
}

/// Pixels of G groups of `run` elements (N lanes per vector, G in 2..8): a vector of each
/// group at a time, zipped into G output vectors of ceil(G / 2) permutes each, the last
/// block of a pixel by masked loads and stores.
template <class L, std::size_t G>
NNHAL_TARGET_AVX512_VBMI void zip_pixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels,
                                        std::size_t run) {
  constexpr std::size_t N = L::n, unit = 64 / N, S = zip_tables<N, G>::steps;
  __m512i idx[G][S];
  for (std::size_t t = 0; t < G; ++t)
    for (std::size_t p = 0; p < S; ++p) idx[t][p] = _mm512_loadu_si512(zip_table<N, G>.idx[t][p].data());
  const std::size_t bytes = G * run * unit;
  for (std::size_t px = 0; px < pixels; ++px, src += bytes, dst += bytes) {
    std::size_t k = 0;
    for (; k + N <= run; k += N) {
      __m512i v[G];
      for (std::size_t g = 0; g < G; ++g) v[g] = _mm512_loadu_si512(src + (g * run + k) * unit);
      for (std::size_t t = 0; t < G; ++t) _mm512_storeu_si512(dst + (G * k + N * t) * unit, zip_one<L, G>(v, idx, t));
    }
    if (k == run) continue;
    const std::size_t n = (run - k) * unit;  // bytes left per group, under 64
    __m512i v[G];
    for (std::size_t g = 0; g < G; ++g)
      v[g] = _mm512_maskz_loadu_epi8((std::uint64_t{1} << n) - 1, src + (g * run + k) * unit);
    for (std::size_t t = 0; t < G && 64 * t < G * n; ++t) {
      const std::size_t left = G * n - 64 * t;
      const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      _mm512_mask_storeu_epi8(dst + G * k * unit + 64 * t, m, zip_one<L, G>(v, idx, t));
    }
  }
}

/// Whether last-axis pixels of `channels` elements of `size` bytes take zip_pixels: wider
/// than 128 bytes, 2 to 8 groups, at least half a vector per group.
inline bool zips(std::size_t channels, std::size_t groups, std::size_t size) {
  return channels * size > 128 && groups >= 2 && groups <= 8 && channels / groups * size >= 32;
}

template <class L>
NNHAL_TARGET_AVX512_VBMI void zip_groups(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels,
                                        std::size_t groups, std::size_t run) {
  switch (groups) {
    case 2: return zip_pixels<L, 2>(src, dst, pixels, run);
    case 3: return zip_pixels<L, 3>(src, dst, pixels, run);
    case 4: return zip_pixels<L, 4>(src, dst, pixels, run);
    case 5: return zip_pixels<L, 5>(src, dst, pixels, run);
    case 6: return zip_pixels<L, 6>(src, dst, pixels, run);
    case 7: return zip_pixels<L, 7>(src, dst, pixels, run);
    default: return zip_pixels<L, 8>(src, dst, pixels, run);
  }
}

/// Lanes of the wide permutes for elements of `Size` bytes (as make_wide_plan's unit).
template <std::size_t Size>
using lanes_for = lanes<Size % 4 == 0 ? 4 : Size % 2 == 0 ? 2 : 1>;

/// Along the last axis on AVX512-VBMI: pixels of up to 128 bytes (e.g. 128 quant8 or 32
/// float32 channels) by shuffle_small_pixels; wider ones by zip_pixels when there are 2 to
/// 8 groups of at least half a vector each, else by a wide_plan (made at bind when the
/// channel count and groups are constants, else here); the rest, and other axes, through
/// reference(). One group is a copy.
template <types::element E>
void last_axis_vbmi(const kernel_io& io, const wide_plan* bound) {
  using S = typename E::storage;
  using L = lanes_for<sizeof(S)>;
  const auto& dims = io.in[0].dims;
  std::int32_t axis = io.scalar<std::int32_t>(2);
  if (axis < 0) axis += static_cast<std::int32_t>(dims.size());
  const auto groups = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const std::size_t channels = dims.empty() ? 0 : dims.back();
  if (static_cast<std::size_t>(axis) + 1 != dims.size() || channels == 0) return reference<E>(io);
  const std::size_t bytes = channels * sizeof(S), run = channels / groups;
  const bool zip = zips(channels, groups, sizeof(S));
  std::shared_ptr<const wide_plan> made;
  const wide_plan* plan = nullptr;
  if (bytes > 128 && groups > 1 && !zip) {
    plan = bound;
    if (!plan || plan->bytes != bytes || plan->groups != groups) {  // not known at bind
      made = make_wide_plan(channels, groups, sizeof(S));
      plan = made.get();
    }
    if (!plan) return reference<E>(io);
  }
  std::size_t pixels = 1;
  for (std::size_t d = 0; d + 1 < dims.size(); ++d) pixels *= dims[d];
  const auto* in = reinterpret_cast<const std::uint8_t*>(io.in[0].value);
  auto* out = reinterpret_cast<std::uint8_t*>(io.out_data[0]);
  for_chunks(io, pixels, std::max<std::size_t>(1, (std::size_t{1} << 20) / bytes), [&](std::size_t b, std::size_t e) {
    const std::uint8_t* src = in + b * bytes;
    std::uint8_t* dst = out + b * bytes;
    if (groups == 1) std::memcpy(dst, src, (e - b) * bytes);
    else if (zip) zip_groups<L>(src, dst, e - b, groups, run);
    else if (plan) shuffle_wide_pixels<L>(src, dst, e - b, *plan);
    else shuffle_small_pixels(src, dst, e - b, channels, groups, sizeof(S));
  });
}
#endif

/// Pixels along the last axis through byte permutes when the CPU has AVX512-VBMI;
/// otherwise reference().
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, [&c]<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if (simd::cpu().avx512_vbmi) {
      std::shared_ptr<const wide_plan> plan;
      const auto& dims = c.in[0].dims;
      const auto groups = c.in[1].scalar<std::int32_t>();
      const auto axis = c.in[2].scalar<std::int32_t>();
      const auto rank = static_cast<std::int32_t>(dims.size());
      const std::size_t size = sizeof(typename E::storage);
      if (groups && *groups > 1 && axis && (*axis == -1 || *axis == rank - 1) && rank > 0 && dims.back() > 0 &&
          dims.back() * size > 128 && !zips(dims.back(), static_cast<std::size_t>(*groups), size))
        plan = make_wide_plan(dims.back(), static_cast<std::size_t>(*groups), size);
      return kernel{[plan](const kernel_io& io) { last_axis_vbmi<E>(io, plan.get()); }};
    }
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::channel_shuffle
