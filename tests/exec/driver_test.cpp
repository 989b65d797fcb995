// End-to-end tests of the execution path (exec/driver.hpp): the support query, prepare,
// synchronous execution with run-time shapes, request validation, deadlines, timing,
// concurrent use of one prepared model, the serial parallel_context; the step interface
// (exec/execution.hpp), deadlines and cancellation mid-run, profiles, the arena plan
// (exec/memory.hpp) and request pools mapped from file descriptors.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nnhal/exec/driver.hpp"
#include "nnhal/exec/memory.hpp"
#include "nnhal/exec/parallel.hpp"
#include "support/request_builder.hpp"
#include "support/step_runner.hpp"

namespace ex = nnhal::exec;
namespace ty = nnhal::types;

using ty::ErrorStatus;
using ty::Model;
using ty::OperandType;
using ty::OperationType;
using ty::Request;
using dims = std::vector<std::uint32_t>;
using L = ty::OperandLifeTime;

namespace doctest {
template <>
struct StringMaker<std::vector<float>> {
  static String convert(const std::vector<float>& v) {
    std::string s = "{";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return (s + "}").c_str();
  }
};
template <>
struct StringMaker<std::vector<std::uint32_t>> {
  static String convert(const std::vector<std::uint32_t>& v) { return ty::format_dims(v).c_str(); }
};
}  // namespace doctest

namespace {

std::string st(ErrorStatus s) { return std::string(ty::to_string(s)); }

// ---------------------------------------------------------------------------------------
// A small model builder (constants in operandValues or in one model pool).

class builder {
 public:
  std::uint32_t input(OperandType t, dims d) {
    const auto i = add(t, std::move(d), L::SUBGRAPH_INPUT);
    m_.main.inputIndexes.push_back(i);
    return i;
  }
  std::uint32_t output(OperandType t, dims d) {
    const auto i = add(t, std::move(d), L::SUBGRAPH_OUTPUT);
    m_.main.outputIndexes.push_back(i);
    return i;
  }
  std::uint32_t temp(OperandType t, dims d) { return add(t, std::move(d), L::TEMPORARY_VARIABLE); }

  /// CONSTANT_COPY at an offset that is `misalign` bytes past a 16-byte boundary.
  template <class V>
  std::uint32_t copy_const(OperandType t, dims d, const std::vector<V>& v, std::uint32_t misalign = 0) {
    auto& ov = m_.operandValues;
    const std::size_t off = (ov.size() + 15) / 16 * 16 + misalign;
    ov.resize(off + v.size() * sizeof(V), 0xEE);
    std::memcpy(ov.data() + off, v.data(), v.size() * sizeof(V));
    const auto i = add(t, std::move(d), L::CONSTANT_COPY);
    m_.main.operands[i].location = {0, static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(v.size() * sizeof(V))};
    return i;
  }
  /// CONSTANT_REFERENCE into model pool 0, `misalign` bytes past a 16-byte boundary.
  template <class V>
  std::uint32_t ref_const(OperandType t, dims d, const std::vector<V>& v, std::uint32_t misalign = 0) {
    const std::size_t off = (pool_.size() + 15) / 16 * 16 + misalign;
    pool_.resize(off + v.size() * sizeof(V), std::byte{0xEE});
    std::memcpy(pool_.data() + off, v.data(), v.size() * sizeof(V));
    const auto i = add(t, std::move(d), L::CONSTANT_REFERENCE);
    m_.main.operands[i].location = {0, static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(v.size() * sizeof(V))};
    return i;
  }
  std::uint32_t i32(std::int32_t v) { return copy_const(OperandType::INT32, {}, std::vector<std::int32_t>{v}); }

  builder& op(OperationType type, std::vector<std::uint32_t> in, std::vector<std::uint32_t> out) {
    for (auto i : in) ++m_.main.operands[i].numberOfConsumers;
    m_.main.operations.push_back({type, std::move(in), std::move(out)});
    return *this;
  }

  Model build() const {
    Model m = m_;
    if (!pool_.empty()) {
      auto mem = ty::Memory::allocate(pool_.size());
      std::memcpy(mem.data, pool_.data(), pool_.size());
      m.pools.push_back(mem);
    }
    return m;
  }

 private:
  std::uint32_t add(OperandType t, dims d, L lifetime) {
    ty::Operand o;
    o.type = t;
    o.dimensions = std::move(d);
    o.lifetime = lifetime;
    m_.main.operands.push_back(o);
    return static_cast<std::uint32_t>(m_.main.operands.size() - 1);
  }

  Model m_;
  std::vector<std::byte> pool_;
};

// Requests over one shared-memory pool: support/request_builder.hpp.
using nnhal::test::guard_bytes;
using nnhal::test::request_builder;

/// Output k's bytes as floats (its whole location, or the first `count`).
std::vector<float> read_floats(const Request& r, std::size_t k, std::size_t count = SIZE_MAX) {
  const auto& loc = r.outputs[k].location;
  const auto& mem = std::get<ty::Memory>(r.pools[loc.poolIndex]);
  const std::size_t n = std::min<std::size_t>(count, loc.length / sizeof(float));
  std::vector<float> v(n);
  if (n) std::memcpy(v.data(), mem.data + loc.offset, n * sizeof(float));
  return v;
}

std::shared_ptr<const ex::prepared_model> must_prepare(const Model& m, const ex::prepare_options& o = {}) {
  auto p = ex::prepare(m, o);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? std::string() : p.err().message));
  return *p;
}

/// Runs `f` (returning an int) in a child process so that a crash in the library fails
/// one check instead of the whole suite. Returns f's result, or -signal when it died.
template <class F>
int in_child(F f) {
  const pid_t pid = fork();
  if (pid == 0) {
    // Die quietly on a crash: doctest's handlers would report the child as a test run.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
    _exit(f());
  }
  int wstatus = 0;
  if (pid < 0 || waitpid(pid, &wstatus, 0) != pid) return -1000;
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return -WTERMSIG(wstatus);
  return -1001;
}

constexpr auto F32 = OperandType::TENSOR_FLOAT32;

// ---------------------------------------------------------------------------------------
// The chain ADD -> MUL -> RELU -> RESHAPE -> CONCATENATION.
//
//   t0  = ADD(in [rows, 3], c_add [3] (CONSTANT_COPY at a misaligned offset), NONE)
//   t1  = MUL(t0, c_mul [1, 3] (CONSTANT_REFERENCE), NONE)
//   t2  = RELU(t1)
//   t3  = RESHAPE(t2, [-1, 2] (CONSTANT_COPY, TENSOR_INT32))
//   out = CONCATENATION(t3, c_cat [1, 2] (CONSTANT_REFERENCE, misaligned), axis 0)
//
// `dynamic`: the input is declared [?, 3], temporaries and the output have unknown extents.

const std::vector<float> c_add_v = {0.5f, 1.0f, -1.0f};
const std::vector<float> c_mul_v = {2.0f, -1.0f, 0.5f};
const std::vector<float> c_cat_v = {10.0f, 20.0f};

struct chain {
  Model model;
  std::uint32_t c_add = 0, c_cat = 0;
};

chain chain_model(bool dynamic) {
  builder b;
  const auto in = b.input(F32, dynamic ? dims{0, 3} : dims{2, 3});
  const auto c_add = b.copy_const(F32, {3}, c_add_v, /*misalign=*/1);
  const auto none = b.i32(0);
  const auto t0 = b.temp(F32, dynamic ? dims{0, 3} : dims{2, 3});
  b.op(OperationType::ADD, {in, c_add, none}, {t0});
  const auto c_mul = b.ref_const(F32, {1, 3}, c_mul_v);
  const auto t1 = b.temp(F32, dynamic ? dims{0, 0} : dims{2, 3});
  b.op(OperationType::MUL, {t0, c_mul, none}, {t1});
  const auto t2 = b.temp(F32, dynamic ? dims{} : dims{2, 3});
  b.op(OperationType::RELU, {t1}, {t2});
  const auto shape = b.copy_const(OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{-1, 2});
  const auto t3 = b.temp(F32, dynamic ? dims{0, 2} : dims{3, 2});
  b.op(OperationType::RESHAPE, {t2, shape}, {t3});
  const auto c_cat = b.ref_const(F32, {1, 2}, c_cat_v, /*misalign=*/2);
  const auto axis = b.i32(0);
  const auto out = b.output(F32, dynamic ? dims{0, 0} : dims{4, 2});
  b.op(OperationType::CONCATENATION, {t3, c_cat, axis}, {out});
  return {b.build(), c_add, c_cat};
}

