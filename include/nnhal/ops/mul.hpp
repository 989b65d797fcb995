// MUL kernels; contract in types/signatures/mul.hpp. Quantized MUL multiplies the
// zero-point-corrected inputs in int32 and rescales by s0*s1/s_out (AOSP CPU rounding).
#pragma once

#include <memory>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/kernels/q8_lanes_avx512.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::mul {

struct quant_params {
  quant::fixed_multiplier out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
#if NNHAL_HAVE_X86_KERNELS
  /// The multiplier for q8_lanes' float path (16 equal lanes), when the AVX-512 kernel
  /// runs and the multiplier is below 1 (null otherwise).
  std::shared_ptr<const kernels::conv::avx512::q8_scaling> lanes;
#endif
};

inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  quant_params p;
  p.out = kernels::product_multiplier(a.scale, b.scale, o.scale);
  p.zp0 = a.zero_point;
  p.zp1 = b.zero_point;
  p.zp_out = o.zero_point;
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512 && p.out.shift <= 0)
    p.lanes = kernels::conv::avx512::make_q8_scaling([&p](std::size_t) { return p.out; }, p.zp_out, 16, 16);
#endif
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
/// One run of quantized MUL; equal to quant_product bit for bit. With a float-path scaling
/// (quant_params::lanes), 64 lanes at a time: the products (x - zp0)(y - zp1) (at most
/// 2^16 in magnitude, so exact in float) requantized by q8_lanes' float path, the 64 lanes
/// again in fixed point when one lies next to a rounding boundary, narrowed to bytes by
/// word permutes and one pack; then (and otherwise) 16 lanes at a time in fixed point.
template <class S>
NNHAL_TARGET_AVX512 void quant_run_avx512(const quant_params& params, const S* a, std::size_t as, const S* b,
                                          std::size_t bs, S* o, std::size_t n, quant::quant_range r) {
  using namespace simd::avx512;
  namespace av = kernels::conv::avx512;
  // Local copies: the 8-bit stores through `o` may alias any object, so the compiler would
  // otherwise reload the parameters, and redo everything derived from them, per step.
  const quant::fixed_multiplier out = params.out;
  const __m512i zp0 = _mm512_set1_epi32(params.zp0), zp1 = _mm512_set1_epi32(params.zp1);
  const __m512i zpo = _mm512_set1_epi32(params.zp_out);
  const __m512i lo = _mm512_set1_epi32(r.lo), hi = _mm512_set1_epi32(r.hi);
  const __m512i a_bcast = _mm512_set1_epi32(a[0]), b_bcast = _mm512_set1_epi32(b[0]);
  auto product = [&](std::size_t at) NNHAL_TARGET_AVX512 {
    const __m512i x = _mm512_sub_epi32(as ? load_x16(a + at) : a_bcast, zp0);
    const __m512i y = _mm512_sub_epi32(bs ? load_x16(b + at) : b_bcast, zp1);
    return _mm512_maskz_mullo_epi32(all16, x, y);
  };
  std::size_t i = 0;
  if (const av::q8_scaling* sc = params.lanes.get()) {
    const av::q8_lanes lanes(*sc, r.lo, r.hi, 0);
    const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(r.lo)), hi8 = _mm512_set1_epi8(static_cast<char>(r.hi));
    for (; i + 64 <= n; i += 64) {
      __m512i v[4], g[4], lows = av::q8_lanes::no_lows();
#pragma GCC unroll 4
      for (std::size_t k = 0; k < 4; ++k) {
        v[k] = product(i + 16 * k);
        g[k] = lanes.fast_g(v[k], lows);
      }
      if (lanes.fast_inexact(lows)) [[unlikely]]
        for (std::size_t k = 0; k < 4; ++k) g[k] = lanes.exact_g(v[k]);
      store_x64_words(o + i, av::high_words(g[0], g[1]), av::high_words(g[2], g[3]), lo8, hi8);
    }
  }
  for (; i + 16 <= n; i += 16) store_x16(o + i, _mm512_add_epi32(apply_multiplier(product(i), out), zpo), lo, hi);
  kernels::quant_run_scalar([&params](std::int32_t x, std::int32_t y) { return quant_product(params, x, y); }, a + i * as,
                            as, b + i * bs, bs, o + i, n - i, r);
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
