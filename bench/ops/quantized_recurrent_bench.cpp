// Quantized recurrent family: one QUANTIZED_LSTM step (batch 1, input 512, 1024 units,
// projection to 256; peephole and layer norm on), next to the same nine int8 matrix-vector
// products alone, so the step's overhead beyond its matmuls shows. Each result reports
// GOP/s (2 ops per multiply-add) and the fraction of the machine's single-core VNNI peak.
// Names: quantized_recurrent/<what>/<batch>x<input>/<units>/<output>/<impl>.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nnhal/ops/kernels/lstm_quant.hpp"
#include "support/machine.hpp"
#include "support/op_fixture.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;
namespace kl = ops::kernels::lstm;

struct lstm_shape {
  std::uint32_t batch, input, units, output;
  double ops() const {  // 4 gates x (input + recurrent) + projection, 2 ops per MAC
    return 2.0 * batch * (4.0 * units * (input + output) + static_cast<double>(output) * units);
  }
};

void report(benchmark::State& state, const lstm_shape& s) {
  const double ops = s.ops() * static_cast<double>(state.iterations());
  state.counters["GOPs"] = benchmark::Counter(ops / 1e9, benchmark::Counter::kIsRate);
  if (peaks().vnni_int8_ops > 0)
    state.counters["vnni_frac"] = benchmark::Counter(ops / peaks().vnni_int8_ops, benchmark::Counter::kIsRate);
}

/// The 32 QUANTIZED_LSTM inputs: every optional tensor present (peephole, layer norm,
/// projection); weights and biases random, so the plan is made once, at bind.
std::vector<operand_spec> qlstm_inputs(const lstm_shape& s) {
  using T = OperandType;
  const auto b = s.batch, n = s.units, ni = s.input, no = s.output;
  std::vector<operand_spec> in;
  in.push_back({T::TENSOR_QUANT8_ASYMM_SIGNED, {b, ni}, 1.0f / 128, 0});
  for (int k = 0; k < 4; ++k) in.push_back({T::TENSOR_QUANT8_SYMM, {n, ni}, 0.004f, 0});
  for (int k = 0; k < 4; ++k) in.push_back({T::TENSOR_QUANT8_SYMM, {n, no}, 0.005f, 0});
  for (int k = 0; k < 3; ++k) in.push_back({T::TENSOR_QUANT16_SYMM, {n}, 1.0f / 4096, 0});
  for (int k = 0; k < 4; ++k) in.push_back({T::TENSOR_INT32, {n}, 0.0f, 0});
  in.push_back({T::TENSOR_QUANT8_SYMM, {no, n}, 0.01f, 0});
  in.push_back({T::TENSOR_INT32, {no}, 0.0f, 0});
  in.push_back({T::TENSOR_QUANT8_ASYMM_SIGNED, {b, no}, 1.0f / 64, 0});
  in.push_back({T::TENSOR_QUANT16_SYMM, {b, n}, 1.0f / 2048, 0});
  for (int k = 0; k < 4; ++k) in.push_back({T::TENSOR_QUANT16_SYMM, {n}, 1.0f / 4096, 0});
  in.push_back(scalar<float>(T::FLOAT32, 0.0f));  // cell_clip
  in.push_back(scalar<float>(T::FLOAT32, 0.0f));  // projection_clip
  for (int k = 0; k < 4; ++k) in.push_back(scalar<float>(T::FLOAT32, 1.0f / 1024));
  in.push_back(scalar<std::int32_t>(T::INT32, 0));
  in.push_back(scalar<float>(T::FLOAT32, 1.0f / 128));
  return in;
}

void nnhal_qlstm_step(benchmark::State& state, lstm_shape s) {
  using T = OperandType;
  op_fixture f(OperationType::QUANTIZED_LSTM, qlstm_inputs(s),
               {{T::TENSOR_QUANT8_ASYMM_SIGNED, {s.batch, s.output}, 1.0f / 64, 0},
                {T::TENSOR_QUANT16_SYMM, {s.batch, s.units}, 1.0f / 2048, 0},
                {T::TENSOR_QUANT8_ASYMM_SIGNED, {s.batch, s.output}, 1.0f / 64, 0}});
  if (f.time(state)) report(state, s);
}

/// The step's matrix-vector products alone (8 gate matrices into int16, the projection
/// into int8), with the same kernel the step binds (`vnni`) or the portable one.
void nnhal_qlstm_matmuls(benchmark::State& state, lstm_shape s, bool vnni) {
  if (vnni && !simd::cpu().avx512_vnni) {
    state.SkipWithError("no AVX-512 VNNI on this machine");
    return;
  }
  const kl::dot_fn dot = vnni ? kl::best_dot() : &kl::dot_i8;
  std::vector<std::int8_t> x(std::size_t{s.batch} * s.input, 3), h(std::size_t{s.batch} * s.output, -2),
      hidden(std::size_t{s.batch} * s.units, 1), out(std::size_t{s.batch} * s.output);
  std::vector<std::vector<std::int8_t>> wx(4, std::vector<std::int8_t>(std::size_t{s.units} * s.input, 5)),
      wh(4, std::vector<std::int8_t>(std::size_t{s.units} * s.output, -7));
  std::vector<std::int8_t> wp(std::size_t{s.output} * s.units, 9);
  std::vector<std::int32_t> bias(s.units, 0);
  std::vector<std::int16_t> gate(std::size_t{s.batch} * s.units);
  const ops::quant::fixed_multiplier m = ops::quant::quantize_multiplier(0.001);
  for (auto _ : state) {
    for (int g = 0; g < 4; ++g) {
      std::fill(gate.begin(), gate.end(), std::int16_t{0});
      kl::matvec_accumulate(dot, x.data(), wx[g].data(), bias.data(), m, s.batch, s.input, s.units, 0, gate.data());
      kl::matvec_accumulate(dot, h.data(), wh[g].data(), bias.data(), m, s.batch, s.output, s.units, 0, gate.data());
      benchmark::DoNotOptimize(gate.data());
    }
    std::fill(out.begin(), out.end(), std::int8_t{0});
    kl::matvec_accumulate(dot, hidden.data(), wp.data(), bias.data(), m, s.batch, s.units, s.output, 0, out.data());
    benchmark::ClobberMemory();
  }
  report(state, s);
}

int register_all() {
  const lstm_shape shapes[] = {{1, 512, 1024, 256}, {8, 512, 1024, 256}};
  for (const auto& s : shapes) {
    const std::string dims = std::to_string(s.batch) + "x" + std::to_string(s.input) + "/" + std::to_string(s.units) +
                             "/" + std::to_string(s.output) + "/";
    benchmark::RegisterBenchmark(("quantized_recurrent/qlstm_step/" + dims + "nnhal").c_str(), nnhal_qlstm_step, s);
    benchmark::RegisterBenchmark(("quantized_recurrent/matmuls_only/" + dims + "vnni").c_str(), nnhal_qlstm_matmuls, s,
                                 true);
    benchmark::RegisterBenchmark(("quantized_recurrent/matmuls_only/" + dims + "portable").c_str(),
                                 nnhal_qlstm_matmuls, s, false);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
