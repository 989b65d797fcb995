// SOFTMAX kernels; contract in types/signatures/softmax.hpp. Each 1-D slice along the
// axis becomes exp(beta (x - max)) / sum. Float: exp in float, the sum in double, f16
// widened on load and rounded once on store. Quantized: the AOSP CPU fixed-point path,
// bit for bit (Q5.26 scaled differences, gemmlowp exp_on_negative_values, a Q12.19 sum,
// a Newton-Raphson reciprocal, output in 1/256 steps), with the exps of the 256 possible
// differences x - max tabulated; the signed type differs only by its -128 output offset,
// so qs8 is exactly qu8 - 128.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/kernels/pooling_norm_fixed_point.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"
#include "nnhal/types/signatures/softmax.hpp"

namespace nnhal::ops::softmax {

/// Integer bits of the scaled input differences (Q5.26) and of the sum of exps (Q12.19).
inline constexpr int diff_integer_bits = 5;
inline constexpr int sum_integer_bits = 12;

/// beta * input_scale as a fixed-point multiplier for the differences x - max.
struct quant_params {
  std::int32_t multiplier = 0;  // Q0 mantissa
  int left_shift = 0;
  std::int32_t diff_min = 0;  // smaller differences fall outside Q5.26 and count as exp = 0
};

/// Computed once per (beta, input scale), at prepare when beta is a constant.
inline quant_params make_quant_params(float beta, float input_scale) {
  const double real = std::min(static_cast<double>(beta) * static_cast<double>(input_scale) *
                                   static_cast<double>(std::int64_t{1} << (31 - diff_integer_bits)),
                               static_cast<double>((std::int64_t{1} << 31) - 1));
  const quant::fixed_multiplier m = quant::quantize_multiplier(real);
  quant_params p;
  if (m.shift >= 0) {
    p.multiplier = m.mantissa_q31;
    // A shift of 32 (beta * scale >= 32) leaves only the maximum itself above diff_min,
    // whose difference is 0; 31 gives the same results without an undefined shift.
    p.left_shift = std::min(m.shift, 31);
  } else {
    // beta * scale < 2^-26: the AOSP path rejects this; fold the shift into the mantissa.
    p.multiplier = kernels::pool_norm::fixed::rounding_shift_right(m.mantissa_q31, -m.shift);
  }
  // The largest |difference| whose rescaled value still fits in Q5.26 (TFLite
  // CalculateInputRadius), rounded towards zero.
  const double radius = static_cast<double>((1 << diff_integer_bits) - 1) *
                        static_cast<double>(std::int64_t{1} << (31 - diff_integer_bits)) /
                        static_cast<double>(std::int64_t{1} << p.left_shift);
  p.diff_min = -static_cast<std::int32_t>(std::floor(radius));
  return p;
}

inline float beta_of(const operand_desc& d) {
  return types::sig::detail::axis_norm::float_scalar(d).value_or(1.0f);
}
inline std::int32_t axis_of(const kernel_io& io) { return io.in.size() > 2 ? io.scalar<std::int32_t>(2, -1) : -1; }

template <class S>
void float_slices(const S* in, S* out, const kernels::pool_norm::axis_split& split, float beta) {
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    float max_v = -std::numeric_limits<float>::infinity();
    for (std::size_t k = 0; k < count; ++k) max_v = std::max(max_v, kernels::load_float(in[first + k * stride]));
    double sum = 0.0;
    for (std::size_t k = 0; k < count; ++k)
      sum += static_cast<double>(std::exp((kernels::load_float(in[first + k * stride]) - max_v) * beta));
    for (std::size_t k = 0; k < count; ++k) {
      const double e = std::exp((kernels::load_float(in[first + k * stride]) - max_v) * beta);
      out[first + k * stride] = kernels::store_float<S>(static_cast<float>(e / sum));
    }
  });
}

/// 1 / sum for a Q12.19 sum of exps, as a Q0.31 reciprocal of its mantissa and the shift
/// that turns reciprocal * exp (Q0.31 * Q0.31) into 1/256 output steps: sum = (1 + x)
/// 2^bits_over_unit with x in [0, 1), and 1 / (1 + x) by Newton-Raphson.
struct sum_reciprocal {
  std::int32_t mantissa = 0;
  int output_shift = 0;

