// nnhal-demo, the README's first command: MobileNet v1 1.0-224 built in code with the
// typed builder in float32, quant8 unsigned and quant8 signed, run through the example
// driver (examples/minimal_driver) as the NNAPI runtime would: capabilities, support
// query, prepare through a compilation cache (a second run prepares from it), timed
// executions with the per-operation breakdown. When ../shared/models exists next to the
// source tree, its real models run too and are checked against their expected outputs.
//
//   nnhal-demo [--cache-dir DIR] [--no-cache] [--threads N] [--repeat N]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cli.hpp"
#include "common/mobilenet_v1.hpp"
#include "common/run_support.hpp"
#include "minimal_driver/driver.hpp"

#if defined(NNHAL_DEMO_WITH_CORPUS)
#include "corpus/compare.hpp"
#include "corpus/corpus.hpp"
#endif

#ifndef NNHAL_DEMO_VERSION
#error "examples/CMakeLists.txt defines NNHAL_DEMO_VERSION"
#endif

namespace {

namespace fs = std::filesystem;
namespace types = nnhal::types;
namespace ex = nnhal::example;
using clock_type = std::chrono::steady_clock;

struct options {
  std::optional<fs::path> cache_dir;  // default: nnhal-demo-cache next to the executable
  bool cache = true;
  std::size_t threads = 1;
  std::size_t repeat = 5;
};

options parse_args(int argc, char** argv) {
  const ex::command_line cl("nnhal-demo", argc, argv);
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&] { return cl.value(a, i); };
    if (a == "--cache-dir") o.cache_dir = fs::path(value());
    else if (a == "--no-cache") o.cache = false;
    else if (a == "--threads") o.threads = cl.integer<std::size_t>(a, value(), 0);
    else if (a == "--repeat") o.repeat = cl.integer<std::size_t>(a, value(), 1);
    else if (a == "-h" || a == "--help") {
      std::printf("usage: nnhal-demo [--cache-dir DIR] [--no-cache] [--threads N] [--repeat N]\n");
      std::exit(0);
    } else cl.fail(types::str_cat("unknown argument '", a, "' (see --help)"));
  }
  return o;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// The demo's own note of how long preparing from scratch took, so that a later run
/// prepared from the cache can say how much faster it was.
std::optional<double> read_note(const fs::path& p) {
  std::ifstream f(p);
  double v = 0;
  if (f >> v) return v;
  return std::nullopt;
}
void write_note(const fs::path& p, double v) { std::ofstream(p) << v << "\n"; }

/// Prepares through the cache: from it when the files exist and the driver accepts them,
/// else from scratch (saving to it). Prints one line saying which and how long it took.
types::result<std::shared_ptr<const ex::prepared_model>> prepare(const ex::device& dev, const types::Model& model,
                                                                  const std::optional<fs::path>& cache_dir,
                                                                  const std::string& name) {
  const auto counts = dev.getNumberOfCacheFilesNeeded();
  const auto t0 = clock_type::now();
  if (!cache_dir || counts.first + counts.second == 0) {
    auto pm = dev.prepareModel(model, types::ExecutionPreference::FAST_SINGLE_ANSWER, types::Priority::MEDIUM, {});
    if (pm) std::printf("  prepared in %.1f ms (no cache)\n", ms_since(t0));
    return pm;
  }
  // The app names its model; the NNAPI runtime turns that into the cache token.
  const auto token = ex::make_token(types::str_cat("nnhal-demo ", NNHAL_DEMO_VERSION, " ", name));
  auto files = ex::cache_files::open(*cache_dir / "files", token, counts);
  if (!files) return std::move(files).err();
  const fs::path note = *cache_dir / ("prepare-ms-" + name);
  std::string miss;
  if (files->existed()) {
    auto cached = dev.prepareModelFromCache({}, files->model(), files->data(), token);
    const double ms = ms_since(t0);
    if (cached) {
      const auto first = read_note(note);
      if (first && ms > 0 && *first >= ms)
        std::printf("  prepared from the compilation cache in %.1f ms (%.1fx faster than the %.1f ms of preparing from scratch)\n",
                    ms, *first / ms, *first);
      else if (first)
        std::printf("  prepared from the compilation cache in %.1f ms (no faster than the %.1f ms of preparing from scratch)\n",
                    ms, *first);
      else
        std::printf("  prepared from the compilation cache in %.1f ms\n", ms);
      return cached;
    }
    miss = " after a cache miss (" + cached.err().message + ")";
  }
  auto pm = dev.prepareModel(model, types::ExecutionPreference::FAST_SINGLE_ANSWER, types::Priority::MEDIUM, {},
                             files->model(), files->data(), token);
  const double ms = ms_since(t0);
  if (pm) {
    write_note(note, ms);
    std::printf("  prepared in %.1f ms%s; %s\n", ms, miss.c_str(), (*pm)->cache_note().c_str());
  }
  return pm;
}

