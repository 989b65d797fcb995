// SQRT kernels; contract in types/signatures/sqrt.hpp. Square root in float32 (IEEE: correctly
// rounded; sqrt(x < 0) = NaN), so the float32 SIMD path is exact.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::sqrt {

struct lane {
  float operator()(float x) const noexcept { return std::sqrt(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::sqrt(x);
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    return _mm512_maskz_sqrt_ps(simd::avx512::all16, x);
  }
#endif
};
using op = kernels::vunary::unary_op<lane>;

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
template <class Arch>
void vectorized(const kernel_io& io) {
  op::vectorized<Arch>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::sqrt