  static sum_reciprocal of(std::uint32_t sum) {
    const int headroom_plus_one = std::countl_zero(sum);
    const int bits_over_unit = sum_integer_bits - headroom_plus_one;
    const auto shifted_sum_minus_one = static_cast<std::int32_t>(
        static_cast<std::uint32_t>(std::uint64_t{sum} << headroom_plus_one) - (std::uint32_t{1} << 31));
    return {kernels::pool_norm::fixed::one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one),
            bits_over_unit + 31 - 8};
  }
  /// The output for an element whose exp is `e` (Q0.31), before the type's offset.
  std::int32_t apply(std::int32_t e) const {
    namespace fx = kernels::pool_norm::fixed;
    return fx::rounding_shift_right(fx::mul(mantissa, e), output_shift);
  }
};

/// exp(beta * scale * diff) in Q0.31 for a difference diff = x - max <= 0 that is >= diff_min.
inline std::int32_t exp_of_difference(const quant_params& p, std::int32_t diff) {
  namespace fx = kernels::pool_norm::fixed;
  const auto shifted = static_cast<std::int32_t>(static_cast<std::uint32_t>(diff) << p.left_shift);
  return fx::exp_on_negative_values<diff_integer_bits>(fx::mul(shifted, p.multiplier));
}

template <class S>
void quant_slices(const S* in, S* out, const kernels::pool_norm::axis_split& split, const quant_params& p) {
  namespace fx = kernels::pool_norm::fixed;
  constexpr std::int32_t out_offset = std::numeric_limits<S>::min() < 0 ? -128 : 0;
  constexpr std::int32_t qmin = std::numeric_limits<S>::min(), qmax = std::numeric_limits<S>::max();
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    std::int32_t max_v = qmin;
    for (std::size_t k = 0; k < count; ++k) max_v = std::max<std::int32_t>(max_v, in[first + k * stride]);
    std::uint32_t sum = 0;  // Q12.19, wrapping like the upstream int32 sum
    for (std::size_t k = 0; k < count; ++k) {
      const std::int32_t diff = std::int32_t{in[first + k * stride]} - max_v;
      if (diff >= p.diff_min)
        sum += static_cast<std::uint32_t>(fx::rescale(exp_of_difference(p, diff), 0, sum_integer_bits));
    }
    const auto r = sum_reciprocal::of(sum);
    for (std::size_t k = 0; k < count; ++k) {
      const std::int32_t diff = std::int32_t{in[first + k * stride]} - max_v;
      std::int32_t v = qmin;
      if (diff >= p.diff_min) v = std::clamp(r.apply(exp_of_difference(p, diff)) + out_offset, qmin, qmax);
      out[first + k * stride] = static_cast<S>(v);
    }
  });
}

/// An 8-bit difference x - max lies in [-255, 0], so its exp and its share of the sum are
/// tabulated once per (beta, scale), indexed by -diff; entries at and past `live` fall
/// below diff_min and count as exp = 0.
struct quant_table {
  std::array<std::int32_t, 256> exp{};   // Q0.31
  std::array<std::uint32_t, 256> term{};  // Q12.19 share of the sum
  /// term split into its bytes: term_bytes[b][j] = byte b of term[j] (a term is below
  /// 2^20), for 64 byte-table lookups at a time.
  std::array<std::array<std::uint8_t, 256>, 3> term_bytes{};
  int live = 0;

  static quant_table of(const quant_params& p) {
    quant_table t;
    t.live = static_cast<int>(std::min<std::int64_t>(256, std::int64_t{1} - p.diff_min));
    for (std::size_t j = 0; j < static_cast<std::size_t>(t.live); ++j) {
      t.exp[j] = exp_of_difference(p, -static_cast<std::int32_t>(j));
      t.term[j] = static_cast<std::uint32_t>(kernels::pool_norm::fixed::rescale(t.exp[j], 0, sum_integer_bits));
      for (std::size_t b = 0; b < 3; ++b) t.term_bytes[b][j] = static_cast<std::uint8_t>(t.term[j] >> (8 * b));
    }
    return t;
  }

  /// The output of an element at difference -j from its slice's maximum, given the
  /// slice's sum.
  template <class S>
  S output(const sum_reciprocal& r, std::size_t j) const {
    constexpr std::int32_t out_offset = std::numeric_limits<S>::min() < 0 ? -128 : 0;
    constexpr std::int32_t qmin = std::numeric_limits<S>::min(), qmax = std::numeric_limits<S>::max();
    return static_cast<S>(static_cast<int>(j) < live ? std::clamp(r.apply(exp[j]) + out_offset, qmin, qmax) : qmin);
  }
};