/// The chain computed by hand, element by element; rows * 3 must be even.
std::vector<float> chain_reference(const std::vector<float>& in) {
  std::vector<float> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float v = (in[i] + c_add_v[i % 3]) * c_mul_v[i % 3];
    out.push_back(v < 0.0f ? 0.0f : v);
  }
  out.insert(out.end(), c_cat_v.begin(), c_cat_v.end());
  return out;
}

// A two-output model: out0 = ADD(a, b, NONE) [2, 3]; out1 = RELU(out0) [2, 3]. out0 is
// a model output that a later operation also reads.
Model two_output_model(dims out0 = {2, 3}, dims out1 = {2, 3}) {
  builder b;
  const auto a = b.input(F32, {2, 3});
  const auto c = b.input(F32, {2, 3});
  const auto none = b.i32(0);
  const auto o0 = b.output(F32, std::move(out0));
  b.op(OperationType::ADD, {a, c, none}, {o0});
  const auto o1 = b.output(F32, std::move(out1));
  b.op(OperationType::RELU, {o0}, {o1});
  return b.build();
}

const std::vector<float> two_a = {1, -2, 3, -4, 5, -6};
const std::vector<float> two_b = {0.5f, 0.5f, 0.5f, 1, 1, 10};
const std::vector<float> two_sum = {1.5f, -1.5f, 3.5f, -3, 6, 4};
const std::vector<float> two_relu = {1.5f, 0, 3.5f, 0, 6, 4};

// A single ADD: out [2, 3] = ADD(a [2, 3], b [2, 3], NONE).
Model add_model() {
  builder b;
  const auto a = b.input(F32, {2, 3});
  const auto c = b.input(F32, {2, 3});
  const auto none = b.i32(0);
  const auto o = b.output(F32, {2, 3});
  b.op(OperationType::ADD, {a, c, none}, {o});
  return b.build();
}

Request add_request() {
  return request_builder().in(two_a).in(two_b).out(6 * sizeof(float)).build();
}

}  // namespace

// =======================================================================================
TEST_SUITE("driver: supported_operations") {
  TEST_CASE("ADD + RELU: every operation is supported") {
    builder b;
    const auto a = b.input(F32, {4});
    const auto none = b.i32(0);
    const auto t = b.temp(F32, {4});
    b.op(OperationType::ADD, {a, a, none}, {t});
    const auto o = b.output(F32, {4});
    b.op(OperationType::RELU, {t}, {o});
    auto flags = ex::supported_operations(b.build());
    REQUIRE(flags.ok());
    CHECK(*flags == std::vector<bool>{true, true});
  }

  TEST_CASE("the chain model: every operation is supported") {
    for (bool dynamic : {false, true}) {
      CAPTURE(dynamic);
      auto flags = ex::supported_operations(chain_model(dynamic).model);
      REQUIRE(flags.ok());
      CHECK(*flags == std::vector<bool>(5, true));
    }
  }

  TEST_CASE("valid but unimplemented operations are false, the others true") {
    // A vendor extension operation is valid in a model that declares its prefix, but
    // nnhal has no kernel for it: the only false flag.
    builder b;
    const auto a = b.input(F32, {2, 2});
    const auto none = b.i32(0);
    const auto t0 = b.temp(F32, {2, 2});
    b.op(OperationType::ADD, {a, a, none}, {t0});
    const auto t1 = b.temp(F32, {2, 2});
    b.op(OperationType::ADD, {t0, t0, none}, {t1});  // replaced by the extension op below
    const auto o = b.output(F32, {2, 2});
    b.op(OperationType::RELU, {t1}, {o});
    Model m = b.build();
    m.extensionNameToPrefix.push_back({"com.example.vendor", 1});
    m.main.operations[1].type = static_cast<OperationType>((1 << 16) | 7);
    m.main.operations[1].inputs = {t0};
    m.main.operands[t0].numberOfConsumers = 1;
    m.main.operands[none].numberOfConsumers = 1;
    REQUIRE(ty::validate_model(m).ok());
    auto flags = ex::supported_operations(m);
    REQUIRE(flags.ok());
    CHECK(*flags == std::vector<bool>{true, false, true});
    CHECK(ex::prepare(m).status() == ty::ErrorStatus::INVALID_ARGUMENT);
  }

  TEST_CASE("an invalid model is INVALID_ARGUMENT") {
    SUBCASE("numberOfConsumers does not match") {
      Model m = add_model();
      m.main.operands[0].numberOfConsumers = 3;
      CHECK(st(ex::supported_operations(m).status()) == "INVALID_ARGUMENT");
    }
    SUBCASE("an operation reads an operand out of range") {
      Model m = add_model();
      m.main.operations[0].inputs[1] = 99;
      CHECK(st(ex::supported_operations(m).status()) == "INVALID_ARGUMENT");
    }
    SUBCASE("shapes that do not broadcast") {
      builder b;
      const auto a = b.input(F32, {2, 3});
      const auto c = b.input(F32, {4});
      const auto none = b.i32(0);
      const auto o = b.output(F32, {2, 3});
      b.op(OperationType::ADD, {a, c, none}, {o});
      CHECK(st(ex::supported_operations(b.build()).status()) == "INVALID_ARGUMENT");
    }
    SUBCASE("a constant outside operandValues") {
      Model m = add_model();
      m.main.operands[2].location.offset = 1000;
      CHECK(st(ex::supported_operations(m).status()) == "INVALID_ARGUMENT");
    }
    SUBCASE("no operations") {
      Model m = add_model();
      m.main.operations.clear();
      CHECK(st(ex::supported_operations(m).status()) == "INVALID_ARGUMENT");
    }
  }
}

