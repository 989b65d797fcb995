// The element-wise unary loop skeleton (XNNPACK's vunary): one loop per kind of element,
// the arithmetic in per-lane functors. Used by RELU/RELU1/RELU6, LOGISTIC, TANH, ELU,
// HARD_SWISH, ABS, NEG, EXP, LOG, SIN, SQRT, RSQRT, FLOOR, CAST, QUANTIZE and DEQUANTIZE.
//  - float: f32 and f16 computed in float32, rounded once per output element;
//  - float32 SIMD (xsimd, compile-time default arch): whole batches through the lane's
//    batch overload, the tail through its scalar overload; never touches memory past n;
//  - 8-bit quantized: a 256-entry table filled at bind by the reference per-value function,
//    so the table path equals the reference exactly;
//  - a general storage-to-storage map for conversions between element types.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/unary_fixed_point.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::kernels::vunary {

/// The SIMD target of the vectorized float32 paths: chosen at compile time (the build's
/// -m flags); with no SIMD instruction set at all, the vectorized paths are not used.
using simd_arch = xsimd::default_arch;
inline constexpr bool has_simd = !std::is_same_v<simd_arch, xsimd::unavailable>;

/// Lanes that have a batch overload for Arch (float32 only).
template <class Lane, class Arch>
concept simd_lane = requires(const Lane& l, xsimd::batch<float, Arch> b) {
  { l(b) } -> std::convertible_to<xsimd::batch<float, Arch>>;
};

/// out[i] = f(in[i]) over stored values; In and Out may differ (CAST, QUANTIZE, ...).
/// Both tensors have the output's element count (shape inference made them equal).
template <types::element In, types::element Out, class F>
void map(const kernel_io& io, F&& f) {
  const auto in = io.input<In>(0);
  auto out = io.output<Out>(0);
  const std::size_t n = out.size();
  const auto* src = in.data;
  auto* dst = out.data;
  for (std::size_t i = 0; i < n; ++i) dst[i] = f(src[i]);
}

/// f32 / f16: out = lane(in) computed in float32, one rounding to the storage type.
template <types::float_element E, class Lane>
void float_loop(const kernel_io& io, const Lane& lane) {
  using S = typename E::storage;
  map<E, E>(io, [&lane](S v) { return store_float<S>(lane(load_float(v))); });
}

/// float32 through xsimd batches of Arch; the tail (n % batch size) through the scalar lane.
template <class Arch, class Lane>
requires simd_lane<Lane, Arch>
void f32_simd(const kernel_io& io, const Lane& lane) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t width = batch::size;
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  const std::size_t n = out.size();
  const float* src = in.data;
  float* dst = out.data;
  std::size_t i = 0;
  for (; i + width <= n; i += width) lane(batch::load_unaligned(src + i)).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] = lane(src[i]);
}

/// The float32 kernel for a lane: the SIMD loop where the lane has a batch overload and
/// the build has SIMD, else the scalar loop.
template <class Lane>
kernel f32_kernel(Lane lane) {
  if constexpr (has_simd) {
    if constexpr (simd_lane<Lane, simd_arch>) return [lane](const kernel_io& io) { f32_simd<simd_arch>(io, lane); };
  }
  return [lane](const kernel_io& io) { float_loop<types::f32>(io, lane); };
}
/// The float16 kernel for a lane (scalar: conversions dominate).
template <class Lane>
kernel f16_kernel(Lane lane) {
  return [lane](const kernel_io& io) { float_loop<types::f16>(io, lane); };
}

/// Both float kernels of a float-only operation, or `unsupported`.
template <class Lane>
types::result<kernel> bind_float(const bind_context& c, Lane lane) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return f32_kernel(lane);
    case OperandType::TENSOR_FLOAT16: return f16_kernel(lane);
    default: return unsupported(c);
  }
}

// --- 8-bit quantized: table lookup -------------------------------------------------------

template <class S>
concept byte_storage = sizeof(S) == 1 && std::is_integral_v<S>;

/// Results for all 256 stored input values, indexed by (value - min of the storage type).
template <byte_storage S>
using table8 = std::array<S, 256>;

/// Fills the table with f(v) for every stored value v (f returns the stored output).
template <byte_storage S, class F>
table8<S> make_table8(F&& f) {
  table8<S> t{};
  constexpr int lo = std::numeric_limits<S>::min();
  for (int v = lo; v <= std::numeric_limits<S>::max(); ++v)
    t[static_cast<std::size_t>(v - lo)] = static_cast<S>(f(static_cast<S>(v)));
  return t;
}

/// out[i] = table[in[i]] for TENSOR_QUANT8_ASYMM(_SIGNED).
template <types::quantized_element E>
requires byte_storage<typename E::storage>
void table8_loop(const kernel_io& io, const table8<typename E::storage>& t) {
  using S = typename E::storage;
  constexpr int lo = std::numeric_limits<S>::min();
  map<E, E>(io, [&t](S v) { return t[static_cast<std::size_t>(int{v} - lo)]; });
}

