// The element-wise unary loop skeleton (XNNPACK's vunary): one loop per kind of element,
// the arithmetic in per-lane functors. Used by RELU/RELU1/RELU6, LOGISTIC, TANH, ELU,
// HARD_SWISH, ABS, NEG, EXP, LOG, SIN, SQRT, RSQRT, FLOOR, CAST, QUANTIZE and DEQUANTIZE.
//  - float: f32 and f16 computed in float32, rounded once per output element;
//  - float32 SIMD (xsimd, compile-time default arch): whole batches through the lane's
//    batch overload, the tail through its scalar overload; never touches memory past n;
//  - 8-bit quantized: a 256-entry table filled at bind by the reference per-value function,
//    so the table path equals the reference exactly;
//  - a general storage-to-storage map for conversions between element types;
//  - unary_op / activation_op: reference(), vectorized() and bind() of a whole operation
//    from its lane and per-type parts, which each operation header forwards to.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/unary_avx512.hpp"
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

/// The float32 kernel for a lane: the AVX-512 loop where the lane has a step512 and the CPU
/// has AVX-512, else the SIMD loop where the lane has a batch overload and the build has
/// SIMD, else the scalar loop.
template <class Lane>
kernel f32_kernel(Lane lane) {
#if NNHAL_HAVE_X86_KERNELS
  if constexpr (avx512::lane512<Lane>)
    if (simd::cpu().avx512) return [lane](const kernel_io& io) { avx512::f32_tensor(io, lane); };
#endif
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

/// The table kernel of E for a per-value function (evaluated 256 times, here, at bind):
/// byte permutes when the CPU has AVX512-VBMI, else a scalar lookup per element.
template <types::quantized_element E, class F>
kernel table8_kernel(F&& f) {
  auto t = make_table8<typename E::storage>(std::forward<F>(f));
#if NNHAL_HAVE_X86_KERNELS
  if (simd::cpu().avx512_vbmi)
    return [t](const kernel_io& io) {
      const auto in = io.input<E>(0);
      auto out = io.output<E>(0);
      avx512::streamed_chunks(io, out.data, out.size(), 4 * elementwise_grain,
                              [&]<bool S>(std::bool_constant<S>, std::size_t i, std::size_t n) {
                                avx512::table8_loop<S>(in.data + i, out.data + i, n, t.data());
                              });
    };
#endif
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
#if NNHAL_HAVE_X86_KERNELS
  /// vmaxps(a, b) is a > b ? a : b and vminps(a, b) is a < b ? a : b: the same selections.
  NNHAL_TARGET_AVX512 __m512 step512(__m512 x) const noexcept {
    using simd::avx512::all16;
    const __m512 v = _mm512_maskz_max_ps(all16, x, _mm512_set1_ps(lo));
    return _mm512_maskz_min_ps(all16, _mm512_set1_ps(hi), v);
  }
#endif
};

/// Clamps stored quantized values to [lo, hi] (the activation's range in the stored domain).
template <types::quantized_element E>
void clamp_quant(const kernel_io& io, std::int32_t lo, std::int32_t hi) {
#if NNHAL_HAVE_X86_KERNELS
  if constexpr (byte_storage<typename E::storage>)
    if (simd::cpu().avx512) {
      const auto in = io.input<E>(0);
      auto out = io.output<E>(0);
      return avx512::streamed_chunks(io, out.data, out.size(), 4 * elementwise_grain,
                                     [&]<bool S>(std::bool_constant<S>, std::size_t i, std::size_t n) {
                                       avx512::clamp8_loop<S>(in.data + i, out.data + i, n, lo, hi);
                                     });
    }
#endif
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

/// The quant8 part of LOGISTIC and TANH (a unary_op Spec): the centred input as Q4.27, the
/// fixed-point function `Fn` (Q0.31 result), then to 1/2^(31 - OutShift) steps plus
/// `OutOffset` on the unsigned 0..255 scale, saturating at both ends; shifted by -128 for
/// the signed type. The output quantization is fixed, so only the input's matters.
template <std::int32_t (*Fn)(std::int32_t) noexcept, int OutShift, std::int32_t OutOffset>
struct squash_quant {
  static std::optional<input_rescale> quant8_params(const operand_desc& in, const operand_desc&) noexcept {
    return make_input_rescale(in.scale, in.zero_point);
  }
  template <class S>
  static S quant8_value(S v, const input_rescale& p) noexcept {
    const std::int32_t centered = std::int32_t{v} - p.zero_point;
    std::int32_t u;
    if (centered <= -p.radius) {
      u = 0;
    } else if (centered >= p.radius) {
      u = 255;
    } else {
      u = quant::rounding_divide_by_pot(Fn(to_q4(centered, p)), OutShift) + OutOffset;
      if (u > 255) u = 255;  // a result of exactly 1 rounds one step past the top
    }
    return static_cast<S>(u + (std::numeric_limits<S>::min() < 0 ? -128 : 0));
  }
};

// --- one operation from its parts --------------------------------------------------------

/// The optional parts of an element-wise unary operation beyond its float lane, as static
/// members of a Spec:
///  - quant8: `quant8_params(in, out)` -> std::optional<P> from the input's and output's
///    operand descs (nullopt where the AOSP path rejects the quantization, which shape
///    inference reports first) and `quant8_value(S v, const P&)`, stored value to stored
///    value; bound as a 256-entry table;
///  - TENSOR_INT32: `int32_value(std::int32_t)`.
/// `float_only` has neither.
struct float_only {};
template <class Spec>
concept quant8_spec = requires(const operand_desc& d) { Spec::quant8_params(d, d); };
template <class Spec>
concept int32_spec = requires(std::int32_t v) {
  { Spec::int32_value(v) } -> std::same_as<std::int32_t>;
};

/// reference(), vectorized() and bind() of an element-wise unary operation: floats through
/// Lane (computed in float32; float32 through xsimd where Lane has a batch overload), the
/// other types as Spec says. Each operation header forwards its three entry points here.
template <class Lane, class Spec = float_only>
struct unary_op {
  template <class E>
  static constexpr bool supports =
      types::float_element<E> || (std::is_same_v<E, types::i32> && int32_spec<Spec>) ||
      (quant8_spec<Spec> && types::quantized_element<E> && byte_storage<typename E::storage>);

  template <types::element E>
  requires supports<E>
  static void reference(const kernel_io& io) {
    if constexpr (types::float_element<E>) {
      float_loop<E>(io, Lane{});
    } else if constexpr (std::is_same_v<E, types::i32>) {
      map<E, E>(io, [](std::int32_t v) { return Spec::int32_value(v); });
    } else {
      using S = typename E::storage;
      const auto p = Spec::quant8_params(io.in[0], io.out[0]);
      if (!p) return;  // rejected by shape inference
      map<E, E>(io, [&p](S v) { return Spec::quant8_value(v, *p); });
    }
  }

  template <class Arch>
  requires simd_lane<Lane, Arch>
  static void vectorized(const kernel_io& io) {
    f32_simd<Arch>(io, Lane{});
  }
#if NNHAL_HAVE_X86_KERNELS
  /// float32 on AVX-512; call only when simd::cpu().avx512 is true.
  static void avx512_f32(const kernel_io& io)
  requires avx512::lane512<Lane>
  {
    avx512::f32_tensor(io, Lane{});
  }
#endif

  static types::result<kernel> bind(const bind_context& c) {
    return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(
        c, c.in[0].type, [&c]<class E>(E) -> types::result<kernel> {
          if constexpr (!supports<E>) {
            return unsupported(c);
          } else if constexpr (std::is_same_v<E, types::f32>) {
            return f32_kernel(Lane{});
          } else if constexpr (std::is_same_v<E, types::f16>) {
            return f16_kernel(Lane{});
          } else if constexpr (std::is_same_v<E, types::i32>) {
            return kernel{reference<E>};
          } else {
            // Spec through E: a name that depends on E, so that compilers which check the
            // non-dependent names of discarded branches (clang 14) leave it to this branch.
            using Sp = typename types::detail::same_as_first<Spec, E>::type;
            const auto p = Sp::quant8_params(c.in[0], c.out[0]);
            if (!p) return unsupported(c);
            return table8_kernel<E>([&p](typename E::storage v) { return Sp::quant8_value(v, *p); });
          }
        });
  }
};

// --- RELU, RELU1, RELU6 ---------------------------------------------------------------

/// The operation that clamps to FusedActivationFunc `Act`'s range (1 RELU, 2 RELU1, 3 RELU6).
/// Floats clamp in real numbers; quantized clamps the stored values at the bounds AOSP's
/// CalculateActivationRange* computes from the input's quantization (which the output
/// shares), a plain loop rather than a table (the compiler vectorizes it).
template <std::int32_t Act>
struct activation_op {
  static constexpr clamp_lane lane{activation_range_float(Act).lo, activation_range_float(Act).hi};

  template <types::quantized_element E>
  static quant::quant_range quant_bounds(const operand_desc& in) noexcept {
    using S = typename E::storage;
    return quant::activation_range(Act, in.scale, in.zero_point, std::numeric_limits<S>::min(),
                                   std::numeric_limits<S>::max());
  }

  template <types::element E>
  static void reference(const kernel_io& io) {
    if constexpr (types::float_element<E>) {
      float_loop<E>(io, lane);
    } else {
      const auto r = quant_bounds<E>(io.in[0]);
      clamp_quant<E>(io, r.lo, r.hi);
    }
  }

  template <class Arch>
  static void vectorized(const kernel_io& io) {
    f32_simd<Arch>(io, lane);
  }
#if NNHAL_HAVE_X86_KERNELS
  /// float32 on AVX-512; call only when simd::cpu().avx512 is true.
  static void avx512_f32(const kernel_io& io) { avx512::f32_tensor(io, lane); }
#endif

  /// SIMD float32; the quant8 bounds computed here, once.
  static types::result<kernel> bind(const bind_context& c) {
    return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type, [&c]<class E>(E) -> kernel {
      if constexpr (std::is_same_v<E, types::f32>) {
        return f32_kernel(lane);
      } else if constexpr (std::is_same_v<E, types::f16>) {
        return f16_kernel(lane);
      } else {
        const auto r = quant_bounds<E>(c.in[0]);
        return [r](const kernel_io& io) { clamp_quant<E>(io, r.lo, r.hi); };
      }
    });
  }
};

}  // namespace nnhal::ops::kernels::vunary
