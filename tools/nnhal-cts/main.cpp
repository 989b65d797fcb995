// nnhal-cts: runs the NNAPI conformance corpus (shared/cts, format nnhal-cts-json/1)
// against nnhal's execution path and reports PASS / FAIL / ERROR / CRASH / UNSUPPORTED
// per model.
//
//   nnhal-cts [--report FILE] [--filter REGEX] [--mode sync|async|fenced|burst|cache|all]
//             [--kernels best|no-amx|avx2|portable] [--jobs N] [--timeout SEC] [--check-versions]
//             [--no-variants] [--mutate SEED] [--shard K/N] [--verbose] PATH...
//
// Each model runs in its own forked child (the parent only loads and converts files),
// so a crash or a hang in the driver costs one model, not the run.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli.hpp"
#include "corpus/cache_roundtrip.hpp"
#include "corpus/compare.hpp"
#include "corpus/corpus.hpp"
#include "nnhal/exec/async.hpp"
#include "nnhal/exec/burst.hpp"
#include "nnhal/exec/driver.hpp"
#include "nnhal/exec/fenced.hpp"
#include "nnhal/ops/simd/cpu.hpp"

namespace {

namespace fs = std::filesystem;
namespace corpus = nnhal::corpus;
namespace types = nnhal::types;
using clock_type = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------
// Command line.

// Execution styles a model runs in (--mode); `all` is every one of them. `cache` is a
// sync execution of the model as prepared from the compilation cache (prepare, save to
// scratch cache files, prepare_from_cache: corpus/cache_roundtrip.hpp).
enum class style : std::uint8_t { sync, async, fenced, burst, cache };
constexpr style all_styles[] = {style::sync, style::async, style::fenced, style::burst, style::cache};

const char* style_name(style s) {
  switch (s) {
    case style::sync: return "sync";
    case style::async: return "async";
    case style::fenced: return "fenced";
    case style::burst: return "burst";
    case style::cache: return "cache";
  }
  return "?";
}

struct options {
  std::optional<std::string> report;
  std::vector<style> styles{style::sync};
  std::optional<std::regex> filter;
  unsigned jobs = 1;
  double timeout_seconds = 60.0;
  bool verbose = false;
  bool check_versions = false;
  std::optional<nnhal::simd::cpu_features> kernels;  // --kernels no-amx|avx2|portable: allow_only() these
  bool variants = true;   // --no-variants turns them off
  std::optional<unsigned> mutate;  // --mutate SEED: hostile variations of every model
  unsigned shard = 0, shards = 1;  // --shard K/N: every Nth model from the Kth on
  std::vector<std::string> paths;
};

[[noreturn]] void usage_error(const std::string& message) { nnhal::example::usage_error("nnhal-cts", message); }

void print_help() {
  std::printf(
      "usage: nnhal-cts [--report FILE] [--filter REGEX] [--mode sync|async|fenced|burst|cache|all]\n"
      "                 [--kernels best|no-amx|avx2|portable] [--jobs N] [--timeout SEC] [--check-versions]\n"
      "                 [--no-variants] [--mutate SEED] [--shard K/N] [--verbose] PATH...\n"
      "\n"
      "PATH is a corpus .json file or a directory searched recursively for *.json\n"
      "(index.json files are skipped).\n"
      "  --report FILE     write a JSON report\n"
      "  --filter REGEX    run only models whose name matches (std::regex, ECMAScript, search)\n"
      "  --mode MODE       execution style: sync (default), async (callback), fenced (waits\n"
      "                    for a fence, signals one), burst (memories cached by token), cache\n"
      "                    (sync, on the model prepared again from its compilation cache), or\n"
      "                    all: PASS only if every style passes; the message names the style\n"
      "                    that did not\n"
      "  --kernels K       best (default): the kernels this CPU runs best; no-amx: those of\n"
      "                    this CPU without its AMX tiles; avx2: those of a CPU with AVX2\n"
      "                    and FMA but no AVX-512; portable: those of a CPU with neither\n"
      "                    (xsimd for this build's instruction set)\n"
      "  --jobs N          models run at once, each in its own process (default: CPUs)\n"
      "  --timeout SEC     per-model time limit; a model over it is a CRASH (default 60)\n"
      "  --check-versions  FAIL models whose validate_model version differs from\n"
      "                    minSupportedVersion (default: only noted in the message)\n"
      "  --no-variants     run each model as stored only, not also with unknown output\n"
      "                    shapes and as TENSOR_QUANT8_ASYMM_SIGNED\n"
      "  --mutate SEED     hostile input: run each model once with random changes (seeded by\n"
      "                    SEED and the model's place in the run) to its scalar constants,\n"
      "                    quantization parameters, input extents and input values (NaN,\n"
      "                    infinities, huge floats, int32 extremes); outputs are not\n"
      "                    compared, and only a crash, hang or uncaught exception fails\n"
      "  --shard K/N       run only models K, K + N, K + 2N, ... (0 <= K < N) of those the\n"
      "                    filter selects, in run order; a model is mutated as in the whole run\n"
      "  --verbose         one line per model that did not pass\n");
}

options parse_args(int argc, char** argv) {
  options opt;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  opt.jobs = cpus > 0 ? static_cast<unsigned>(cpus) : 1u;
  bool only_paths = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_paths || arg.empty() || arg[0] != '-' || arg == "-") {
      opt.paths.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_paths = true;
      continue;
    }
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) == 0) {
      if (auto eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) usage_error("option " + arg + " needs a value");
      return argv[++i];
    };
    auto flag = [&]() {
      if (inline_value) usage_error("option " + arg + " takes no value");
    };
    if (arg == "--report") {
      opt.report = value();
      if (opt.report->empty()) usage_error("option --report needs a file name");
    } else if (arg == "--filter") {
      const std::string text = value();
      try {
        opt.filter.emplace(text, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        usage_error("bad --filter regex '" + text + "': " + e.what());
      }
    } else if (arg == "--mode") {
      const std::string mode = value();
      opt.styles.clear();
      for (style s : all_styles)
        if (mode == "all" || mode == style_name(s)) opt.styles.push_back(s);
      if (opt.styles.empty()) usage_error("unknown mode " + mode + " (expected sync, async, fenced, burst, cache or all)");
    } else if (arg == "--kernels") {
      const std::string k = value();
      if (k != "best" && k != "no-amx" && k != "avx2" && k != "portable")
        usage_error("unknown --kernels " + k + " (expected best, no-amx, avx2 or portable)");
      if (k == "no-amx") {
        opt.kernels = nnhal::simd::detected_cpu();
        opt.kernels->amx_int8 = false;
      } else if (k == "avx2") opt.kernels = nnhal::simd::avx2_only();
      else if (k == "portable") opt.kernels = nnhal::simd::cpu_features{};
      else opt.kernels.reset();
    } else if (arg == "--jobs" || arg == "-j") {
      const std::string text = value();
      char* end = nullptr;
      errno = 0;
      const long n = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno != 0 || n < 1 || n > 1024)
        usage_error("bad --jobs value '" + text + "' (expected 1..1024)");
      opt.jobs = static_cast<unsigned>(n);
    } else if (arg == "--timeout") {
      const std::string text = value();
      char* end = nullptr;
      errno = 0;
      const double s = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || errno != 0 || !(s > 0) || s > 1e6)
        usage_error("bad --timeout value '" + text + "' (expected seconds > 0)");
      opt.timeout_seconds = s;
    } else if (arg == "--verbose" || arg == "-v") {
      flag();
      opt.verbose = true;
    } else if (arg == "--no-variants") {
      flag();
      opt.variants = false;
    } else if (arg == "--mutate") {
      const std::string text = value();
      char* end = nullptr;
      errno = 0;
      const unsigned long n = std::strtoul(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-' || n > 0xFFFFFFFFul)
        usage_error("bad --mutate seed '" + text + "' (expected 0..4294967295)");
      opt.mutate = static_cast<unsigned>(n);
    } else if (arg == "--shard") {
      const std::string text = value();
      const auto slash = text.find('/');
      unsigned long k = 0, n = 0;
      bool ok = slash != std::string::npos && slash > 0 && slash + 1 < text.size() &&
                text.find_first_not_of("0123456789/") == std::string::npos && text.find('/', slash + 1) == std::string::npos;
      if (ok) {
        errno = 0;
        k = std::strtoul(text.substr(0, slash).c_str(), nullptr, 10);
        n = std::strtoul(text.substr(slash + 1).c_str(), nullptr, 10);
        ok = errno == 0 && n >= 1 && n <= 1000000 && k < n;
      }
      if (!ok) usage_error("bad --shard '" + text + "' (expected K/N with 0 <= K < N <= 1000000)");
      opt.shard = static_cast<unsigned>(k);
      opt.shards = static_cast<unsigned>(n);
    } else if (arg == "--check-versions") {
      flag();
      opt.check_versions = true;
    } else if (arg == "--help" || arg == "-h") {
      print_help();
      std::exit(0);
    } else {
      usage_error("unknown option " + arg);
    }
  }
  if (opt.paths.empty()) usage_error("no PATH given (a corpus .json file or directory)");
  for (const auto& p : opt.paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) usage_error("path " + p + " does not exist");
  }
  return opt;
}

