// Compilation-cache benchmarks on a MobileNet v1 (1.0, 224)-sized float model (about
// 4.2 M weights, 17 MB in one constant pool): full preparation versus preparation from
// the cache (which holds the weights the kernels packed, so nothing is packed again), and
// save / load throughput in bytes per second (files in $TMPDIR). Preparing from the cache
// runs two ways: mapping the driver's private copy of the data cache (`mapped`, what a
// driver with a data_mirror gets) and reading the runtime's data cache (`read`). As a
// mapping defers bringing pages in to the first execution, `*_and_run` adds one execution
// to full preparation and to mapped preparation from the cache.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "nnhal/cache/cache.hpp"
#include "support/model_builder.hpp"

namespace {

using namespace nnhal::types;
namespace ca = nnhal::cache;
namespace fs = std::filesystem;

/// MobileNet v1 1.0/224 topology: conv 3x3/2, 13 depthwise-separable blocks, average
/// pool, fully connected to 1001 classes, softmax. Weights are random in one pool.
Model mobilenet_like() {
  nnhal::test::model_builder b;
  auto g = b.main();
  struct layer {
    std::uint32_t out;
    std::uint32_t stride;
  };
  const layer blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},  {512, 2}, {512, 1},
                          {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
  // Size the pool first: all weights and biases, each 64-byte aligned.
  std::vector<std::pair<std::vector<std::uint32_t>, std::uint64_t>> tensors;  // dims, offset
  std::uint64_t pool_bytes = 0;
  auto reserve = [&](std::vector<std::uint32_t> dims) {
    std::uint64_t n = 4;
    for (auto d : dims) n *= d;
    tensors.push_back({std::move(dims), pool_bytes});
    pool_bytes = (pool_bytes + n + 63) / 64 * 64;
    return tensors.size() - 1;
  };
  std::uint32_t c = 32;
  reserve({32, 3, 3, 3});
  reserve({32});
  for (const auto& l : blocks) {
    reserve({1, 3, 3, c});
    reserve({c});
    reserve({l.out, 1, 1, c});
    reserve({l.out});
    c = l.out;
  }
  reserve({1001, 1024});
  reserve({1001});
  const std::uint32_t pool = b.pool(pool_bytes);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  auto* w = reinterpret_cast<float*>(b.model().pools[pool].data);
  for (std::uint64_t i = 0; i < pool_bytes / 4; ++i) w[i] = dist(rng);

  std::size_t next = 0;
  auto weight = [&]() {
    const auto& [dims, offset] = tensors[next++];
    std::uint64_t n = 4;
    for (auto d : dims) n *= d;
    return g.reference(OperandType::TENSOR_FLOAT32, dims, pool, static_cast<std::uint32_t>(offset),
                       static_cast<std::uint32_t>(n));
  };
  const auto act6 = [&] { return g.i32(3); };  // RELU6
  std::uint32_t hw = 112;
  auto x = g.input(OperandType::TENSOR_FLOAT32, {1, 224, 224, 3});
  auto t = g.temporary(OperandType::TENSOR_FLOAT32, {1, hw, hw, 32});
  {
    const auto f = weight();
    const auto bias = weight();
    g.op(OperationType::CONV_2D, {x, f, bias, g.i32(1), g.i32(2), g.i32(2), act6()}, {t});
  }
  c = 32;
  for (const auto& l : blocks) {
    hw = l.stride == 2 ? hw / 2 : hw;
    const auto dw = g.temporary(OperandType::TENSOR_FLOAT32, {1, hw, hw, c});
    const auto f = weight();
    const auto bias = weight();
    g.op(OperationType::DEPTHWISE_CONV_2D,
         {t, f, bias, g.i32(1), g.i32(static_cast<std::int32_t>(l.stride)), g.i32(static_cast<std::int32_t>(l.stride)),
          g.i32(1), act6()},
         {dw});
    const auto pw = g.temporary(OperandType::TENSOR_FLOAT32, {1, hw, hw, l.out});
    const auto pf = weight();
    const auto pb = weight();
    g.op(OperationType::CONV_2D, {dw, pf, pb, g.i32(1), g.i32(1), g.i32(1), act6()}, {pw});
    t = pw;
    c = l.out;
  }
  const auto pooled = g.temporary(OperandType::TENSOR_FLOAT32, {1, 1, 1, 1024});
  g.op(OperationType::AVERAGE_POOL_2D, {t, g.i32(2), g.i32(1), g.i32(1), g.i32(7), g.i32(7), g.i32(0)}, {pooled});
  const auto flat = g.temporary(OperandType::TENSOR_FLOAT32, {1, 1024});
  g.op(OperationType::RESHAPE, {pooled, g.i32_tensor({1, 1024})}, {flat});
  const auto logits = g.temporary(OperandType::TENSOR_FLOAT32, {1, 1001});
  const auto fw = weight();
  const auto fb = weight();
  g.op(OperationType::FULLY_CONNECTED, {flat, fw, fb, g.i32(0)}, {logits});
  const auto y = g.output(OperandType::TENSOR_FLOAT32, {1, 1001});
  g.op(OperationType::SOFTMAX, {logits, g.f32(1.0f)}, {y});
  return b.build();
}

/// A scratch directory with a token store, the driver's data-cache copies and one model /
/// data cache file.
struct bench_env {
  fs::path dir;
  int model_fd = -1, data_fd = -1;
  std::optional<ca::token_store> store;
  ca::cache_options mapped;  // with the driver's copies; default-constructed: read the file
  bench_env() {
    std::string t = (fs::temp_directory_path() / "nnhal-cache-bench.XXXXXX").string();
    if (!::mkdtemp(t.data())) std::abort();
    dir = t;
    model_fd = ::open((dir / "model").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    data_fd = ::open((dir / "data").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    auto s = ca::token_store::open(dir / "store", "bench");
    if (!s || model_fd < 0 || data_fd < 0) std::abort();
    store.emplace(std::move(*s));
    auto m = ca::data_mirror::open(dir / "copies", std::uint64_t{1} << 30);
    if (!m) std::abort();
    mapped.mirror = std::move(*m);
  }
  ~bench_env() {
    ::close(model_fd);
    ::close(data_fd);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::uint64_t cache_bytes() const {
    return static_cast<std::uint64_t>(::lseek(model_fd, 0, SEEK_END) + ::lseek(data_fd, 0, SEEK_END));
  }
};

const Model& model() {
  static const Model m = mobilenet_like();
  return m;
}
/// The model prepared once: what a driver saves (its model and the weights it packed).
const nnhal::exec::prepared_model& prepared() {
  static const auto pm = [] {
    auto p = nnhal::exec::prepare(model());
    if (!p) std::abort();
    return std::move(*p);
  }();
  return *pm;
}
const CacheToken token{1, 2, 3};

void BM_full_prepare(benchmark::State& state) {
  for (auto _ : state) {
    auto pm = nnhal::exec::prepare(model());
    if (!pm) state.SkipWithError(pm.err().message.c_str());
    benchmark::DoNotOptimize(pm);
  }
}

/// Saves the prepared model once (keeping the driver's copy too), then times
/// `read(model_fds, data_fds, store, options)` per iteration, `options` with the copy when
/// `use_copy`; bytes processed are the cache files' sizes.
template <class Read>
void read_cached(benchmark::State& state, bool use_copy, Read read) {
  bench_env env;
  const int m[] = {env.model_fd}, d[] = {env.data_fd};
  const ca::cache_options options = use_copy ? env.mapped : ca::cache_options{};
  if (auto st = ca::save_to_cache(prepared(), m, d, token, *env.store, env.mapped); !st) {
    state.SkipWithError(st.err().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto got = read(m, d, *env.store, options);
    if (!got) state.SkipWithError(got.err().message.c_str());
    benchmark::DoNotOptimize(got);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(env.cache_bytes() * state.iterations()));
}

/// One execution of `pm` on a zero input (pages of a mapped data cache come in here).
bool run_once(const nnhal::exec::prepared_model& pm) {
  static Request r = nnhal::test::make_request(model());
  return nnhal::exec::execute(pm, r).status == ErrorStatus::NONE;
}

void prepare_from_cache(benchmark::State& state, bool use_copy, bool and_run) {
  read_cached(state, use_copy,
              [&](std::span<const int> m, std::span<const int> d, ca::token_store& store, const ca::cache_options& o) {
                auto pm = ca::prepare_from_cache(m, d, token, store, o);
                if (pm && and_run && !run_once(**pm)) state.SkipWithError("execution failed");
                return pm;
              });
}
void BM_prepare_from_cache_mapped(benchmark::State& state) { prepare_from_cache(state, true, false); }
void BM_prepare_from_cache_read(benchmark::State& state) { prepare_from_cache(state, false, false); }
void BM_prepare_from_cache_mapped_and_run(benchmark::State& state) { prepare_from_cache(state, true, true); }

void BM_full_prepare_and_run(benchmark::State& state) {
  for (auto _ : state) {
    auto pm = nnhal::exec::prepare(model());
    if (!pm || !run_once(**pm)) state.SkipWithError("prepare or execution failed");
    benchmark::DoNotOptimize(pm);
  }
}

void BM_run(benchmark::State& state) {  // steady state, for the two above
  for (auto _ : state)
    if (!run_once(prepared())) state.SkipWithError("execution failed");
}

void BM_load_from_cache(benchmark::State& state) {  // read + hash + decode + validate, no prepare
  read_cached(state, false,
              [](std::span<const int> m, std::span<const int> d, ca::token_store& store, const ca::cache_options& o) {
                return ca::load_from_cache(m, d, token, store, o);
              });
}

void BM_save_to_cache(benchmark::State& state) {
  bench_env env;
  const int m[] = {env.model_fd}, d[] = {env.data_fd};
  for (auto _ : state) {
    auto st = ca::save_to_cache(prepared(), m, d, token, *env.store, state.range(0) ? env.mapped : ca::cache_options{});
    if (!st) state.SkipWithError(st.err().message.c_str());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(env.cache_bytes() * state.iterations()));
}

BENCHMARK(BM_full_prepare)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_prepare_from_cache_mapped)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_prepare_from_cache_read)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_load_from_cache)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_full_prepare_and_run)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_prepare_from_cache_mapped_and_run)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_run)->Unit(benchmark::kMillisecond);
// Argument: 1 also writes the driver's copy of the data cache.
BENCHMARK(BM_save_to_cache)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