/// The quantized path by table: the same results as quant_slices, bit for bit (tests check
/// it), with the fixed-point exp evaluated 256 times per (beta, scale) instead of twice per
/// element. A slice longer than the table maps each difference to its output through a
/// per-slice table as well.
template <class S>
void quant_slices_by_table(const S* in, S* out, const kernels::pool_norm::axis_split& split, const quant_table& t) {
  constexpr std::int32_t qmin = std::numeric_limits<S>::min();
  std::array<S, 256> out_of{};
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    std::int32_t max_v = qmin;
    if (stride == 1) {
      const S* x = in + first;
      for (std::size_t k = 0; k < count; ++k) max_v = std::max<std::int32_t>(max_v, x[k]);
    } else {
      for (std::size_t k = 0; k < count; ++k) max_v = std::max<std::int32_t>(max_v, in[first + k * stride]);
    }
    // -diff <= max - qmin, so only that much of the table is reachable in this slice.
    const auto reach = static_cast<std::size_t>(max_v - qmin + 1);
    std::uint32_t sum = 0;  // Q12.19, wrapping like the reference
    for (std::size_t k = 0; k < count; ++k) sum += t.term[static_cast<std::size_t>(max_v - in[first + k * stride])];
    const auto r = sum_reciprocal::of(sum);
    if (count > reach) {
      for (std::size_t j = 0; j < reach; ++j) out_of[j] = t.output<S>(r, j);
      for (std::size_t k = 0; k < count; ++k)
        out[first + k * stride] = out_of[static_cast<std::size_t>(max_v - in[first + k * stride])];
    } else {
      for (std::size_t k = 0; k < count; ++k)
        out[first + k * stride] = t.output<S>(r, static_cast<std::size_t>(max_v - in[first + k * stride]));
    }
  });
}

#if NNHAL_HAVE_X86_KERNELS
namespace vbmi {
using kernels::vunary::avx512::all64;

/// 64 values from x (only the `m` ones, the others 0), with the top bit flipped when
/// `flip` says so: unsigned byte order is then the value order.
NNHAL_TARGET_AVX512_VBMI inline __m512i load(const void* x, __mmask64 m, __m512i flip) {
  return _mm512_maskz_mov_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x), flip));
}

/// Adds term[idx] of the `m` lanes to three quadword sums, one per byte of the term.
NNHAL_TARGET_AVX512_VBMI inline void add_terms(__m512i idx, __mmask64 m, const __m512i (&tb)[3][4], __m512i (&sums)[3]) {
  for (std::size_t b = 0; b < 3; ++b) {
    const __m512i bytes = kernels::vunary::avx512::lookup64(idx, tb[b][0], tb[b][1], tb[b][2], tb[b][3]);
    sums[b] = _mm512_add_epi64(sums[b], _mm512_sad_epu8(_mm512_maskz_mov_epi8(m, bytes), _mm512_setzero_si512()));
  }
}

/// out[j] = quant_table::output(r, j) for j < reach, 8 at a time, when r.mantissa >= 0:
/// clamp(round(SRDHM(mantissa, exp[j]) / 2^shift) + offset) with both factors >= 0, so
/// SRDHM is floor((a b + 2^30) / 2^31) and the rounding shift floor((h + 2^(shift-1)) /
/// 2^shift) (shift >= 3); exp[j] = 0 past `live` gives qmin, as output() does.
template <class S>
NNHAL_TARGET_AVX512_VBMI inline void out_table(const quant_table& t, const sum_reciprocal& r, std::size_t reach, std::uint8_t* out_of) {
  using simd::avx512::all8;
  constexpr std::int64_t out_offset = std::numeric_limits<S>::min() < 0 ? -128 : 0;
  constexpr std::int64_t qmin = std::numeric_limits<S>::min(), qmax = std::numeric_limits<S>::max();
  const __m512i mant = _mm512_set1_epi64(r.mantissa);
  const __m512i nudge = _mm512_set1_epi64(std::int64_t{1} << 30);
  const __m512i half = _mm512_set1_epi64(std::int64_t{1} << (r.output_shift - 1));
  const __m128i shift = _mm_cvtsi32_si128(r.output_shift);
  const __m512i lo = _mm512_set1_epi64(qmin), hi = _mm512_set1_epi64(qmax), off = _mm512_set1_epi64(out_offset);
  for (std::size_t j = 0; j < reach; j += 8) {
    const __m512i e = _mm512_maskz_cvtepu32_epi64(all8, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.exp.data() + j)));
    const __m512i h = _mm512_maskz_srli_epi64(all8, _mm512_add_epi64(_mm512_maskz_mul_epu32(all8, e, mant), nudge), 31);
    __m512i v = _mm512_add_epi64(_mm512_maskz_srl_epi64(all8, _mm512_add_epi64(h, half), shift), off);
    v = _mm512_maskz_min_epi64(all8, _mm512_maskz_max_epi64(all8, v, lo), hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out_of + j), _mm512_maskz_cvtepi64_epi8(all8, v));
  }
}

