// SELECT kernels; contract in types/signatures/select.hpp. out[i] = mask[i] ? input1[i]
// : input2[i], all of one shape (no broadcasting). Quant8 inputs are each requantized
// to the output first (AOSP's double-precision requantize, bit-exact).
#pragma once

#include <cstddef>

#include "nnhal/ops/kernels/elementwise_binary.hpp"

namespace nnhal::ops::select {

/// `t`: input1's and input2's requantization tables (quant8 only, else nullptr).
template <types::element E>
void reference(const kernel_io& io, const kernels::requant_pair<typename E::storage>* t) {
  const auto mask = io.input<types::b8>(0);
  const auto a = io.input<E>(1);
  const auto b = io.input<E>(2);
  auto out = io.output<E>(0);
  const std::size_t n = out.size();
  if constexpr (types::quantized_element<E>) {
    for (std::size_t i = 0; i < n; ++i)
      out.data[i] = mask.data[i] != 0 ? t->a[kernels::byte_index(a.data[i])] : t->b[kernels::byte_index(b.data[i])];
  } else {
    for (std::size_t i = 0; i < n; ++i) out.data[i] = mask.data[i] != 0 ? a.data[i] : b.data[i];
  }
}

/// Quant8: both requantization tables built here, once.
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[1].type, [&c]<class E>(E) {
    if constexpr (types::quantized_element<E>) {
      auto t = kernels::make_requant_pair<typename E::storage>(c.in[1], c.in[2], c.out[0]);
      return kernel{[t](const kernel_io& io) { reference<E>(io, t.get()); }};
    } else {
      return kernel{[](const kernel_io& io) { reference<E>(io, nullptr); }};
    }
  });
}

}  // namespace nnhal::ops::select
