// ABS kernels; contract in types/signatures/abs.hpp. Floats: |x| with the sign bit cleared
// (std::fabs, as the AOSP CPU path; the float32 SIMD path is exact). TENSOR_INT32 wraps like
// two's complement hardware: |INT32_MIN| stays INT32_MIN.
#pragma once

#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::abs {

struct lane {
  float operator()(float x) const noexcept { return std::fabs(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::abs(x);
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    return kernels::vunary::avx512::magnitude(x);
  }
#endif
};
struct spec {
  static std::int32_t int32_value(std::int32_t x) noexcept {
    const auto u = static_cast<std::uint32_t>(x);
    return static_cast<std::int32_t>(x < 0 ? 0u - u : u);
  }
};
using op = kernels::vunary::unary_op<lane, spec>;

/// Types f32 f16 i32.
template <types::element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
template <class Arch>
void vectorized(const kernel_io& io) {
  op::vectorized<Arch>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::abs
