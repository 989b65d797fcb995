// LOG kernels; contract in types/signatures/log.hpp. Natural logarithm in float32 (std::log:
// log(0) = -inf, log(x < 0) = NaN); the float32 SIMD path (xsimd::log) is within the CTS
// float32 tolerance (tests check it).
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::log {

struct lane {
  float operator()(float x) const noexcept { return std::log(x); }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    return xsimd::log(x);
  }
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

}  // namespace nnhal::ops::log