// ---------------------------------------------------------------------------------
// Statuses and per-model results.

enum class status : std::uint8_t { PASS = 0, FAIL = 1, ERROR = 2, CRASH = 3, UNSUPPORTED = 4 };

const char* status_name(status s) {
  switch (s) {
    case status::PASS: return "PASS";
    case status::FAIL: return "FAIL";
    case status::ERROR: return "ERROR";
    case status::CRASH: return "CRASH";
    case status::UNSUPPORTED: return "UNSUPPORTED";
  }
  return "?";
}

struct model_result {
  std::string file;
  std::string name;
  status st = status::ERROR;
  std::vector<std::string> operations;
  std::vector<std::string> operandTypes;
  std::string message;
  bool version_note = false;  // validate_model's version differs from minSupportedVersion
};

struct run_outcome {
  status st = status::PASS;
  std::string message;
  bool version_note = false;
};

// ---------------------------------------------------------------------------------
// One model, in the child process.

// ---------------------------------------------------------------------------------
// The execution styles, each returning the outcome sync execution would.

/// One runtime per child process (children are forked before any thread exists).
nnhal::exec::runtime& child_runtime() {
  static nnhal::exec::runtime rt({.workers = 2});
  return rt;
}

/// Whether every tensor output has known dimensions (a fenced execution requires it).
bool outputs_fully_specified(const types::Model& m, const types::Request& r) {
  for (std::size_t k = 0; k < r.outputs.size() && k < m.main.outputIndexes.size(); ++k) {
    const auto& o = m.main.operands[m.main.outputIndexes[k]];
    const auto& dims = r.outputs[k].dimensions.empty() ? o.dimensions : r.outputs[k].dimensions;
    if (types::is_tensor(o.type) && (dims.empty() || std::find(dims.begin(), dims.end(), 0u) != dims.end()))
      return false;
  }
  return true;
}

