// POW kernels; contract in types/signatures/pow.hpp. base^exponent with broadcasting,
// computed by std::pow in float32 (float16 rounded once), as the AOSP CPU path does.
#pragma once

#include <cmath>

#include "nnhal/ops/kernels/compare.hpp"

namespace nnhal::ops::pow {

template <types::element E>
void reference(const kernel_io& io) {
  static_assert(types::float_element<E>, "POW: float types only");
  using S = typename E::storage;
  kernels::binary_map<E, E>(io, [](S base, S exponent) {
    return kernels::store_float<S>(std::pow(kernels::load_float(base), kernels::load_float(exponent)));
  });
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::pow
