// Shared pieces of the element-wise binary family: AOSP's double precision requantization
// (MAXIMUM, MINIMUM, SELECT) as 256-entry tables built at prepare, the float32 SIMD loop
// over broadcast runs (xsimd, compile-time default arch; SUB, DIV, MAXIMUM, MINIMUM), and
// the MAXIMUM/MINIMUM kernel both operations bind.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/compare.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"
#include "nnhal/ops/simd/stream_avx512.hpp"

namespace nnhal::ops::kernels {

/// AOSP's requantize() for TENSOR_QUANT8_ASYMM: the real value (q - zp_in) * s_in is
/// formed in float, divided by s_out in double, shifted by zp_out, clamped to [0, 255]
/// and rounded half away from zero. Bit-exact with the AOSP CPU path.
inline std::int32_t requantize_u8(std::int32_t q, std::int32_t zp_in, float s_in, std::int32_t zp_out,
                                  float s_out) noexcept {
  const double real = static_cast<float>(q - zp_in) * s_in;
  const double r = real / static_cast<double>(s_out) + static_cast<double>(zp_out);
  if (!(r >= 0.0)) return 0;  // NaN (from non-finite scales) too: never converted
  if (r > 255.0) return 255;
  return static_cast<std::int32_t>(std::round(r));
}

/// The requantized output value of each of the 256 stored values of one input.
template <class S>
using requant_table = std::array<S, 256>;

/// Built in the unsigned domain for either storage: a TENSOR_QUANT8_ASYMM_SIGNED table is
/// its unsigned twin's (values and zero points + 128) minus 128, so the signed result is
/// exactly the unsigned one minus 128 (the HAL's parity rule). For the signed type this
/// equals AOSP's int8 requantize() except where a double addition would round an exact
/// .5 tie differently, which the float-formed real values never produce in practice.
template <class S>
requant_table<S> make_requant_table(const operand_desc& in, const operand_desc& out) noexcept {
  constexpr std::int32_t lo = std::numeric_limits<S>::min();
  requant_table<S> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<S>(
        requantize_u8(static_cast<std::int32_t>(i), in.zero_point - lo, in.scale, out.zero_point - lo, out.scale) + lo);
  return t;
}

/// Requantization tables of two inputs into one output.
template <class S>
struct requant_pair {
  requant_table<S> a{}, b{};
};

template <class S>
std::shared_ptr<const requant_pair<S>> make_requant_pair(const operand_desc& a, const operand_desc& b,
                                                         const operand_desc& out) {
  return std::make_shared<const requant_pair<S>>(requant_pair<S>{make_requant_table<S>(a, out), make_requant_table<S>(b, out)});
}

// --- float32 SIMD over broadcast runs ------------------------------------------------

namespace vbinary {

/// The SIMD target: chosen at compile time (the build's -m flags); without any SIMD
/// instruction set the vectorized paths are not bound.
using simd_arch = xsimd::default_arch;
inline constexpr bool has_simd = !std::is_same_v<simd_arch, xsimd::unavailable>;

/// out = clamp(lane(a, b), r) for float32 inputs 0 and 1 with broadcasting. Runs where
/// both inputs advance, or one is held (broadcast), go through whole batches; the rest
/// and every tail through the lane's scalar overload. The lane's two overloads must
/// compute the same IEEE operation, so the result equals the scalar loop bit for bit
/// (the clamp is max-then-min in both, NaN passing through). Reads and writes only
/// inside the views.
template <class Arch, class Lane>
void f32_simd(const kernel_io& io, float_range r, const Lane& lane) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t width = batch::size;
  const auto a = io.input<types::f32>(0);
  const auto b = io.input<types::f32>(1);
  auto o = io.output<types::f32>(0);
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           const float* pa = a.data + ao;
                           const float* pb = b.data + bo;
                           float* po = o.data + oo;
                           const batch lo(r.lo), hi(r.hi);
                           auto clamp = [&](batch v) {
                             v = xsimd::select(v < lo, lo, v);
                             return xsimd::select(v > hi, hi, v);
                           };
                           std::size_t i = 0;
                           if (as == 1 && bs == 1) {
                             for (; i + width <= n; i += width)
                               clamp(lane(batch::load_unaligned(pa + i), batch::load_unaligned(pb + i))).store_unaligned(po + i);
                           } else if (as == 1) {
                             const batch vb(*pb);
                             for (; i + width <= n; i += width) clamp(lane(batch::load_unaligned(pa + i), vb)).store_unaligned(po + i);
                           } else if (bs == 1) {
                             const batch va(*pa);
                             for (; i + width <= n; i += width) clamp(lane(va, batch::load_unaligned(pb + i))).store_unaligned(po + i);
                           }
                           for (; i < n; ++i) po[i] = clamp_activation(lane(pa[i * as], pb[i * bs]), r);
                         });
}

