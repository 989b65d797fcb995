// MUL kernels; contract in types/signatures/mul.hpp. Quantized MUL multiplies the
// zero-point-corrected inputs in int32 and rescales by s0*s1/s_out (AOSP CPU rounding).
#pragma once

#include "nnhal/ops/kernels/binary.hpp"

namespace nnhal::ops::mul {

struct quant_params {
  quant::fixed_multiplier out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
};

inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  // The product of the input scales is formed in float, as the AOSP path does.
  const float product = a.scale * b.scale;
  quant_params p;
  p.out = quant::quantize_multiplier(static_cast<double>(product) / static_cast<double>(o.scale));
  p.zp0 = a.zero_point;
  p.zp1 = b.zero_point;
  p.zp_out = o.zero_point;
  return p;
}

inline std::int32_t quant_product(const quant_params& p, std::int32_t x, std::int32_t y) noexcept {
  return quant::apply_multiplier((x - p.zp0) * (y - p.zp1), p.out) + p.zp_out;
}

template <types::element E>
void reference(const kernel_io& io, const quant_params& p) {
  if constexpr (types::float_element<E>) {
    kernels::binary_float<E>(io, 2, [](float x, float y) { return x * y; });
  } else if constexpr (std::is_same_v<E, types::i32>) {
    kernels::binary_int32(io, kernels::wrap_mul);
  } else {
    kernels::binary_quant<E>(io, 2, [&p](std::int32_t x, std::int32_t y) { return quant_product(p, x, y); });
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  const quant_params p = types::is_quantized(c.in[0].type) ? make_quant_params(c.in[0], c.in[1], c.out[0]) : quant_params{};
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{[](const kernel_io& io) { reference<types::f32>(io, {}); }};
    case OperandType::TENSOR_FLOAT16: return kernel{[](const kernel_io& io) { reference<types::f16>(io, {}); }};
    case OperandType::TENSOR_INT32: return kernel{[](const kernel_io& io) { reference<types::i32>(io, {}); }};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{[p](const kernel_io& io) { reference<types::qu8>(io, p); }};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return kernel{[p](const kernel_io& io) { reference<types::qs8>(io, p); }};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::mul
