// CHANNEL_SHUFFLE kernels; contract in types/signatures/channel_shuffle.hpp. Along the axis,
// output channel k * groups + g = input channel g * group_size + k: a transpose of the
// [groups, group_size] view of the axis, moving whole inner runs.
#pragma once

#include <algorithm>
#include <cstdint>

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

/// Along the last axis, pixels of up to 128 bytes on AVX512-VBMI (e.g. 128 quant8 or 32
/// float32 channels); the rest, and other axes, through reference(). (Float32 gathers
/// measured no faster than the reference's element moves on wider pixels.)
template <types::element E>
void small_pixels_vbmi(const kernel_io& io) {
  using S = typename E::storage;
  const auto& dims = io.in[0].dims;
  std::int32_t axis = io.scalar<std::int32_t>(2);
  if (axis < 0) axis += static_cast<std::int32_t>(dims.size());
  const auto groups = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const std::size_t channels = dims.empty() ? 0 : dims.back();
  if (static_cast<std::size_t>(axis) + 1 != dims.size() || channels == 0 || channels * sizeof(S) > 128)
    return reference<E>(io);
  std::size_t pixels = 1;
  for (std::size_t d = 0; d + 1 < dims.size(); ++d) pixels *= dims[d];
  const auto* in = reinterpret_cast<const std::uint8_t*>(io.in[0].value);
  auto* out = io.out_data[0];
  const std::size_t bytes = channels * sizeof(S);
  for_chunks(io, pixels, std::max<std::size_t>(1, (std::size_t{1} << 20) / bytes), [&](std::size_t b, std::size_t e) {
    shuffle_small_pixels(in + b * bytes, reinterpret_cast<std::uint8_t*>(out) + b * bytes, e - b, channels, groups,
                         sizeof(S));
  });
}
#endif

/// Small pixels along the last axis through byte permutes when the CPU has AVX512-VBMI;
/// otherwise reference().
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, []<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if (simd::cpu().avx512_vbmi) return kernel{small_pixels_vbmi<E>};
#endif
    return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::channel_shuffle