/// No activation: the clamp to [-inf, inf] changes no value (NaN and -0 included).
inline constexpr float_range no_clamp = activation_range_float(0);

#if NNHAL_HAVE_X86_KERNELS
/// The float32 arithmetic of ADD, SUB, MUL, DIV (with an activation, input 2), MAXIMUM
/// and MINIMUM (without).
enum class arith { add, sub, mul, div, maximum, minimum };
template <arith Op>
inline constexpr bool has_activation = Op != arith::maximum && Op != arith::minimum;

/// a op b. vmaxps(y, x) is y > x ? y : x and vminps(y, x) is y < x ? y : x: minmax_lane's
/// selections (input 0 unless input 1 is strictly larger / smaller).
template <arith Op>
NNHAL_TARGET_AVX512 inline __m512 arith512(__m512 a, __m512 b) noexcept {
  using simd::avx512::all16;
  if constexpr (Op == arith::add) return _mm512_add_ps(a, b);
  else if constexpr (Op == arith::sub) return _mm512_sub_ps(a, b);
  else if constexpr (Op == arith::mul) return _mm512_mul_ps(a, b);
  else if constexpr (Op == arith::div) return _mm512_div_ps(a, b);
  else if constexpr (Op == arith::maximum) return _mm512_maskz_max_ps(all16, b, a);
  else return _mm512_maskz_min_ps(all16, b, a);
}

/// 16 lanes of one broadcast run (those in m): clamp(a op b), each input loaded when it
/// advances (Advance_) or held in h_. The clamp is vmaxps(lo, v) then vminps(hi, v), i.e.
/// v < lo ? lo : v then v > hi ? hi : v, as clamp_activation (NaN and -0 kept); the
/// arithmetic is the same single IEEE operation, so results equal the scalar loop's.
template <arith Op, bool AdvanceA, bool AdvanceB, bool Clamp = true>
NNHAL_TARGET_AVX512 inline __m512 arith_lanes(const float* a, const float* b, __m512 ha, __m512 hb, __mmask16 m,
                                              __m512 lo, __m512 hi) noexcept {
  using simd::avx512::all16;
  const __m512 va = AdvanceA ? _mm512_maskz_loadu_ps(m, a) : ha;
  const __m512 vb = AdvanceB ? _mm512_maskz_loadu_ps(m, b) : hb;
  if constexpr (!Clamp) return arith512<Op>(va, vb);
  else return _mm512_maskz_min_ps(all16, hi, _mm512_maskz_max_ps(all16, lo, arith512<Op>(va, vb)));
}

