// FLOOR kernels; contract in types/signatures/floor.hpp. floor(x) in float32 (exact).
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::floor {

struct lane {
  float operator()(float x) const noexcept { return std::floor(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::copysign(xsimd::floor(x), x);  // keeps -0 (the SSE2 floor loses it)
  }
};

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{});
}
/// float32; exact.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::vunary::bind_float(c, lane{}); }

}  // namespace nnhal::ops::floor