/// Runs `pm` once to warm up, then `repeat` timed times; prints latency and the breakdown.
bool run_timed(const ex::prepared_model& pm, const types::Request& request, std::size_t repeat) {
  ex::execution_args args;
  args.measure = types::MeasureTiming::YES;
  args.profile = true;
  auto warm = pm.executeSynchronously(request, args);  // first run: page faults, cold caches
  if (warm.status != types::ErrorStatus::NONE) {
    std::printf("  execution failed: %s: %s\n", std::string(types::to_string(warm.status)).c_str(),
                warm.message.c_str());
    return false;
  }
  std::vector<double> ms;
  ex::op_breakdown breakdown;
  std::uint64_t device_us = 0;
  for (std::size_t r = 0; r < repeat; ++r) {
    const auto t0 = clock_type::now();
    auto res = pm.executeSynchronously(request, args);
    ms.push_back(ms_since(t0));
    if (res.status != types::ErrorStatus::NONE) return false;
    breakdown.add(res.profile);
    device_us += res.timing.timeOnDevice;
  }
  ex::print_latency(stdout, ex::percentiles(ms));
  std::printf("  HAL timing: %.3f ms on device per run (mean)\n",
              static_cast<double>(device_us) / 1e3 / static_cast<double>(repeat));
  breakdown.print(stdout, "    ");
  return true;
}

template <types::element E>
std::optional<std::size_t> run_mobilenet(const ex::device& dev, const options& o,
                                         const std::optional<fs::path>& cache_dir, const char* tag,
                                         const char* short_tag) {
  std::printf("\n[MobileNet v1 1.0-224, %s]\n", tag);
  const auto t0 = clock_type::now();
  auto net = nnhal::examples::mobilenet_v1<E>({.seed = 1});
  if (!net) {
    std::printf("  build failed: %s\n", net.err().message.c_str());
    return std::nullopt;
  }
  std::printf("  built with the typed builder in %.1f ms: %u operations, %.0f M multiply-adds\n", ms_since(t0),
              net->operations, static_cast<double>(net->macs) / 1e6);
  auto supported = dev.getSupportedOperations(net->model);
  std::size_t n_supported = 0;
  if (supported)
    for (bool b : *supported) n_supported += b;
  std::printf("  supported operations: %zu of %zu\n", n_supported, net->model.main.operations.size());
  if (!supported || n_supported != net->model.main.operations.size()) return std::nullopt;

  auto pm = prepare(dev, net->model, cache_dir, types::str_cat("mobilenet_v1-", short_tag));
  if (!pm) {
    std::printf("  prepare failed: %s\n", pm.err().message.c_str());
    return std::nullopt;
  }
  const auto input = nnhal::examples::mobilenet_v1_input<E>(*net, 1);
  std::vector<std::uint8_t> in_bytes(input.size() * sizeof(typename E::storage));
  std::memcpy(in_bytes.data(), input.data(), in_bytes.size());
  std::size_t classes = net->output_dims[1];
  auto req = ex::make_request(net->model, {in_bytes}, {classes * sizeof(typename E::storage)});
  if (!run_timed(**pm, req.request, o.repeat)) return std::nullopt;
  // The four execution styles of the HAL on the same request: same outputs, their latency.
  const auto reference = std::vector<std::byte>(req.outputs[0].bytes().begin(), req.outputs[0].bytes().end());
  std::printf("  execution styles (best of 3):");
  bool same = true;
  for (auto style : {ex::execution_style::sync, ex::execution_style::async, ex::execution_style::fenced,
                     ex::execution_style::burst}) {
    ex::style_runner runner(**pm, style);
    double best = 0;
    for (int k = 0; k < 3; ++k) {
      const auto t1 = clock_type::now();
      const auto res = runner.run(req.request, {});
      const double ms = ms_since(t1);
      if (res.status != types::ErrorStatus::NONE) {
        std::printf("\n  %s failed: %s\n", std::string(ex::to_string(style)).c_str(), res.message.c_str());
        return std::nullopt;
      }
      best = k == 0 ? ms : std::min(best, ms);
      same = same && std::equal(reference.begin(), reference.end(), req.outputs[0].bytes().begin());
    }
    std::printf("  %s %.2f ms", std::string(ex::to_string(style)).c_str(), best);
  }
  std::printf("\n  outputs of every style %s\n", same ? "identical" : "DIFFER");
  if (!same) return std::nullopt;
  const auto probs = ex::real_values(E::hal, req.outputs[0].bytes(), net->output_quant.scale,
                                     net->output_quant.zero_point, classes);
  std::printf("  top-5 classes (random weights, so only agreement matters):");
  const auto top = ex::top_k(probs, 5);
  for (auto i : top) std::printf("  %zu (%.3f)", i, probs[i]);
  std::printf("\n");
  return top.empty() ? std::nullopt : std::optional(top.front());
}