/// One broadcast run, 32 lanes per step, the tail masked; Stream: whole vectors with
/// streaming stores (o line-aligned); Clamp false: r is no_clamp, skipped in the loop.
template <arith Op, bool AdvanceA, bool AdvanceB, bool Stream, bool Clamp = true>
NNHAL_TARGET_AVX512 void arith_run_avx512(const float* a, const float* b, float* o, std::size_t n, float_range r) {
  using simd::avx512::all16;
  using simd::avx512::store64;
  const __m512 lo = _mm512_set1_ps(r.lo), hi = _mm512_set1_ps(r.hi);
  const __m512 ha = _mm512_set1_ps(*a), hb = _mm512_set1_ps(*b);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 v0 =
        arith_lanes<Op, AdvanceA, AdvanceB, Clamp>(a + (AdvanceA ? i : 0), b + (AdvanceB ? i : 0), ha, hb, all16, lo, hi);
    const __m512 v1 = arith_lanes<Op, AdvanceA, AdvanceB, Clamp>(a + (AdvanceA ? i + 16 : 0),
                                                                 b + (AdvanceB ? i + 16 : 0), ha, hb, all16, lo, hi);
    store64<Stream>(o + i, v0);
    store64<Stream>(o + i + 16, v1);
  }
  for (; i < n; i += 16) {
    const auto m = n - i >= 16 ? all16 : static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(o + i, m, arith_lanes<Op, AdvanceA, AdvanceB>(a + (AdvanceA ? i : 0), b + (AdvanceB ? i : 0), ha, hb, m, lo, hi));
  }
  simd::avx512::end_stream<Stream>();
}

/// One broadcast run with as / bs 1 (advancing) or 0 (held).
template <arith Op, bool Stream>
NNHAL_TARGET_AVX512 void arith_run_avx512(const float* a, std::size_t as, const float* b, std::size_t bs, float* o,
                                          std::size_t n, float_range r) {
  if (n == 0) return;
  // (Same-shape inputs without an activation, the common case, skip the clamp's two
  // operations per vector.)
  if (as && bs && r.lo == no_clamp.lo && r.hi == no_clamp.hi) arith_run_avx512<Op, true, true, Stream, false>(a, b, o, n, r);
  else if (as && bs) arith_run_avx512<Op, true, true, Stream>(a, b, o, n, r);
  else if (as) arith_run_avx512<Op, true, false, Stream>(a, b, o, n, r);
  else if (bs) arith_run_avx512<Op, false, true, Stream>(a, b, o, n, r);
  else arith_run_avx512<Op, false, false, Stream>(a, b, o, n, r);
}

/// Float32 ADD / SUB / MUL / DIV (with the activation, input 2) and MAXIMUM / MINIMUM of
/// inputs 0 and 1 with broadcasting on AVX-512; equal to the reference bit for bit.
template <arith Op>
void arith_f32_avx512(const kernel_io& io) {
  const auto a = io.input<types::f32>(0);
  const auto b = io.input<types::f32>(1);
  auto o = io.output<types::f32>(0);
  const float_range r = has_activation<Op> ? activation_range_float(io.scalar<std::int32_t>(2)) : no_clamp;
  // Long runs (same-shape inputs are one run) split into parallel chunks; large outputs
  // streamed, in runs of 1 KiB or more (each run ends with a store fence).
  const bool stream = streamed_output(o.size() * sizeof(float));
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           for_chunks(io, n, elementwise_grain, [&](std::size_t i0, std::size_t e) {
                             simd::avx512::streamed_run(
                                 stream && e - i0 >= 256, o.data + oo + i0, e - i0,
                                 [&]<bool S>(std::bool_constant<S>, std::size_t i, std::size_t len) {
                                   arith_run_avx512<Op, S>(a.data + ao + (i0 + i) * as, as, b.data + bo + (i0 + i) * bs,
                                                           bs, o.data + oo + i0 + i, len, r);
                                 });
                           });
                         });
}
#endif

}  // namespace vbinary

/// A kernel of ADD, SUB or MUL with its quant8 parameters.
template <class Params>
using arithmetic_fn = void (*)(const kernel_io&, const Params&);

