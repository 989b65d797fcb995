// SUB kernels; contract in types/signatures/sub.hpp. Quantized SUB is ADD's fixed-point
// path with the second input's multiplier negated, as the AOSP CPU path computes it
// (TFLite BroadcastAdd4DSlow with -input2_multiplier): bit-exact with AOSP. Float32 has
// an xsimd path, quant8 ADD's AVX-512 path (chosen at bind), both equal to the reference.
#pragma once

#include <cstdint>

#include "nnhal/ops/add.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/cpu.hpp"

namespace nnhal::ops::sub {

using quant_params = add::quant_params;

/// ADD's multipliers with input 1's negated. Negating the Q31 mantissa (rather than the
/// rescaled value) matters: the fixed-point rounding is not symmetric around zero.
inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  quant_params p = add::make_multipliers(a, b, o);
  p.in1.mantissa_q31 = -p.in1.mantissa_q31;
  return add::with_linear_form(p, a.type);
}

/// a - b in two's complement (TENSOR_INT32 wraps instead of overflowing).
inline std::int32_t wrap_sub(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b));
}

/// Reference kernels: float in float32 (float16 rounded once), int32 wrapping, quant8
/// through ADD's fixed-point sum; the activation clamps last.
template <types::element E>
void reference(const kernel_io& io, const quant_params& p) {
  if constexpr (types::float_element<E>) {
    kernels::binary_float<E>(io, 2, [](float x, float y) { return x - y; });
  } else if constexpr (std::is_same_v<E, types::i32>) {
    kernels::binary_int32(io, wrap_sub);
  } else {
    kernels::binary_quant<E>(io, 2, [&p](std::int32_t x, std::int32_t y) { return add::quant_sum(p, x, y); });
  }
}

struct lane {
  float operator()(float x, float y) const noexcept { return x - y; }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x, const xsimd::batch<float, Arch>& y) const noexcept {
    return x - y;
  }
};

/// float32 through xsimd batches; equal to reference<f32> bit for bit.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vbinary::f32_simd<Arch>(io, kernels::activation_range_float(io.scalar<std::int32_t>(2)), lane{});
}

/// quant8: ADD's AVX-512 runs with SUB's multipliers (its fixed-point multiply is exact for
/// negative mantissas too); equal to reference<E> bit for bit. Call only when
/// simd::cpu().avx512 is true.
template <types::quantized_element E>
void vectorized(const kernel_io& io, const quant_params& p) {
  add::vectorized<E>(io, p);
}

/// Float32 through AVX-512 when the CPU has it (bind_arithmetic), else vectorized()
/// (xsimd); float16 and int32 through reference(); quant8 through ADD's AVX-512 runs when
/// the CPU has them. Qualified names: quant_params is ADD's type, so ADL would also find
/// add::reference.
inline types::result<kernel> bind(const bind_context& c) {
  using kernels::vbinary::arith;
  return kernels::bind_arithmetic<arith::sub>(c, sub::make_quant_params,
                                              []<class E>(E) -> kernels::arithmetic_fn<quant_params> {
    if constexpr (std::is_same_v<E, types::f32>) {
      if constexpr (kernels::vbinary::has_simd)
        return [](const kernel_io& io, const quant_params&) { sub::vectorized<kernels::vbinary::simd_arch>(io); };
    } else if constexpr (types::quantized_element<E>) {
      if (simd::cpu().avx512) return sub::vectorized<E>;
    }
    return sub::reference<E>;
  });
}

}  // namespace nnhal::ops::sub
