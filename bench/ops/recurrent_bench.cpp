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

/// One operation bound from operand specs, where some inputs may be omitted (NO_VALUE).
class recurrent_fixture {
 public:
  recurrent_fixture(OperationType op, std::vector<operand_spec> ins, std::vector<bool> omitted,
                    std::vector<operand_spec> outs)
      : ins_(std::move(ins)), outs_(std::move(outs)) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
    op_.type = op;
    for (std::size_t i = 0; i < ins_.size(); ++i) {
      auto& s = ins_[i];
      types::sig::operand_desc d;
      d.type = s.type;
      d.dims = s.dims;
      d.omitted = omitted[i];
      if (!d.omitted) {
        if (s.value.empty()) {
          s.value.resize(op_fixture::byte_size(s));
          for (std::size_t k = 0; k < s.value.size() / 4; ++k) {
            const float v = dist(rng);
            std::memcpy(s.value.data() + 4 * k, &v, 4);
          }
        }
        d.value = s.value.data();
        d.value_size = s.value.size();
      }
      in_.push_back(d);
      op_.inputs.push_back(static_cast<std::uint32_t>(i));
    }
    for (auto& s : outs_) {
      s.value.assign(op_fixture::byte_size(s), std::byte{0});
      types::sig::operand_desc d;
      d.type = s.type;
      d.dims = s.dims;
      out_.push_back(d);
      out_data_.push_back(s.value.data());
    }
    auto bound = ops::bind(ops::bind_context{op_, in_, out_, false});
    ok_ = bound.ok();
    if (ok_) kernel_ = std::move(*bound);
    else error_ = bound.err().message;
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  void run() { kernel_(ops::kernel_io{in_, out_, out_data_, &serial_}); }

 private:
  types::Operation op_;
  std::vector<operand_spec> ins_, outs_;
  std::vector<types::sig::operand_desc> in_, out_;
  std::vector<std::byte*> out_data_;
  ops::kernel kernel_;
  exec::serial_context serial_;
  bool ok_ = false;
  std::string error_;
};

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
  recurrent_fixture f(OperationType::LSTM, ins, omitted,
                      {tensor({1, 4 * n_cell}), tensor({1, n_output}), tensor({1, n_cell}), tensor({1, n_output})});
  if (!f.ok()) {
    state.SkipWithError(f.error().c_str());
    return;
  }
  for (auto _ : state) f.run();
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
  recurrent_fixture f(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, ins, omitted, {tensor({steps, 1, n_output})});
  if (!f.ok()) {
    state.SkipWithError(f.error().c_str());
    return;
  }
  for (auto _ : state) f.run();
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
