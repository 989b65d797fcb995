// ARGMIN kernels; contract in types/signatures/argmin.hpp. The same fold as ARGMAX
// (ops/argmax.hpp) with the comparison reversed: ties resolve to the smallest index.
#pragma once

#include "nnhal/ops/argmax.hpp"

namespace nnhal::ops::argmin {

template <types::element E>
void reference(const kernel_io& io) {
  argmax::arg_min_max<E, true>(io);
}

inline types::result<kernel> bind(const bind_context& c) { return argmax::bind_arg<true>(c); }

}  // namespace nnhal::ops::argmin
