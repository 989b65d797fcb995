// NEG kernels; contract in types/signatures/neg.hpp. Floats: -x (sign flip, exact; the
// float32 SIMD path too). TENSOR_INT32 wraps like two's complement hardware: -INT32_MIN
// stays INT32_MIN.
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::neg {

struct lane {
  float operator()(float x) const noexcept { return -x; }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return -x;
  }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    return _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(std::numeric_limits<std::int32_t>::min())));
  }
#endif
};
struct spec {
  static std::int32_t int32_value(std::int32_t x) noexcept {
    return static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x));
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

}  // namespace nnhal::ops::neg
