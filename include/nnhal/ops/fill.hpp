// FILL kernel; contract in types/signatures/fill.hpp. The value scalar has the output's
// element type (FLOAT16 / FLOAT32 / INT32), so its bytes are replicated as they are.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::fill {

template <types::element E>
void reference(const kernel_io& io) {
  kernels::fill_bytes(io.out_data[0], io.in[1].value, io.out[0].element_count(), kernels::element_bytes<E>);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32>(c, c.out[0].type,
                                                      []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::fill
