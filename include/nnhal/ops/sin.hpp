// SIN kernels; contract in types/signatures/sin.hpp. sin(x) in float32 (std::sin, as the AOSP CPU
// path).
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::sin {

struct lane {
  float operator()(float x) const noexcept { return std::sin(x); }
};

/// Types f32 f16 (float16 computed in float32, rounded once).
template <types::float_element E>
void reference(const kernel_io& io) {
  kernels::vunary::float_loop<E>(io, lane{});
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::vunary::bind_float(c, lane{}); }

}  // namespace nnhal::ops::sin
