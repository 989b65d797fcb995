// Streaming (non-temporal) stores for element-wise outputs larger than the caches: they
// skip reading each output line before writing it (a third less memory traffic for a
// unary operation, a quarter for a binary one) and do not evict what the caches hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

namespace nnhal::simd::avx512 {

/// Bytes before `p` reaches a 64-byte boundary (0 to 63).
inline std::size_t bytes_to_line(const void* p) noexcept { return (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64; }

/// Runs loop(std::bool_constant<Stream>, first, count) over elements [0, n) of an output
/// starting at `dst`: all with Stream false unless `stream`; otherwise the elements up to
/// dst's first 64-byte boundary with Stream false and the rest, now line-aligned, with
/// Stream true. T-aligned `dst` only (typed tensors are).
template <class T, class Loop>
void streamed_run(bool stream, const T* dst, std::size_t n, Loop&& loop) {
  if (!stream) return loop(std::false_type{}, std::size_t{0}, n);
  const std::size_t head = std::min(n, bytes_to_line(dst) / sizeof(T));
  if (head > 0) loop(std::false_type{}, std::size_t{0}, head);
  if (head < n) loop(std::true_type{}, head, n - head);
}

/// 64 bytes to a line-aligned p when Stream (a streaming store), else to any p.
template <bool Stream>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void store64(float* p, __m512 v) noexcept {
  if constexpr (Stream) _mm512_stream_ps(p, v);
  else _mm512_storeu_ps(p, v);
}
template <bool Stream>
[[gnu::always_inline]] NNHAL_TARGET_AVX512 inline void store64(void* p, __m512i v) noexcept {
  if constexpr (Stream) _mm512_stream_si512(static_cast<__m512i*>(p), v);
  else _mm512_storeu_si512(p, v);
}

/// After a run of streaming stores: orders them before whatever this thread does next (the
/// parallel join that publishes the output to other threads).
template <bool Stream>
inline void end_stream() noexcept {
  if constexpr (Stream) _mm_sfence();
}

}  // namespace nnhal::simd::avx512
#endif
