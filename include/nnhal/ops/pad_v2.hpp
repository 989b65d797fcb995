// PAD_V2 kernels; contract in types/signatures/pad_v2.hpp. The pad value operand is stored
// as is: FLOAT32/FLOAT16 bits for float tensors, an INT32 stored value (already in the
// quantized domain, validated to fit the type) for quantized ones.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::pad_v2 {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  S value{};
  if constexpr (types::quantized_element<E>) value = static_cast<S>(io.scalar<std::int32_t>(2));
  else value = io.scalar<S>(2);
  kernels::spatial::pad_constant<S>(io, value);
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::pad_v2
