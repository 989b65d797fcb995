// Element-wise binary loops with broadcasting and a fused activation, one per kind of
// element (float, quantized, int32); ADD, MUL and later SUB/DIV/... supply the per-lane
// arithmetic. Float16 is computed in float32 and rounded once per element.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/broadcast.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::kernels {

struct float_range {
  float lo, hi;
};
/// Clamp bounds of a FusedActivationFunc in real numbers.
constexpr float_range activation_range_float(std::int32_t act) noexcept {
  constexpr float inf = std::numeric_limits<float>::infinity();
  switch (act) {
    case 1: return {0.0f, inf};
    case 2: return {-1.0f, 1.0f};
    case 3: return {0.0f, 6.0f};
    default: return {-inf, inf};
  }
}
constexpr float clamp_activation(float v, float_range r) noexcept {
  // max-then-min, so NaN propagates like the AOSP reference.
  v = v < r.lo ? r.lo : v;
  return v > r.hi ? r.hi : v;
}

inline float load_float(float v) noexcept { return v; }
inline float load_float(types::float16 v) noexcept { return types::to_float(v); }
template <class S>
S store_float(float v) noexcept {
  if constexpr (std::is_same_v<S, float>) return v;
  else return types::to_float16(v);
}

/// out = act(f(a, b)) for f32 / f16; `act_input` is the activation operand's index.
template <types::element E, class F>
void binary_float(const kernel_io& io, std::size_t act_input, F f) {
  using S = typename E::storage;
  const auto a = io.input<E>(0);
  const auto b = io.input<E>(1);
  auto o = io.output<E>(0);
  const float_range r = activation_range_float(io.scalar<std::int32_t>(act_input));
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           const S* pa = a.data + ao;
                           const S* pb = b.data + bo;
                           S* po = o.data + oo;
                           for (std::size_t i = 0; i < n; ++i)
                             po[i] = store_float<S>(clamp_activation(f(load_float(pa[i * as]), load_float(pb[i * bs])), r));
                         });
}

/// The broadcast walk of a quantized binary operation: computes the activation's clamp
/// range and calls run(a, a_step, b, b_step, out, n, range) for every innermost run
/// (steps are 0 for a broadcast input, 1 otherwise), long runs cut into parallel chunks.
template <types::element E, class Run>
void binary_quant_runs(const kernel_io& io, std::size_t act_input, Run run) {
  using S = typename E::storage;
  const auto a = io.input<E>(0);
  const auto b = io.input<E>(1);
  auto o = io.output<E>(0);
  const auto r = quant::activation_range(io.scalar<std::int32_t>(act_input), o.scale, o.zero_point,
                                         std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
  // Long runs (same-shape inputs are one run) split into parallel chunks.
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           for_chunks(io, n, 4 * elementwise_grain, [&](std::size_t i, std::size_t e) {
                             run(a.data + ao + i * as, as, b.data + bo + i * bs, bs, o.data + oo + i, e - i, r);
                           });
                         });
}

/// The scalar run of a quantized binary operation: f maps two stored values to the raw
/// output (zero point included); the clamp applies the activation and the type's range.
template <class S, class F>
void quant_run_scalar(F f, const S* a, std::size_t as, const S* b, std::size_t bs, S* o, std::size_t n,
                      quant::quant_range r) {
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t v = f(std::int32_t{a[i * as]}, std::int32_t{b[i * bs]});
    v = v < r.lo ? r.lo : (v > r.hi ? r.hi : v);
    o[i] = static_cast<S>(v);
  }
}

/// out = clamp(f(a, b)) for quant8, one element at a time (the reference).
template <types::element E, class F>
void binary_quant(const kernel_io& io, std::size_t act_input, F f) {
  using S = typename E::storage;
  binary_quant_runs<E>(io, act_input,
                       [&f](const S* a, std::size_t as, const S* b, std::size_t bs, S* o, std::size_t n,
                            quant::quant_range r) { quant_run_scalar(f, a, as, b, bs, o, n, r); });
}

/// out = f(a, b) for TENSOR_INT32 (the activation must be NONE); f must not overflow
/// in the C++ sense: callers compute in uint32 and wrap, as two's complement hardware does.
template <class F>
void binary_int32(const kernel_io& io, F f) {
  const auto a = io.input<types::i32>(0);
  const auto b = io.input<types::i32>(1);
  auto o = io.output<types::i32>(0);
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           for (std::size_t i = 0; i < n; ++i) o.data[oo + i] = f(a.data[ao + i * as], b.data[bo + i * bs]);
                         });
}

inline std::int32_t wrap_add(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
inline std::int32_t wrap_mul(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

/// s_a * s_b / s_out, the multiplier of a quantized product (MUL, PRELU's negative side):
/// the scale product is formed in float first, as the AOSP path does.
inline quant::fixed_multiplier product_multiplier(float s_a, float s_b, float s_out) {
  const float product = s_a * s_b;
  return quant::quantize_output_multiplier(static_cast<double>(product) / static_cast<double>(s_out));
}

}  // namespace nnhal::ops::kernels
