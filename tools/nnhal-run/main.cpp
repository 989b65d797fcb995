// nnhal-run: runs the models of one corpus-format file (shared/cts/README.md) through
// the example driver (examples/minimal_driver) as the NNAPI runtime would: support
// query, prepare (or prepare from the compilation cache), executions in one style, then
// output summaries, the check against the file's expected outputs with CTS tolerance,
// latency percentiles and, with --timing, the time per operation type.
//
//   nnhal-run MODEL.json [--model NAME] [--repeat N] [--mode sync|async|fenced|burst]
//             [--cache-dir DIR] [--deadline-ms N] [--priority low|medium|high]
//             [--threads N] [--timing] [--dot FILE]
//
// Exit status: 0 when every model passes, 1 when one fails, 2 for bad arguments or files.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/cli.hpp"
#include "common/run_support.hpp"
#include "corpus/compare.hpp"
#include "corpus/corpus.hpp"
#include "minimal_driver/driver.hpp"
#include "nnhal/types/shape.hpp"

namespace {

namespace fs = std::filesystem;
namespace corpus = nnhal::corpus;
namespace types = nnhal::types;
namespace ex = nnhal::example;
using clock_type = std::chrono::steady_clock;

struct options {
  fs::path model;
  std::optional<std::string> only;  // --model NAME
  std::size_t repeat = 1;
  ex::execution_style mode = ex::execution_style::sync;
  std::optional<fs::path> cache_dir;
  std::optional<std::int64_t> deadline_ms;
  types::Priority priority = types::Priority::MEDIUM;
  std::size_t threads = 1;
  bool timing = false;
  std::optional<fs::path> dot;
};

[[noreturn]] void fail_usage(std::string_view message) { ex::usage_error("nnhal-run", message); }

void print_help() {
  std::printf(
      "usage: nnhal-run MODEL.json [--model NAME] [--repeat N] [--mode sync|async|fenced|burst]\n"
      "                 [--cache-dir DIR] [--deadline-ms N] [--priority low|medium|high]\n"
      "                 [--threads N] [--timing] [--dot FILE]\n"
      "\n"
      "Runs the models of a corpus file (format nnhal-cts-json/1) through the example driver.\n"
      "  --model NAME       run only the model of that name (default: every model of the file)\n"
      "  --repeat N         executions per model (default 1)\n"
      "  --mode STYLE       execution style (default sync)\n"
      "  --cache-dir DIR    compilation cache: prepare from it when possible, else save to it\n"
      "  --deadline-ms N    deadline of the preparation and of each execution, from its start\n"
      "  --priority P       priority of the prepared model (default medium)\n"
      "  --threads N        executor worker threads, 0 = one per core (default 1)\n"
      "  --timing           measure timing and print the time per operation type\n"
      "  --dot FILE         write the graph of main as Graphviz\n"
      "Exit status: 0 all passed, 1 a model failed, 2 bad arguments or file.\n");
}

options parse_args(int argc, char** argv) {
  const ex::command_line cl("nnhal-run", argc, argv);
  options o;
  bool have_model = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&] { return cl.value(a, i); };
    if (a == "-h" || a == "--help") {
      print_help();
      std::exit(0);
    } else if (a == "--model") {
      o.only = std::string(value());
    } else if (a == "--repeat") {
      o.repeat = cl.integer<std::size_t>(a, value(), 1);
    } else if (a == "--mode") {
      const auto v = value();
      bool found = false;
      for (auto s : {ex::execution_style::sync, ex::execution_style::async, ex::execution_style::fenced,
                     ex::execution_style::burst})
        if (ex::to_string(s) == v) {
          o.mode = s;
          found = true;
        }
      if (!found) fail_usage(types::str_cat("--mode: '", v, "' is not sync, async, fenced or burst"));
    } else if (a == "--cache-dir") {
      o.cache_dir = fs::path(value());
    } else if (a == "--deadline-ms") {
      o.deadline_ms = cl.integer<std::int64_t>(a, value(), 0);
    } else if (a == "--priority") {
      const auto v = value();
      if (v == "low") o.priority = types::Priority::LOW;
      else if (v == "medium") o.priority = types::Priority::MEDIUM;
      else if (v == "high") o.priority = types::Priority::HIGH;
      else fail_usage(types::str_cat("--priority: '", v, "' is not low, medium or high"));
    } else if (a == "--threads") {
      o.threads = cl.integer<std::size_t>(a, value(), 0);
    } else if (a == "--timing") {
      o.timing = true;
    } else if (a == "--dot") {
      o.dot = fs::path(value());
    } else if (a.size() > 1 && a[0] == '-') {
      fail_usage(types::str_cat("unknown option '", a, "' (see --help)"));
    } else if (have_model) {
      fail_usage(types::str_cat("one model file only ('", o.model.string(), "' and '", a, "')"));
    } else {
      o.model = fs::path(a);
      have_model = true;
    }
  }
  if (!have_model) fail_usage("no model file given (usage: nnhal-run MODEL.json [options]; see --help)");
  if (!ex::style_available(o.mode))
    fail_usage(types::str_cat("--mode ", ex::to_string(o.mode), ": not available in this build"));
  return o;
}

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// Graphviz of main: operations as boxes, model inputs and outputs as ellipses, edges
/// labelled with the operand's type and shape; constants are counted in their op's label.
void write_dot(std::ostream& os, const corpus::test_model& tm) {
  const auto& g = tm.model.main;
  std::vector<int> producer(g.operands.size(), -1);
  for (std::size_t k = 0; k < g.operations.size(); ++k)
    for (auto o : g.operations[k].outputs)
      if (o < producer.size()) producer[o] = static_cast<int>(k);
  auto operand_label = [&](std::uint32_t i) {
    const auto& o = g.operands[i];
    return types::str_cat("#", i, " ", o.type, " ", types::format_dims(o.dimensions, true));
  };
  os << "digraph \"" << dot_escape(tm.name) << "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (std::size_t k = 0; k < g.inputIndexes.size(); ++k)
    os << "  in" << k << " [shape=ellipse, label=\"input " << k << "\\n" << dot_escape(operand_label(g.inputIndexes[k]))
       << "\"];\n";
  for (std::size_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    std::size_t constants = 0;
    for (auto i : op.inputs)
      if (i < g.operands.size() && (g.operands[i].lifetime == types::OperandLifeTime::CONSTANT_COPY ||
                                    g.operands[i].lifetime == types::OperandLifeTime::CONSTANT_REFERENCE))
        ++constants;
    os << "  op" << k << " [shape=box, style=rounded, label=\"" << k << ": " << types::to_string(op.type);
    if (constants) os << "\\n(" << constants << " constants)";
    os << "\"];\n";
    for (auto i : op.inputs) {
      if (i >= g.operands.size()) continue;
      const auto& in = g.inputIndexes;
      const auto it = std::find(in.begin(), in.end(), i);
      if (producer[i] >= 0)
        os << "  op" << producer[i];
      else if (it != in.end())
        os << "  in" << (it - in.begin());
      else
        continue;
      os << " -> op" << k << " [label=\"" << dot_escape(operand_label(i)) << "\"];\n";
    }
  }
  for (std::size_t k = 0; k < g.outputIndexes.size(); ++k) {
    const auto o = g.outputIndexes[k];
    os << "  out" << k << " [shape=ellipse, label=\"output " << k << "\\n" << dot_escape(operand_label(o)) << "\"];\n";
    if (o < producer.size() && producer[o] >= 0) os << "  op" << producer[o] << " -> out" << k << ";\n";
  }
  os << "}\n";
}

