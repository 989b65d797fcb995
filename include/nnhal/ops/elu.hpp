// ELU kernels; contract in types/signatures/elu.hpp. max(0, x) + min(0, alpha * (e^x - 1))
// in float32, evaluated as that expression (as the AOSP CPU path: NaN gives 0). alpha is
// input 1 (FLOAT32, or FLOAT16 for a TENSOR_FLOAT16 input), read at each execution.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::elu {

struct lane {
  float alpha;
  float operator()(float x) const noexcept {
    const float neg = alpha * (std::exp(x) - 1.0f);
    return (0.0f < x ? x : 0.0f) + (neg < 0.0f ? neg : 0.0f);
  }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    const batch zero(0.0f);
    const batch neg = batch(alpha) * (xsimd::exp(x) - batch(1.0f));
    return xsimd::select(zero < x, x, zero) + xsimd::select(neg < zero, neg, zero);
  }
};

/// alpha as float (FLOAT16 widened exactly).
template <types::float_element E>
float alpha_of(const kernel_io& io) noexcept {
  if constexpr (std::is_same_v<E, types::f16>)
    return types::to_float(io.scalar<types::float16>(1));
  else
    return io.scalar<float>(1);
}

/// Types f32 f16.
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{alpha_of<E>(io)});
}
/// float32 with xsimd::exp; within the CTS float32 tolerance of the reference (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{alpha_of<types::f32>(io)});
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) {
    if constexpr (std::is_same_v<E, types::f32> && kernels::vunary::has_simd)
      return kernel{vectorized<kernels::vunary::simd_arch>};
    else
      return kernel{reference<E>};
  });
}

}  // namespace nnhal::ops::elu
