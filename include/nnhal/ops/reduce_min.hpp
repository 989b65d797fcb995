// REDUCE_MIN kernels; contract in types/signatures/reduce_min.hpp. Quantized inputs are
// compared as stored (the output keeps the input's scale and zero point), so the signed
// result is exactly the unsigned one minus 128. Floats fold with x < a ? x : a, which
// skips NaN inputs as the AOSP reference's std::min fold does; the fold starts from
// +infinity where the reference starts from the largest finite value, which differs only
// when every input is +infinity or NaN.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_min {

template <types::element E>
using min_of = kernels::extremum<E, false>;
using op = kernels::axes_reduction<min_of>;

/// The scalar loops (kernels::reduce): the fallback and the tests' oracle.
template <types::element E>
inline constexpr auto& reference = op::reference<E>;

/// Float32 with xsimd batches (kernels::reduce_vectorized): the values of reference().
inline constexpr auto& vectorized_f32 = op::vectorized<types::f32>;

inline types::result<kernel> bind(const bind_context& c) {
  return op::bind<types::f32, types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::reduce_min
