// Float16 operations run by their float32 kernels: every float16 operand is widened to
// float32 (exactly: every half is a float), the operation's float32 kernel runs, and its
// float32 outputs are rounded to float16 (nearest, ties to even). This is float16 storage
// with float32 arithmetic, the reference kernels' own arithmetic (they accumulate in
// float and round once when storing), so the two differ only by the float32 kernel's
// order of summation. Used where the float32 kernel is much faster than the float16
// reference (the convolutions and FULLY_CONNECTED).
//
// Constant float16 operands are widened once, at bind, and the float32 kernel is bound
// against them (so it packs its weights from them as usual); the others are widened per
// execution into buffers kept per thread and reused, so an execution allocates nothing
// once its thread has run the largest layer.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/types/element.hpp"
#include "nnhal/types/large_bytes.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::kernels::f16_via_f32 {

namespace detail {

#if NNHAL_HAVE_X86_KERNELS
// (maskz forms with every lane set: GCC 12 reports the plain forms' pass-through operand as
// uninitialized)
inline constexpr __mmask16 all = 0xffff;

NNHAL_TARGET_AVX512 inline void widen_avx512(const types::float16* src, float* dst, std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(dst + i, _mm512_maskz_cvtph_ps(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
  if (i < n) {
    const auto live = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, live, _mm512_maskz_cvtph_ps(live, _mm256_maskz_loadu_epi16(live, src + i)));
  }
}
NNHAL_TARGET_AVX512 inline void narrow_avx512(const float* src, types::float16* dst, std::size_t n) noexcept {
  constexpr int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_maskz_cvtps_ph(all, _mm512_loadu_ps(src + i), nearest));
  if (i < n) {
    const auto live = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm256_mask_storeu_epi16(dst + i, live, _mm512_maskz_cvtps_ph(live, _mm512_maskz_loadu_ps(live, src + i), nearest));
  }
}
#endif

}  // namespace detail

/// dst[i] = float(src[i]) for i < n.
inline void widen(const types::float16* src, float* dst, std::size_t n) noexcept {
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512) return detail::widen_avx512(src, dst, n);
#endif
  for (std::size_t i = 0; i < n; ++i) dst[i] = types::to_float(src[i]);
}

/// dst[i] = src[i] rounded to float16 (nearest, ties to even; overflow to infinity).
inline void narrow(const float* src, types::float16* dst, std::size_t n) noexcept {
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512) return detail::narrow_avx512(src, dst, n);
#endif
  for (std::size_t i = 0; i < n; ++i) dst[i] = types::to_float16(src[i]);
}

/// The float32 counterpart of a float16 operand type (others unchanged).
inline types::OperandType as_float32(types::OperandType t) noexcept {
  if (t == types::OperandType::TENSOR_FLOAT16) return types::OperandType::TENSOR_FLOAT32;
  if (t == types::OperandType::FLOAT16) return types::OperandType::FLOAT32;
  return t;
}
inline bool is_float16(types::OperandType t) noexcept { return as_float32(t) != t; }

/// Float32 buffer `slot` of this thread, at least n floats long (64-byte aligned; grown,
/// never shrunk, and reused by every later execution on the thread).
inline float* thread_buffer(std::size_t slot, std::size_t n) {
  struct buffer {
    std::shared_ptr<std::byte[]> bytes;
    std::size_t floats = 0;
  };
  thread_local std::vector<buffer> pool;
  if (pool.size() <= slot) pool.resize(slot + 1);
  buffer& b = pool[slot];
  if (b.floats < n) {
    b.bytes = types::large_bytes(n * sizeof(float), false);
    b.floats = n;
  }
  return reinterpret_cast<float*>(b.bytes.get());
}

/// The widened form of float16 operand `d`'s value (n elements) into `dst`.
inline void widen_operand(const operand_desc& d, float* dst, std::size_t n) noexcept {
  widen(reinterpret_cast<const types::float16*>(d.value), dst, n);
}

/// Binds `bind_f32` (an operation's bind, called with float32 operand types) for `c`, whose
/// float16 operands it widens as described above; a kernel that widens, runs the float32
/// kernel and narrows.
template <class BindF32>
types::result<kernel> bind(const bind_context& c, BindF32&& bind_f32) {
  struct plan {
    kernel f32;
    std::vector<operand_desc> in, out;               // float32 descriptors
    std::vector<std::shared_ptr<std::vector<float>>> held;  // widened constants, by input
  };
  auto p = std::make_shared<plan>();
  p->in.assign(c.in.begin(), c.in.end());
  p->out.assign(c.out.begin(), c.out.end());
  p->held.resize(c.in.size());
  for (std::size_t i = 0; i < c.in.size(); ++i) {
    operand_desc& d = p->in[i];
    if (!is_float16(d.type)) continue;
    d.type = as_float32(d.type);
    if (!d.has_value()) continue;
    const std::size_t n = d.value_size / sizeof(types::float16);
    auto w = std::make_shared<std::vector<float>>(n);
    widen_operand(c.in[i], w->data(), n);
    d.value = reinterpret_cast<const std::byte*>(w->data());
    d.value_size = n * sizeof(float);
    p->held[i] = std::move(w);
  }
  for (auto& d : p->out) d.type = as_float32(d.type);
  auto k = bind_f32(bind_context{c.op, p->in, p->out, c.relaxed, c.packs, c.site});
  if (!k) return std::move(k).err();
  p->f32 = std::move(*k);
  return kernel{[p](const kernel_io& io) {
    // This execution's descriptors: its dims and values, float32 types; slots 0.. of the
    // thread's buffers for widened inputs, then outputs.
    thread_local std::vector<operand_desc> in, out;
    thread_local std::vector<std::byte*> out_data;
    in.assign(io.in.begin(), io.in.end());
    out.assign(io.out.begin(), io.out.end());
    out_data.assign(io.out_data.begin(), io.out_data.end());
    std::size_t slot = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      operand_desc& d = in[i];
      if (!is_float16(d.type)) continue;
      d.type = as_float32(d.type);
      if (!d.has_value()) continue;
      const std::size_t n = d.value_size / sizeof(types::float16);
      if (i < p->held.size() && p->held[i] && p->held[i]->size() == n) {
        d.value = reinterpret_cast<const std::byte*>(p->held[i]->data());
      } else {
        float* w = thread_buffer(slot++, n);
        widen_operand(io.in[i], w, n);
        d.value = reinterpret_cast<const std::byte*>(w);
      }
      d.value_size = n * sizeof(float);
    }
    for (std::size_t o = 0; o < out.size(); ++o)
      if (is_float16(out[o].type)) {
        out[o].type = as_float32(out[o].type);
        out_data[o] = reinterpret_cast<std::byte*>(thread_buffer(slot++, out[o].element_count()));
      }
    p->f32(kernel_io{in, out, out_data, io.par, io.scratch});
    for (std::size_t o = 0; o < out.size(); ++o)
      if (is_float16(io.out[o].type))
        narrow(reinterpret_cast<const float*>(out_data[o]), reinterpret_cast<types::float16*>(io.out_data[o]),
               out[o].element_count());
  }};
}

}  // namespace nnhal::ops::kernels::f16_via_f32
