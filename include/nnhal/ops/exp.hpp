// EXP kernels; contract in types/signatures/exp.hpp. e^x in float32 (std::exp, as the AOSP CPU
// path); the float32 SIMD path (xsimd::exp) is within the CTS float32 tolerance (tests check it).
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::exp {

struct lane {
  float operator()(float x) const noexcept { return std::exp(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::exp(x);
  }
#if NNHAL_HAVE_X86_KERNELS
  /// Within the CTS float32 tolerance of std::exp (tests check it).
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    return kernels::vunary::avx512::exp512(x);
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

}  // namespace nnhal::ops::exp