/// The bind() of ADD, SUB and MUL (operation `Op`): the quant8 parameters are made once,
/// here, by `make_params(in0, in1, out)` (default ones for the other types). Float32 runs
/// vbinary::arith_f32_avx512<Op> when the CPU has AVX-512; otherwise input type E (f32 f16
/// i32 qu8 qs8) gets the kernel `pick(E{})`, an arithmetic_fn<Params>, called with them.
template <vbinary::arith Op, class Params, class Pick>
types::result<kernel> bind_arithmetic(const bind_context& c,
                                      Params (*make_params)(const operand_desc&, const operand_desc&, const operand_desc&),
                                      Pick pick) {
  const Params p = types::is_quantized(c.in[0].type) ? make_params(c.in[0], c.in[1], c.out[0]) : Params{};
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[0].type, [&]<class E>(E e) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512) return kernel{vbinary::arith_f32_avx512<Op>};
#endif
    const arithmetic_fn<Params> run = pick(e);
    return kernel{[run, p](const kernel_io& io) { run(io, p); }};
  });
}

/// Lanes of MAXIMUM / MINIMUM as std::max / std::min evaluate them: input 0 unless input 1
/// is strictly larger / smaller (a NaN in input 0 is returned, one in input 1 is not).
template <bool IsMin>
struct minmax_lane {
  float operator()(float x, float y) const noexcept {
    if constexpr (IsMin) return y < x ? y : x;
    else return x < y ? y : x;
  }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x, const xsimd::batch<float, Arch>& y) const noexcept {
    if constexpr (IsMin) return xsimd::select(y < x, y, x);
    else return xsimd::select(x < y, y, x);
  }
};

/// MAXIMUM (IsMin false) or MINIMUM (IsMin true) of inputs 0 and 1 with broadcasting.
/// Floats follow std::max / std::min (a NaN in input 0 is returned, one in input 1 is
/// not) and copy the chosen input's bits; quant8 inputs are first requantized to the
/// output (AOSP), then compared.
template <bool IsMin, types::element E>
void minmax_reference(const kernel_io& io, const requant_pair<typename E::storage>* t) {
  using S = typename E::storage;
  if constexpr (types::float_element<E>) {
    binary_map<E, E>(io, [](S x, S y) {
      const float fx = load_float(x), fy = load_float(y);
      if constexpr (IsMin) return fy < fx ? y : x;
      else return fx < fy ? y : x;
    });
  } else if constexpr (types::quantized_element<E>) {
    const auto& ta = t->a;
    const auto& tb = t->b;
    binary_map<E, E>(io, [&](S x, S y) {
      const S rx = ta[byte_index(x)], ry = tb[byte_index(y)];
      if constexpr (IsMin) return ry < rx ? ry : rx;
      else return rx < ry ? ry : rx;
    });
  } else {
    binary_map<E, E>(io, [](S x, S y) {
      if constexpr (IsMin) return y < x ? y : x;
      else return x < y ? y : x;
    });
  }
}

/// float32 through xsimd batches: equal to minmax_reference bit for bit.
template <bool IsMin, class Arch>
void minmax_vectorized(const kernel_io& io) {
  vbinary::f32_simd<Arch>(io, vbinary::no_clamp, minmax_lane<IsMin>{});
}

/// float32 through AVX-512 when the CPU has it, else xsimd where the build has SIMD;
/// quant8 builds its requantization tables here, once.
template <bool IsMin>
types::result<kernel> bind_minmax(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(c, c.in[0].type, [&c]<class E>(E) {
#if NNHAL_HAVE_X86_KERNELS
    if constexpr (std::is_same_v<E, types::f32>)
      if (simd::cpu().avx512)
        return kernel{vbinary::arith_f32_avx512<IsMin ? vbinary::arith::minimum : vbinary::arith::maximum>};
#endif
    if constexpr (std::is_same_v<E, types::f32> && vbinary::has_simd) {
      return kernel{minmax_vectorized<IsMin, vbinary::simd_arch>};
    } else if constexpr (types::quantized_element<E>) {
      auto t = make_requant_pair<typename E::storage>(c.in[0], c.in[1], c.out[0]);
      return kernel{[t](const kernel_io& io) { minmax_reference<IsMin, E>(io, t.get()); }};
    } else {
      return kernel{[](const kernel_io& io) { minmax_reference<IsMin, E>(io, nullptr); }};
    }
  });
}

}  // namespace nnhal::ops::kernels
