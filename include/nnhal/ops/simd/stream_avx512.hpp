// Streaming (non-temporal) stores for element-wise outputs larger than the caches: they
// skip reading each output line before writing it (a third less memory traffic for a
// unary operation, a quarter for a binary one) and do not evict what the caches hold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>

namespace nnhal::simd::avx512 {

/// Floats to write before `dst` reaches a 64-byte boundary (0 to 15), after which 16-float
/// stores may stream. Float-aligned `dst` only (typed tensors are).
inline std::size_t floats_to_line(const float* dst) noexcept {
  return (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64 / sizeof(float);
}

/// 16 floats to p: a streaming store when Stream (p 64-byte aligned), a plain one otherwise.
template <bool Stream>
NNHAL_TARGET_AVX512 [[gnu::always_inline]] inline void store16(float* p, __m512 v) noexcept {
  if constexpr (Stream) _mm512_stream_ps(p, v);
  else _mm512_storeu_ps(p, v);
}

/// After a run of streaming stores: orders them before whatever this thread does next (the
/// parallel join that publishes the output to other threads).
template <bool Stream>
inline void end_stream() noexcept {
  if constexpr (Stream) _mm_sfence();
}

}  // namespace nnhal::simd::avx512
#endif
