// MUL kernels; contract in types/signatures/mul.hpp. Quantized MUL multiplies the
// zero-point-corrected inputs in int32 and rescales by s0*s1/s_out (AOSP CPU rounding).
#pragma once

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::mul {

struct quant_params {
  quant::fixed_multiplier out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
};

inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  quant_params p;
  p.out = kernels::product_multiplier(a.scale, b.scale, o.scale);
  p.zp0 = a.zero_point;
  p.zp1 = b.zero_point;
  p.zp_out = o.zero_point;
  return p;
}

inline std::int32_t quant_product(const quant_params& p, std::int32_t x, std::int32_t y) noexcept {
  return quant::add_wrapping(quant::apply_multiplier((x - p.zp0) * (y - p.zp1), p.out), p.zp_out);
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

#if NNHAL_HAVE_X86_KERNELS
/// One run of quantized MUL, 16 lanes at a time; equal to quant_product bit for bit.
template <class S>
NNHAL_TARGET_AVX512 void quant_run_avx512(const quant_params& params, const S* a, std::size_t as, const S* b,
                                          std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  // A local copy: the 8-bit stores through `o` may alias any object, so the compiler would
  // otherwise reload the parameters, and redo everything derived from them, per step.
  const quant_params p = params;
  const __m512i zp0 = _mm512_set1_epi32(p.zp0), zp1 = _mm512_set1_epi32(p.zp1), zpo = _mm512_set1_epi32(p.zp_out);
  const __m512i lo = _mm512_set1_epi32(r.lo), hi = _mm512_set1_epi32(r.hi);
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i x = _mm512_sub_epi32(as ? load_x16(a + i) : a_bcast, zp0);
    const __m512i y = _mm512_sub_epi32(bs ? load_x16(b + i) : b_bcast, zp1);
    store_x16(o + i, _mm512_add_epi32(apply_multiplier(_mm512_maskz_mullo_epi32(all16, x, y), p.out), zpo), lo, hi);
  }
  kernels::quant_run_scalar([&p](std::int32_t x, std::int32_t y) { return quant_product(p, x, y); }, a + i * as, as,
                            b + i * bs, bs, o + i, n - i, r);
}
#endif

/// The fastest kernel this CPU has for quantized MUL (same results as reference()).
template <types::element E>
void vectorized(const kernel_io& io, const quant_params& p) {
#if NNHAL_HAVE_X86_KERNELS
  using S = typename E::storage;
  kernels::binary_quant_runs<E>(io, 2, [&p](const S* a, std::size_t as, const S* b, std::size_t bs, S* o, std::size_t n,
                                            quant::quant_range r) { quant_run_avx512(p, a, as, b, bs, o, n, r); });
#else
  reference<E>(io, p);
#endif
}

/// float32 and quant8 through their AVX-512 kernels when the CPU has AVX-512; the rest
/// (and every type without it) through reference().
inline types::result<kernel> bind(const bind_context& c) {
  using kernels::vbinary::arith;
  return kernels::bind_arithmetic<arith::mul>(c, make_quant_params,
                                              []<class E>(E) -> kernels::arithmetic_fn<quant_params> {
    if constexpr (types::quantized_element<E>) return simd::cpu().avx512 ? vectorized<E> : reference<E>;
    else return reference<E>;
  });
}

}  // namespace nnhal::ops::mul