// =======================================================================================
TEST_SUITE("driver: prepare") {
  TEST_CASE("a valid model prepares") {
    auto p = ex::prepare(chain_model(false).model);
    REQUIRE(p.ok());
    CHECK(*p != nullptr);
    CHECK((*p)->model().main.operations.size() == 5);
  }

  TEST_CASE("an invalid model is INVALID_ARGUMENT") {
    Model m = add_model();
    m.main.operands[0].numberOfConsumers = 0;
    CHECK(st(ex::prepare(m).status()) == "INVALID_ARGUMENT");
    Model m2 = add_model();
    m2.main.operands[0].type = OperandType::TENSOR_INT32;  // ADD(int32, float32)
    CHECK(st(ex::prepare(m2).status()) == "INVALID_ARGUMENT");
  }

  TEST_CASE("invalid priority or preference is INVALID_ARGUMENT") {
    const Model m = add_model();
    ex::prepare_options o;
    o.priority = static_cast<ty::Priority>(7);
    CHECK(st(ex::prepare(m, o).status()) == "INVALID_ARGUMENT");
    o = {};
    o.priority = static_cast<ty::Priority>(-1);
    CHECK(st(ex::prepare(m, o).status()) == "INVALID_ARGUMENT");
    o = {};
    o.preference = static_cast<ty::ExecutionPreference>(3);
    CHECK(st(ex::prepare(m, o).status()) == "INVALID_ARGUMENT");
    o = {};
    o.preference = static_cast<ty::ExecutionPreference>(-1);
    CHECK(st(ex::prepare(m, o).status()) == "INVALID_ARGUMENT");
    // Every valid combination prepares.
    for (auto pr : {ty::Priority::LOW, ty::Priority::MEDIUM, ty::Priority::HIGH})
      for (auto pf : {ty::ExecutionPreference::LOW_POWER, ty::ExecutionPreference::FAST_SINGLE_ANSWER,
                      ty::ExecutionPreference::SUSTAINED_SPEED}) {
        o = {};
        o.priority = pr;
        o.preference = pf;
        CHECK(ex::prepare(m, o).ok());
      }
  }

  TEST_CASE("deadlines") {
    const Model m = add_model();
    ex::prepare_options o;
    o.deadline = ty::clock::now() - std::chrono::milliseconds(1);
    CHECK(st(ex::prepare(m, o).status()) == "MISSED_DEADLINE_PERSISTENT");
    o.deadline = ty::clock::now() + std::chrono::hours(1);
    CHECK(ex::prepare(m, o).ok());
  }

  TEST_CASE("the prepared model does not depend on the caller's model") {
    std::shared_ptr<const ex::prepared_model> pm;
    {
      chain c = chain_model(false);
      pm = must_prepare(c.model);
      // Scribble over the caller's operandValues, then drop the model. (The pool is
      // shared memory: the prepared model keeps it alive and may read it in place.)
      std::fill(c.model.operandValues.begin(), c.model.operandValues.end(), std::uint8_t{0x7F});
    }
    const std::vector<float> in = {1, -2, 3, 4, -5, -6};
    const Request r = request_builder().in(in).out(8 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
    CHECK(read_floats(r, 0) == chain_reference(in));
    CHECK(res.outputShapes[0].dimensions == dims{4, 2});
  }
}

// =======================================================================================
TEST_SUITE("driver: execute") {
  TEST_CASE("the chain with constants gives hand-computed values") {
    const chain c = chain_model(false);
    // The constants really sit at misaligned addresses.
    const auto& add_loc = c.model.main.operands[c.c_add].location;
    CHECK((reinterpret_cast<std::uintptr_t>(c.model.operandValues.data()) + add_loc.offset) % alignof(float) != 0);
    const auto& cat_loc = c.model.main.operands[c.c_cat].location;
    CHECK((reinterpret_cast<std::uintptr_t>(c.model.pools[0].data) + cat_loc.offset) % alignof(float) != 0);

    const auto pm = must_prepare(c.model);
    // in          = {1, -2, 3, 4, -5, -6}
    // + c_add     = {1.5, -1, 2, 4.5, -4, -7}
    // * c_mul     = {3, 1, 1, 9, 4, -3.5}
    // relu        = {3, 1, 1, 9, 4, 0}
    // reshape     -> [3, 2]; concat with {10, 20} on axis 0 -> [4, 2]
    const std::vector<float> in = {1, -2, 3, 4, -5, -6};
    const std::vector<float> want = {3, 1, 1, 9, 4, 0, 10, 20};
    CHECK(chain_reference(in) == want);

    SUBCASE("aligned input") {
      request_builder rb;
      rb.in(in).out(8 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(res.message.empty());
      CHECK(read_floats(r, 0) == want);
      REQUIRE(res.outputShapes.size() == 1);
      CHECK(res.outputShapes[0].dimensions == dims{4, 2});
      CHECK(res.outputShapes[0].isSufficient);
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("input at a misaligned pool offset") {
      request_builder rb;
      rb.in(in, {}, /*misalign=*/1).out(8 * sizeof(float));
      const Request r = rb.build();
      CHECK((reinterpret_cast<std::uintptr_t>(std::get<ty::Memory>(r.pools[0]).data) + r.inputs[0].location.offset) %
                alignof(float) !=
            0);
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == want);
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("output at a misaligned pool offset") {
      request_builder rb;
      rb.in(in).out(8 * sizeof(float), /*misalign=*/3);
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == want);
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("a larger output buffer than needed") {
      request_builder rb;
      rb.in(in).out(20 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0, 8) == want);
      CHECK(res.outputShapes[0].dimensions == dims{4, 2});
    }
    SUBCASE("request dimensions equal to the model's are accepted") {
      const Request r = request_builder().in(in, {2, 3}).out(8 * sizeof(float), 0, {4, 2}).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == want);
    }
    SUBCASE("executing twice gives the same result") {
      const Request r1 = request_builder().in(in).out(8 * sizeof(float)).build();
      const Request r2 = request_builder().in(in).out(8 * sizeof(float)).build();
      CHECK(st(ex::execute(*pm, r1).status) == "NONE");
      CHECK(st(ex::execute(*pm, r2).status) == "NONE");
      CHECK(read_floats(r1, 0) == read_floats(r2, 0));
    }
  }

  TEST_CASE("unknown dimensions: inputs given by the request, outputs reported") {
    const auto pm = must_prepare(chain_model(true).model);
    for (std::uint32_t rows : {2u, 4u, 6u}) {
      CAPTURE(rows);
      std::vector<float> in(rows * 3);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) - 5.0f;
      const std::uint32_t out_rows = rows * 3 / 2 + 1;
      request_builder rb;
      rb.in(in, {rows, 3}).out(out_rows * 2 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      REQUIRE(res.outputShapes.size() == 1);
      CHECK(res.outputShapes[0].dimensions == dims{out_rows, 2});
      CHECK(res.outputShapes[0].isSufficient);
      CHECK(read_floats(r, 0) == chain_reference(in));
      CHECK(rb.guards_intact(r));
    }
  }

  TEST_CASE("an output of unknown rank gets its shape reported") {
    builder b;
    const auto a = b.input(F32, {2, 3});
    const auto none = b.i32(0);
    const auto o = b.output(F32, {});
    b.op(OperationType::ADD, {a, a, none}, {o});
    const auto pm = must_prepare(b.build());
    const Request r = request_builder().in(two_a).out(6 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
    CHECK(res.outputShapes[0].dimensions == dims{2, 3});
    CHECK(read_floats(r, 0) == std::vector<float>{2, -4, 6, -8, 10, -12});
  }

  TEST_CASE("a model input of unknown dimensions needs them in the request") {
    const auto pm = must_prepare(chain_model(true).model);
    const Request r = request_builder().in(std::vector<float>(6, 1.0f)).out(8 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    CHECK(st(res.status) == "INVALID_ARGUMENT");
    CHECK(res.outputShapes.empty());
    CHECK_FALSE(res.message.empty());
  }

  TEST_CASE("request output dimensions that contradict the result are INVALID_ARGUMENT") {
    const auto pm = must_prepare(chain_model(true).model);
    const Request r =
        request_builder().in(std::vector<float>(6, 1.0f), {2, 3}).out(16 * sizeof(float), 0, {5, 2}).build();
    CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
  }

  TEST_CASE("request input dimensions that make a declared temporary wrong are INVALID_ARGUMENT") {
    // The input is declared [0, 3] but the temporary after ADD is declared [2, 3].
    builder b;
    const auto a = b.input(F32, {0, 3});
    const auto none = b.i32(0);
    const auto t = b.temp(F32, {2, 3});
    b.op(OperationType::ADD, {a, a, none}, {t});
    const auto o = b.output(F32, {0, 0});
    b.op(OperationType::RELU, {t}, {o});
    const auto pm = must_prepare(b.build());
    const Request ok = request_builder().in(two_a, {2, 3}).out(6 * sizeof(float)).build();
    CHECK(st(ex::execute(*pm, ok).status) == "NONE");
    const Request bad = request_builder().in(std::vector<float>(12, 1.0f), {4, 3}).out(12 * sizeof(float)).build();
    CHECK(st(ex::execute(*pm, bad).status) == "INVALID_ARGUMENT");
  }

  TEST_CASE("a model output that a later operation reads") {
    const auto pm = must_prepare(two_output_model());
    SUBCASE("aligned") {
      request_builder rb;
      rb.in(two_a).in(two_b).out(6 * sizeof(float)).out(6 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == two_sum);
      CHECK(read_floats(r, 1) == two_relu);
      REQUIRE(res.outputShapes.size() == 2);
      CHECK(res.outputShapes[0].dimensions == dims{2, 3});
      CHECK(res.outputShapes[1].dimensions == dims{2, 3});
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("the shared output at a misaligned offset") {
      request_builder rb;
      rb.in(two_a).in(two_b).out(6 * sizeof(float), /*misalign=*/1).out(6 * sizeof(float), /*misalign=*/2);
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == two_sum);
      CHECK(read_floats(r, 1) == two_relu);
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("the shared output omitted (hasNoValue)") {
      request_builder rb;
      rb.in(two_a).in(two_b).omitted_out().out(6 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 1) == two_relu);
      CHECK(rb.guards_intact(r));
    }
  }

  TEST_CASE("a too-small output is OUTPUT_INSUFFICIENT_SIZE with the full dimensions") {
    SUBCASE("second output too small, the first sufficient") {
      const auto pm = must_prepare(two_output_model());
      request_builder rb;
      rb.in(two_a).in(two_b).out(6 * sizeof(float)).out(2 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
      REQUIRE(res.outputShapes.size() == 2);
      CHECK(res.outputShapes[0].isSufficient);
      CHECK(res.outputShapes[0].dimensions == dims{2, 3});
      CHECK_FALSE(res.outputShapes[1].isSufficient);
      CHECK(res.outputShapes[1].dimensions == dims{2, 3});
      CHECK(rb.guards_intact(r));
      CHECK(res.timing.timeOnDevice == ty::Timing::not_available);
    }
    SUBCASE("the output a later operation reads is too small") {
      const auto pm = must_prepare(two_output_model());
      request_builder rb;
      rb.in(two_a).in(two_b).out(1 * sizeof(float)).out(6 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
      REQUIRE(res.outputShapes.size() == 2);
      CHECK_FALSE(res.outputShapes[0].isSufficient);
      CHECK(res.outputShapes[0].dimensions == dims{2, 3});
      CHECK(res.outputShapes[1].isSufficient);
      CHECK(res.outputShapes[1].dimensions == dims{2, 3});
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("an output of unknown dimensions, zero-length buffer") {
      const auto pm = must_prepare(two_output_model({0, 0}, {}));
      request_builder rb;
      rb.in(two_a).in(two_b).out(0).out(5 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
      REQUIRE(res.outputShapes.size() == 2);
      CHECK_FALSE(res.outputShapes[0].isSufficient);
      CHECK(res.outputShapes[0].dimensions == dims{2, 3});
      CHECK_FALSE(res.outputShapes[1].isSufficient);
      CHECK(res.outputShapes[1].dimensions == dims{2, 3});
      CHECK(rb.guards_intact(r));
    }
    SUBCASE("the chain's output too small by one element") {
      const auto pm = must_prepare(chain_model(true).model);
      request_builder rb;
      rb.in(std::vector<float>(12, 1.0f), {4, 3}).out(13 * sizeof(float));
      const Request r = rb.build();
      const auto res = ex::execute(*pm, r);
      CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
      REQUIRE(res.outputShapes.size() == 1);
      CHECK_FALSE(res.outputShapes[0].isSufficient);
      CHECK(res.outputShapes[0].dimensions == dims{7, 2});
      CHECK(rb.guards_intact(r));
    }
  }

  TEST_CASE("bad requests are INVALID_ARGUMENT") {
    const auto pm = must_prepare(add_model());
    const auto expect_invalid = [&](const Request& r) {
      const auto res = ex::execute(*pm, r);
      CHECK(st(res.status) == "INVALID_ARGUMENT");
      CHECK(res.outputShapes.empty());
      CHECK_FALSE(res.message.empty());
      CHECK(res.timing.timeOnDevice == ty::Timing::not_available);
      CHECK(res.timing.timeInDriver == ty::Timing::not_available);
    };
    SUBCASE("the well-formed request succeeds") {
      const Request r = add_request();
      CHECK(st(ex::execute(*pm, r).status) == "NONE");
      CHECK(read_floats(r, 0) == two_sum);
    }
    SUBCASE("too few inputs") {
      Request r = add_request();
      r.inputs.pop_back();
      expect_invalid(r);
    }
    SUBCASE("too many inputs") {
      Request r = add_request();
      r.inputs.push_back(r.inputs[0]);
      expect_invalid(r);
    }
    SUBCASE("no outputs") {
      Request r = add_request();
      r.outputs.clear();
      expect_invalid(r);
    }
    SUBCASE("too many outputs") {
      Request r = add_request();
      r.outputs.push_back(r.outputs[0]);
      expect_invalid(r);
    }
    SUBCASE("input pool index out of range") {
      Request r = add_request();
      r.inputs[1].location.poolIndex = 1;
      expect_invalid(r);
    }
    SUBCASE("output pool index out of range") {
      Request r = add_request();
      r.outputs[0].location.poolIndex = 7;
      expect_invalid(r);
    }
    SUBCASE("no pools at all") {
      Request r = add_request();
      r.pools.clear();
      expect_invalid(r);
    }
    SUBCASE("input offset beyond the pool") {
      Request r = add_request();
      r.inputs[0].location.offset = 1u << 20;
      expect_invalid(r);
    }
    SUBCASE("input offset + length wraps 32 bits") {
      Request r = add_request();
      r.inputs[0].location.offset = 0xFFFFFFF0u;
      r.inputs[0].location.length = 0x20u;
      expect_invalid(r);
    }
    SUBCASE("output extends beyond the pool") {
      Request r = add_request();
      r.outputs[0].location.length = 1u << 20;
      expect_invalid(r);
    }
    SUBCASE("input shorter than its tensor") {
      Request r = add_request();
      r.inputs[0].location.length = 5 * sizeof(float);
      expect_invalid(r);
    }
    SUBCASE("input dimensions conflicting with the model's") {
      Request r = add_request();
      r.inputs[0].dimensions = {3, 2};
      expect_invalid(r);
    }
    SUBCASE("input rank differs from the model's") {
      Request r = add_request();
      r.inputs[0].dimensions = {6};
      expect_invalid(r);
    }
    SUBCASE("output dimensions conflicting with the model's") {
      Request r = add_request();
      r.outputs[0].dimensions = {2, 4};
      expect_invalid(r);
    }
    SUBCASE("hasNoValue together with a location") {
      Request r = add_request();
      r.inputs[0].hasNoValue = true;
      expect_invalid(r);
    }
    SUBCASE("a driver-managed buffer token as pool") {
      Request r = add_request();
      r.pools.push_back(std::uint32_t{5});
      expect_invalid(r);
    }
    SUBCASE("an unmapped pool") {
      Request r = add_request();
      ty::Memory bad;
      bad.size = 64;
      r.pools.push_back(bad);
      expect_invalid(r);
    }
  }

  // Known bug: execute() hands ADD a null input pointer (SIGSEGV in the kernel).
  TEST_CASE("an omitted required tensor input is INVALID_ARGUMENT, not a crash") {
    const auto pm = must_prepare(add_model());
    const int code = in_child([&] {
      const Request r = request_builder().in(two_a).omitted_in().out(6 * sizeof(float)).build();
      return static_cast<int>(ex::execute(*pm, r).status);
    });
    CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT),
                  "child returned ", code, " (negative: killed by that signal)");
  }

  // Known bug: execute() returns NONE, taking the omitted activation as NONE.
  TEST_CASE("an omitted required scalar input is INVALID_ARGUMENT") {
    // The fused activation is a model input.
    builder b;
    const auto a = b.input(F32, {2, 3});
    const auto act = b.input(OperandType::INT32, {});
    const auto o = b.output(F32, {2, 3});
    b.op(OperationType::ADD, {a, a, act}, {o});
    const auto pm = must_prepare(b.build());
    SUBCASE("given: works") {
      const Request r = request_builder().in(two_a).in(std::vector<std::int32_t>{1}).out(6 * sizeof(float)).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0) == std::vector<float>{2, 0, 6, 0, 10, 0});
    }
    SUBCASE("an invalid activation value") {
      const Request r = request_builder().in(two_a).in(std::vector<std::int32_t>{9}).out(6 * sizeof(float)).build();
      CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    }
    SUBCASE("omitted") {
      const int code = in_child([&] {
        const Request r = request_builder().in(two_a).omitted_in().out(6 * sizeof(float)).build();
        return static_cast<int>(ex::execute(*pm, r).status);
      });
      CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT), "child returned ", code);
    }
  }

  // Known bug: execute() returns NONE with shape [0, 0] and copies the whole input into
  // the output location, past its end when the buffer is shorter than the input.
  TEST_CASE("an omitted RESHAPE shape input is INVALID_ARGUMENT") {
    builder b;
    const auto a = b.input(F32, {2, 3});
    const auto shape = b.input(OperandType::TENSOR_INT32, {2});
    const auto o = b.output(F32, {0, 0});
    b.op(OperationType::RESHAPE, {a, shape}, {o});
    const auto pm = must_prepare(b.build());
    SUBCASE("given: works") {
      const Request r =
          request_builder().in(two_a).in(std::vector<std::int32_t>{3, 2}).out(6 * sizeof(float)).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(res.outputShapes[0].dimensions == dims{3, 2});
      CHECK(read_floats(r, 0) == two_a);
    }
    SUBCASE("a shape that does not keep the element count") {
      const Request r =
          request_builder().in(two_a).in(std::vector<std::int32_t>{4, 2}).out(8 * sizeof(float)).build();
      CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    }
    SUBCASE("omitted") {
      const int code = in_child([&] {
        request_builder rb;
        rb.in(two_a).omitted_in().out(6 * sizeof(float));
        const Request r = rb.build();
        const auto res = ex::execute(*pm, r);
        if (!rb.guards_intact(r)) return 100;
        return static_cast<int>(res.status);
      });
      CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT), "child returned ", code);
    }
    SUBCASE("omitted, with an output buffer smaller than the input") {
      // Whatever the status, nothing may be written past the output's location.
      const int code = in_child([&] {
        request_builder rb;
        rb.in(two_a).omitted_in().out(1 * sizeof(float));
        const Request r = rb.build();
        const auto res = ex::execute(*pm, r);
        if (!rb.guards_intact(r)) return 100;
        return static_cast<int>(res.status);
      });
      CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT),
                    "child returned ", code, " (100: wrote past the output buffer)");
    }
  }

  // Known bug: execute() returns NONE with shape [0, 0] and writes nothing.
  TEST_CASE("an omitted CONCATENATION axis input is INVALID_ARGUMENT") {
    builder b;
    const auto a = b.input(F32, {2, 3});
    const auto axis = b.input(OperandType::INT32, {});
    const auto o = b.output(F32, {0, 0});
    b.op(OperationType::CONCATENATION, {a, a, axis}, {o});
    const auto pm = must_prepare(b.build());
    SUBCASE("given: works") {
      const Request r =
          request_builder().in(two_a).in(std::vector<std::int32_t>{1}).out(12 * sizeof(float)).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(res.outputShapes[0].dimensions == dims{2, 6});
      CHECK(read_floats(r, 0) == std::vector<float>{1, -2, 3, 1, -2, 3, -4, 5, -6, -4, 5, -6});
    }
    SUBCASE("an axis out of range") {
      const Request r =
          request_builder().in(two_a).in(std::vector<std::int32_t>{2}).out(12 * sizeof(float)).build();
      CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    }
    SUBCASE("omitted") {
      const int code = in_child([&] {
        request_builder rb;
        rb.in(two_a).omitted_in().out(12 * sizeof(float));
        const Request r = rb.build();
        const auto res = ex::execute(*pm, r);
        if (!rb.guards_intact(r)) return 100;
        return static_cast<int>(res.status);
      });
      CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT), "child returned ", code);
    }
  }

  // Known bug: validate_model accepts NO_VALUE in ADD's required slots; execution then
  // crashes (tensor input) or silently uses activation NONE (scalar).
  TEST_CASE("a NO_VALUE operand in a required input slot is rejected, never a crash") {
    // ADD has no optional inputs: an omitted (lifetime NO_VALUE) input1 or activation
    // must be refused at validation/prepare, or at the latest at execution.
    auto model_with_no_value = [](bool tensor_slot) {
      builder b;
      const auto a = b.input(F32, {2, 3});
      const auto o = b.output(F32, {2, 3});
      Model m = b.build();
      ty::Operand nv;
      nv.type = tensor_slot ? F32 : OperandType::INT32;
      if (tensor_slot) nv.dimensions = {2, 3};
      nv.lifetime = L::NO_VALUE;
      nv.numberOfConsumers = 1;
      m.main.operands.push_back(nv);
      const auto k = static_cast<std::uint32_t>(m.main.operands.size() - 1);
      if (tensor_slot) {
        ty::Operand act;
        act.type = OperandType::INT32;
        act.lifetime = L::CONSTANT_COPY;
        act.numberOfConsumers = 1;
        act.location = {0, static_cast<std::uint32_t>(m.operandValues.size()), 4};
        m.operandValues.resize(m.operandValues.size() + 4, 0);
        m.main.operands.push_back(act);
        m.main.operands[a].numberOfConsumers = 1;
        m.main.operations.push_back({OperationType::ADD, {a, k, k + 1}, {o}});
      } else {
        m.main.operands[a].numberOfConsumers = 2;
        m.main.operations.push_back({OperationType::ADD, {a, a, k}, {o}});
      }
      return m;
    };
    for (bool tensor_slot : {true, false}) {
      CAPTURE(tensor_slot);
      const Model m = model_with_no_value(tensor_slot);
      auto p = ex::prepare(m);
      if (!p.ok()) {
        CHECK(st(p.status()) == "INVALID_ARGUMENT");
        continue;
      }
      const auto pm = *p;
      const int code = in_child([&] {
        const Request r = request_builder().in(two_a).out(6 * sizeof(float)).build();
        return static_cast<int>(ex::execute(*pm, r).status);
      });
      CHECK_MESSAGE(code == static_cast<int>(ErrorStatus::INVALID_ARGUMENT),
                    "prepare accepted the model; execution in a child returned ", code,
                    " (negative: killed by that signal)");
    }
  }

  TEST_CASE("deadlines") {
    const auto pm = must_prepare(add_model());
    const Request r = add_request();
    ex::execute_options o;
    o.deadline = ty::clock::now() - std::chrono::milliseconds(1);
    auto res = ex::execute(*pm, r, o);
    CHECK(st(res.status) == "MISSED_DEADLINE_TRANSIENT");
    CHECK(res.outputShapes.empty());
    o.deadline = ty::clock::now() + std::chrono::hours(1);
    res = ex::execute(*pm, r, o);
    CHECK(st(res.status) == "NONE");
    CHECK(read_floats(r, 0) == two_sum);
  }

  TEST_CASE("timing") {
    const auto pm = must_prepare(chain_model(false).model);
    const Request r = request_builder().in(std::vector<float>{1, -2, 3, 4, -5, -6}).out(8 * sizeof(float)).build();
    ex::execute_options o;
    SUBCASE("not measured") {
      o.measure = ty::MeasureTiming::NO;
      const auto res = ex::execute(*pm, r, o);
      REQUIRE(st(res.status) == "NONE");
      CHECK(res.timing.timeOnDevice == UINT64_MAX);
      CHECK(res.timing.timeInDriver == UINT64_MAX);
    }
    SUBCASE("measured") {
      o.measure = ty::MeasureTiming::YES;
      const auto res = ex::execute(*pm, r, o);
      REQUIRE(st(res.status) == "NONE");
      CHECK(res.timing.timeOnDevice != UINT64_MAX);
      CHECK(res.timing.timeInDriver != UINT64_MAX);
      CHECK(res.timing.timeInDriver >= res.timing.timeOnDevice);
      CHECK(res.timing.timeInDriver < 60'000'000u);  // a sane number of microseconds
    }
    SUBCASE("measured, but the execution fails") {
      o.measure = ty::MeasureTiming::YES;
      Request bad = r;
      bad.inputs.clear();
      const auto res = ex::execute(*pm, bad, o);
      CHECK(st(res.status) == "INVALID_ARGUMENT");
      CHECK(res.timing.timeOnDevice == UINT64_MAX);
      CHECK(res.timing.timeInDriver == UINT64_MAX);
    }
  }

  TEST_CASE("one prepared model executed from 8 threads matches a sequential run") {
    const auto pm = must_prepare(chain_model(true).model);
    constexpr int threads = 8;
    constexpr int iterations = 25;
    auto input_for = [](int t) {
      const std::size_t rows = 2 * static_cast<std::size_t>(t + 1);
      std::vector<float> v(rows * 3);
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>((static_cast<int>(i) * 7 + t * 3) % 11) - 5.0f + 0.25f * static_cast<float>(t);
      return v;
    };
    auto request_for = [&](int t) {
      const auto in = input_for(t);
      const std::uint32_t rows = static_cast<std::uint32_t>(in.size() / 3);
      return request_builder().in(in, {rows, 3}).out((rows * 3 + 2) * sizeof(float)).build();
    };
    // Sequential run.
    std::vector<std::vector<float>> expected(threads);
    std::vector<dims> expected_dims(threads);
    for (int t = 0; t < threads; ++t) {
      const Request r = request_for(t);
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      expected[t] = read_floats(r, 0);
      expected_dims[t] = res.outputShapes[0].dimensions;
      CHECK(expected[t] == chain_reference(input_for(t)));
    }
    // Concurrent runs.
    std::atomic<int> mismatches{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        for (int k = 0; k < iterations; ++k) {
          const Request r = request_for(t);
          const auto res = ex::execute(*pm, r);
          if (res.status != ErrorStatus::NONE || res.outputShapes.size() != 1 ||
              res.outputShapes[0].dimensions != expected_dims[t] || read_floats(r, 0) != expected[t])
            ++mismatches;
        }
      });
    }
    go = true;
    for (auto& th : pool) th.join();
    CHECK(mismatches.load() == 0);
  }

  TEST_CASE("zero-sized tensors") {
    // A model input cannot be zero-sized: a 0 extent in a request means "unknown", and
    // request inputs must be fully specified. A constant cannot have a 0 extent either,
    // so with ADD/MUL/RELU/RESHAPE/CONCATENATION no zero-sized tensor can arise inside a
    // model (RESHAPE keeps the element count). The zero-sized flow needs an operation
    // that produces one (e.g. BOX_WITH_NMS_LIMIT); here we check the rejections.
    const auto pm = must_prepare(chain_model(true).model);
    const Request r = request_builder().in(std::vector<float>{}, {0, 3}).out(2 * sizeof(float)).build();
    CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");

    builder b;
    const auto a = b.input(F32, {2, 3});
    const auto shape = b.copy_const(OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{0, 3});
    const auto o = b.output(F32, {0, 3});
    b.op(OperationType::RESHAPE, {a, shape}, {o});
    CHECK(st(ex::prepare(b.build()).status()) == "INVALID_ARGUMENT");
  }
}

