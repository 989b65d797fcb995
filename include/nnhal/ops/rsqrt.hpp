// RSQRT kernels; contract in types/signatures/rsqrt.hpp. Floats: 1 / sqrt(x) in float32 (two
// IEEE operations, so the SIMD path is exact). Quantized (AIDL V3; output quantization free):
// as the AOSP CPU path, in float: dequantize, 1 / sqrt, then zero point + round half away
// from zero, clamped; 1/sqrt(0) = inf and 1/sqrt(x < 0) = NaN both give the type's maximum.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::rsqrt {

struct lane {
  float operator()(float x) const noexcept { return 1.0f / std::sqrt(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::batch<float, Arch>(1.0f) / xsimd::sqrt(x);
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    using simd::avx512::all16;
    return _mm512_maskz_div_ps(all16, _mm512_set1_ps(1.0f), _mm512_maskz_sqrt_ps(all16, x));
  }
#endif
};

struct quant_params {
  float input_scale = 0.0f, output_scale = 0.0f;
  std::int32_t input_zero_point = 0, output_zero_point = 0;
};

struct spec {
  /// Any quantization is accepted.
  static std::optional<quant_params> quant8_params(const operand_desc& in, const operand_desc& out) noexcept {
    return quant_params{in.scale, out.scale, in.zero_point, out.zero_point};
  }
  /// One stored value, in the AOSP path's float operations and order.
  template <class S>
  static S quant8_value(S v, const quant_params& p) noexcept {
    const float x = static_cast<float>(std::int32_t{v} - p.input_zero_point) * p.input_scale;
    const float q = static_cast<float>(p.output_zero_point) + std::round(lane{}(x) / p.output_scale);
    constexpr float lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
    const float c = q < hi ? q : hi;  // NaN -> hi
    return static_cast<S>(lo < c ? c : lo);
  }
};
using op = kernels::vunary::unary_op<lane, spec>;

/// Types f32 f16 qu8 qs8.
template <types::element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
template <class Arch>
void vectorized(const kernel_io& io) {
  op::vectorized<Arch>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::rsqrt
