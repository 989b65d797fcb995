// REDUCE_ALL kernels; contract in types/signatures/reduce_all.hpp. TENSOR_BOOL8 reads
// any non-zero byte as true and writes 0 or 1; an empty reduction is true.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_all {

template <class>
using all_of = kernels::logical_fold<true>;

inline types::result<kernel> bind(const bind_context& c) {
  return kernels::axes_reduction<all_of>::bind<types::b8>(c);
}

}  // namespace nnhal::ops::reduce_all