#if defined(NNHAL_DEMO_WITH_CORPUS)
/// The real models of ../shared/models through the driver, checked with CTS tolerance.
int run_real_models(const ex::device& dev, const fs::path& dir, const std::optional<fs::path>& cache_dir) {
  std::printf("\n[real models in %s]\n", dir.string().c_str());
  int failures = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto models = nnhal::corpus::load_corpus(f, f.filename().string());
    if (!models) {
      std::printf("  %s: cannot load: %s\n", f.filename().string().c_str(), models.err().message.c_str());
      ++failures;
      continue;
    }
    for (const auto& tm : *models) {
      std::printf(" %s (%zu operations)\n", tm.name.c_str(), tm.model.main.operations.size());
      auto pm = prepare(dev, tm.model, cache_dir, "real-" + tm.name);
      if (!pm) {
        std::printf("  FAIL: prepare: %s\n", pm.err().message.c_str());
        ++failures;
        continue;
      }
      auto rb = nnhal::corpus::make_request(tm);
      const auto t0 = clock_type::now();
      auto res = (*pm)->executeSynchronously(rb.request, {});
      const double ms = ms_since(t0);
      if (res.status != types::ErrorStatus::NONE) {
        std::printf("  FAIL: %s: %s\n", std::string(types::to_string(res.status)).c_str(), res.message.c_str());
        ++failures;
        continue;
      }
      std::vector<std::span<const std::byte>> actual;
      for (const auto& m : rb.outputs) actual.emplace_back(m.bytes());
      const auto check = nnhal::corpus::compare_outputs(tm, actual, res.outputShapes);
      std::printf("  %s in %.1f ms%s%s\n", check.ok ? "PASS: expected outputs within CTS tolerance" : "FAIL", ms,
                  check.ok ? "" : ": ", check.message.c_str());
      failures += !check.ok;
    }
  }
  return failures;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const options o = parse_args(argc, argv);
  std::printf("nnhal %s demo: an Android NN HAL 1.3 driver built on nnhal runs MobileNet v1\n", NNHAL_DEMO_VERSION);

  std::optional<fs::path> cache_dir;
  if (o.cache) {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    cache_dir = o.cache_dir ? *o.cache_dir : (ec ? fs::temp_directory_path() : exe.parent_path()) / "nnhal-demo-cache";
  }
  ex::device_config config;
  config.threads = o.threads;
  if (cache_dir) config.cache_store_dir = (*cache_dir / "driver").string();
  const auto t0 = clock_type::now();
  auto dev = ex::device::create(config);
  if (!dev) {
    std::fprintf(stderr, "nnhal-demo: device: %s\n", dev.err().message.c_str());
    return 1;
  }
  const auto& caps = (*dev)->getCapabilities();
  std::printf("device: %s, type CPU, %zu thread(s), created in %.1f ms\n", (*dev)->getVersionString().c_str(),
              o.threads, ms_since(t0));
  std::printf("capabilities (execTime relative to the CPU, measured once at start): float32 %.2f, relaxed %.2f, "
              "quant8 %.2f\n",
              ex::exec_time_of(caps, types::OperandType::TENSOR_FLOAT32),
              caps.relaxedFloat32toFloat16PerformanceTensor.execTime,
              ex::exec_time_of(caps, types::OperandType::TENSOR_QUANT8_ASYMM));
  const auto [n_model, n_data] = (*dev)->getNumberOfCacheFilesNeeded();
  if (cache_dir)
    std::printf("compilation cache: %s (%u model + %u data file(s) per model)\n", cache_dir->string().c_str(), n_model,
                n_data);

  int failures = 0;
  const auto top_f32 = run_mobilenet<types::f32>(**dev, o, cache_dir, "float32", "f32");
  const auto top_qu8 = run_mobilenet<types::qu8>(**dev, o, cache_dir, "quant8 unsigned", "qu8");
  const auto top_qs8 = run_mobilenet<types::qs8>(**dev, o, cache_dir, "quant8 signed", "qs8");
  failures += !top_f32 + !top_qu8 + !top_qs8;
  if (top_f32 && top_qu8 && top_qs8)
    std::printf("\ntop-1 class: float32 %zu, quant8 unsigned %zu, quant8 signed %zu (%s)\n", *top_f32, *top_qu8,
                *top_qs8, *top_f32 == *top_qu8 && *top_qu8 == *top_qs8 ? "all agree" : "they differ");

#if defined(NNHAL_DEMO_WITH_CORPUS)
  const fs::path shared = fs::path(NNHAL_SOURCE_DIR) / ".." / "shared" / "models";
  std::error_code ec;
  if (fs::is_directory(shared, ec)) failures += run_real_models(**dev, fs::weakly_canonical(shared, ec), cache_dir);
#endif
  std::printf("\n%s\n", failures ? "demo: FAILED" : "demo: done");
  return failures ? 1 : 0;
}
