// REDUCE_MAX kernels; contract in types/signatures/reduce_max.hpp. Quantized inputs are
// compared as stored (the output keeps the input's scale and zero point), so the signed
// result is exactly the unsigned one minus 128. Floats fold with a < x ? x : a, which
// skips NaN inputs as the AOSP reference's std::max fold does; the fold starts from
// -infinity where the reference starts from the lowest finite value, which differs only
// when every input is -infinity or NaN.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_max {

template <types::element E>
using max_of = kernels::extremum<E, true>;
using op = kernels::axes_reduction<max_of>;

/// The scalar loops (kernels::reduce): the fallback and the tests' oracle.
template <types::element E>
inline constexpr auto& reference = op::reference<E>;

/// Float32 with xsimd batches (kernels::reduce_vectorized): the values of reference().
inline constexpr auto& vectorized_f32 = op::vectorized<types::f32>;

inline types::result<kernel> bind(const bind_context& c) {
  return op::bind<types::f32, types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::reduce_max
