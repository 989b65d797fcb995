// NOT_EQUAL kernels; contract in types/signatures/not_equal.hpp. TENSOR_BOOL8 output of x != y
// with broadcasting; quant8 inputs compare their real values (float, as AOSP).
#pragma once

#include "nnhal/ops/kernels/compare.hpp"

namespace nnhal::ops::not_equal {

/// `t`: the inputs' real-value tables (quant8 only, else nullptr).
template <types::element E>
void reference(const kernel_io& io, const kernels::compare_tables* t) {
  kernels::compare_reference<kernels::comparison::not_equal, E>(io, t);
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::bind_compare<kernels::comparison::not_equal>(c); }

}  // namespace nnhal::ops::not_equal
