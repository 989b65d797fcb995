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

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[1].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{[](const kernel_io& io) { reference<types::f32>(io, nullptr); }};
    case OperandType::TENSOR_FLOAT16: return kernel{[](const kernel_io& io) { reference<types::f16>(io, nullptr); }};
    case OperandType::TENSOR_INT32: return kernel{[](const kernel_io& io) { reference<types::i32>(io, nullptr); }};
    case OperandType::TENSOR_QUANT8_ASYMM: {
      auto t = kernels::make_requant_pair<std::uint8_t>(c.in[1], c.in[2], c.out[0]);
      return kernel{[t](const kernel_io& io) { reference<types::qu8>(io, t.get()); }};
    }
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      auto t = kernels::make_requant_pair<std::int8_t>(c.in[1], c.in[2], c.out[0]);
      return kernel{[t](const kernel_io& io) { reference<types::qs8>(io, t.get()); }};
    }
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::select