nnhal::exec::execution_outcome failed(const nnhal::types::error& e) {
  nnhal::exec::execution_outcome out;
  out.status = e.status;
  out.message = e.message;
  return out;
}

nnhal::exec::execution_outcome run_style(style st, const std::shared_ptr<const nnhal::exec::prepared_model>& pm,
                                         types::Request& request) {
  namespace ex = nnhal::exec;
  switch (st) {
    case style::sync:
    case style::cache: return ex::execute(*pm, request);
    case style::async: {
      struct slot {
        std::atomic<bool> done{false};
        ex::execution_outcome out;
      };
      auto s = std::make_shared<slot>();
      (void)ex::execute_async(child_runtime(), pm, request, {}, [s](ex::execution_outcome o) {
        s->out = std::move(o);
        s->done.store(true, std::memory_order_release);
        s->done.notify_one();
      });
      s->done.wait(false, std::memory_order_acquire);
      return std::move(s->out);
    }
    case style::fenced: {
      // Wait for one fence the client signals right after the launch, then poll the
      // returned fence's descriptor as a client would.
      auto gate = ex::event_fence::make();
      if (!gate) return failed(gate.err());
      auto r = ex::execute_fenced(child_runtime(), pm, request, {*gate}, {});
      if (!r) return failed(r.err());
      (*gate)->signal();
      const int fd = r->sync_fence->dup_fd();
      if (fd < 0) return failed({types::ErrorStatus::GENERAL_FAILURE, "cannot duplicate the sync fence"});
      pollfd p{fd, POLLIN, 0};
      while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
      }
      ::close(fd);
      const auto info = r->callback->getExecutionInfo();
      auto out = r->callback->outcome();
      if (!out) return failed({types::ErrorStatus::GENERAL_FAILURE, "the sync fence signalled before the outcome was set"});
      if (info.status != out->status)
        return failed({types::ErrorStatus::GENERAL_FAILURE, "getExecutionInfo disagrees with the outcome"});
      return std::move(*out);
    }
    case style::burst: {
      // Twice: first with the memories and a token each, then with only the tokens, so
      // the second execution runs on the burst's cached memories.
      auto b = ex::burst::configure(child_runtime(), pm);
      if (!b) return failed(b.err());
      std::vector<std::int64_t> tokens(request.pools.size());
      for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::int64_t>(i);
      auto first = (*b)->execute_synchronously(request, tokens, {});
      if (first.status != types::ErrorStatus::NONE) return first;
      types::Request slim = request;
      for (auto& p : slim.pools) p = types::Memory{};
      return (*b)->execute_synchronously(slim, tokens, {});
    }
  }
  return failed({types::ErrorStatus::GENERAL_FAILURE, "unknown style"});
}

