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
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::pad_v2
