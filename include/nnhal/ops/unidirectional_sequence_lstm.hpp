// UNIDIRECTIONAL_SEQUENCE_LSTM kernels; contract in
// types/signatures/unidirectional_sequence_lstm.hpp. The LSTM cell of kernels/recurrent.hpp
// looped forward over max_time (time-major or batch-major input), weights prepared as for LSTM.
#pragma once

#include "nnhal/ops/lstm.hpp"
#include "nnhal/types/signatures/unidirectional_sequence_lstm.hpp"

namespace nnhal::ops::unidirectional_sequence_lstm {

namespace rk = kernels::recurrent;
using sig = types::sig::unidirectional_sequence_lstm;

/// output [max_time, batch, output_size] (or batch first); since 1.3 optionally the final
/// output and cell states.
inline void run(const kernel_io& io, const lstm::shared_weights& prepared, rk::path p) {
  const auto o = lstm::operands(io.in, sig::slots());
  std::optional<rk::lstm_weights> local;
  const rk::lstm_weights& w = lstm::weights_for(prepared, o, p, local);
  using I = sig::in;
  const auto in = [&](I r) -> const operand_desc& { return io.in[static_cast<std::size_t>(r)]; };
  rk::input_f32 x(in(I::input)), h0(in(I::output_state_in)), c0(in(I::cell_state_in));
  rk::sequence s;
  s.time_major = in(I::time_major).scalar<std::uint8_t>().value_or(0) != 0;
  s.time = io.in[0].dims[s.time_major ? 0 : 1];
  s.batch = io.in[0].dims[s.time_major ? 1 : 0];
  s.x = x.data();
  rk::output_f32 out(io, 0);
  s.out = out.data();
  s.out_stride = w.n_output;
  std::optional<rk::output_f32> h, c;
  if (io.out.size() == 3) {
    h.emplace(io, 1);
    c.emplace(io, 2);
  }
  rk::lstm_sequence(w, lstm::params(io.in, static_cast<std::size_t>(I::activation)), s, h0.data(), c0.data(),
                    h ? h->data() : nullptr, c ? c->data() : nullptr, nullptr);
  out.commit();
  if (h) h->commit();
  if (c) c->commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  lstm::shared_weights w = lstm::prepare(lstm::operands(c.in, sig::slots()));
  return kernel{[w](const kernel_io& io) { run(io, w, rk::path::gemm); }};
}

}  // namespace nnhal::ops::unidirectional_sequence_lstm
