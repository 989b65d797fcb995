// REDUCE_ANY kernels; contract in types/signatures/reduce_any.hpp. TENSOR_BOOL8 reads
// any non-zero byte as true and writes 0 or 1; an empty reduction is false.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_any {

template <class>
using any_of = kernels::logical_fold<false>;

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::axes_reduction<any_of>::bind<types::b8>(c);
}

}  // namespace nnhal::ops::reduce_any