// =======================================================================================
TEST_SUITE("driver: parallel context") {
  TEST_CASE("serial_context covers [0, n) with disjoint chunks") {
    ex::serial_context serial;
    ex::parallel_context& par = serial;
    CHECK(par.concurrency() == 1);
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      for (std::size_t grain : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{5000}}) {
        CAPTURE(n);
        CAPTURE(grain);
        std::vector<int> hits(n, 0);
        std::vector<std::pair<std::size_t, std::size_t>> chunks;
        auto fn = [&](std::size_t b, std::size_t e) {
          chunks.emplace_back(b, e);
          for (std::size_t i = b; i < e && i < n; ++i) ++hits[i];
        };
        par.parallel_for(n, grain, fn);
        REQUIRE_FALSE(chunks.empty());
        for (const auto& [b, e] : chunks) {
          CHECK(b < e);
          CHECK(e <= n);
        }
        bool each_once = true;
        for (int h : hits) each_once = each_once && h == 1;
        CHECK(each_once);
      }
    }
  }

  TEST_CASE("serial_context with n = 0 calls nothing") {
    ex::serial_context serial;
    int calls = 0;
    auto fn = [&](std::size_t, std::size_t) { ++calls; };
    serial.parallel_for(0, 1, fn);
    serial.parallel_for(0, 0, fn);
    CHECK(calls == 0);
  }
}

