// XNNPACK side of the comparison benches (only with NNHAL_BENCH_XNNPACK): initialisation
// once per process and the timing loop of a created, set-up operator.
#pragma once

#if NNHAL_BENCH_XNNPACK
#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <cstddef>
#include <map>

namespace nnhal::bench {

/// xnn_initialize, once; false when XNNPACK cannot run here.
inline bool xnn_ready() {
  static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
  return ok;
}

/// A pthreadpool of `cores` threads for XNNPACK's all-cores variants (nullptr for one core:
/// XNNPACK then runs on the calling thread). One per thread count, kept for the process.
inline pthreadpool_t xnn_threads(std::size_t cores) {
  if (cores <= 1) return nullptr;
  static std::map<std::size_t, pthreadpool_t> pools;
  auto& p = pools[cores];
  if (!p) p = pthreadpool_create(cores);
  return p;
}

/// Times operator `o` (created and set up with final status `s`, on `threads`), then
/// deletes it. False, and the benchmark skipped, when `s` is not success.
inline bool xnn_time_operator(benchmark::State& state, xnn_status s, xnn_operator_t o,
                              pthreadpool_t threads = nullptr) {
  if (s != xnn_status_success) {
    state.SkipWithError("XNNPACK operator not available");
    if (o) xnn_delete_operator(o);
    return false;
  }
  for (auto _ : state) {
    xnn_run_operator(o, threads);
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(o);
  return true;
}

}  // namespace nnhal::bench
#endif