run_outcome run_once(const corpus::test_model& tm, std::optional<types::HalVersion>* version_out,
                     const std::vector<style>& styles) {
  using types::ErrorStatus;
  auto rejected = [&](std::string_view stage, ErrorStatus st, const std::string& message) -> run_outcome {
    if (tm.expectFailure) return {status::PASS, {}};
    std::string m = std::string(stage) + " failed: " + std::string(types::to_string(st));
    if (!message.empty()) m += ": " + message;
    return {status::ERROR, std::move(m)};
  };

  auto version = types::validate_model(tm.model);
  if (!version) return rejected("validate_model", version.err().status, version.err().message);
  if (version_out) *version_out = *version;

  auto supported = nnhal::exec::supported_operations(tm.model);
  if (!supported) return rejected("supported_operations", supported.err().status, supported.err().message);
  const auto& ops = tm.model.main.operations;
  if (supported->size() != ops.size())
    return {status::ERROR, "supported_operations returned " + std::to_string(supported->size()) + " flags for " +
                               std::to_string(ops.size()) + " operations"};
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!(*supported)[i])
      return {status::UNSUPPORTED,
              "operation " + std::to_string(i) + " (" + std::string(types::to_string(ops[i].type)) + ") not supported"};

  auto prepared = nnhal::exec::prepare(tm.model);
  if (!prepared) return rejected("prepare", prepared.err().status, prepared.err().message);
  if (!*prepared) return {status::ERROR, "prepare returned no prepared model"};

  // With several styles, a message names the style that did not pass.
  for (const style st : styles) {
    const std::string prefix = styles.size() > 1 ? std::string(style_name(st)) + ": " : std::string();
    auto named = [&](run_outcome r) {
      if (r.st != status::PASS) r.message = prefix + r.message;
      return r;
    };
    std::shared_ptr<const nnhal::exec::prepared_model> pm = *prepared;
    if (st == style::cache) {
      auto scratch = corpus::cache_roundtrip::create();
      if (!scratch) return named({status::ERROR, "cache scratch directory: " + scratch.err().message});
      auto cached = scratch->run(tm.model);
      if (!cached) return named(rejected("cache round trip", cached.err().status, cached.err().message));
      pm = std::move(*cached);
    }
    corpus::request_buffers rb = corpus::make_request(tm);
    const auto outcome = run_style(st, pm, rb.request);
    if (st == style::fenced && !tm.expectFailure && !outputs_fully_specified(tm.model, rb.request)) {
      // executeFenced needs fully specified outputs; rejecting the request is the right answer.
      if (outcome.status == ErrorStatus::INVALID_ARGUMENT) continue;
      return named({status::FAIL, "expected INVALID_ARGUMENT for outputs of unspecified dimensions, got " +
                                      std::string(types::to_string(outcome.status))});
    }
    if (outcome.status != ErrorStatus::NONE) {
      auto r = rejected("execute", outcome.status, outcome.message);
      if (r.st == status::PASS) continue;  // an expected failure
      return named(std::move(r));
    }
    if (tm.expectFailure)
      return named({status::ERROR, "expected a failure, but validate_model, prepare and execute all succeeded"});

    std::vector<std::span<const std::byte>> actual;
    for (const auto& m : rb.outputs) actual.emplace_back(m.bytes());
    auto cmp = corpus::compare_outputs(tm, actual, outcome.outputShapes);
    if (!cmp.ok) return named({status::FAIL, std::move(cmp.message)});
  }
  return {status::PASS, {}};
}


