// EXP kernels; contract in types/signatures/exp.hpp. e^x in float32 (std::exp, as the AOSP CPU
// path).
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
};

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{});
}
/// float32; xsimd::exp, within the CTS float32 tolerance of the reference (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vunary::f32_simd<Arch>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::vunary::bind_float(c, lane{}); }

}  // namespace nnhal::ops::exp