// =======================================================================================
namespace {

// A long chain: t[k + 1] = ADD(t[k], c, NONE), `length` operations on [n] floats; every
// temporary has a fixed shape. out = t[length] = in + length * 0.5.
Model long_chain(std::uint32_t length, std::uint32_t n) {
  builder b;
  std::uint32_t prev = b.input(F32, {n});
  const auto c = b.copy_const(F32, {1}, std::vector<float>{0.5f});
  const auto none = b.i32(0);
  for (std::uint32_t k = 0; k < length; ++k) {
    const auto next = k + 1 == length ? b.output(F32, {n}) : b.temp(F32, {n});
    b.op(OperationType::ADD, {prev, c, none}, {next});
    prev = next;
  }
  return b.build();
}

std::unique_ptr<ex::execution> must_start(std::shared_ptr<const ex::prepared_model> pm, const Request& r,
                                         const ex::execute_options& o = {}) {
  auto started = ex::execution::start(std::move(pm), r, o);
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? std::string() : started.err().message));
  return std::move(*started);
}

/// Operations of main that ran at least once, by the profile.
std::size_t ops_run(const ex::execution_outcome& res) {
  std::size_t n = 0;
  for (const auto& p : res.profile) n += p.subgraph == ex::main_graph && p.runs > 0;
  return n;
}
std::uint64_t max_op_ns(const ex::execution_outcome& res) {
  std::uint64_t m = 0;
  for (const auto& p : res.profile) m = std::max(m, p.nanoseconds);
  return m;
}

}  // namespace

