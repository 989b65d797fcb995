// UNIDIRECTIONAL_SEQUENCE_RNN kernels; contract in
// types/signatures/unidirectional_sequence_rnn.hpp. The RNN cell of kernels/recurrent.hpp
// looped forward over max_time; time_major is an INT32 (0 or 1).
#pragma once

#include "nnhal/ops/rnn.hpp"
#include "nnhal/types/signatures/unidirectional_sequence_rnn.hpp"

namespace nnhal::ops::unidirectional_sequence_rnn {

namespace rk = kernels::recurrent;

/// output [max_time, batch, num_units] (or batch first); since 1.3 the final hidden state.
inline void run(const kernel_io& io, const rnn::shared_weights& prepared, rk::path p) {
  std::optional<rk::rnn_weights> local;
  const rk::rnn_weights& w = rnn::weights_for(prepared, io.in, rnn::slots, p, local);
  rk::input_f32 x(io.in[0]), h0(io.in[4]);
  rk::sequence s;
  s.time_major = io.scalar<std::int32_t>(6) != 0;
  s.time = io.in[0].dims[s.time_major ? 0 : 1];
  s.batch = io.in[0].dims[s.time_major ? 1 : 0];
  s.x = x.data();
  rk::output_f32 out(io, 0);
  s.out = out.data();
  s.out_stride = w.units;
  std::optional<rk::output_f32> state;
  if (io.out.size() == 2) state.emplace(io, 1);
  rk::rnn_sequence(w, io.scalar<std::int32_t>(5), s, h0.data(), state ? state->data() : nullptr);
  out.commit();
  if (state) state->commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  rnn::shared_weights w = rnn::prepare(c.in, rnn::slots);
  return kernel{[w](const kernel_io& io) { run(io, w, rk::path::gemm); }};
}

}  // namespace nnhal::ops::unidirectional_sequence_rnn
