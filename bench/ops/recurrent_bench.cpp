// Recurrent family, float32, single-threaded: an LSTM step (batch 1, input 512, 1024 units,
// projection 256, peephole) and UNIDIRECTIONAL_SEQUENCE_LSTM over 32 steps of the same cell,
// next to FULLY_CONNECTED running the same matrix products (the gate matrices stacked as one
// [4096 x 512] and one [4096 x 256] product, plus the [256 x 1024] projection): the
// difference is what the cell costs beyond its GEMMs. Counters: GFLOP/s (2 flops per
// multiply-add of the matrix products) and the fraction of this core's FMA peak.
// Names: recurrent/<op>/f32/<shape>/<impl>, impl nnhal or fc_equivalent.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/families/conv.hpp"
#include "nnhal/ops/families/recurrent.hpp"
#include "support/machine.hpp"
#include "support/op_fixture.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;
constexpr auto F32 = OperandType::TENSOR_FLOAT32;

constexpr std::uint32_t n_input = 512, n_cell = 1024, n_output = 256, steps = 32;

/// One recurrent operation bound from operand specs, some inputs omitted (NO_VALUE); small
/// weights keep the gates out of saturation.
op_fixture recurrent_fixture(OperationType op, std::vector<operand_spec> ins, std::vector<bool> omitted,
                             std::vector<operand_spec> outs) {
  return op_fixture(op, std::move(ins), std::move(outs), {.omitted = std::move(omitted), .range = 0.1f, .seed = 7});
}

operand_spec tensor(std::vector<std::uint32_t> dims) { return {F32, std::move(dims)}; }

/// The 20 tensor inputs of an LSTM weight set and its states, in HAL order after input 0.
void lstm_weights(std::vector<operand_spec>& ins, std::vector<bool>& omitted) {
  for (int g = 0; g < 4; ++g) ins.push_back(tensor({n_cell, n_input}));
  for (int g = 0; g < 4; ++g) ins.push_back(tensor({n_cell, n_output}));
  for (int k = 0; k < 3; ++k) ins.push_back(tensor({n_cell}));  // peephole
  for (int g = 0; g < 4; ++g) ins.push_back(tensor({n_cell}));  // gate biases
  ins.push_back(tensor({n_output, n_cell}));
  ins.push_back(tensor({n_output}));
  ins.push_back(tensor({1, n_output}));
  ins.push_back(tensor({1, n_cell}));
  ins.push_back(scalar<std::int32_t>(OperandType::INT32, 4));
  ins.push_back(scalar<float>(OperandType::FLOAT32, 0.0f));
  ins.push_back(scalar<float>(OperandType::FLOAT32, 0.0f));
  omitted.assign(ins.size(), false);
}

/// Multiply-adds of one step's matrix products, times 2.
constexpr double step_flops = 2.0 * (4.0 * n_cell * (n_input + n_output) + double{n_output} * n_cell);

void report(benchmark::State& state, double flops_per_iter) {
  const double flops = flops_per_iter * static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  if (peaks().fma_f32_flops > 0)
    state.counters["frac_peak"] = benchmark::Counter(flops / peaks().fma_f32_flops, benchmark::Counter::kIsRate);
}

void lstm_step(benchmark::State& state) {
  std::vector<operand_spec> ins{tensor({1, n_input})};
  std::vector<bool> omitted;
  lstm_weights(ins, omitted);
  op_fixture f = recurrent_fixture(OperationType::LSTM, ins, omitted,
                                   {tensor({1, 4 * n_cell}), tensor({1, n_output}), tensor({1, n_cell}),
                                    tensor({1, n_output})});
  if (!f.time(state)) return;
  report(state, step_flops);
}

void sequence_lstm(benchmark::State& state) {
  std::vector<operand_spec> ins{tensor({steps, 1, n_input})};
  std::vector<bool> omitted;
  lstm_weights(ins, omitted);
  ins.push_back(scalar<std::uint8_t>(OperandType::BOOL, 1));  // time-major
  omitted.push_back(false);
  for (int g = 0; g < 4; ++g) {  // no layer normalization
    ins.push_back(tensor({n_cell}));
    omitted.push_back(true);
  }
  op_fixture f =
      recurrent_fixture(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, ins, omitted, {tensor({steps, 1, n_output})});
  if (!f.time(state)) return;
  report(state, steps * step_flops);
}

/// FULLY_CONNECTED [m, k] x [n, k]^T + bias.
op_fixture fc(std::uint32_t m, std::uint32_t k, std::uint32_t n) {
  return op_fixture(OperationType::FULLY_CONNECTED,
                    {tensor({m, k}), tensor({n, k}), tensor({n}), scalar<std::int32_t>(OperandType::INT32, 0)},
                    {tensor({m, n})});
}

/// The same matrix products as `time_steps` LSTM steps: the input product batched over all
/// steps (as the sequence kernel does it), the recurrent and projection products per step.
void fc_equivalent(benchmark::State& state, std::uint32_t time_steps) {
  op_fixture input = fc(time_steps, n_input, 4 * n_cell), recurrent = fc(1, n_output, 4 * n_cell),
             projection = fc(1, n_cell, n_output);
  if (!input.ok() || !recurrent.ok() || !projection.ok()) {
    state.SkipWithError("FULLY_CONNECTED did not bind");
    return;
  }
  for (auto _ : state) {
    input.run();
    for (std::uint32_t t = 0; t < time_steps; ++t) {
      recurrent.run();
      projection.run();
    }
  }
  report(state, time_steps * step_flops);
}

BENCHMARK(lstm_step)->Name("recurrent/lstm/f32/b1_i512_c1024_p256/nnhal")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(fc_equivalent, step, 1u)
    ->Name("recurrent/lstm/f32/b1_i512_c1024_p256/fc_equivalent")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(sequence_lstm)
    ->Name("recurrent/unidirectional_sequence_lstm/f32/t32_b1_i512_c1024_p256/nnhal")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(fc_equivalent, sequence, steps)
    ->Name("recurrent/unidirectional_sequence_lstm/f32/t32_b1_i512_c1024_p256/fc_equivalent")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nnhal::bench
