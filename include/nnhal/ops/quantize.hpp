// QUANTIZE kernels; contract in types/signatures/quantize.hpp. output = clamp(zeroPoint +
// round(x / scale)) with round half away from zero, in float32 exactly as the AOSP CPU path
// evaluates it (float division, std::round, float addition): bit-exact with it. NaN gives
// the type's maximum (as the AOSP path's min/max order does), +-inf the bounds.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::quantize {

/// One float (float16 widened exactly) to the stored type S.
template <class S>
S quantize_value(float x, float scale, std::int32_t zero_point) noexcept {
  const float q = static_cast<float>(zero_point) + std::round(x / scale);
  constexpr float lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
  const float c = q < hi ? q : hi;  // NaN -> hi
  return static_cast<S>(lo < c ? c : lo);
}

/// Types f32 f16 to qu8 qs8.
template <types::float_element In, types::quantized_element Out>
void reference(const kernel_io& io) {
  using S = typename Out::storage;
  const float scale = io.out[0].scale;
  const std::int32_t zp = io.out[0].zero_point;
  kernels::vunary::map<In, Out>(
      io, [scale, zp](typename In::storage v) { return quantize_value<S>(kernels::load_float(v), scale, zp); });
}

#if NNHAL_HAVE_X86_KERNELS
/// float32 to Out on AVX-512 (kernels::vunary::avx512::quantize_loop): bit-exact with the
/// reference (tests check it). Call only when simd::cpu().avx512 is true, and with Vbmi
/// only when simd::cpu().avx512_vbmi is.
template <types::quantized_element Out, bool Vbmi>
void avx512_f32(const kernel_io& io) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<Out>(0);
  const float scale = io.out[0].scale;
  const std::int32_t zero_point = io.out[0].zero_point;
  using S = typename Out::storage;
  kernels::vunary::avx512::streamed_chunks(
      io, out.data, out.size(), elementwise_grain, [&]<bool Stream>(std::bool_constant<Stream>, std::size_t i, std::size_t n) {
        kernels::vunary::avx512::quantize_loop<Stream, S, Vbmi>(in.data + i, out.data + i, n, scale, zero_point);
      });
}
#endif

/// float32 through AVX-512 when the CPU has it; float16 (and float32 without it) through
/// reference().
inline types::result<kernel> bind(const bind_context& c) {
  const bool f16 = c.in[0].type == OperandType::TENSOR_FLOAT16;
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && !f16) return unsupported(c);
  auto pick = [f16]<class Out>(Out) -> kernel {
    if (f16) return kernel{reference<types::f16, Out>};
#if NNHAL_HAVE_X86_KERNELS
    if (simd::cpu().avx512_vbmi) return kernel{avx512_f32<Out, true>};
    if (simd::cpu().avx512) return kernel{avx512_f32<Out, false>};
#endif
    return kernel{reference<types::f32, Out>};
  };
  switch (c.out[0].type) {
    case OperandType::TENSOR_QUANT8_ASYMM: return pick(types::qu8{});
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return pick(types::qs8{});
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::quantize
