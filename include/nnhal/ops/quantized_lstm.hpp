// QUANTIZED_LSTM kernel; contract in types/signatures/quantized_lstm.hpp. One integer LSTM
// step (TFLite's 8x8->16 integer LSTM as the AOSP CPU path runs it): each gate is
// requant(x . W_x) + requant(h . W_h) [+ peephole] in int16 at its intermediate scale,
// then the integer layer norm (which also adds the gate bias), then gemmlowp logistic
// (Q3.12 in) or tanh; the cell state is int16 at scale 2^cell_shift; the hidden state
// int8 at (hidden_state_scale, hidden_state_zero_point), projected to the output.
//
// Bit-exact with the AOSP path where that path is well defined. Where it is not, this
// follows the spec formula (as TFLite's integer kernel does): without layer norm the gate
// bias is folded into the input matmul's bias (AOSP drops it); the input and forget
// peepholes read the previous cell state (AOSP reads the not yet written output buffer);
// a projection without bias gets the hidden zero-point correction (AOSP dereferences null).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/lstm_quant.hpp"
#include "nnhal/types/signatures/quantized_lstm.hpp"

namespace nnhal::ops::quantized_lstm {

using in = types::sig::quantized_lstm::in;
using quant::fixed_multiplier;
namespace kl = kernels::lstm;

enum gate : std::size_t { input_gate, forget_gate, cell_gate, output_gate };

/// Operand roles of each gate, in `gate` order.
inline constexpr in input_weights[4] = {in::input_to_input_weights, in::input_to_forget_weights,
                                        in::input_to_cell_weights, in::input_to_output_weights};
inline constexpr in recurrent_weights[4] = {in::recurrent_to_input_weights, in::recurrent_to_forget_weights,
                                            in::recurrent_to_cell_weights, in::recurrent_to_output_weights};
inline constexpr in peephole_weights[4] = {in::cell_to_input_weights, in::cell_to_forget_weights,
                                           in::cell_to_output_weights /* unused */, in::cell_to_output_weights};
inline constexpr in gate_bias[4] = {in::input_gate_bias, in::forget_gate_bias, in::cell_bias, in::output_gate_bias};
inline constexpr in norm_weights[4] = {in::input_layer_norm_weights, in::forget_layer_norm_weights,
                                       in::cell_layer_norm_weights, in::output_layer_norm_weights};
inline constexpr in intermediate_scale[4] = {in::input_intermediate_scale, in::forget_intermediate_scale,
                                             in::cell_intermediate_scale, in::output_intermediate_scale};

/// Everything one step needs besides the activations, derived from scales, scalars and
/// weights; computed at bind when those are constants, else per execution.
struct plan {
  std::size_t input_size = 0, num_units = 0, output_size = 0;
  bool cifg = false, peephole = false, layer_norm = false, projection = false;
  int cell_shift = 0;
  struct gate_plan {
    fixed_multiplier x, h, c, norm;
    std::vector<std::int32_t> bias_x, bias_h;  // zero points (and bias, without layer norm) folded in
    std::int32_t variance_limit = 0;
  } g[4];
  fixed_multiplier hidden, proj;
  std::vector<std::int32_t> proj_bias;
  std::int16_t cell_clip = 0;
  std::int8_t proj_clip = 0;
  std::int32_t hidden_zp = 0;
  kl::dot_fn dot = &kl::dot_i8;
};

inline const operand_desc& at(std::span<const operand_desc> d, in r) { return d[static_cast<std::size_t>(r)]; }
inline float f32_at(std::span<const operand_desc> d, in r) { return at(d, r).scalar<float>().value_or(0.0f); }
template <class T>
const T* data_at(std::span<const operand_desc> d, in r) {
  const operand_desc& o = at(d, r);
  return o.has_value() ? reinterpret_cast<const T*>(o.value) : nullptr;
}

/// float -> int32 the way AOSP computes clip values, without the UB of out-of-range casts.
inline std::int32_t clamp_to_int(float v, float lo, float hi) { return static_cast<std::int32_t>(std::min(std::max(v, lo), hi)); }

inline plan make_plan(std::span<const operand_desc> d) {
  plan p;
  p.input_size = at(d, in::input).dims[1];
  p.num_units = at(d, in::input_to_output_weights).dims[0];
  p.output_size = at(d, in::recurrent_to_output_weights).dims[1];
  p.cifg = !at(d, in::input_to_input_weights).has_value();
  p.peephole = at(d, in::cell_to_output_weights).has_value();
  p.layer_norm = at(d, in::output_layer_norm_weights).has_value();
  p.projection = at(d, in::projection_weights).has_value();
  types::sig::detail::checked_log2(at(d, in::cell_state_in).scale, p.cell_shift);
  p.dot = kl::best_dot();

  const float x_scale = at(d, in::input).scale, h_scale = at(d, in::output_state_in).scale;
  const double cell_scale = std::pow(2.0, p.cell_shift);
  for (std::size_t k = 0; k < 4; ++k) {
    if (k == input_gate && p.cifg) continue;
    auto& g = p.g[k];
    const float inter = f32_at(d, intermediate_scale[k]);
    const auto& wx = at(d, input_weights[k]);
    const auto& wh = at(d, recurrent_weights[k]);
    // Effective scales formed in float, as the AOSP path does, then split.
    g.x = quant::quantize_multiplier(static_cast<float>(wx.scale * x_scale / inter));
    g.h = quant::quantize_multiplier(static_cast<float>(wh.scale * h_scale / inter));
    if (p.peephole && k != cell_gate)
      g.c = quant::quantize_multiplier(
          static_cast<float>(cell_scale * at(d, peephole_weights[k]).scale / static_cast<double>(inter)));
    const std::int32_t* bias = data_at<std::int32_t>(d, gate_bias[k]);
    if (p.layer_norm) {
      const float ln_scale = at(d, norm_weights[k]).scale;
      g.norm = quant::quantize_multiplier(ln_scale);
      const float v = 10000.0f * ln_scale;  // a floor that keeps the variance non-zero
      g.variance_limit = !(v < 1.0f) ? 1 : static_cast<std::int32_t>(std::max(v, -2.0e9f));
    }
    g.bias_x = kl::zero_point_times_weights(-at(d, in::input).zero_point, reinterpret_cast<const std::int8_t*>(wx.value),
                                            p.num_units, p.input_size, p.layer_norm ? nullptr : bias);
    g.bias_h = kl::zero_point_times_weights(-at(d, in::output_state_in).zero_point,
                                            reinterpret_cast<const std::int8_t*>(wh.value), p.num_units, p.output_size,
                                            nullptr);
  }
  const float hidden_scale = f32_at(d, in::hidden_state_scale);
  p.hidden_zp = static_cast<std::int8_t>(at(d, in::hidden_state_zero_point).scalar<std::int32_t>().value_or(0));
  p.hidden = quant::quantize_multiplier(
      static_cast<float>(std::pow(2.0, -15) / static_cast<double>(hidden_scale) * std::pow(2.0, -15)));
  if (p.projection) {
    const auto& wp = at(d, in::projection_weights);
    p.proj = quant::quantize_multiplier(static_cast<float>(wp.scale * hidden_scale / h_scale));
    p.proj_bias = kl::zero_point_times_weights(p.hidden_zp, reinterpret_cast<const std::int8_t*>(wp.value),
                                               p.output_size, p.num_units, data_at<std::int32_t>(d, in::projection_bias));
    const float clip = f32_at(d, in::projection_clip);
    if (clip > 0.0f) p.proj_clip = static_cast<std::int8_t>(clamp_to_int(clip / wp.scale, -128.0f, 127.0f));
  }
  const float cell_clip = f32_at(d, in::cell_clip);
  if (cell_clip > 0.0f)
    p.cell_clip = static_cast<std::int16_t>(clamp_to_int(cell_clip / at(d, in::cell_state_in).scale, -32768.0f, 32767.0f));
  return p;
}

/// One step for all batches. Outputs: output_state_out, cell_state_out, output.
inline void reference(const kernel_io& io, const plan& p) {
  const std::size_t batches = io.in[0].dims[0], n_in = p.input_size, n = p.num_units, n_out = p.output_size;
  if (batches == 0) return;
  const auto d = io.in;
  const auto* x = data_at<std::int8_t>(d, in::input);
  const auto* h = data_at<std::int8_t>(d, in::output_state_in);
  const auto* c = data_at<std::int16_t>(d, in::cell_state_in);
  auto* state_out = reinterpret_cast<std::int8_t*>(io.out_data[0]);
  auto* c_out = reinterpret_cast<std::int16_t*>(io.out_data[1]);
  auto* out = reinterpret_cast<std::int8_t*>(io.out_data[2]);
  const std::size_t bn = batches * n;
  std::vector<std::int16_t> buf[4];

  // Pre-activation of gate k (peephole against `cell`), normalized and activated in place.
  auto run_gate = [&](std::size_t k, const std::int16_t* cell) {
    const auto& g = p.g[k];
    auto& b = buf[k];
    b.assign(bn, 0);
    kl::matvec_accumulate(p.dot, x, data_at<std::int8_t>(d, input_weights[k]), g.bias_x.data(), g.x, batches, n_in, n,
                          0, b.data());
    kl::matvec_accumulate(p.dot, h, data_at<std::int8_t>(d, recurrent_weights[k]), g.bias_h.data(), g.h, batches, n_out,
                          n, 0, b.data());
    if (p.peephole && k != cell_gate) {
      const auto* w = data_at<std::int16_t>(d, peephole_weights[k]);
      for (std::size_t i = 0; i < bn; ++i) {
        const std::int64_t v = std::int64_t{quant::apply_multiplier(std::int32_t{w[i % n]} * cell[i], g.c)} + b[i];
        b[i] = static_cast<std::int16_t>(std::clamp<std::int64_t>(v, -32768, 32767));
      }
    }
    if (p.layer_norm)
      kl::layer_norm(b.data(), data_at<std::int16_t>(d, norm_weights[k]), data_at<std::int32_t>(d, gate_bias[k]), g.norm,
                     g.variance_limit, batches, n);
    if (k == cell_gate) kl::tanh16_n(3, b.data(), bn, b.data());
    else
      for (auto& v : b) v = kl::logistic16<3>(v);
  };

  run_gate(forget_gate, c);
  run_gate(cell_gate, c);
  if (p.cifg) {
    buf[input_gate].resize(bn);
    for (std::size_t i = 0; i < bn; ++i) buf[input_gate][i] = static_cast<std::int16_t>(32767 - buf[forget_gate][i]);
  } else {
    run_gate(input_gate, c);
  }
  // New cell state: f * c (Q0.15 x cell scale) + i * g (Q0.15 x Q0.15 to the cell scale).
  const int ig_shift = 30 + p.cell_shift;
  for (std::size_t i = 0; i < bn; ++i) {
    const auto fc = static_cast<std::int16_t>(quant::rounding_divide_by_pot(std::int32_t{buf[forget_gate][i]} * c[i], 15));
    const auto ig = static_cast<std::int16_t>(
        quant::rounding_divide_by_pot(std::int32_t{buf[input_gate][i]} * buf[cell_gate][i], ig_shift));
    std::int16_t v = kl::saturating_add16(fc, ig);
    if (p.cell_clip > 0) v = std::clamp<std::int16_t>(v, static_cast<std::int16_t>(-p.cell_clip), p.cell_clip);
    c_out[i] = v;
  }
  run_gate(output_gate, c_out);

  // Hidden state: o * tanh(c) to int8 at the hidden scale (its zero point subtracted, as AOSP does).
  std::vector<std::int16_t> t(bn);
  kl::tanh16_n(p.cell_shift + 15, c_out, bn, t.data());
  std::vector<std::int8_t> hidden(bn);
  for (std::size_t i = 0; i < bn; ++i) {
    const std::int64_t v =
        std::int64_t{quant::apply_multiplier(std::int32_t{buf[output_gate][i]} * t[i], p.hidden)} - p.hidden_zp;
    hidden[i] = static_cast<std::int8_t>(std::clamp<std::int64_t>(v, -128, 127));
  }
  if (p.projection) {
    std::memset(out, 0, batches * n_out);
    kl::matvec_accumulate(p.dot, hidden.data(), data_at<std::int8_t>(d, in::projection_weights), p.proj_bias.data(),
                          p.proj, batches, n, n_out, at(d, in::output_state_in).zero_point, out);
    if (p.proj_clip > 0)
      for (std::size_t i = 0; i < batches * n_out; ++i)
        out[i] = std::clamp<std::int8_t>(out[i], static_cast<std::int8_t>(-p.proj_clip), p.proj_clip);
  } else {
    std::memcpy(out, hidden.data(), batches * n_out);  // validation: n_out == n here
  }
  std::memcpy(state_out, out, batches * n_out);
}

/// Whether a plan made at bind still describes this execution's operands.
inline bool plan_fits(const plan& p, const kernel_io& io) {
  return p.input_size == io.in[0].dims[1] && p.num_units == at(io.in, in::input_to_output_weights).dims[0] &&
         p.output_size == at(io.in, in::recurrent_to_output_weights).dims[1];
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return unsupported(c);
  // The plan reads weights, biases, scalars and shapes: build it once when all of them
  // are constants (or omitted) and every operand's shape is known.
  bool constant = true;
  for (std::size_t k = 1; k < c.in.size(); ++k) {
    const auto& o = c.in[k];
    if (k == static_cast<std::size_t>(in::output_state_in) || k == static_cast<std::size_t>(in::cell_state_in)) continue;
    constant = constant && (o.omitted || (o.has_value() && types::all_known(o.dims)));
  }
  constant = constant && c.in[0].dims.size() == 2 && c.in[0].dims[1] != 0;
  // The plan relies on what execution-time inference checks (shapes agree, CIFG /
  // peephole / layer norm all-or-none): run it now; when it cannot pass yet (an unknown
  // batch), plan per execution instead.
  if (constant) {
    const types::sig::infer_context ic{c.op.type, c.in, c.out, true, nullptr};
    constant = types::sig::quantized_lstm::infer(ic).ok();
  }
  std::shared_ptr<const plan> fixed;
  if (constant) fixed = std::make_shared<const plan>(make_plan(c.in));
  return kernel{[fixed](const kernel_io& io) {
    if (fixed && plan_fits(*fixed, io)) return reference(io, *fixed);
    reference(io, make_plan(io.in));
  }};
}

}  // namespace nnhal::ops::quantized_lstm
