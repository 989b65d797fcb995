// Per-execution overhead of each execution style on a one-ADD model (4 float32 elements,
// so the kernel itself costs almost nothing), next to a direct call of the bound kernel.
// Names: exec/overhead/<style>. Time per iteration = one whole execution, in microseconds.
#include <benchmark/benchmark.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <memory>

#include "nnhal/exec/async.hpp"
#include "nnhal/exec/burst.hpp"
#include "nnhal/exec/fenced.hpp"
#include "support/model_builder.hpp"
#include "support/op_fixture.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;

constexpr std::uint32_t elems = 4;

/// out = ADD(a, b) on [elems] float32, prepared, with a request whose pool holds a, b, out.
struct one_add {
  std::shared_ptr<const exec::prepared_model> pm;
  types::Request request;

  one_add() {
    const types::Model m = test::make_add_model(OperandType::TENSOR_FLOAT32, {elems});
    if (auto prepared = exec::prepare(m)) pm = *prepared;
    request = test::make_request(m);
    auto* f = reinterpret_cast<float*>(std::get<types::Memory>(request.pools[0]).data);
    for (std::uint32_t i = 0; i < 2 * elems; ++i) f[i] = static_cast<float>(i);
  }
};

exec::runtime& shared_runtime() {
  static exec::runtime rt({.workers = 2});
  return rt;
}

bool check(benchmark::State& state, const exec::execution_outcome& o) {
  if (o.status == types::ErrorStatus::NONE) return true;
  state.SkipWithError(o.message.c_str());
  return false;
}

void direct_kernel(benchmark::State& state) {
  op_fixture f(OperationType::ADD,
               {{OperandType::TENSOR_FLOAT32, {elems}, 0.0f, 0}, {OperandType::TENSOR_FLOAT32, {elems}, 0.0f, 0},
                scalar<std::int32_t>(OperandType::INT32, 0)},
               {{OperandType::TENSOR_FLOAT32, {elems}, 0.0f, 0}});
  f.time(state);
}

void sync_execute(benchmark::State& state) {
  one_add m;
  for (auto _ : state)
    if (!check(state, exec::execute(*m.pm, m.request))) break;
}

void queued(benchmark::State& state) {
  one_add m;
  for (auto _ : state)
    if (!check(state, exec::execute_queued(shared_runtime(), m.pm, m.request, {}))) break;
}

void async_callback(benchmark::State& state) {
  one_add m;
  std::atomic<int> done{0};
  exec::execution_outcome last;
  for (auto _ : state) {
    done.store(0, std::memory_order_relaxed);
    (void)exec::execute_async(shared_runtime(), m.pm, m.request, {}, [&](exec::execution_outcome o) {
      last = std::move(o);
      done.store(1, std::memory_order_release);
      done.notify_one();
    });
    done.wait(0, std::memory_order_acquire);
    if (!check(state, last)) break;
  }
}

void fenced(benchmark::State& state) {
  one_add m;
  for (auto _ : state) {
    auto r = exec::execute_fenced(shared_runtime(), m.pm, m.request, {}, {});
    if (!r) return state.SkipWithError(r.err().message.c_str());
    pollfd p{r->sync_fence->pollable_fd(), POLLIN, 0};
    ::poll(&p, 1, -1);  // as a client waits on the sync fence
    if (r->callback->getExecutionInfo().status != types::ErrorStatus::NONE) return state.SkipWithError("failed");
  }
}

void burst(benchmark::State& state) {
  one_add m;
  auto b = exec::burst::configure(shared_runtime(), m.pm);
  if (!b) return state.SkipWithError(b.err().message.c_str());
  const std::int64_t token[] = {0};
  for (auto _ : state)
    if (!check(state, (*b)->execute_synchronously(m.request, token, {}))) break;
}

void with_timing(benchmark::State& state) {
  one_add m;
  exec::execute_options o;
  o.measure = types::MeasureTiming::YES;
  for (auto _ : state)
    if (!check(state, exec::execute(*m.pm, m.request, o))) break;
}

void register_all() {
  auto us = [](benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMicrosecond)->UseRealTime(); };
  us(benchmark::RegisterBenchmark("exec/overhead/direct_kernel", direct_kernel));
  us(benchmark::RegisterBenchmark("exec/overhead/sync", sync_execute));
  us(benchmark::RegisterBenchmark("exec/overhead/sync_measured", with_timing));
  us(benchmark::RegisterBenchmark("exec/overhead/burst", burst));
  us(benchmark::RegisterBenchmark("exec/overhead/queued", queued));
  us(benchmark::RegisterBenchmark("exec/overhead/async", async_callback));
  us(benchmark::RegisterBenchmark("exec/overhead/fenced", fenced));
}

const bool registered = (register_all(), true);

}  // namespace
}  // namespace nnhal::bench
