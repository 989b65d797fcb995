// ADD kernels; contract in types/signatures/add.hpp. Quantized ADD follows the AOSP CPU
// path bit for bit: both inputs are rescaled to 2 x the larger input scale with 20 bits
// of headroom, summed, then rescaled to the output.
#pragma once

#include <algorithm>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

namespace nnhal::ops::add {

struct quant_params {
  quant::fixed_multiplier in0, in1, out;
  std::int32_t zp0 = 0, zp1 = 0, zp_out = 0;
};
inline constexpr int left_shift = 20;

/// Multipliers for input scales s0, s1 and output scale so (computed once, at prepare).
inline quant_params make_quant_params(const operand_desc& a, const operand_desc& b, const operand_desc& o) {
  const double twice_max = 2.0 * static_cast<double>(std::max(a.scale, b.scale));
  quant_params p;
  p.in0 = quant::quantize_multiplier(static_cast<double>(a.scale) / twice_max);
  p.in1 = quant::quantize_multiplier(static_cast<double>(b.scale) / twice_max);
  p.out = quant::quantize_multiplier(twice_max / (static_cast<double>(1 << left_shift) * static_cast<double>(o.scale)));
  p.zp0 = a.zero_point;
  p.zp1 = b.zero_point;
  p.zp_out = o.zero_point;
  return p;
}

/// Raw quantized sum of two stored values, before the activation clamp.
inline std::int32_t quant_sum(const quant_params& p, std::int32_t x, std::int32_t y) noexcept {
  const std::int32_t sx = quant::apply_multiplier((x - p.zp0) * (1 << left_shift), p.in0);
  const std::int32_t sy = quant::apply_multiplier((y - p.zp1) * (1 << left_shift), p.in1);
  return quant::apply_multiplier(sx + sy, p.out) + p.zp_out;
}

/// Reference kernels: plain loops over the broadcast runs (also the test oracle).
template <types::element E>
void reference(const kernel_io& io, const quant_params& p) {
  if constexpr (types::float_element<E>) {
    kernels::binary_float<E>(io, 2, [](float x, float y) { return x + y; });
  } else if constexpr (std::is_same_v<E, types::i32>) {
    kernels::binary_int32(io, kernels::wrap_add);
  } else {
    kernels::binary_quant<E>(io, 2, [&p](std::int32_t x, std::int32_t y) { return quant_sum(p, x, y); });
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// The input stage, apply_multiplier((x - zp) 2^20, m) for a multiplier m without a left
/// shift, in int32 lanes: with d = x - zp (|d| <= 255), the doubling high product
/// floor((d 2^20 m + 2^30) / 2^31) is floor((d m + 2^10) / 2^11), and splitting
/// m = mh 2^11 + ml (0 <= ml < 2^11) makes it d mh + floor((d ml + 2^10) / 2^11), whose
/// products fit in 32 bits; then the rounding right shift. Equal to the 64-bit form.
struct input_stage {
  __m512i mh, ml;
  int right;
  NNHAL_TARGET_AVX512 static input_stage of(quant::fixed_multiplier m) {
    return {_mm512_set1_epi32(m.mantissa_q31 >> 11), _mm512_set1_epi32(m.mantissa_q31 & 2047), -m.shift};
  }
};
NNHAL_TARGET_AVX512 inline __m512i rescale_input(__m512i d, const input_stage& st) {
  using simd::avx512::all16;
  const __m512i low =
      _mm512_maskz_srai_epi32(all16, _mm512_add_epi32(_mm512_mullo_epi32(d, st.ml), _mm512_set1_epi32(1 << 10)), 11);
  return simd::avx512::rounding_divide_by_pot(_mm512_add_epi32(_mm512_mullo_epi32(d, st.mh), low), st.right);
}

/// One run of quantized ADD, 16 lanes at a time; equal to quant_sum bit for bit.
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
  if (p.in0.shift <= 0 && p.in1.shift <= 0) {  // always, for multipliers s_i / (2 max(s0, s1)) <= 1/2
    const input_stage s0 = input_stage::of(p.in0), s1 = input_stage::of(p.in1);
    for (; i + 16 <= n; i += 16) {
      const __m512i x = rescale_input(_mm512_sub_epi32(as ? load_x16(a + i) : a_bcast, zp0), s0);
      const __m512i y = rescale_input(_mm512_sub_epi32(bs ? load_x16(b + i) : b_bcast, zp1), s1);
      store_x16(o + i, _mm512_add_epi32(apply_multiplier(_mm512_add_epi32(x, y), p.out), zpo), lo, hi);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m512i x = _mm512_maskz_slli_epi32(all16, _mm512_sub_epi32(as ? load_x16(a + i) : a_bcast, zp0), left_shift);
    const __m512i y = _mm512_maskz_slli_epi32(all16, _mm512_sub_epi32(bs ? load_x16(b + i) : b_bcast, zp1), left_shift);
    const __m512i sum = _mm512_add_epi32(apply_multiplier(x, p.in0), apply_multiplier(y, p.in1));
    store_x16(o + i, _mm512_add_epi32(apply_multiplier(sum, p.out), zpo), lo, hi);
  }
  kernels::quant_run_scalar([&p](std::int32_t x, std::int32_t y) { return quant_sum(p, x, y); }, a + i * as, as,
                            b + i * bs, bs, o + i, n - i, r);
}
#endif

/// The fastest kernel this CPU has for quantized ADD (same results as reference()).
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
  return kernels::bind_arithmetic<arith::add>(c, make_quant_params,
                                              []<class E>(E) -> kernels::arithmetic_fn<quant_params> {
    if constexpr (types::quantized_element<E>) return simd::cpu().avx512 ? vectorized<E> : reference<E>;
    else return reference<E>;
  });
}

}  // namespace nnhal::ops::add