/// `in` with hostile changes (--mutate), from `seed`: int32 and float32 scalar constants
/// set to edge values (0, negatives, huge, NaN, infinities), quantization scales and zero
/// points set out of the usual ranges, input extents set to 0, 1 or one off (the input's
/// bytes resized to match; the model's extents then often unknown), and a few elements
/// of float and int32 inputs set to special values (NaN, infinities, huge, subnormal,
/// the int32 extremes: float-to-int conversions and indices read from tensors). Expected
/// outputs are ignored: only how the driver copes matters.
corpus::test_model mutated(const corpus::test_model& in, std::uint32_t seed) {
  using types::OperandLifeTime;
  using types::OperandType;
  corpus::test_model tm = in;
  std::mt19937 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto pick = [&](const auto& values) { return values[rng() % std::size(values)]; };
  auto& operands = tm.model.main.operands;
  for (auto& o : operands) {
    if (o.lifetime == OperandLifeTime::CONSTANT_COPY && o.location.length == 4 &&
        std::size_t{o.location.offset} + 4 <= tm.model.operandValues.size()) {
      auto* at = reinterpret_cast<std::uint8_t*>(tm.model.operandValues.data()) + o.location.offset;
      if (o.type == OperandType::INT32 && chance(0.25)) {
        constexpr std::int32_t edges[] = {-2, -1, 0, 1, 2, 3, 5, 64, 1 << 20, std::numeric_limits<std::int32_t>::max()};
        const std::int32_t v = pick(edges);
        std::memcpy(at, &v, 4);
      } else if (o.type == OperandType::FLOAT32 && chance(0.2)) {
        const float edges[] = {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(), 1e30f, -1e-30f};
        const float v = pick(edges);
        std::memcpy(at, &v, 4);
      }
    }
    if (o.scale != 0.0f && chance(0.05)) {
      constexpr float scales[] = {1e-30f, 1e30f, 1e-9f, 3.0f};
      o.scale = pick(scales);
    }
    if (o.scale != 0.0f && chance(0.05)) o.zeroPoint = static_cast<std::int32_t>(rng() % 300) - 20;
  }
  for (std::size_t k = 0; k < tm.inputs.size() && k < tm.model.main.inputIndexes.size(); ++k) {
    auto& ti = tm.inputs[k];
    if (ti.omitted || ti.dimensions.empty() || !chance(0.3)) continue;
    std::size_t before = 1;
    for (auto d : ti.dimensions) before *= d;
    const std::size_t element = before ? ti.bytes.size() / before : 0;
    auto& d = ti.dimensions[rng() % ti.dimensions.size()];
    switch (rng() % 4) {
      case 0: d = 0; break;
      case 1: d = 1; break;
      case 2: d = d + 1; break;
      default: d = d > 0 ? d - 1 : 0; break;
    }
    std::size_t after = 1;
    for (auto e : ti.dimensions) after *= e;
    if (element) ti.bytes.resize(after * element);
    const std::uint32_t index = tm.model.main.inputIndexes[k];
    if (index < operands.size() && chance(0.7)) {
      auto& dims = operands[index].dimensions;
      dims.assign(dims.size(), 0);  // unknown in the model: the request's extents decide
    }
  }
  // Input values, from a stream of their own (the changes above stay as they were for a
  // seed): about a third of the float and int32 inputs get one to four special elements.
  std::mt19937 value_rng(seed ^ 0x9e3779b9u);
  for (std::size_t k = 0; k < tm.inputs.size() && k < tm.model.main.inputIndexes.size(); ++k) {
    auto& ti = tm.inputs[k];
    if (ti.omitted || ti.bytes.empty() || value_rng() % 3 != 0) continue;
    std::vector<std::array<std::uint8_t, 4>> specials;
    auto add = [&specials](const auto v) {
      std::array<std::uint8_t, 4> b{};
      std::memcpy(b.data(), &v, sizeof v);
      specials.push_back(b);
    };
    std::size_t element = 4;
    switch (ti.type) {
      case OperandType::TENSOR_FLOAT32:
        for (float v : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), 3e38f, -3e38f, 1e-40f, -0.0f})
          add(v);
        break;
      case OperandType::TENSOR_FLOAT16:  // binary16 bit patterns: NaN, +-inf, +-65504, a subnormal
        element = 2;
        for (std::uint16_t v : {0x7e00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001}) add(v);
        break;
      case OperandType::TENSOR_INT32:
        for (std::int32_t v : {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), -1,
                               1 << 30})
          add(v);
        break;
      default: continue;
    }
    const std::size_t n = ti.bytes.size() / element;
    if (n == 0) continue;
    for (std::size_t c = 1 + value_rng() % 4; c-- > 0;)
      std::memcpy(ti.bytes.data() + (value_rng() % n) * element, specials[value_rng() % specials.size()].data(),
                  element);
  }
  for (auto& o : tm.outputs) o.isIgnored = true;
  return tm;
}

run_outcome run_model(const corpus::test_model& tm, bool check_versions, bool with_variants,
                      const std::vector<style>& styles) {
  std::optional<types::HalVersion> version;
  run_outcome base = run_once(tm, &version, styles);
  if (base.st == status::PASS && !tm.expectFailure && version && tm.minSupportedVersion != types::HalVersion::UNKNOWN &&
      *version != tm.minSupportedVersion) {
    base.version_note = true;
    base.message = "validate_model reports " + std::string(types::to_string(*version)) +
                   ", the corpus says minSupportedVersion " + std::string(types::to_string(tm.minSupportedVersion));
    if (check_versions) base.st = status::FAIL;
  }
  if (base.st != status::PASS || tm.expectFailure || !with_variants) return base;

  std::vector<corpus::test_model> variants;
  if (auto v = corpus::dynamic_output_shape_variant(tm)) variants.push_back(std::move(*v));
  if (auto v = corpus::quant_coupling_variant(tm)) variants.push_back(std::move(*v));
  run_outcome total = base;  // PASS; its message may carry a version note
  std::string failures;
  for (const auto& v : variants) {
    run_outcome r = run_once(v, nullptr, styles);
    if (r.st == status::PASS) continue;
    if (r.st == status::UNSUPPORTED) {
      r.st = status::FAIL;  // the base model is supported, so its variant must be too
      r.message += " (the base model is supported)";
    }
    if (total.st == status::PASS) total.st = r.st;
    if (!failures.empty()) failures += "; ";
    failures += v.variant + " variant: " + r.message;
  }
  if (!failures.empty()) total.message = total.message.empty() ? failures : failures + "; " + total.message;
  return total;
}

