// BIDIRECTIONAL_SEQUENCE_RNN kernels; contract in
// types/signatures/bidirectional_sequence_rnn.hpp. The RNN cell of kernels/recurrent.hpp run
// forward (fw weights) and backward (bw weights); the auxiliary input is added through the
// aux weights (cross linking) or, without them, is the backward input (parallel linking).
#pragma once

#include "nnhal/ops/rnn.hpp"
#include "nnhal/types/signatures/bidirectional_sequence_rnn.hpp"

namespace nnhal::ops::bidirectional_sequence_rnn {

namespace rk = kernels::recurrent;
using sig = types::sig::bidirectional_sequence_rnn;

inline constexpr rnn::weight_slots fw_slots{1, 2, 3, 10}, bw_slots{5, 6, 7, 11};

inline void run(const kernel_io& io, const rnn::shared_weights& fw_prepared, const rnn::shared_weights& bw_prepared,
                rk::path p) {
  std::optional<rk::rnn_weights> fw_local, bw_local;
  const rk::rnn_weights& fw = rnn::weights_for(fw_prepared, io.in, fw_slots, p, fw_local);
  const rk::rnn_weights& bw = rnn::weights_for(bw_prepared, io.in, bw_slots, p, bw_local);
  const auto link = sig::linking_of(io.in, true);
  const sig::linking lk = link && *link ? **link : sig::linking::no_aux;
  const bool merged = io.out.size() % 2 == 1;
  const std::int32_t act = io.scalar<std::int32_t>(12);

  rk::input_f32 x(io.in[0]), aux(io.in[9]), fh0(io.in[4]), bh0(io.in[8]);
  rk::sequence s;
  s.time_major = io.in[13].scalar<std::uint8_t>().value_or(0) != 0;
  s.time = io.in[0].dims[s.time_major ? 0 : 1];
  s.batch = io.in[0].dims[s.time_major ? 1 : 0];

  rk::output_f32 fw_out(io, 0);
  std::optional<rk::output_f32> bw_out, fw_state, bw_state;
  if (!merged) bw_out.emplace(io, 1);
  if (io.out.size() >= 3) {
    fw_state.emplace(io, merged ? 1 : 2);
    bw_state.emplace(io, merged ? 2 : 3);
  }

  rk::sequence f = s;
  f.x = x.data();
  f.aux = lk == sig::linking::cross ? aux.data() : nullptr;
  f.out = fw_out.data();
  f.out_stride = merged ? fw.units + bw.units : fw.units;
  rk::rnn_sequence(fw, act, f, fh0.data(), fw_state ? fw_state->data() : nullptr);

  rk::sequence b = s;
  b.forward = false;
  b.x = lk == sig::linking::parallel ? aux.data() : x.data();
  b.aux = lk == sig::linking::cross ? aux.data() : nullptr;
  b.out = merged ? fw_out.data() : bw_out->data();
  b.out_stride = merged ? fw.units + bw.units : bw.units;
  b.out_offset = merged ? fw.units : 0;
  rk::rnn_sequence(bw, act, b, bh0.data(), bw_state ? bw_state->data() : nullptr);

  fw_out.commit();
  for (auto* o : {&bw_out, &fw_state, &bw_state})
    if (*o) (*o)->commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  rnn::shared_weights fw = rnn::prepare(c.in, fw_slots), bw = rnn::prepare(c.in, bw_slots);
  return kernel{[fw, bw](const kernel_io& io) { run(io, fw, bw, rk::path::gemm); }};
}

}  // namespace nnhal::ops::bidirectional_sequence_rnn