TEST_SUITE("execution: the step interface") {
  TEST_CASE("start, one step per operation, finish: same result as execute") {
    const auto pm = must_prepare(chain_model(false).model);
    const std::vector<float> in = {1, -2, 3, 4, -5, -6};
    const Request r = request_builder().in(in).out(8 * sizeof(float)).build();
    auto started = ex::execution::start(pm, r, {});
    REQUIRE(started.ok());
    ex::execution& e = **started;
    ex::serial_context serial;
    CHECK(nnhal::test::run_all_steps(e, serial) == 5);
    const auto res = e.finish();
    REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
    CHECK(read_floats(r, 0) == chain_reference(in));
    CHECK(res.outputShapes[0].dimensions == dims{4, 2});
    CHECK(res.profile.empty());  // not asked for
    CHECK(st(e.finish().status) == "GENERAL_FAILURE");  // only once
  }

  TEST_CASE("start rejects what execute rejects") {
    const auto pm = must_prepare(add_model());
    Request bad = add_request();
    bad.inputs.pop_back();
    CHECK(st(ex::execution::start(pm, bad, {}).status()) == "INVALID_ARGUMENT");
    ex::execute_options o;
    o.deadline = ty::clock::now() - std::chrono::milliseconds(1);
    CHECK(st(ex::execution::start(pm, add_request(), o).status()) == "MISSED_DEADLINE_TRANSIENT");
    o = {};
    o.measure = static_cast<ty::MeasureTiming>(5);
    CHECK(st(ex::execution::start(pm, add_request(), o).status()) == "INVALID_ARGUMENT");
    CHECK(st(ex::execution::start(nullptr, add_request(), {}).status()) == "INVALID_ARGUMENT");
  }

  TEST_CASE("finish before done, and abort") {
    const auto pm = must_prepare(chain_model(false).model);
    const Request r = request_builder().in(std::vector<float>{1, 2, 3, 4, 5, 6}).out(8 * sizeof(float)).build();
    ex::serial_context serial;
    {
      auto e = must_start(pm, r);
      e->step(serial);
      const auto res = e->finish();
      CHECK(st(res.status) == "GENERAL_FAILURE");
      CHECK(res.outputShapes.empty());
    }
    {
      auto e = must_start(pm, r);
      e->step(serial);
      e->abort(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "preempted");
      CHECK(e->done());
      CHECK(e->step(serial) == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
      const auto res = e->finish();
      CHECK(st(res.status) == "RESOURCE_EXHAUSTED_TRANSIENT");
      CHECK(res.message == "preempted");
    }
  }

  TEST_CASE("the execution keeps the prepared model and the request's pools alive") {
    auto pm = must_prepare(add_model());
    Request r = add_request();
    const auto out_pool = std::get<ty::Memory>(r.pools[0]);  // to read the result
    auto e = must_start(pm, r);
    pm.reset();
    r = {};
    ex::serial_context serial;
    while (!e->done()) e->step(serial);
    REQUIRE(st(e->finish().status) == "NONE");
    std::vector<float> got(6);
    std::memcpy(got.data(), out_pool.data + (out_pool.size - guard_bytes - 6 * sizeof(float)), 6 * sizeof(float));
    CHECK(got == two_sum);
  }

  TEST_CASE("restart reuses the execution for the next request") {
    const auto pm = must_prepare(chain_model(true).model);
    auto run = [&](ex::execution& e) {
      ex::serial_context serial;
      while (!e.done()) e.step(serial);
      return e.finish();
    };
    const std::vector<float> in1 = {1, -2, 3, 4, -5, -6};
    const std::vector<float> in2 = {0.5f, 2, -3, 4, 5, 6, -7, 8, 9, -1, 0, 1};
    const Request r1 = request_builder().in(in1, {2, 3}).out(8 * sizeof(float)).build();
    const Request r2 = request_builder().in(in2, {4, 3}).out(14 * sizeof(float)).build();
    auto e = must_start(pm, r1);
    CHECK(st(e->restart(r2, {}).status()) == "GENERAL_FAILURE");  // not finished yet
    REQUIRE(st(run(*e).status) == "NONE");
    CHECK(read_floats(r1, 0) == chain_reference(in1));
    for (int k = 0; k < 3; ++k) {
      const Request& r = k % 2 ? r1 : r2;
      const auto& in = k % 2 ? in1 : in2;
      REQUIRE(e->restart(r, {}).ok());
      const auto res = run(*e);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_floats(r, 0, in.size() + 2) == chain_reference(in));
    }
    Request bad = r1;
    bad.inputs.clear();
    CHECK(st(e->restart(bad, {}).status()) == "INVALID_ARGUMENT");
    CHECK(e->done());
    REQUIRE(e->restart(r1, {}).ok());  // usable again after a rejected request
    CHECK(st(run(*e).status) == "NONE");
  }

  TEST_CASE("profile: one entry per operation, timing invariants") {
    const auto pm = must_prepare(chain_model(false).model);
    const Request r = request_builder().in(std::vector<float>{1, -2, 3, 4, -5, -6}).out(8 * sizeof(float)).build();
    ex::execute_options o;
    o.profile = true;
    o.measure = ty::MeasureTiming::YES;
    const auto res = ex::execute(*pm, r, o);
    REQUIRE(st(res.status) == "NONE");
    REQUIRE(res.profile.size() == 5);
    const OperationType types[] = {OperationType::ADD, OperationType::MUL, OperationType::RELU, OperationType::RESHAPE,
                                   OperationType::CONCATENATION};
    std::uint64_t total = 0;
    for (std::uint32_t k = 0; k < 5; ++k) {
      CHECK(res.profile[k].subgraph == ex::main_graph);
      CHECK(res.profile[k].operation == k);
      CHECK(res.profile[k].type == types[k]);
      CHECK(res.profile[k].runs == 1);
      total += res.profile[k].nanoseconds;
    }
    CHECK(res.timing.timeOnDevice == total / 1000);
    CHECK(res.timing.timeInDriver >= res.timing.timeOnDevice);
  }
}