/// quant_slices_by_table for `rows` contiguous slices of n 8-bit values, 64 at a time
/// (AVX512-VBMI); the same results bit for bit (tests check it). max - x is a byte
/// difference of flipped values. The sum adds the three bytes of each term by byte-table
/// lookups and vpsadbw in 64-bit lanes (its low 32 bits wrap like the reference's); the
/// per-slice output table is made 8 entries at a time on exact 64-bit products.
template <class S>
NNHAL_TARGET_AVX512_VBMI void quant_rows(const S* in, S* out, std::size_t rows, std::size_t n, const quant_table& t) {
  static_assert(sizeof(S) == 1);
  using kernels::vunary::avx512::lookup64;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(std::is_signed_v<S> ? 0x80 : 0));
  __m512i tb[3][4];
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t q = 0; q < 4; ++q) tb[b][q] = _mm512_loadu_si512(t.term_bytes[b].data() + 64 * q);
  const std::size_t whole = n - n % 64;
  const __mmask64 tail = (__mmask64{1} << (n % 64)) - 1;
  alignas(64) std::uint8_t out_of[256] = {};
  for (std::size_t o = 0; o < rows; ++o) {
    const S* x = in + o * n;
    S* y = out + o * n;
    // The maximum (a masked-off lane reads 0, the smallest flipped value).
    __m512i m = _mm512_setzero_si512();
    for (std::size_t k = 0; k < whole; k += 64) m = _mm512_maskz_max_epu8(all64, m, load(x + k, all64, flip));
    if (tail) m = _mm512_maskz_max_epu8(all64, m, load(x + whole, tail, flip));
    alignas(64) std::uint8_t lanes[64];
    _mm512_store_si512(lanes, m);
    std::uint8_t max_b = 0;
    for (std::uint8_t v : lanes) max_b = v > max_b ? v : max_b;
    const __m512i vmax = _mm512_set1_epi8(static_cast<char>(max_b));
    // The sum of term[max - x].
    __m512i sums[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (std::size_t k = 0; k < whole; k += 64) add_terms(_mm512_sub_epi8(vmax, load(x + k, all64, flip)), all64, tb, sums);
    if (tail) add_terms(_mm512_sub_epi8(vmax, load(x + whole, tail, flip)), tail, tb, sums);
    alignas(64) std::uint64_t q[3][8];
    for (std::size_t b = 0; b < 3; ++b) _mm512_store_si512(q[b], sums[b]);
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < 8; ++i) total += q[0][i] + (q[1][i] << 8) + (q[2][i] << 16);
    const auto r = sum_reciprocal::of(static_cast<std::uint32_t>(total));
    const std::size_t reach = std::size_t{max_b} + 1;
    if (r.mantissa < 0) {
      // The reciprocal of a sum that wrapped (slices of 2^13 values and more) can leave
      // the range out_table assumes; the scalar form handles every case.
      for (std::size_t j = 0; j < reach; ++j) out_of[j] = static_cast<std::uint8_t>(t.output<S>(r, j));
    } else {
      out_table<S>(t, r, reach, out_of);
    }
    const __m512i o0 = _mm512_load_si512(out_of), o1 = _mm512_load_si512(out_of + 64);
    const __m512i o2 = _mm512_load_si512(out_of + 128), o3 = _mm512_load_si512(out_of + 192);
    for (std::size_t k = 0; k < whole; k += 64)
      _mm512_storeu_si512(y + k, lookup64(_mm512_sub_epi8(vmax, load(x + k, all64, flip)), o0, o1, o2, o3));
    if (tail) _mm512_mask_storeu_epi8(y + whole, tail, lookup64(_mm512_sub_epi8(vmax, load(x + whole, tail, flip)), o0, o1, o2, o3));
  }
}
}  // namespace vbmi
#endif