/// The table kernel of E for a per-value function (evaluated 256 times, here, at bind).
template <types::quantized_element E, class F>
kernel table8_kernel(F&& f) {
  auto t = make_table8<typename E::storage>(std::forward<F>(f));
  return [t](const kernel_io& io) { table8_loop<E>(io, t); };
}

// --- shared lanes ----------------------------------------------------------------------

/// clamp(x, lo, hi) as the AOSP activation kernels evaluate it, min(max(lo, x), hi): NaN
/// becomes lo. RELU (hi = +inf), RELU1 and RELU6.
struct clamp_lane {
  float lo, hi;
  float operator()(float x) const noexcept {
    const float v = lo < x ? x : lo;
    return hi < v ? hi : v;
  }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x) const noexcept {
    using batch = xsimd::batch<float, Arch>;
    const batch l(lo), h(hi);
    const batch v = xsimd::select(l < x, x, l);
    return xsimd::select(h < v, h, v);
  }
};

/// Clamps stored quantized values to [lo, hi] (the activation's range in the stored domain).
template <types::quantized_element E>
void clamp_quant(const kernel_io& io, std::int32_t lo, std::int32_t hi) {
  using S = typename E::storage;
  map<E, E>(io, [lo, hi](S v) {
    const std::int32_t x = v;
    return static_cast<S>(x < lo ? lo : (x > hi ? hi : x));
  });
}

// --- LOGISTIC, TANH: the fixed-point input rescaling they share ---------------------------

/// The input side of quantized LOGISTIC and TANH (AOSP, through TFLite): the centred input
/// times scale, as Q4.27 through a Q31 multiplier and left shift; 4 integer bits.
struct input_rescale {
  std::int32_t zero_point = 0;
  std::int32_t multiplier = 0;  // Q31 mantissa of scale * 2^27
  int left_shift = 0;
  std::int32_t radius = 0;  // |centred input| >= radius saturates the output
};
inline constexpr int input_integer_bits = 4;

/// From the input's scale and zero point; nullopt when scale * 2^27 <= 1 (the AOSP path
/// rejects such inputs: the rescaling multiplier must exceed one).
inline std::optional<input_rescale> make_input_rescale(float scale, std::int32_t zero_point) noexcept {
  const double real = static_cast<double>(scale) * static_cast<double>(1 << (31 - input_integer_bits));
  if (!(real > 1.0) || !std::isfinite(real)) return std::nullopt;
  const auto m = quant::quantize_multiplier(real);
  input_rescale r;
  r.zero_point = zero_point;
  r.multiplier = m.mantissa_q31;
  r.left_shift = m.shift;
  const double max_rescaled = 1.0 * ((1 << input_integer_bits) - 1) *
                              static_cast<double>(1LL << (31 - input_integer_bits)) / std::ldexp(1.0, m.shift);
  r.radius = static_cast<std::int32_t>(std::floor(max_rescaled));
  return r;
}

/// The centred input as Q4.27 (|centered| < radius, so the shift cannot overflow).
inline std::int32_t to_q4(std::int32_t centered, const input_rescale& p) noexcept {
  return fixed::mul(static_cast<std::int32_t>(std::int64_t{centered} << p.left_shift), p.multiplier);
}

// --- RELU, RELU1, RELU6 ---------------------------------------------------------------

/// Clamp to the FusedActivationFunc `act`'s range (1 RELU, 2 RELU1, 3 RELU6). Floats in real
/// numbers; quantized in the stored domain at the bounds AOSP's CalculateActivationRange*
/// computes from the input's quantization (which the output shares).
template <types::element E>
void activation_reference(const kernel_io& io, std::int32_t act) {
  if constexpr (types::float_element<E>) {
    const float_range r = activation_range_float(act);
    float_loop<E>(io, clamp_lane{r.lo, r.hi});
  } else {
    using S = typename E::storage;
    const auto r = quant::activation_range(act, io.in[0].scale, io.in[0].zero_point, std::numeric_limits<S>::min(),
                                           std::numeric_limits<S>::max());
    clamp_quant<E>(io, r.lo, r.hi);
  }
}

/// The kernel of an activation operation: SIMD float32, bounds precomputed for quant8.
inline types::result<kernel> bind_activation(const bind_context& c, std::int32_t act) {
  const float_range fr = activation_range_float(act);
  const auto quant_kernel = [&]<class E>(E) -> kernel {
    using S = typename E::storage;
    const auto r = quant::activation_range(act, c.in[0].scale, c.in[0].zero_point, std::numeric_limits<S>::min(),
                                           std::numeric_limits<S>::max());
    return [r](const kernel_io& io) { clamp_quant<E>(io, r.lo, r.hi); };
  };
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return f32_kernel(clamp_lane{fr.lo, fr.hi});
    case OperandType::TENSOR_FLOAT16: return f16_kernel(clamp_lane{fr.lo, fr.hi});
    case OperandType::TENSOR_QUANT8_ASYMM: return quant_kernel(types::qu8{});
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return quant_kernel(types::qs8{});
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::kernels::vunary