TEST_SUITE("execution: deadlines and cancellation mid-run") {
  // 120 ADDs on 256K floats (1 MiB each): long enough to stop in the middle.
  constexpr std::uint32_t chain_ops = 120, chain_n = 256 * 1024;

  TEST_CASE("a deadline that expires mid-run aborts within about one operation") {
    const auto pm = must_prepare(long_chain(chain_ops, chain_n));
    const std::vector<float> in(chain_n, 1.0f);
    const Request r = request_builder().in(in).out(chain_n * sizeof(float)).build();
    ex::execute_options o;
    o.profile = true;
    // A full run first: how long one operation takes here, once warm (the first run also
    // pays for touching fresh memory, which would put the deadline past the end).
    REQUIRE(st(ex::execute(*pm, r, o).status) == "NONE");
    auto full = ex::execute(*pm, r, o);
    REQUIRE(st(full.status) == "NONE");
    CHECK(read_floats(r, 0, 1)[0] == 1.0f + 0.5f * chain_ops);
    const auto full_ns = std::accumulate(full.profile.begin(), full.profile.end(), std::uint64_t{0},
                                         [](std::uint64_t a, const ex::op_profile& p) { return a + p.nanoseconds; });
    o.deadline = ty::clock::now() + std::chrono::nanoseconds(full_ns / 3);
    const auto res = ex::execute(*pm, r, o);
    const auto overshoot = ty::clock::now() - *o.deadline;
    CHECK(st(res.status) == "MISSED_DEADLINE_TRANSIENT");
    CHECK(res.outputShapes.empty());
    const std::size_t ran = ops_run(res);
    CHECK(ran > 0);
    CHECK(ran < chain_ops);
    // Stopped at the first checkpoint after the deadline: at most one operation late
    // (plus scheduling noise on a loaded machine).
    const auto op_ns = std::max(max_op_ns(res), max_op_ns(full));
    CHECK(overshoot < std::chrono::nanoseconds(2 * op_ns) + std::chrono::milliseconds(20));
  }

  TEST_CASE("cancellation before and during a run") {
    const auto pm = must_prepare(long_chain(chain_ops, chain_n));
    const std::vector<float> in(chain_n, 1.0f);
    const Request r = request_builder().in(in).out(chain_n * sizeof(float)).build();
    ex::execute_options o;
    o.profile = true;
    SUBCASE("already cancelled: nothing runs") {
      std::stop_source src;
      src.request_stop();
      o.stop = src.get_token();
      const auto res = ex::execute(*pm, r, o);
      CHECK(st(res.status) == "GENERAL_FAILURE");
      CHECK(ops_run(res) == 0);
    }
    SUBCASE("cancelled from another thread while stepping") {
      std::stop_source src;
      o.stop = src.get_token();
      auto e = must_start(pm, r, o);
      ex::serial_context serial;
      for (int k = 0; k < 3; ++k) REQUIRE(e->step(serial) == ErrorStatus::NONE);
      std::thread([&] { src.request_stop(); }).join();
      CHECK(e->checkpoint() == ErrorStatus::GENERAL_FAILURE);
      e->abort(e->checkpoint(), "cancelled");
      const auto res = e->finish();
      CHECK(st(res.status) == "GENERAL_FAILURE");
      CHECK(ops_run(res) == 3);
    }
  }
}

