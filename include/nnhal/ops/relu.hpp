// RELU kernels; contract in types/signatures/relu.hpp. Quantized RELU clamps the stored
// values at the quantized zero (output quantization equals the input's).
#pragma once

#include <limits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::relu {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  const std::size_t n = in.size();
  if constexpr (types::float_element<E>) {
    for (std::size_t i = 0; i < n; ++i) {
      const float v = kernels::load_float(in.data[i]);
      out.data[i] = kernels::store_float<S>(v < 0.0f ? 0.0f : v);
    }
  } else {
    const auto r = quant::activation_range(1, out.scale, out.zero_point, std::numeric_limits<S>::min(),
                                           std::numeric_limits<S>::max());
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t v = in.data[i];
      out.data[i] = static_cast<S>(v < r.lo ? r.lo : (v > r.hi ? r.hi : v));
    }
  }
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

}  // namespace nnhal::ops::relu
