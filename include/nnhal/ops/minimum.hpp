// MINIMUM kernels; contract in types/signatures/minimum.hpp. Quant8 inputs are
// requantized to the output (AOSP's double-precision requantize, bit-exact) and the
// smaller is kept; float32 also has an xsimd path. The loops are shared with
// MAXIMUM (kernels/elementwise_binary.hpp).
#pragma once

#include "nnhal/ops/kernels/elementwise_binary.hpp"

namespace nnhal::ops::minimum {

/// `t`: the inputs' requantization tables (quant8 only, else nullptr).
template <types::element E>
void reference(const kernel_io& io, const kernels::requant_pair<typename E::storage>* t) {
  kernels::minmax_reference<true, E>(io, t);
}

/// float32 through xsimd batches; equal to reference<f32> bit for bit.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::minmax_vectorized<true, Arch>(io);
}

inline types::result<kernel> bind(const bind_context& c) { return kernels::bind_minmax<true>(c); }

}  // namespace nnhal::ops::minimum