// ---------------------------------------------------------------------------------
// Child records: magic, status, flags, length, message.

constexpr char record_magic[4] = {'N', 'C', 'T', 'S'};
constexpr std::size_t max_message = 2000;

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

void write_record(int fd, const run_outcome& r) {
  std::string msg = r.message.substr(0, max_message);
  std::string rec(record_magic, 4);
  rec.push_back(static_cast<char>(r.st));
  rec.push_back(static_cast<char>(r.version_note ? 1 : 0));
  const auto len = static_cast<std::uint32_t>(msg.size());
  rec.append(reinterpret_cast<const char*>(&len), sizeof len);
  rec += msg;
  write_all(fd, rec.data(), rec.size());
}

std::optional<run_outcome> read_record(const std::string& buf) {
  if (buf.size() < 10 || std::memcmp(buf.data(), record_magic, 4) != 0) return std::nullopt;
  std::uint32_t len = 0;
  std::memcpy(&len, buf.data() + 6, sizeof len);
  if (buf.size() != 10 + std::size_t{len}) return std::nullopt;
  const auto st = static_cast<std::uint8_t>(buf[4]);
  if (st > static_cast<std::uint8_t>(status::UNSUPPORTED)) return std::nullopt;
  return run_outcome{static_cast<status>(st), buf.substr(10), buf[5] != 0};
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string s = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  if (const char* desc = sigdescr_np(sig)) s += std::string(" (") + desc + ")";
  return s;
}

// ---------------------------------------------------------------------------------
// The scheduler: up to `jobs` children at once, each with a deadline.

struct child {
  pid_t pid = -1;
  int fd = -1;
  std::size_t result_index = 0;
  clock_type::time_point deadline;
  std::string buf;
  bool eof = false;
};

class scheduler {
 public:
  scheduler(std::vector<model_result>& results, const options& opt) : results_(results), opt_(opt) {}