/// Reference kernel: the float path, or the quantized one evaluating exp per element.
template <types::element E>
void reference(const kernel_io& io) {
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis_of(io));
  const float beta = beta_of(io.in[1]);
  if constexpr (types::float_element<E>) {
    float_slices(in.data, out.data, split, beta);
  } else {
    quant_slices(in.data, out.data, split, make_quant_params(beta, in.scale));
  }
}

/// Quantized kernel: the table path. `t` is the table of a constant beta, made at bind;
/// without one (beta from a model input) the table is made per execution. Last-axis slices
/// run 64 values at a time when `use_vbmi` (the CPU has AVX512-VBMI).
template <types::element E>
void quantized(const kernel_io& io, const quant_table* t, bool use_vbmi) {
#if !NNHAL_HAVE_X86_KERNELS
  (void)use_vbmi;
#endif
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis_of(io));
  quant_table own;  // 2 KiB on the stack: no allocation per execution
  if (!t) {
    own = quant_table::of(make_quant_params(beta_of(io.in[1]), in.scale));
    t = &own;
  }
  // Parallel chunks of outer blocks, each a contiguous split of its own.
  const std::size_t block = split.axis * split.inner;
  for_chunks(io, split.outer, std::max<std::size_t>(1, 16384 / std::max<std::size_t>(block, 1)),
             [&](std::size_t o0, std::size_t o1) {
#if NNHAL_HAVE_X86_KERNELS
               if (use_vbmi && split.inner == 1) return vbmi::quant_rows(in.data + o0 * block, out.data + o0 * block, o1 - o0, block, *t);
#endif
               quant_slices_by_table(in.data + o0 * block, out.data + o0 * block, {o1 - o0, split.axis, split.inner}, *t);
             });
}

/// Float32 slices along the last axis (contiguous) in xsimd batches of Arch, exp by
/// xsimd::exp and the sum in float32; other axes run the reference. Versus reference:
/// within the CTS float32 tolerance (tests check it).
template <class Arch>
void vectorized(const kernel_io& io) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t lanes = batch::size;
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  if (out.size() == 0) return;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis_of(io));
  if (split.inner != 1) return reference<types::f32>(io);
  const float beta = beta_of(io.in[1]);
  const std::size_t n = split.axis, vec_end = n - n % lanes;
  for (std::size_t o = 0; o < split.outer; ++o) {
    const float* x = in.data + o * n;
    float* y = out.data + o * n;
    float max_v = -std::numeric_limits<float>::infinity();
    std::size_t k = 0;
    if (vec_end > 0) {
      batch m(max_v);
      for (; k < vec_end; k += lanes) {
        const batch v = batch::load_unaligned(x + k);
        m = xsimd::select(v > m, v, m);
      }
      max_v = kernels::pool_norm::horizontal_max(m);
    }
    for (; k < n; ++k) max_v = std::max(max_v, x[k]);
    const batch vmax(max_v), vbeta(beta);
    batch vsum(0.0f);
    for (k = 0; k < vec_end; k += lanes) {
      const batch e = xsimd::exp((batch::load_unaligned(x + k) - vmax) * vbeta);
      e.store_unaligned(y + k);
      vsum += e;
    }
    float sum = xsimd::hadd(vsum);
    for (; k < n; ++k) {
      y[k] = std::exp((x[k] - max_v) * beta);
      sum += y[k];
    }
    const batch vs(sum);
    for (k = 0; k < vec_end; k += lanes) (batch::load_unaligned(y + k) / vs).store_unaligned(y + k);
    for (; k < n; ++k) y[k] /= sum;
  }
}

#if NNHAL_HAVE_X86_KERNELS

