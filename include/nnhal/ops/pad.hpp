// PAD kernels; contract in types/signatures/pad.hpp. Pads with zero: 0.0 for floats, the
// zero point for quantized tensors (so the signed variant is exactly the unsigned one
// minus 128).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::pad {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  S zero{};
  if constexpr (types::quantized_element<E>) zero = static_cast<S>(io.out[0].zero_point);
  kernels::spatial::pad_constant<S>(io, zero);
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

}  // namespace nnhal::ops::pad
