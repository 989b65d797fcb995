// PAD kernels; contract in types/signatures/pad.hpp. Pads with zero: 0.0 for floats, the
// zero point for quantized tensors (so the signed variant is exactly the unsigned one
// minus 128).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::pad {

template <types::element E>
void reference(const kernel_io& io) {
  kernels::spatial::pad_constant<typename E::storage>(io, kernels::spatial::stored_zero<E>(io));
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::pad