/// The maximum of n contiguous floats, 16 lanes at a time (-inf for n = 0).
NNHAL_TARGET_AVX512 inline float row_max(const float* x, std::size_t n) {
  using simd::avx512::all16;
  const std::size_t whole = n - n % 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (std::size_t k = 0; k < whole; k += 16) m = _mm512_maskz_max_ps(all16, _mm512_loadu_ps(x + k), m);
  if (tail) m = _mm512_maskz_max_ps(all16, _mm512_mask_loadu_ps(m, tail, x + whole), m);
  return kernels::vunary::avx512::lanes_best<false>(m);
}

/// `rows` contiguous slices of n floats, 16 lanes at a time: the maximum, e^((x - max)
/// beta) and its sum in float32, then the division.
NNHAL_TARGET_AVX512 inline void softmax_rows_avx512(const float* in, float* out, std::size_t rows, std::size_t n,
                                                    float beta) {
  using simd::avx512::all16;
  const __m512 vbeta = _mm512_set1_ps(beta);
  const __mmask16 tail = static_cast<__mmask16>((1u << (n % 16)) - 1);
  const std::size_t whole = n - n % 16;
  for (std::size_t o = 0; o < rows; ++o) {
    const float* x = in + o * n;
    float* y = out + o * n;
    const __m512 vmax = _mm512_set1_ps(row_max(x, n));
    __m512 sum = _mm512_setzero_ps();
    for (std::size_t k = 0; k < whole; k += 16) {
      const __m512 e = kernels::vunary::avx512::exp512(_mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + k), vmax), vbeta));
      _mm512_storeu_ps(y + k, e);
      sum = _mm512_add_ps(sum, e);
    }
    if (tail) {
      const __m512 v = _mm512_maskz_loadu_ps(tail, x + whole);
      const __m512 e = _mm512_maskz_mov_ps(tail, kernels::vunary::avx512::exp512(_mm512_mul_ps(_mm512_sub_ps(v, vmax), vbeta)));
      _mm512_mask_storeu_ps(y + whole, tail, e);
      sum = _mm512_add_ps(sum, e);
    }
    const __m512 vsum = _mm512_set1_ps(kernels::vunary::avx512::lanes_sum(sum));
    for (std::size_t k = 0; k < whole; k += 16) _mm512_storeu_ps(y + k, _mm512_div_ps(_mm512_loadu_ps(y + k), vsum));
    if (tail) _mm512_mask_storeu_ps(y + whole, tail, _mm512_div_ps(_mm512_maskz_loadu_ps(tail, y + whole), vsum));
  }
}

/// Float32 slices along the last axis on AVX-512, parallel chunks of slices; other axes run
/// the reference. Versus reference: within the CTS float32 tolerance (tests check it).
inline void softmax_f32_avx512(const kernel_io& io) {
  const float beta = beta_of(io.in[1]);
  kernels::pool_norm::last_axis_rows_f32(
      io, axis_of(io),
      [beta](const float* in, float* out, std::size_t rows, std::size_t n) { softmax_rows_avx512(in, out, rows, n, beta); },
      reference<types::f32>);
}
#endif

/// Types f32 (AVX-512, else xsimd when the build has SIMD) f16 qu8 qs8 (relaxed f32 runs
/// in f32; last-axis quant8 on AVX512-VBMI when the CPU has it). A constant beta's
/// quantized exp table is made here, once.
inline types::result<kernel> bind(const bind_context& c) {
  std::shared_ptr<const quant_table> table;
  if (types::is_quantized(c.in[0].type))
    if (auto beta = types::sig::detail::axis_norm::float_scalar(c.in[1]))
      table = std::make_shared<const quant_table>(quant_table::of(make_quant_params(*beta, c.in[0].scale)));
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, [table]<class E>(E) {
    if constexpr (std::is_same_v<E, types::f32>) {
#if NNHAL_HAVE_X86_KERNELS
      if (simd::cpu().avx512) return kernel{softmax_f32_avx512};
#endif
      if constexpr (kernels::pool_norm::has_simd) return kernel{vectorized<kernels::pool_norm::simd_arch>};
      else return kernel{[](const kernel_io& io) { reference<E>(io); }};
    } else if constexpr (types::float_element<E>) return kernel{[](const kernel_io& io) { reference<E>(io); }};
    else return kernel{[table, use_vbmi = simd::cpu().avx512_vbmi](const kernel_io& io) { quantized<E>(io, table.get(), use_vbmi); }};
  });
}

}  // namespace nnhal::ops::softmax
