// SIN kernels; contract in types/signatures/sin.hpp. sin(x) in float32 (std::sin, as the AOSP CPU
// path); no SIMD path.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::sin {

struct lane {
  float operator()(float x) const noexcept { return std::sin(x); }
};
using op = kernels::vunary::unary_op<lane>;

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  op::reference<E>(io);
}
inline types::result<kernel> bind(const bind_context& c) { return op::bind(c); }

}  // namespace nnhal::ops::sin