  /// Runs `tm` in a child; `ordinal` is its place among the models the filter selects
  /// (what --mutate seeds with, so a shard mutates a model as the whole run does).
  void spawn(const corpus::test_model& tm, std::size_t result_index, std::size_t ordinal) {
    while (running_.size() >= opt_.jobs) service();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      finish_without_child(result_index, std::string("pipe failed: ") + std::strerror(errno));
      return;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      finish_without_child(result_index, std::string("fork failed: ") + std::strerror(errno));
      return;
    }
    if (pid == 0) {
      ::close(fds[0]);
      ::signal(SIGPIPE, SIG_IGN);
      run_outcome r;
      try {
        if (opt_.mutate) {
          // Any outcome but a crash is a pass: refusals name what they refuse.
          r = run_model(mutated(tm, *opt_.mutate * 2654435761u + static_cast<std::uint32_t>(ordinal)), false, false,
                        opt_.styles);
          if (r.st != status::CRASH) r = {status::PASS, "mutated: " + r.message, false};
        } else {
          r = run_model(tm, opt_.check_versions, opt_.variants, opt_.styles);
        }
      } catch (const std::exception& e) {
        r = {status::CRASH, std::string("uncaught exception: ") + e.what(), false};
      } catch (...) {
        r = {status::CRASH, "uncaught exception of unknown type", false};
      }
      write_record(fds[1], r);
      ::_exit(0);
    }
    ::close(fds[1]);
    child c;
    c.pid = pid;
    c.fd = fds[0];
    c.result_index = result_index;
    c.deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                         std::chrono::duration<double>(opt_.timeout_seconds));
    running_.push_back(std::move(c));
  }

  void drain() {
    while (!running_.empty()) service();
  }

 private:
  void finish_without_child(std::size_t index, std::string message) {
    results_[index].st = status::ERROR;
    results_[index].message = std::move(message);
  }

  void finalize(child& c, int wstatus, bool timed_out) {
    model_result& r = results_[c.result_index];
    if (auto rec = read_record(c.buf)) {
      r.st = rec->st;
      r.message = std::move(rec->message);
      r.version_note = rec->version_note;
    } else if (timed_out) {
      r.st = status::CRASH;
      char buf[64];
      std::snprintf(buf, sizeof buf, "timeout: no result after %g s", opt_.timeout_seconds);
      r.message = buf;
    } else if (WIFSIGNALED(wstatus)) {
      r.st = status::CRASH;
      r.message = "crashed: killed by " + signal_name(WTERMSIG(wstatus));
    } else {
      r.st = status::CRASH;
      r.message = "child exited with status " + std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) +
                  " without a result";
    }
    if (c.fd >= 0) ::close(c.fd);
    c.fd = -1;
  }

  void service() {
    std::vector<pollfd> pfds;
    std::vector<std::size_t> owners;
    auto now = clock_type::now();
    auto wait = std::chrono::milliseconds(1000);
    bool any_eof = false;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const child& c = running_[i];
      if (!c.eof) {
        pfds.push_back(pollfd{c.fd, POLLIN, 0});
        owners.push_back(i);
      } else {
        any_eof = true;
      }
      auto left = std::chrono::ceil<std::chrono::milliseconds>(c.deadline - now);
      wait = std::min(wait, std::max(left, std::chrono::milliseconds(0)));
    }
    if (any_eof) wait = std::min(wait, std::chrono::milliseconds(5));
    const int n = ::poll(pfds.data(), pfds.size(), static_cast<int>(wait.count()));
    if (n > 0) {
      for (std::size_t k = 0; k < pfds.size(); ++k) {
        if (pfds[k].revents == 0) continue;
        child& c = running_[owners[k]];
        char buf[4096];
        const ssize_t got = ::read(c.fd, buf, sizeof buf);
        if (got > 0) {
          if (c.buf.size() < (1u << 20)) c.buf.append(buf, static_cast<std::size_t>(got));
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
          c.eof = true;
        }
      }
    }
    now = clock_type::now();
    for (std::size_t i = 0; i < running_.size();) {
      child& c = running_[i];
      bool done = false;
      if (c.eof) {
        int ws = 0;
        const pid_t w = ::waitpid(c.pid, &ws, WNOHANG);
        if (w == c.pid || w < 0) {
          finalize(c, ws, false);
          done = true;
        }
      }
      if (!done && now >= c.deadline) {
        ::kill(c.pid, SIGKILL);
        int ws = 0;
        while (::waitpid(c.pid, &ws, 0) < 0 && errno == EINTR) {
        }
        finalize(c, ws, true);
        done = true;
      }
      if (done) {
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }

  std::vector<model_result>& results_;
  const options& opt_;
  std::vector<child> running_;
};

// ---------------------------------------------------------------------------------
// Corpus files.

struct corpus_path {
  fs::path path;
  std::string display;
};