std::string read_file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// Prints each output: type, shape, range, and top-5 for classifier-shaped outputs.
void print_outputs(const corpus::test_model& tm, const corpus::request_buffers& rb,
                   const std::vector<types::OutputShape>& shapes) {
  const auto& g = tm.model.main;
  for (std::size_t k = 0; k < g.outputIndexes.size(); ++k) {
    const auto& o = g.operands[g.outputIndexes[k]];
    const auto dims = k < shapes.size() ? shapes[k].dimensions : o.dimensions;
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    const auto v = ex::real_values(o.type, rb.outputs[k].bytes(), o.scale, o.zeroPoint, n);
    std::printf("  output %zu: %s %s", k, std::string(types::to_string(o.type)).c_str(),
                types::format_dims(dims).c_str());
    if (v.empty()) {
      std::printf("\n");
      continue;
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  min %.6g  max %.6g  mean %.6g\n", *lo, *hi, sum / static_cast<double>(v.size()));
    if (ex::looks_like_classifier(dims)) {
      std::printf("    top-5:");
      for (auto i : ex::top_k(v, 5)) std::printf("  %zu (%.4f)", i, v[i]);
      std::printf("\n");
    }
  }
}

struct run_totals {
  int passed = 0, failed = 0;
};

/// Prepares through the cache when one is given: from the cache when its files exist and
/// the driver accepts them, else from scratch, saving to the cache.
nnhal::types::result<std::shared_ptr<const ex::prepared_model>> prepare(const ex::device& dev,
                                                                         const corpus::test_model& tm,
                                                                         const options& opt,
                                                                         const std::string& file_bytes,
                                                                         std::string& note) {
  types::OptionalTimePoint deadline;
  if (opt.deadline_ms) deadline = types::clock::now() + std::chrono::milliseconds(*opt.deadline_ms);
  const auto pref = types::ExecutionPreference::FAST_SINGLE_ANSWER;
  const auto counts = dev.getNumberOfCacheFilesNeeded();
  if (!opt.cache_dir || counts.first + counts.second == 0)
    return dev.prepareModel(tm.model, pref, opt.priority, deadline);
  // The token names this model of this file; the driver checks the files' contents.
  const auto token = ex::make_token(types::str_cat(tm.name, '\n', tm.variant, '\n', file_bytes));
  auto files = ex::cache_files::open(*opt.cache_dir / "files", token, counts);
  if (!files) return std::move(files).err();
  if (files->existed()) {
    auto cached = dev.prepareModelFromCache(deadline, files->model(), files->data(), token);
    if (cached) return cached;
    note = "cache miss (" + cached.err().message + "); ";
  }
  auto pm = dev.prepareModel(tm.model, pref, opt.priority, deadline, files->model(), files->data(), token);
  return pm;
}

bool run_model(const ex::device& dev, const corpus::test_model& tm, const options& opt, const std::string& bytes) {
  const auto& g = tm.model.main;
  std::printf("model %s: %zu operations, %zu operands, %zu inputs, %zu outputs%s\n", tm.name.c_str(),
              g.operations.size(), g.operands.size(), g.inputIndexes.size(), g.outputIndexes.size(),
              tm.expectFailure ? " (a validation test: must fail)" : "");
  auto expected_failure = [&](const std::string& why) {
    if (tm.expectFailure) {
      std::printf("  PASS: failed as expected: %s\n", why.c_str());
      return true;
    }
    std::printf("  FAIL: %s\n", why.c_str());
    return false;
  };

  auto supported = dev.getSupportedOperations(tm.model);
  if (!supported) return expected_failure("getSupportedOperations: " + supported.err().message);
  std::string unsupported;
  for (std::size_t k = 0; k < supported->size(); ++k)
    if (!(*supported)[k]) unsupported += types::str_cat(unsupported.empty() ? "" : ", ", k, " (", g.operations[k].type, ")");
  if (!unsupported.empty()) return expected_failure("the driver does not support operation " + unsupported);

  std::string note;
  const auto t_prep = clock_type::now();
  auto pm = prepare(dev, tm, opt, bytes, note);
  const double prep_ms = ms_since(t_prep);
  if (!pm) return expected_failure(types::str_cat("prepare: ", pm.err().status, ": ", pm.err().message));
  if ((*pm)->from_cache()) {
    std::printf("  prepared from the compilation cache in %.1f ms\n", prep_ms);
  } else {
    note += (*pm)->cache_note();
    std::printf("  prepared in %.1f ms%s%s\n", prep_ms, note.empty() ? "" : "; ", note.c_str());
  }

  auto rb = corpus::make_request(tm);
  ex::execution_args args;
  args.measure = opt.timing ? types::MeasureTiming::YES : types::MeasureTiming::NO;
  args.profile = opt.timing;
  std::vector<double> wall_ms;
  std::vector<std::vector<std::byte>> first_outputs;
  ex::op_breakdown breakdown;
  std::uint64_t device_us = 0, driver_us = 0;
  std::size_t timed = 0;
  bool deterministic = true;
  ex::execution_result last;
  ex::style_runner runner(**pm, opt.mode);
  if (runner.error())
    return expected_failure(types::str_cat(ex::to_string(opt.mode), ": ", runner.error()->message));
  ex::progress_bar bar(opt.repeat);
  for (std::size_t r = 0; r < opt.repeat; ++r) {
    if (opt.deadline_ms) args.deadline = types::clock::now() + std::chrono::milliseconds(*opt.deadline_ms);
    const auto t0 = clock_type::now();
    last = runner.run(rb.request, args);
    wall_ms.push_back(ms_since(t0));
    bar.update(r + 1);
    if (last.status != types::ErrorStatus::NONE) break;
    breakdown.add(last.profile);
    if (last.timing.timeOnDevice != types::Timing::not_available) {
      device_us += last.timing.timeOnDevice;
      driver_us += last.timing.timeInDriver;
      ++timed;
    }
    for (std::size_t k = 0; k < rb.outputs.size(); ++k) {
      const auto b = rb.outputs[k].bytes();
      if (r == 0) first_outputs.emplace_back(b.begin(), b.end());
      else deterministic = deterministic && std::equal(b.begin(), b.end(), first_outputs[k].begin());
    }
  }
  bar.finish();
  if (last.status != types::ErrorStatus::NONE)
    return expected_failure(types::str_cat("execution ", wall_ms.size(), ": ", last.status, ": ", last.message));

  print_outputs(tm, rb, last.outputShapes);
  bool ok = true;
  if (tm.expectFailure) {
    std::printf("  FAIL: a validation test ran successfully\n");
    ok = false;
  } else if (tm.outputs.empty()) {
    std::printf("  no expected outputs in the file\n");
  } else {
    std::vector<std::span<const std::byte>> actual;
    for (const auto& m : rb.outputs) actual.emplace_back(m.bytes());
    const auto check = corpus::compare_outputs(tm, actual, last.outputShapes);
    if (check.ok) {
      std::printf("  expected outputs: PASS (CTS tolerance)\n");
    } else {
      std::printf("  expected outputs: FAIL: %s\n", check.message.c_str());
      ok = false;
    }
  }
  if (opt.repeat > 1) {
    std::printf("  %s executions:\n", std::string(ex::to_string(opt.mode)).c_str());
    ex::print_latency(stdout, ex::percentiles(wall_ms));
    if (!deterministic) {
      std::printf("  FAIL: outputs differ between executions\n");
      ok = false;
    }
  } else {
    std::printf("  executed in %.3f ms (%s)\n", wall_ms.front(), std::string(ex::to_string(opt.mode)).c_str());
  }
  if (timed)
    std::printf("  HAL timing (mean): on device %.3f ms, in driver %.3f ms\n",
                static_cast<double>(device_us) / 1e3 / static_cast<double>(timed),
                static_cast<double>(driver_us) / 1e3 / static_cast<double>(timed));
  if (opt.timing) breakdown.print(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt = parse_args(argc, argv);
  std::error_code ec;
  if (!fs::is_regular_file(opt.model, ec)) fail_usage(types::str_cat(opt.model.string(), ": no such file"));
  auto loaded = corpus::load_corpus(opt.model);
  if (!loaded) fail_usage(loaded.err().message);
  std::vector<corpus::test_model> models;
  for (auto& m : *loaded)
    if (!opt.only || m.name == *opt.only) models.push_back(std::move(m));
  if (models.empty())
    fail_usage(opt.only ? types::str_cat(opt.model.string(), ": no model named '", *opt.only, "'")
                        : types::str_cat(opt.model.string(), ": the file holds no models"));

  if (opt.dot) {
    std::ofstream dot(*opt.dot);
    for (const auto& m : models) write_dot(dot, m);
    if (!dot) fail_usage(types::str_cat("--dot: cannot write ", opt.dot->string()));
  }

  ex::device_config config;
  config.name = "nnhal-example";
  config.threads = opt.threads;
  if (opt.cache_dir) config.cache_store_dir = (*opt.cache_dir / "driver").string();
  auto dev = ex::device::create(config);
  if (!dev) fail_usage(types::str_cat("device: ", dev.err().message));

  const std::string bytes = opt.cache_dir ? read_file_bytes(opt.model) : std::string();
  int failed = 0;
  for (const auto& m : models)
    if (!run_model(**dev, m, opt, bytes)) ++failed;
  if (models.size() > 1)
    std::printf("%zu models: %zu passed, %d failed\n", models.size(), models.size() - static_cast<std::size_t>(failed),
                failed);
  return failed ? 1 : 0;
}
