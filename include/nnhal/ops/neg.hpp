// NEG kernels; contract in types/signatures/neg.hpp. Floats: -x (sign flip, exact).
// TENSOR_INT32 wraps like two's complement hardware: -INT32_MIN stays INT32_MIN.
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

inline std::int32_t neg_i32(std::int32_t x) noexcept {
  return static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x));
}

/// Types f32 f16 i32.
template <types::element E>
void reference(const kernel_io& io) {
  if constexpr (std::is_same_v<E, types::i32>)
    kernels::vunary::map<E, E>(io, neg_i32);
  else
    kernels::vunary::float_loop<E>(io, lane{});
}
/// float32, exact.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_INT32) return kernel{reference<types::i32>};
  return kernels::vunary::bind_float(c, lane{});
}

}  // namespace nnhal::ops::neg
