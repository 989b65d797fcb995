// PRELU kernels; contract in types/signatures/prelu.hpp. f(x) = x for x >= 0, alpha * x
// otherwise, alpha broadcast against x. Quant8 requantizes the two branches with their
// own multipliers (s_in / s_out and s_in * s_alpha / s_out), as the AOSP CPU path does:
// bit-exact with AOSP.
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/compare.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::prelu {

struct quant_params {
  quant::fixed_multiplier pos, neg;
  std::int32_t zp_in = 0, zp_alpha = 0, zp_out = 0;
};

/// The scale ratio and product are formed in float first, as the AOSP path does.
inline quant_params make_quant_params(const operand_desc& in, const operand_desc& alpha, const operand_desc& out) {
  const float ratio = in.scale / out.scale;
  quant_params p;
  p.pos = quant::quantize_output_multiplier(static_cast<double>(ratio));
  p.neg = kernels::product_multiplier(in.scale, alpha.scale, out.scale);
  p.zp_in = in.zero_point;
  p.zp_alpha = alpha.zero_point;
  p.zp_out = out.zero_point;
  return p;
}

/// Stored output of stored input x and alpha a, before the clamp to the type's range.
inline std::int32_t quant_prelu(const quant_params& p, std::int32_t x, std::int32_t a) noexcept {
  const std::int32_t v = x - p.zp_in;
  if (v >= 0) return quant::add_saturating(p.zp_out, quant::apply_multiplier(v, p.pos));
  return quant::add_saturating(p.zp_out, quant::apply_multiplier(v * (a - p.zp_alpha), p.neg));
}

template <types::element E>
void reference(const kernel_io& io, const quant_params& p) {
  using S = typename E::storage;
  if constexpr (types::float_element<E>) {
    // x >= 0 copies x's bits (so -0.0 stays -0.0); alpha * x of two halves is exact in
    // float, so float16 rounds once, like AOSP's _Float16 product.
    kernels::binary_map<E, E>(io, [](S x, S a) {
      const float fx = kernels::load_float(x);
      return fx >= 0.0f ? x : kernels::store_float<S>(fx * kernels::load_float(a));
    });
  } else {
    static_assert(types::quantized_element<E>, "PRELU: float or quant8 only");
    constexpr std::int32_t lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
    kernels::binary_map<E, E>(io, [&p](S x, S a) {
      const std::int32_t v = quant_prelu(p, x, a);
      return static_cast<S>(v < lo ? lo : (v > hi ? hi : v));
    });
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, [&c]<class E>(E) {
    if constexpr (types::quantized_element<E>)
      return kernel{[p = make_quant_params(c.in[0], c.in[1], c.out[0])](const kernel_io& io) { reference<E>(io, p); }};
    else
      return kernel{[](const kernel_io& io) { reference<E>(io, {}); }};
  });
}

}  // namespace nnhal::ops::prelu
