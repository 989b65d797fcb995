// MobileNet v1 1.0-224 end to end through exec::prepare / exec::execute, batch 1, on the
// calling thread: milliseconds per inference for float32, qu8, qs8 and qc8 (s8 activations,
// per-channel filters). The model comes from support/mobilenet_v1.hpp (seeded weights).
// Names: mobilenet_v1/<dtype>/<impl>, impl nnhal, xnnpack or onednn (the same model as an
// XNNPACK subgraph or a chain of oneDNN primitives: support/xnnpack_model.hpp,
// support/onednn_model.hpp, which say where they differ). Counters: ms per inference and GFLOP/s (GOP/s),
// counting 2 ops per multiply-add of the convolutions and the classifier (1.14 G); the
// memory plan's arena size next to the sum of the temporaries it holds; and where the time
// goes, in ms per inference per operation type (<TYPE>_ms, from profiled executions after
// the timed ones). NNHAL_BENCH_LAYERS=1 also prints each operation's time to stderr (each
// oneDNN primitive's for the onednn rows).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "nnhal/exec/driver.hpp"
#include "support/buffer.hpp"
#include "support/machine.hpp"
#include "support/mobilenet_v1.hpp"
#include "support/onednn_model.hpp"
#include "support/xnnpack_model.hpp"
#include "support/xnnpack_run.hpp"

#if NNHAL_BENCH_OMP
extern "C" void omp_set_num_threads(int);  // libgomp, oneDNN's threading runtime here
#endif

