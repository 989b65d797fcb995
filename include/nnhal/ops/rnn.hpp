// RNN kernels; contract in types/signatures/rnn.hpp. One step of the RNN cell of
// kernels/recurrent.hpp in float32 (float16 widened): h = act(x W^T + h_prev R^T + bias).
// Also the weight preparation the sequence RNNs share: a weight set whose operands are all
// constants is packed once, at bind.
#pragma once

#include <memory>
#include <optional>

#include "nnhal/ops/kernels/recurrent.hpp"
#include "nnhal/types/signatures/rnn.hpp"

namespace nnhal::ops::rnn {

namespace rk = kernels::recurrent;

/// The input indexes of one weight set (aux_weights -1: none).
struct weight_slots {
  std::size_t weights, recurrent, bias;
  int aux_weights = -1;
};

using shared_weights = std::shared_ptr<const rk::rnn_weights>;
inline const operand_desc* aux_of(std::span<const operand_desc> in, const weight_slots& s) {
  return s.aux_weights >= 0 ? &in[static_cast<std::size_t>(s.aux_weights)] : nullptr;
}
/// Weights prepared at bind when all of the set's operands are constants (or omitted).
inline shared_weights prepare(std::span<const operand_desc> in, const weight_slots& s) {
  const operand_desc* aux = aux_of(in, s);
  for (const operand_desc* d : {&in[s.weights], &in[s.recurrent], &in[s.bias], aux})
    if (d && !d->omitted && !d->value) return nullptr;
  return std::make_shared<const rk::rnn_weights>(rk::make_rnn_weights(in[s.weights], in[s.recurrent], in[s.bias], aux, true));
}
inline const rk::rnn_weights& weights_for(const shared_weights& prepared, std::span<const operand_desc> in,
                                          const weight_slots& s, rk::path p, std::optional<rk::rnn_weights>& local) {
  if (prepared) return *prepared;
  local.emplace(rk::make_rnn_weights(in[s.weights], in[s.recurrent], in[s.bias], aux_of(in, s), p == rk::path::gemm));
  return *local;
}

inline constexpr weight_slots slots{1, 2, 3};

/// hidden_state_out and output: both the new state [batch, num_units].
inline void run(const kernel_io& io, const shared_weights& prepared, rk::path p) {
  std::optional<rk::rnn_weights> local;
  const rk::rnn_weights& w = weights_for(prepared, io.in, slots, p, local);
  rk::input_f32 x(io.in[0]), h0(io.in[4]);
  rk::output_f32 state(io, 0), out(io, 1);
  rk::sequence s;
  s.time = 1;
  s.batch = io.in[0].dims[0];
  s.x = x.data();
  s.out = out.data();
  s.out_stride = w.units;
  rk::rnn_sequence(w, io.scalar<std::int32_t>(5), s, h0.data(), state.data());
  state.commit();
  out.commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  shared_weights w = prepare(c.in, slots);
  return kernel{[w](const kernel_io& io) { run(io, w, rk::path::gemm); }};
}

}  // namespace nnhal::ops::rnn
