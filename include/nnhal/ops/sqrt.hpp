// SQRT kernels; contract in types/signatures/sqrt.hpp. Square root in float32 (IEEE: correctly
// rounded; sqrt(x < 0) = NaN).
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
};

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{});
}
/// float32; exact (IEEE square root on both paths).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::vunary::bind_float(c, lane{}); }

}  // namespace nnhal::ops::sqrt