namespace nnhal::bench {
namespace {

constexpr double mobilenet_ops = 2.0 * 568.7e6;  // multiply-adds of MobileNet v1 1.0-224, x2

void nnhal_mobilenet(benchmark::State& state, mobilenet_type kind) {
  const types::Model model = mobilenet_v1(kind);
  auto prepared = exec::prepare(model);
  if (!prepared) {
    state.SkipWithError(prepared.err().message.c_str());
    return;
  }
  types::Request request = test::make_request(model);
  // A random image in the input's slice of the request pool.
  auto& pool = std::get<types::Memory>(request.pools[0]);
  const auto& in = request.inputs[0].location;
  fill_random({pool.data + in.offset, in.length}, kind == mobilenet_type::f32, 3);
  for (auto _ : state) {
    const exec::execution_outcome out = exec::execute(**prepared, request);
    if (out.status != types::ErrorStatus::NONE) {
      state.SkipWithError(out.message.c_str());
      return;
    }
    benchmark::ClobberMemory();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ms"] = benchmark::Counter(n * 1e-3, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["GFLOPs"] = benchmark::Counter(n * mobilenet_ops / 1e9, benchmark::Counter::kIsRate);
  // The memory plan: one arena per execution for every temporary, its size next to the
  // temporaries' sizes added up (what allocating each one separately would take).
  // Where the time goes: profiled executions, averaged per operation type.
  constexpr int profiled_runs = 20;
  exec::execute_options profiled;
  profiled.profile = true;
  std::vector<exec::op_profile> per_op;
  for (int r = 0; r < profiled_runs; ++r) {
    auto out = exec::execute(**prepared, request, profiled);
    if (per_op.empty()) per_op = std::move(out.profile);
    else
      for (std::size_t i = 0; i < per_op.size() && i < out.profile.size(); ++i) per_op[i].nanoseconds += out.profile[i].nanoseconds;
  }
  for (const auto& t : exec::profile_by_type(per_op))
    state.counters[std::string(types::to_string(t.type)) + "_ms"] = static_cast<double>(t.nanoseconds) * 1e-6 / profiled_runs;
  if (const char* layers = std::getenv("NNHAL_BENCH_LAYERS"); layers && *layers == '1')
    for (const auto& p : per_op)
      std::fprintf(stderr, "%3u %-20s %8.1f us\n", p.operation, std::string(types::to_string(p.type)).c_str(),
                   static_cast<double>(p.nanoseconds) * 1e-3 / profiled_runs);
  const exec::memory_plan_stats& plan = (*prepared)->memory_plan();
  state.counters["arena_KiB"] = static_cast<double>(plan.arena_bytes) / 1024.0;
  state.counters["temporaries_KiB"] = static_cast<double>(plan.temporaries_bytes) / 1024.0;
  state.counters["arena_fraction"] =
      plan.temporaries_bytes ? static_cast<double>(plan.arena_bytes) / static_cast<double>(plan.temporaries_bytes) : 0.0;
}

#if NNHAL_BENCH_XNNPACK
/// The same model (same constants) as an XNNPACK subgraph, run by its runtime on the
/// calling thread (support/xnnpack_model.hpp; its qs8 filters are taken as symmetric).
void xnnpack_mobilenet(benchmark::State& state, mobilenet_type kind) {
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const types::Model model = mobilenet_v1(kind);
  xnn_model x;
  build_xnn_model(model, x);
  if (!x.runtime) {
    state.SkipWithError(x.error.c_str());
    return;
  }
  const std::size_t es = kind == mobilenet_type::f32 ? 4 : 1;
  std::vector<std::byte> input(std::size_t{224} * 224 * 3 * es), output(1001 * es);
  fill_random(input, kind == mobilenet_type::f32, 3);
  const xnn_external_value io[2] = {{0, input.data()}, {1, output.data()}};
  if (xnn_setup_runtime(x.runtime, 2, io) != xnn_status_success) {
    state.SkipWithError("xnn_setup_runtime failed");
    return;
  }
  for (auto _ : state) {
    if (xnn_invoke_runtime(x.runtime) != xnn_status_success) {
      state.SkipWithError("xnn_invoke_runtime failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ms"] = benchmark::Counter(n * 1e-3, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["GFLOPs"] = benchmark::Counter(n * mobilenet_ops / 1e9, benchmark::Counter::kIsRate);
}
#endif

#if NNHAL_BENCH_ONEDNN
/// The same model (same constants) as a chain of oneDNN primitives on one thread
/// (support/onednn_model.hpp: 8-bit without zero points, s8 weights).
void onednn_mobilenet(benchmark::State& state, mobilenet_type kind) {
#if NNHAL_BENCH_OMP
  omp_set_num_threads(1);
#endif
  const types::Model model = mobilenet_v1(kind);
  onednn_model d;
  build_onednn_model(model, d);
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  for (auto _ : state) {
    d.run();
    benchmark::ClobberMemory();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ms"] = benchmark::Counter(n * 1e-3, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["GFLOPs"] = benchmark::Counter(n * mobilenet_ops / 1e9, benchmark::Counter::kIsRate);
  // Each primitive's time, as nnhal's per-operation listing (RESHAPE has no primitive).
  if (const char* layers = std::getenv("NNHAL_BENCH_LAYERS"); layers && *layers == '1') {
    constexpr int timed_runs = 20;
    std::vector<double> us;
    for (int r = 0; r < timed_runs; ++r) d.run_timed(us);
    for (std::size_t i = 0; i < us.size(); ++i)
      std::fprintf(stderr, "%3zu %-20s %8.1f us\n", i, d.kind(i), us[i] / timed_runs);
  }
}
#endif

int register_all() {
  const std::pair<const char*, mobilenet_type> kinds[] = {
      {"f32", mobilenet_type::f32}, {"qu8", mobilenet_type::qu8}, {"qs8", mobilenet_type::qs8}, {"qc8", mobilenet_type::qc8}};
  for (const auto& [name, kind] : kinds) {
    benchmark::RegisterBenchmark((std::string("mobilenet_v1/") + name + "/nnhal").c_str(), nnhal_mobilenet, kind)
        ->Unit(benchmark::kMillisecond);
#if NNHAL_BENCH_XNNPACK
    benchmark::RegisterBenchmark((std::string("mobilenet_v1/") + name + "/xnnpack").c_str(), xnnpack_mobilenet, kind)
        ->Unit(benchmark::kMillisecond);
#endif
#if NNHAL_BENCH_ONEDNN
    benchmark::RegisterBenchmark((std::string("mobilenet_v1/") + name + "/onednn").c_str(), onednn_mobilenet, kind)
        ->Unit(benchmark::kMillisecond);
#endif
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
