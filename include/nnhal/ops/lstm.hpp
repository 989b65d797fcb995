// LSTM kernels; contract in types/signatures/lstm.hpp. One time step of the LSTM cell of
// kernels/recurrent.hpp (CIFG, peephole, projection, layer normalization, clipping) in
// float32; float16 operands are widened. Also the weight preparation that
// UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM share: a weight set whose
// operands are all constants is stacked and packed once, at bind.
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "nnhal/ops/kernels/recurrent.hpp"
#include "nnhal/types/signatures/lstm.hpp"

namespace nnhal::ops::lstm {

namespace rk = kernels::recurrent;
using sig = types::sig::lstm;

/// The operand descs of a weight set laid out as `slots` says (-1: no such input).
inline rk::lstm_operands operands(std::span<const operand_desc> in, const types::sig::detail::recurrent::lstm_slots& s) {
  rk::lstm_operands o;
  const auto at = [&](int i) -> const operand_desc* {
    return i >= 0 && static_cast<std::size_t>(i) < in.size() ? &in[static_cast<std::size_t>(i)] : nullptr;
  };
  for (int g = 0; g < 4; ++g) {
    o.input_to[g] = at(s.input_to[g]);
    o.recurrent_to[g] = at(s.recurrent_to[g]);
    o.bias[g] = at(s.bias[g]);
    o.layer_norm[g] = at(s.layer_norm[g]);
    o.aux_to[g] = at(s.aux_to[g]);
  }
  for (int k = 0; k < 3; ++k) o.cell_to[k] = at(s.cell_to[k]);
  o.projection_weights = at(s.projection_weights);
  o.projection_bias = at(s.projection_bias);
  return o;
}

/// activation, cell_clip, proj_clip (FLOAT32 or FLOAT16 scalars) at `first`, `first + 1`, ...
inline rk::lstm_params params(std::span<const operand_desc> in, std::size_t first) {
  namespace an = types::sig::detail::axis_norm;
  rk::lstm_params p;
  p.activation = in[first].scalar<std::int32_t>().value_or(0);
  p.cell_clip = an::float_scalar(in[first + 1]).value_or(0.0f);
  p.proj_clip = an::float_scalar(in[first + 2]).value_or(0.0f);
  return p;
}

/// Weights prepared at bind when every operand of the set is a constant (or omitted).
using shared_weights = std::shared_ptr<const rk::lstm_weights>;
inline shared_weights prepare(const rk::lstm_operands& o) {
  if (!o.all_values()) return nullptr;
  return std::make_shared<const rk::lstm_weights>(rk::make_lstm_weights(o, true));
}
/// The prepared weights, or weights built for this execution into `local`.
inline const rk::lstm_weights& weights_for(const shared_weights& prepared, const rk::lstm_operands& o, rk::path p,
                                           std::optional<rk::lstm_weights>& local) {
  if (prepared) return *prepared;
  local.emplace(rk::make_lstm_weights(o, p == rk::path::gemm));
  return *local;
}

/// One LSTM step: input [batch, input_size] -> scratch_buffer (the gate values, content not
/// specified by the HAL), output_state_out, cell_state_out, output.
inline void run(const kernel_io& io, const shared_weights& prepared, rk::path p) {
  const auto o = operands(io.in, sig::slots(io.in.size()));
  std::optional<rk::lstm_weights> local;
  const rk::lstm_weights& w = weights_for(prepared, o, p, local);
  using I = sig::in;
  const auto in = [&](I r) -> const operand_desc& { return io.in[static_cast<std::size_t>(r)]; };
  rk::input_f32 x(in(I::input)), h0(in(I::output_state_in)), c0(in(I::cell_state_in));
  rk::output_f32 scratch(io, 0), h(io, 1), c(io, 2), out(io, 3);
  rk::sequence s;
  s.time = 1;
  s.batch = io.in[0].dims[0];
  s.x = x.data();
  s.out = out.data();
  s.out_stride = w.n_output;
  rk::lstm_sequence(w, params(io.in, static_cast<std::size_t>(I::activation)), s, h0.data(), c0.data(), h.data(),
                    c.data(), scratch.data());
  for (auto* t : {&scratch, &h, &c, &out}) t->commit();
}

/// Plain-loop matrix products (the oracle-grade path).
inline void reference(const kernel_io& io) { run(io, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  shared_weights w = prepare(operands(c.in, sig::slots(c.in.size())));
  return kernel{[w](const kernel_io& io) { run(io, w, rk::path::gemm); }};
}

}  // namespace nnhal::ops::lstm