TEST_SUITE("execution: memory plan") {
  TEST_CASE("a chain's temporaries share an arena of two buffers") {
    const auto pm = must_prepare(long_chain(10, 64));
    const auto& plan = pm->memory_plan();
    CHECK(plan.planned == 9);
    CHECK(plan.dynamic == 0);
    CHECK(plan.temporaries_bytes == 9 * 64 * sizeof(float));
    CHECK(plan.arena_bytes == 2 * 64 * sizeof(float));
    CHECK(plan.arena_bytes < plan.temporaries_bytes);
    const Request r = request_builder().in(std::vector<float>(64, 2.0f)).out(64 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE(st(res.status) == "NONE");
    CHECK(read_floats(r, 0) == std::vector<float>(64, 7.0f));
  }

  TEST_CASE("RESHAPE, SQUEEZE and EXPAND_DIMS outputs share their input's buffer") {
    // x [2, 32] -> ADD -> t1 -> RESHAPE [64] -> t2 -> EXPAND_DIMS [1, 64] -> t3 -> SQUEEZE -> t4
    // [64] -> ADD -> out. t1..t4 share one buffer; t1 is also read by the last ADD, after
    // the others were written: it must still hold its own values.
    builder b;
    const auto x = b.input(F32, {2, 32});
    const auto half = b.copy_const(F32, {1}, std::vector<float>{0.5f});
    const auto none = b.i32(0);
    const auto t1 = b.temp(F32, {2, 32});
    b.op(OperationType::ADD, {x, half, none}, {t1});
    const auto t2 = b.temp(F32, {64});
    b.op(OperationType::RESHAPE, {t1, b.copy_const(ty::OperandType::TENSOR_INT32, {1}, std::vector<std::int32_t>{64})}, {t2});
    const auto t3 = b.temp(F32, {1, 64});
    b.op(OperationType::EXPAND_DIMS, {t2, b.i32(0)}, {t3});
    const auto t4 = b.temp(F32, {64});
    b.op(OperationType::SQUEEZE, {t3, b.copy_const(ty::OperandType::TENSOR_INT32, {1}, std::vector<std::int32_t>{0})}, {t4});
    const auto t5 = b.temp(F32, {2, 32});
    b.op(OperationType::RESHAPE, {t4, b.copy_const(ty::OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{2, 32})}, {t5});
    const auto out = b.output(F32, {2, 32});
    b.op(OperationType::ADD, {t5, t1, none}, {out});
    const auto pm = must_prepare(b.build());
    const auto& plan = pm->memory_plan();
    CHECK(plan.planned == 5);
    CHECK(plan.aliased == 4);
    CHECK(plan.arena_bytes == 64 * sizeof(float));
    std::vector<float> in(64);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    const Request r = request_builder().in(in).out(64 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE(st(res.status) == "NONE");
    std::vector<float> want(64);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = 2.0f * (static_cast<float>(i) + 0.5f);
    CHECK(read_floats(r, 0) == want);
  }

  TEST_CASE("a shared buffer lives until the last reader of any operand in it") {
    // t1 = x + 0.5 is last read by the RESHAPE, but t2 (its bytes) is read by the last ADD:
    // t3, written in between, must not take t1's place.
    builder b;
    const auto x = b.input(F32, {64});
    const auto y = b.input(F32, {8, 8});
    const auto none = b.i32(0);
    const auto t1 = b.temp(F32, {64});
    b.op(OperationType::ADD, {x, b.copy_const(F32, {1}, std::vector<float>{0.5f}), none}, {t1});
    const auto t2 = b.temp(F32, {8, 8});
    b.op(OperationType::RESHAPE, {t1, b.copy_const(ty::OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{8, 8})}, {t2});
    const auto t3 = b.temp(F32, {8, 8});
    b.op(OperationType::ADD, {y, b.copy_const(F32, {1}, std::vector<float>{1.0f}), none}, {t3});
    const auto out = b.output(F32, {8, 8});
    b.op(OperationType::ADD, {t2, t3, none}, {out});
    const auto pm = must_prepare(b.build());
    CHECK(pm->memory_plan().aliased == 1);
    CHECK(pm->memory_plan().arena_bytes == 2 * 64 * sizeof(float));
    std::vector<float> xs(64), ys(64), want(64);
    for (std::size_t i = 0; i < 64; ++i) {
      xs[i] = static_cast<float>(i);
      ys[i] = static_cast<float>(100 * i);
      want[i] = xs[i] + 0.5f + ys[i] + 1.0f;
    }
    const Request r = request_builder().in(xs).in(ys).out(64 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE(st(res.status) == "NONE");
    CHECK(read_floats(r, 0) == want);
  }

  TEST_CASE("a RESHAPE of a model input or into a model output is still a copy") {
    builder b;
    const auto x = b.input(F32, {2, 3});
    const auto out = b.output(F32, {6});
    b.op(OperationType::RESHAPE, {x, b.copy_const(ty::OperandType::TENSOR_INT32, {1}, std::vector<std::int32_t>{6})}, {out});
    const auto pm = must_prepare(b.build());
    CHECK(pm->memory_plan().aliased == 0);
    const Request r = request_builder().in(std::vector<float>{1, 2, 3, 4, 5, 6}).out(6 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE(st(res.status) == "NONE");
    CHECK(read_floats(r, 0) == std::vector<float>{1, 2, 3, 4, 5, 6});
  }

  TEST_CASE("temporaries of unknown shape are sized at execution") {
    const auto pm = must_prepare(chain_model(true).model);
    CHECK(pm->memory_plan().dynamic == 4);
    CHECK(pm->memory_plan().planned == 0);
    CHECK(pm->memory_plan().arena_bytes == 0);
  }

  TEST_CASE("plan_arena: buffers alive at the same time never share bytes") {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
      const std::size_t count = 1 + rng() % 40;
      std::vector<ex::detail::buffer_lifetime> bufs(count);
      for (auto& b : bufs) {
        b.size = rng() % 3 == 0 ? 0 : 1 + rng() % 5000;
        b.first = static_cast<std::uint32_t>(rng() % 30);
        b.last = b.first + static_cast<std::uint32_t>(rng() % 8);
      }
      const auto layout = ex::detail::plan_arena(bufs);
      REQUIRE(layout.offsets.size() == count);
      std::size_t sum = 0;
      for (std::size_t i = 0; i < count; ++i) {
        CHECK(layout.offsets[i] % ex::detail::arena_alignment == 0);
        CHECK(layout.offsets[i] + bufs[i].size <= layout.bytes);
        sum += ex::detail::align_up(std::max<std::size_t>(bufs[i].size, 1), ex::detail::arena_alignment);
        for (std::size_t j = 0; j < i; ++j) {
          const bool live_together = bufs[i].first <= bufs[j].last && bufs[j].first <= bufs[i].last;
          const bool disjoint = layout.offsets[i] + std::max<std::size_t>(bufs[i].size, 1) <= layout.offsets[j] ||
                                layout.offsets[j] + std::max<std::size_t>(bufs[j].size, 1) <= layout.offsets[i];
          if (live_together) CHECK(disjoint);
        }
      }
      CHECK(layout.bytes <= sum);
      // Never below the largest set of buffers alive at one operation.
      for (std::uint32_t t = 0; t < 40; ++t) {
        std::size_t live = 0;
        for (const auto& b : bufs)
          if (b.first <= t && t <= b.last) live += b.size;
        CHECK(layout.bytes >= live);
      }
    }
  }
}

TEST_SUITE("execution: request pools from file descriptors") {
  // A memfd of `bytes` zero bytes (closed by the caller).
  int make_memfd(std::size_t bytes) {
    const int fd = memfd_create("nnhal-test", 0);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(bytes)) == 0);
    return fd;
  }

  TEST_CASE("inputs and outputs in a mapped memfd, at an offset that is not page-aligned") {
    const int fd = make_memfd(3 * 4096);
    constexpr std::size_t base = 4096 + 100;  // the pool starts inside the second page
    REQUIRE(pwrite(fd, two_a.data(), 24, base) == 24);
    REQUIRE(pwrite(fd, two_b.data(), 24, base + 32) == 24);
    auto mem = ty::Memory::map_fd(fd, base, 2 * 4096 - 100);  // to the end of the file
    REQUIRE_MESSAGE(mem.ok(), (mem.ok() ? std::string() : mem.err().message));
    close(fd);  // the mapping keeps its own reference
    Request r;
    r.inputs = {{false, {0, 0, 24}, {}}, {false, {0, 32, 24}, {}}};
    r.outputs = {{false, {0, 64, 24}, {}}};
    r.pools.push_back(*mem);
    const auto pm = must_prepare(add_model());
    const auto res = ex::execute(*pm, r);
    REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
    std::vector<float> got(6);
    std::memcpy(got.data(), mem->data + 64, 24);
    CHECK(got == two_sum);
  }

  TEST_CASE("the result is visible through the file (MAP_SHARED)") {
    const int fd = make_memfd(4096);
    REQUIRE(pwrite(fd, two_a.data(), 24, 0) == 24);
    REQUIRE(pwrite(fd, two_b.data(), 24, 32) == 24);
    {
      auto mem = ty::Memory::map_fd(fd, 0, 4096);
      REQUIRE(mem.ok());
      Request r;
      r.inputs = {{false, {0, 0, 24}, {}}, {false, {0, 32, 24}, {}}};
      r.outputs = {{false, {0, 64, 24}, {}}};
      r.pools.push_back(*mem);
      REQUIRE(st(ex::execute(*must_prepare(add_model()), r).status) == "NONE");
    }
    std::vector<float> got(6);
    REQUIRE(pread(fd, got.data(), 24, 64) == 24);
    CHECK(got == two_sum);
    close(fd);
  }

  TEST_CASE("bad descriptors, lengths and offsets are INVALID_ARGUMENT") {
    const int fd = make_memfd(4096);
    CHECK(st(ty::Memory::map_fd(-1, 0, 16).status()) == "INVALID_ARGUMENT");
    CHECK(st(ty::Memory::map_fd(fd, 0, 0).status()) == "INVALID_ARGUMENT");
    CHECK(st(ty::Memory::map_fd(fd, 0, 4097).status()) == "INVALID_ARGUMENT");
    CHECK(st(ty::Memory::map_fd(fd, 4000, 100).status()) == "INVALID_ARGUMENT");
    CHECK(st(ty::Memory::map_fd(fd, 8192, 1).status()) == "INVALID_ARGUMENT");
    CHECK(st(ty::Memory::map_fd(fd, SIZE_MAX - 2, 16).status()) == "INVALID_ARGUMENT");
    CHECK(ty::Memory::map_fd(fd, 4000, 96).ok());
    const int closed = dup(fd);
    close(closed);
    CHECK(st(ty::Memory::map_fd(closed, 0, 16).status()) == "INVALID_ARGUMENT");
    int pipe_fds[2];
    REQUIRE(pipe(pipe_fds) == 0);
    CHECK(st(ty::Memory::map_fd(pipe_fds[0], 0, 16).status()) == "INVALID_ARGUMENT");  // not mappable
    close(pipe_fds[0]);
    close(pipe_fds[1]);

    // A read-only mapping holds inputs, never outputs.
    {
      auto ro = ty::Memory::map_fd(fd, 0, 4096, /*writable=*/false);
      REQUIRE(ro.ok());
      CHECK_FALSE(ro->writable);
      auto rw = ty::Memory::map_fd(fd, 0, 4096);
      REQUIRE(rw.ok());
      std::memcpy(rw->data, two_a.data(), 24);
      std::memcpy(rw->data + 32, two_b.data(), 24);
      Request r;
      r.inputs = {{false, {0, 0, 24}, {}}, {false, {0, 32, 24}, {}}};
      r.outputs = {{false, {1, 64, 24}, {}}};
      r.pools = {*ro, *rw};
      const auto pm = must_prepare(add_model());
      CHECK(st(ex::execute(*pm, r).status) == "NONE");
      r.outputs = {{false, {0, 64, 24}, {}}};
      CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    }

    // Request arguments outside a mapped pool.
    auto mem = ty::Memory::map_fd(fd, 0, 64);
    REQUIRE(mem.ok());
    const auto pm = must_prepare(add_model());
    Request r;
    r.inputs = {{false, {0, 0, 24}, {}}, {false, {0, 32, 24}, {}}};
    r.outputs = {{false, {0, 48, 24}, {}}};  // ends at 72 > 64
    r.pools.push_back(*mem);
    CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    r.outputs = {{false, {0, 40, 24}, {}}};
    r.inputs[1].location = {1, 0, 24};  // no pool 1
    CHECK(st(ex::execute(*pm, r).status) == "INVALID_ARGUMENT");
    close(fd);
  }
}