std::vector<corpus_path> collect_files(const options& opt, std::vector<model_result>& results) {
  std::vector<corpus_path> files;
  // The report file may live inside a searched directory: never read it as a corpus file.
  std::error_code rep_ec;
  const fs::path report = opt.report ? fs::weakly_canonical(*opt.report, rep_ec) : fs::path();
  for (const auto& given : opt.paths) {
    std::error_code ec;
    if (!fs::is_directory(given, ec)) {
      files.push_back({given, given});
      continue;
    }
    std::vector<corpus_path> found;
    fs::recursive_directory_iterator it(given, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code ec2;
      if (!it->is_regular_file(ec2) || p.extension() != ".json" || p.filename() == "index.json") continue;
      if (!report.empty() && fs::weakly_canonical(p, ec2) == report) continue;
      found.push_back({p, p.lexically_relative(given).generic_string()});
    }
    if (ec) {
      model_result r;
      r.file = given;
      r.st = status::ERROR;
      r.message = given + ": cannot list directory: " + ec.message();
      results.push_back(std::move(r));
    }
    std::sort(found.begin(), found.end(), [](const corpus_path& a, const corpus_path& b) { return a.display < b.display; });
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

bool matches(const options& opt, const std::string& text) {
  return !opt.filter || std::regex_search(text, *opt.filter);
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

void write_report(std::ofstream& out, const std::vector<model_result>& results, const std::map<status, std::size_t>& count) {
  nlohmann::ordered_json doc;
  auto get = [&](status s) {
    auto it = count.find(s);
    return it == count.end() ? std::size_t{0} : it->second;
  };
  doc["summary"] = {{"passed", get(status::PASS)},
                    {"failed", get(status::FAIL)},
                    {"errors", get(status::ERROR)},
                    {"crashed", get(status::CRASH)},
                    {"unsupported", get(status::UNSUPPORTED)}};
  auto models = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json m;
    m["file"] = r.file;
    m["name"] = r.name;
    m["status"] = status_name(r.st);
    m["operations"] = r.operations;
    m["operandTypes"] = r.operandTypes;
    m["message"] = r.message;
    models.push_back(std::move(m));
  }
  doc["models"] = std::move(models);
  out << doc.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse_args(argc, argv);
  if (opt.kernels) nnhal::simd::allow_only(*opt.kernels);  // the children inherit it

  std::ofstream report;
  if (opt.report) {
    report.open(*opt.report, std::ios::trunc);
    if (!report) usage_error("cannot write report file " + *opt.report + ": " + std::strerror(errno));
  }

  std::vector<model_result> results;
  const std::vector<corpus_path> files = collect_files(opt, results);
  // The scheduler refers to results by index (the vector grows while children run).
  {
    scheduler sched(results, opt);
    std::size_t ordinal = 0;  // models (and entries that failed to load) the filter selects
    for (const auto& f : files) {
      auto loaded = corpus::load_corpus_entries(f.path, f.display);
      if (!loaded) {
        if (!matches(opt, f.display)) continue;
        model_result r;
        r.file = f.display;
        r.st = status::ERROR;
        r.message = loaded.err().message;
        results.push_back(std::move(r));
        continue;
      }
      for (auto& entry : loaded->entries) {
        if (!matches(opt, entry.name)) continue;
        if (ordinal++ % opt.shards != opt.shard) continue;
        model_result r;
        r.file = f.display;
        r.name = entry.name;
        if (!entry.model) {
          r.st = status::ERROR;
          r.message = entry.error;
          results.push_back(std::move(r));
          continue;
        }
        r.operations = corpus::operation_names(entry.model->model);
        r.operandTypes = corpus::operand_type_names(entry.model->model);
        results.push_back(std::move(r));
        sched.spawn(*entry.model, results.size() - 1, ordinal - 1);
      }
    }
    sched.drain();
  }

  // Counts, the per-operation table, verbose lines.
  std::map<status, std::size_t> count;
  struct op_counts {
    std::size_t passed = 0, failed = 0, unsupported = 0;
  };
  std::map<std::int32_t, op_counts> per_op;
  std::size_t version_notes = 0;
  for (const auto& r : results) {
    ++count[r.st];
    if (r.version_note) ++version_notes;
    for (const auto& name : r.operations) {
      types::OperationType t{};
      if (!types::parse_operation_type(name, t)) continue;
      auto& c = per_op[types::code(t)];
      if (r.st == status::PASS) ++c.passed;
      else if (r.st == status::UNSUPPORTED) ++c.unsupported;
      else ++c.failed;
    }
  }
  if (opt.verbose) {
    for (const auto& r : results) {
      if (r.st != status::PASS && r.name.empty()) {  // a file-level error: the message names the file
        std::printf("%-11s %s\n", status_name(r.st), one_line(r.message).c_str());
      } else if (r.st != status::PASS) {
        std::printf("%-11s %s: %s\n", status_name(r.st), r.name.c_str(), one_line(r.message).c_str());
      } else if (r.version_note) {
        std::printf("%-11s %s: %s\n", "NOTE", r.name.c_str(), one_line(r.message).c_str());
      }
    }
    std::printf("\n");
  }
  std::printf("%-32s %8s %8s %12s\n", "operation", "passed", "failed", "unsupported");
  for (const auto& [code, c] : per_op)
    std::printf("%-32s %8zu %8zu %12zu\n", std::string(types::to_string(static_cast<types::OperationType>(code))).c_str(),
                c.passed, c.failed, c.unsupported);
  std::printf("\n");
  const std::size_t passed = count[status::PASS];
  const std::size_t failed = count[status::FAIL] + count[status::ERROR] + count[status::CRASH];
  const std::size_t skipped = count[status::UNSUPPORTED];
  std::printf("PASS %zu, FAIL %zu, ERROR %zu, CRASH %zu, UNSUPPORTED %zu\n", passed, count[status::FAIL],
              count[status::ERROR], count[status::CRASH], skipped);
  if (version_notes)
    std::printf("note: for %zu passing models validate_model reports a version other than minSupportedVersion "
                "(see --verbose / the report)\n",
                version_notes);

  if (opt.report) {
    write_report(report, results, count);
    report.close();
    if (!report) std::fprintf(stderr, "nnhal-cts: error writing report %s\n", opt.report->c_str());
  }
  std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  std::fflush(stdout);
  return failed == 0 ? 0 : 1;
}
