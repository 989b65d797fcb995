// QUANTIZED_16BIT_LSTM kernel; contract in types/signatures/quantized_16bit_lstm.hpp.
// One LSTM step in 8/16-bit fixed point, bit-exact with the AOSP CPU path (TFLite's
// legacy quantized LstmCell): a fully connected layer over [input, prev_output] gives the
// four gate pre-activations in Q3.12, then gemmlowp logistic/tanh in int16, the cell
// state in Q4.11 and the output in 1/128 steps around 128. No signed variant exists.
//
// The AOSP path multiplies the concatenation [input, prev_output] with a weight matrix
// whose columns are [recurrent_to_* | input_to_*]; the two orders agree only when
// input_size == output_size, and the conformance data follows that layout, so the
// kernel builds the same matrix (rows: input, cell, forget, output gate).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/lstm_quant.hpp"
#include "nnhal/types/signatures/quantized_16bit_lstm.hpp"

namespace nnhal::ops::quantized_16bit_lstm {

using in = types::sig::quantized_16bit_lstm::in;
namespace kl = kernels::lstm;

/// The gate weights and biases as one fully connected layer: w [4 * output_size,
/// output_size + input_size] (weights minus their zero point, in int16), bias [4 * output_size].
struct packed_weights {
  std::size_t output_size = 0, input_size = 0;
  std::vector<std::int16_t> w;
  std::vector<std::int32_t> bias;
};

inline packed_weights pack(std::span<const operand_desc> ins) {
  packed_weights p;
  p.output_size = ins[static_cast<std::size_t>(in::prev_output)].dims[1];
  p.input_size = ins[0].dims[1];
  const std::size_t n = p.output_size, depth = p.output_size + p.input_size;
  p.w.assign(4 * n * depth, 0);
  p.bias.assign(4 * n, 0);
  const std::int32_t zp = ins[static_cast<std::size_t>(in::input_to_input_weights)].zero_point;
  // Gate order of the rows; each gate's recurrent weights fill columns [0, n), its input
  // weights columns [n, n + input_size).
  const in recurrent[4] = {in::recurrent_to_input_weights, in::recurrent_to_cell_weights,
                           in::recurrent_to_forget_weights, in::recurrent_to_output_weights};
  const in input[4] = {in::input_to_input_weights, in::input_to_cell_weights, in::input_to_forget_weights,
                       in::input_to_output_weights};
  const in bias[4] = {in::input_gate_bias, in::cell_bias, in::forget_gate_bias, in::output_gate_bias};
  for (std::size_t g = 0; g < 4; ++g) {
    auto place = [&](in role, std::size_t cols, std::size_t col0) {
      const auto* src = reinterpret_cast<const std::uint8_t*>(ins[static_cast<std::size_t>(role)].value);
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t k = 0; k < cols; ++k)
          p.w[(g * n + r) * depth + col0 + k] = static_cast<std::int16_t>(src[r * cols + k] - zp);
    };
    place(recurrent[g], n, 0);
    place(input[g], p.input_size, n);
    std::memcpy(p.bias.data() + g * n, ins[static_cast<std::size_t>(bias[g])].value, n * sizeof(std::int32_t));
  }
  return p;
}

