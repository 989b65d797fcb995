// BIDIRECTIONAL_SEQUENCE_LSTM kernels; contract in
// types/signatures/bidirectional_sequence_lstm.hpp. The LSTM cell of kernels/recurrent.hpp
// run forward with the fw weights and backward with the bw weights; the auxiliary input is
// either added through the aux weights (cross linking) or, without aux weights, the
// backward direction's input (parallel linking). Merged outputs interleave fw and bw rows.
#pragma once

#include "nnhal/ops/lstm.hpp"
#include "nnhal/types/signatures/bidirectional_sequence_lstm.hpp"

namespace nnhal::ops::bidirectional_sequence_lstm {

namespace rk = kernels::recurrent;
using sig = types::sig::bidirectional_sequence_lstm;

inline void run(const kernel_io& io, const lstm::shared_weights& fw_prepared, const lstm::shared_weights& bw_prepared,
                rk::path p) {
  using I = sig::in;
  const auto in = [&](I r) -> const operand_desc& { return io.in[static_cast<std::size_t>(r)]; };
  const auto fo = lstm::operands(io.in, sig::slots(true)), bo = lstm::operands(io.in, sig::slots(false));
  std::optional<rk::lstm_weights> fw_local, bw_local;
  const rk::lstm_weights& fw = lstm::weights_for(fw_prepared, fo, p, fw_local);
  const rk::lstm_weights& bw = lstm::weights_for(bw_prepared, bo, p, bw_local);
  const auto link = sig::linking_of(io.in, true);
  const sig::linking lk = link && *link ? **link : sig::linking::no_aux;
  const bool merged = io.out.size() % 2 == 1;
  const rk::lstm_params params = lstm::params(io.in, static_cast<std::size_t>(I::activation));

  rk::input_f32 x(in(I::input)), aux(in(I::aux_input));
  rk::input_f32 fh0(in(I::fw_activation_state)), fc0(in(I::fw_cell_state));
  rk::input_f32 bh0(in(I::bw_activation_state)), bc0(in(I::bw_cell_state));
  rk::sequence s;
  s.time_major = in(I::time_major).scalar<std::uint8_t>().value_or(0) != 0;
  s.time = io.in[0].dims[s.time_major ? 0 : 1];
  s.batch = io.in[0].dims[s.time_major ? 1 : 0];

  rk::output_f32 fw_out(io, 0);
  std::optional<rk::output_f32> bw_out;
  if (!merged) bw_out.emplace(io, 1);
  std::optional<rk::output_f32> states[4];  // fw h, fw c, bw h, bw c
  if (io.out.size() >= 5)
    for (std::size_t k = 0; k < 4; ++k) states[k].emplace(io, (merged ? 1 : 2) + k);
  const auto state = [&](std::size_t k) { return states[k] ? states[k]->data() : nullptr; };

  rk::sequence f = s;
  f.x = x.data();
  f.aux = lk == sig::linking::cross ? aux.data() : nullptr;
  f.out = fw_out.data();
  f.out_stride = merged ? fw.n_output + bw.n_output : fw.n_output;
  rk::lstm_sequence(fw, params, f, fh0.data(), fc0.data(), state(0), state(1), nullptr);

  rk::sequence b = s;
  b.forward = false;
  b.x = lk == sig::linking::parallel ? aux.data() : x.data();
  b.aux = lk == sig::linking::cross ? aux.data() : nullptr;
  b.out = merged ? fw_out.data() : bw_out->data();
  b.out_stride = merged ? fw.n_output + bw.n_output : bw.n_output;
  b.out_offset = merged ? fw.n_output : 0;
  rk::lstm_sequence(bw, params, b, bh0.data(), bc0.data(), state(2), state(3), nullptr);

  fw_out.commit();
  if (bw_out) bw_out->commit();
  for (auto& st : states)
    if (st) st->commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  lstm::shared_weights fw = lstm::prepare(lstm::operands(c.in, sig::slots(true)));
  lstm::shared_weights bw = lstm::prepare(lstm::operands(c.in, sig::slots(false)));
  return kernel{[fw, bw](const kernel_io& io) { run(io, fw, bw, rk::path::gemm); }};
}

}  // namespace nnhal::ops::bidirectional_sequence_lstm
