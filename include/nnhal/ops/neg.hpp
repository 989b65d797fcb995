// NEG kernels; contract in types/signatures/neg.hpp. Floats: -x (sign flip, exact; the
// float32 SIMD path too). TENSOR_INT32 wraps like two's complement hardware: -INT32_MIN
// stays INT32_MIN.
#pragma once

#include <cstdint>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::neg {

struct lane {
  float operator()(float x) const noexcept { return -x; }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return -x;
  }
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