/// One step for every batch: cell_state_out (Q4.11) and output (quant8, 1/128, 128).
inline void reference(const kernel_io& io, const packed_weights& p, quant::fixed_multiplier accum) {
  const std::size_t batches = io.out[1].dims[0], n = p.output_size, depth = n + p.input_size;
  if (batches == 0) return;
  const auto* x = reinterpret_cast<const std::uint8_t*>(io.in[0].value);
  const auto* h = reinterpret_cast<const std::uint8_t*>(io.in[static_cast<std::size_t>(in::prev_output)].value);
  const auto* c = reinterpret_cast<const std::int16_t*>(io.in[static_cast<std::size_t>(in::prev_cell_state)].value);
  auto* c_out = reinterpret_cast<std::int16_t*>(io.out_data[0]);
  auto* out = reinterpret_cast<std::uint8_t*>(io.out_data[1]);
  std::vector<std::int16_t> concat(depth), gates(4 * n);
  for (std::size_t b = 0; b < batches; ++b) {
    // [input, prev_output] minus their zero point 128.
    for (std::size_t k = 0; k < p.input_size; ++k) concat[k] = static_cast<std::int16_t>(x[b * p.input_size + k] - 128);
    for (std::size_t k = 0; k < n; ++k) concat[p.input_size + k] = static_cast<std::int16_t>(h[b * n + k] - 128);
    for (std::size_t r = 0; r < 4 * n; ++r) {
      // int32 accumulation, wrapping (never UB) where a huge depth could overflow it.
      std::uint32_t acc = static_cast<std::uint32_t>(p.bias[r]);
      const std::int16_t* w = p.w.data() + r * depth;
      for (std::size_t k = 0; k < depth; ++k) acc += static_cast<std::uint32_t>(std::int32_t{concat[k]} * w[k]);
      const std::int32_t v = quant::apply_multiplier(static_cast<std::int32_t>(acc), accum);
      gates[r] = static_cast<std::int16_t>(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));  // Q3.12
    }
    for (std::size_t u = 0; u < n; ++u) {
      const std::int16_t i_gate = kl::logistic16<3>(gates[0 * n + u]);
      const std::int16_t g_gate = kl::tanh16<3>(gates[1 * n + u]);
      const std::int16_t f_gate = kl::logistic16<3>(gates[2 * n + u]);
      const std::int16_t o_gate = kl::logistic16<3>(gates[3 * n + u]);
      const std::int16_t ig = kl::mul16(i_gate, g_gate);                    // Q0.15
      const std::int16_t fc = kl::mul16(f_gate, c[b * n + u]);              // Q4.11
      const std::int16_t cell = kl::saturating_add16(kernels::vunary::fixed::rounding_divide_by_pot16(ig, 4), fc);
      const std::int16_t cell_q3 = kernels::vunary::fixed::saturating_shift_left16(cell, 1);  // Q3.12 for tanh
      const std::int16_t activ = kl::mul16(o_gate, kl::tanh16<3>(cell_q3));
      c_out[b * n + u] = cell;
      std::int32_t q = kernels::vunary::fixed::rounding_divide_by_pot16(activ, 8);
      q = q > 127 ? 127 : (q < -128 ? -128 : q);
      out[b * n + u] = static_cast<std::uint8_t>(128 + q);
    }
  }
}

/// The accumulator multiplier: bias scale / 2^-12 (the gates' Q3.12 scale).
inline quant::fixed_multiplier accum_multiplier(const operand_desc& bias) {
  return quant::quantize_multiplier(4096.0 * static_cast<double>(bias.scale));
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_QUANT8_ASYMM) return unsupported(c);
  const quant::fixed_multiplier accum = accum_multiplier(c.in[static_cast<std::size_t>(in::input_gate_bias)]);
  // Weights and biases are packed once when they are all constants; input_size and
  // output_size come from the weights then (checked against each execution's input).
  bool constant = true;
  for (std::size_t k = 1; k <= 12; ++k) constant = constant && c.in[k].has_value();
  constant = constant && c.in[static_cast<std::size_t>(in::input_to_input_weights)].dims.size() == 2;
  std::shared_ptr<const packed_weights> packed;
  if (constant) {
    const auto& w = c.in[static_cast<std::size_t>(in::input_to_input_weights)];
    const std::uint32_t sizes[2] = {w.dims[1], w.dims[0]};  // input_size, output_size
    // Shapes validation could not relate yet (an unknown prev_output) must agree too.
    for (std::size_t k = 1; k <= 8; ++k)
      constant = constant && c.in[k].dims.size() == 2 && c.in[k].dims[0] == sizes[1] &&
                 c.in[k].dims[1] == (k <= 4 ? sizes[0] : sizes[1]);
    for (std::size_t k = 9; k <= 12; ++k) constant = constant && c.in[k].dims.size() == 1 && c.in[k].dims[0] == sizes[1];
  }
  if (constant) {
    const auto& w = c.in[static_cast<std::size_t>(in::input_to_input_weights)];
    const std::uint32_t sizes[2] = {w.dims[1], w.dims[0]};
    std::vector<operand_desc> shaped(c.in.begin(), c.in.end());
    const types::dims_t in_dims{1, sizes[0]}, out_dims{1, sizes[1]};
    shaped[0].dims = in_dims;
    shaped[static_cast<std::size_t>(in::prev_output)].dims = out_dims;
    packed = std::make_shared<const packed_weights>(pack(shaped));
  }
  return kernel{[packed, accum](const kernel_io& io) {
    if (packed && packed->input_size == io.in[0].dims[1] &&
        packed->output_size == io.in[static_cast<std::size_t>(in::prev_output)].dims[1])
      return reference(io, *packed, accum);
    reference(io, pack(io.in), accum);
  }};
}

}  // namespace nnhal::ops::quantized_16bit_lstm
