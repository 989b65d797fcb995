// IF and WHILE (HAL 1.3 types.hal, "IF", "WHILE") through exec::prepare / execute and
// the step interface: both branches, nesting, loop-carried state, dynamic shapes inside
// loops, the loop timeout, the support query, profiles and concurrent executions.
// Expected values are computed by hand from the graphs' formulas, never by our kernels.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "nnhal/exec/driver.hpp"
#include "support/model_builder.hpp"
#include "support/request_builder.hpp"
#include "support/step_runner.hpp"

namespace ex = nnhal::exec;
namespace ty = nnhal::types;

using nnhal::test::graph_builder;
using nnhal::test::model_builder;
using ty::ErrorStatus;
using ty::Model;
using ty::OperandType;
using ty::OperationType;
using ty::Request;
using dims = std::vector<std::uint32_t>;

namespace {

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr auto I32 = OperandType::TENSOR_INT32;
constexpr auto B8 = OperandType::TENSOR_BOOL8;

std::string st(ErrorStatus s) { return std::string(ty::to_string(s)); }

using nnhal::test::request_builder;  // support/request_builder.hpp

template <class V>
std::vector<V> read_out(const Request& r, std::size_t k, std::size_t count) {
  const auto& loc = r.outputs[k].location;
  const auto& mem = std::get<ty::Memory>(r.pools[loc.poolIndex]);
  std::vector<V> v(count);
  if (count) std::memcpy(v.data(), mem.data + loc.offset, count * sizeof(V));
  return v;
}

std::shared_ptr<const ex::prepared_model> must_prepare(const Model& m) {
  auto p = ex::prepare(m);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? std::string() : p.err().message));
  return *p;
}

// ---------------------------------------------------------------------------------------
// IF: out [3] = cond ? x + [1, 2, 3] : x * [2, 2, 2]

Model if_model() {
  model_builder b;
  auto then_g = b.referenced(0);
  {
    const auto x = then_g.input(F32, {3});
    const auto y = then_g.output(F32, {3});
    then_g.op(OperationType::ADD, {x, then_g.constant(F32, {3}, std::vector<float>{1, 2, 3}), then_g.i32(0)}, {y});
  }
  auto else_g = b.referenced(1);
  {
    const auto x = else_g.input(F32, {3});
    const auto y = else_g.output(F32, {3});
    else_g.op(OperationType::MUL, {x, else_g.constant(F32, {3}, std::vector<float>{2, 2, 2}), else_g.i32(0)}, {y});
  }
  auto g = b.main();
  const auto cond = g.input(B8, {1});
  const auto x = g.input(F32, {3});
  const auto out = g.output(F32, {3});
  g.op(OperationType::IF, {cond, g.subgraph_ref(0), g.subgraph_ref(1), x}, {out});
  return b.build();
}

// ---------------------------------------------------------------------------------------
// WHILE with a nested IF, loop-carried state and an input-only value:
//
//   acc = acc0 (f32 [1], input-output), i = i0 (i32 [1], state-only), n (i32 [1], input-only)
//   while i < n:
//     acc = (i > 2) ? acc + 10 : acc + 1
//     i = i + 1
//   out = acc
//
// referenced: 0 cond, 1 body, 2 then (+10), 3 else (+1).

Model nested_model() {
  model_builder b;
  auto cond = b.referenced(0);
  {
    const auto acc = cond.input(F32, {1});
    const auto i = cond.input(I32, {1});
    const auto n = cond.input(I32, {1});
    (void)acc;
    const auto c = cond.output(B8, {1});
    cond.op(OperationType::LESS, {i, n}, {c});
  }
  for (int k : {2, 3}) {
    auto br = b.referenced(static_cast<std::size_t>(k));
    const auto a = br.input(F32, {1});
    const auto y = br.output(F32, {1});
    br.op(OperationType::ADD, {a, br.constant(F32, {1}, std::vector<float>{k == 2 ? 10.0f : 1.0f}), br.i32(0)}, {y});
  }
  auto body = b.referenced(1);
  {
    const auto acc = body.input(F32, {1});
    const auto i = body.input(I32, {1});
    const auto n = body.input(I32, {1});
    (void)n;
    const auto acc_out = body.output(F32, {1});
    const auto i_out = body.output(I32, {1});
    const auto big = body.temporary(B8, {1});
    body.op(OperationType::GREATER, {i, body.constant(I32, {1}, std::vector<std::int32_t>{2})}, {big});
    body.op(OperationType::IF, {big, body.subgraph_ref(2), body.subgraph_ref(3), acc}, {acc_out});
    body.op(OperationType::ADD, {i, body.constant(I32, {1}, std::vector<std::int32_t>{1}), body.i32(0)}, {i_out});
  }
  auto g = b.main();
  const auto acc0 = g.input(F32, {1});
  const auto i0 = g.input(I32, {1});
  const auto n = g.input(I32, {1});
  const auto out = g.output(F32, {1});
  g.op(OperationType::WHILE, {g.subgraph_ref(0), g.subgraph_ref(1), acc0, i0, n}, {out});
  return b.build();
}

float nested_reference(float acc, int i, int n) {
  for (; i < n; ++i) acc += i > 2 ? 10.0f : 1.0f;
  return acc;
}

// ---------------------------------------------------------------------------------------
// WHILE whose value grows: x doubles in length every iteration (CONCATENATION of x with
// itself plus one), shapes unknown inside the body and in the main output.
//
//   x = x0 (f32 [2]), i = 0 (i32 [1]); while i < n: x = concat(x, x + 1); i = i + 1

Model growing_model(bool body_shapes_known_rank = true) {
  model_builder b;
  const dims unknown = body_shapes_known_rank ? dims{0} : dims{};
  auto cond = b.referenced(0);
  {
    const auto x = cond.input(F32, {0});
    (void)x;
    const auto i = cond.input(I32, {1});
    const auto n = cond.input(I32, {1});
    const auto c = cond.output(B8, {1});
    cond.op(OperationType::LESS, {i, n}, {c});
  }
  auto body = b.referenced(1);
  {
    const auto x = body.input(F32, {0});
    const auto i = body.input(I32, {1});
    const auto n = body.input(I32, {1});
    (void)n;
    const auto x_out = body.output(F32, unknown);
    const auto i_out = body.output(I32, {1});
    const auto plus = body.temporary(F32, {0});
    body.op(OperationType::ADD, {x, body.constant(F32, {1}, std::vector<float>{1.0f}), body.i32(0)}, {plus});
    body.op(OperationType::CONCATENATION, {x, plus, body.i32(0)}, {x_out});
    body.op(OperationType::ADD, {i, body.constant(I32, {1}, std::vector<std::int32_t>{1}), body.i32(0)}, {i_out});
  }
  auto g = b.main();
  const auto x0 = g.input(F32, {2});
  const auto i0 = g.constant(I32, {1}, std::vector<std::int32_t>{0});
  const auto n = g.input(I32, {1});
  const auto out = g.output(F32, {0});
  g.op(OperationType::WHILE, {g.subgraph_ref(0), g.subgraph_ref(1), x0, i0, n}, {out});
  return b.build();
}

std::vector<float> growing_reference(std::vector<float> x, int n) {
  for (int k = 0; k < n; ++k) {
    const std::size_t len = x.size();
    for (std::size_t j = 0; j < len; ++j) x.push_back(x[j] + 1.0f);
  }
  return x;
}

// WHILE (x >= 0) x = x + 1: never ends.
Model endless_model() {
  model_builder b;
  auto cond = b.referenced(0);
  {
    const auto x = cond.input(F32, {1});
    const auto c = cond.output(B8, {1});
    cond.op(OperationType::GREATER_EQUAL, {x, cond.constant(F32, {1}, std::vector<float>{0.0f})}, {c});
  }
  auto body = b.referenced(1);
  {
    const auto x = body.input(F32, {1});
    const auto y = body.output(F32, {1});
    body.op(OperationType::ADD, {x, body.constant(F32, {1}, std::vector<float>{1.0f}), body.i32(0)}, {y});
  }
  auto g = b.main();
  const auto x0 = g.input(F32, {1});
  const auto out = g.output(F32, {1});
  g.op(OperationType::WHILE, {g.subgraph_ref(0), g.subgraph_ref(1), x0}, {out});
  return b.build();
}

}  // namespace

// =======================================================================================
TEST_SUITE("control flow: IF") {
  TEST_CASE("both branches give hand-computed values") {
    const auto pm = must_prepare(if_model());
    const std::vector<float> x = {1.5f, -2.0f, 4.0f};
    for (bool c : {true, false}) {
      CAPTURE(c);
      const Request r = request_builder().in(std::vector<std::uint8_t>{c ? std::uint8_t{1} : std::uint8_t{0}}).in(x)
                            .out(3 * sizeof(float)).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      const std::vector<float> want = c ? std::vector<float>{2.5f, 0.0f, 7.0f} : std::vector<float>{3.0f, -4.0f, 8.0f};
      CHECK(read_out<float>(r, 0, 3) == want);
      REQUIRE(res.outputShapes.size() == 1);
      CHECK(res.outputShapes[0].dimensions == dims{3});
    }
  }

  TEST_CASE("any non-zero byte is true") {
    const auto pm = must_prepare(if_model());
    const Request r = request_builder().in(std::vector<std::uint8_t>{7}).in(std::vector<float>{0, 0, 0})
                          .out(3 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    REQUIRE(st(res.status) == "NONE");
    CHECK(read_out<float>(r, 0, 3) == std::vector<float>{1, 2, 3});
  }

  TEST_CASE("a too-small output buffer is OUTPUT_INSUFFICIENT_SIZE with the full shape") {
    const auto pm = must_prepare(if_model());
    const Request r = request_builder().in(std::vector<std::uint8_t>{1}).in(std::vector<float>{0, 0, 0})
                          .out(2 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
    REQUIRE(res.outputShapes.size() == 1);
    CHECK_FALSE(res.outputShapes[0].isSufficient);
    CHECK(res.outputShapes[0].dimensions == dims{3});
  }

  TEST_CASE("the step interface: enter the branch, run its operation, return") {
    const auto pm = must_prepare(if_model());
    const Request r = request_builder().in(std::vector<std::uint8_t>{0}).in(std::vector<float>{1, 2, 3})
                          .out(3 * sizeof(float)).build();
    auto started = ex::execution::start(pm, r, {});
    REQUIRE(started.ok());
    ex::execution& e = **started;
    ex::serial_context serial;
    CHECK(nnhal::test::run_all_steps(e, serial) == 3);  // enter IF, MUL inside the else branch, return to main
    CHECK(e.step(serial) == ErrorStatus::NONE);  // done: nothing more happens
    const auto res = e.finish();
    REQUIRE(st(res.status) == "NONE");
    CHECK(read_out<float>(r, 0, 3) == std::vector<float>{2, 4, 6});
  }

  TEST_CASE("supported_operations: IF follows its branches") {
    Model m = if_model();
    auto flags = ex::supported_operations(m);
    REQUIRE(flags.ok());
    CHECK(*flags == std::vector<bool>{true});
    // An extension operation (valid, no kernel) in the else branch: IF is unsupported.
    m.extensionNameToPrefix.push_back({"com.example.vendor", 1});
    m.referenced[1].operations[0].type = static_cast<OperationType>((1 << 16) | 3);
    REQUIRE(ty::validate_model(m).ok());
    flags = ex::supported_operations(m);
    REQUIRE(flags.ok());
    CHECK(*flags == std::vector<bool>{false});
    CHECK(st(ex::prepare(m).status()) == "INVALID_ARGUMENT");
  }
}

// =======================================================================================
TEST_SUITE("control flow: WHILE") {
  TEST_CASE("nested IF inside WHILE with state-only and input-only values") {
    const auto pm = must_prepare(nested_model());
    struct c {
      float acc;
      int i, n;
    };
    for (const c& t : {c{0.5f, 0, 6}, c{-1.0f, 0, 0}, c{2.0f, 4, 3}, c{0.0f, 1, 4}, c{3.0f, 0, 1}}) {
      CAPTURE(t.acc);
      CAPTURE(t.i);
      CAPTURE(t.n);
      const Request r = request_builder()
                            .in(std::vector<float>{t.acc})
                            .in(std::vector<std::int32_t>{t.i})
                            .in(std::vector<std::int32_t>{t.n})
                            .out(sizeof(float))
                            .build();
      const auto res = ex::execute(*pm, r);
      REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
      CHECK(read_out<float>(r, 0, 1)[0] == nested_reference(t.acc, t.i, t.n));
    }
  }

  TEST_CASE("the profile counts every run of every operation") {
    const auto pm = must_prepare(nested_model());
    const Request r = request_builder()
                          .in(std::vector<float>{0})
                          .in(std::vector<std::int32_t>{0})
                          .in(std::vector<std::int32_t>{5})
                          .out(sizeof(float))
                          .build();
    ex::execute_options o;
    o.profile = true;
    o.measure = ty::MeasureTiming::YES;
    const auto res = ex::execute(*pm, r, o);
    REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
    CHECK(read_out<float>(r, 0, 1)[0] == 23.0f);  // 1 + 1 + 1 + 10 + 10
    auto runs = [&](std::uint32_t graph, std::uint32_t op) {
      for (const auto& p : res.profile)
        if (p.subgraph == graph && p.operation == op) return p.runs;
      return ~0u;
    };
    // Subgraph ids: 0 main, k + 1 referenced[k].
    CHECK(runs(1, 0) == 6);  // LESS: 5 true, 1 false
    CHECK(runs(2, 0) == 5);  // GREATER in the body
    CHECK(runs(2, 2) == 5);  // the counter's ADD
    CHECK(runs(3, 0) == 2);  // then: i = 3, 4
    CHECK(runs(4, 0) == 3);  // else: i = 0, 1, 2
    std::uint64_t total = 0;
    for (const auto& p : res.profile) {
      total += p.nanoseconds;
      if (p.runs == 0) CHECK(p.nanoseconds == 0);
    }
    CHECK(res.timing.timeOnDevice != UINT64_MAX);
    CHECK(res.timing.timeInDriver >= res.timing.timeOnDevice);
    CHECK(total / 1000 <= res.timing.timeOnDevice + 1);
    // Per type: LESS 6 runs, GREATER 5, ADD 2 + 3 + 5 (branches and the counter).
    const auto by_type = ex::profile_by_type(res.profile);
    auto type_runs = [&](OperationType t) {
      for (const auto& p : by_type)
        if (p.type == t) return p.runs;
      return ~0u;
    };
    CHECK(type_runs(OperationType::LESS) == 6);
    CHECK(type_runs(OperationType::GREATER) == 5);
    CHECK(type_runs(OperationType::ADD) == 10);
    for (std::size_t k = 1; k < by_type.size(); ++k) CHECK(by_type[k - 1].nanoseconds >= by_type[k].nanoseconds);
  }

  TEST_CASE("dynamic shapes inside the loop; the result's shape is reported") {
    for (bool known_rank : {true, false}) {
      CAPTURE(known_rank);
      const auto pm = must_prepare(growing_model(known_rank));
      for (int n : {0, 1, 3}) {
        CAPTURE(n);
        const std::vector<float> x0 = {0.25f, -3.0f};
        const auto want = growing_reference(x0, n);
        const Request r = request_builder().in(x0).in(std::vector<std::int32_t>{n}).out(want.size() * sizeof(float)).build();
        const auto res = ex::execute(*pm, r);
        REQUIRE_MESSAGE(st(res.status) == "NONE", res.message);
        CHECK(res.outputShapes[0].dimensions == dims{static_cast<std::uint32_t>(want.size())});
        CHECK(read_out<float>(r, 0, want.size()) == want);
      }
    }
  }

  TEST_CASE("a loop result larger than its buffer is OUTPUT_INSUFFICIENT_SIZE") {
    const auto pm = must_prepare(growing_model());
    const Request r =
        request_builder().in(std::vector<float>{1, 2}).in(std::vector<std::int32_t>{3}).out(8 * sizeof(float)).build();
    const auto res = ex::execute(*pm, r);
    CHECK(st(res.status) == "OUTPUT_INSUFFICIENT_SIZE");
    REQUIRE(res.outputShapes.size() == 1);
    CHECK_FALSE(res.outputShapes[0].isSufficient);
    CHECK(res.outputShapes[0].dimensions == dims{16});
  }

  TEST_CASE("loop timeout: MISSED_DEADLINE_TRANSIENT soon after it expires") {
    const auto pm = must_prepare(endless_model());
    const Request r = request_builder().in(std::vector<float>{1.0f}).out(sizeof(float)).build();
    ex::execute_options o;
    o.loop_timeout = std::chrono::milliseconds(20);
    o.measure = ty::MeasureTiming::YES;
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = ex::execute(*pm, r, o);
    const auto took = std::chrono::steady_clock::now() - t0;
    CHECK(st(res.status) == "MISSED_DEADLINE_TRANSIENT");
    CHECK(res.outputShapes.empty());
    CHECK(res.timing.timeOnDevice == UINT64_MAX);
    CHECK(res.timing.timeInDriver == UINT64_MAX);
    CHECK(took >= std::chrono::milliseconds(20));
    CHECK(took < std::chrono::seconds(2));
  }

  TEST_CASE("a finite loop is not cut by a short timeout it stays under; bad timeouts") {
    const auto pm = must_prepare(nested_model());
    const Request r = request_builder()
                          .in(std::vector<float>{0})
                          .in(std::vector<std::int32_t>{0})
                          .in(std::vector<std::int32_t>{3})
                          .out(sizeof(float))
                          .build();
    ex::execute_options o;
    o.loop_timeout = std::chrono::seconds(1);
    CHECK(st(ex::execute(*pm, r, o).status) == "NONE");
    o.loop_timeout = std::chrono::hours(1);  // above the HAL maximum: clamped to 15 s, accepted
    CHECK(st(ex::execute(*pm, r, o).status) == "NONE");
    o.loop_timeout = std::chrono::nanoseconds(-1);
    CHECK(st(ex::execute(*pm, r, o).status) == "INVALID_ARGUMENT");
  }

  TEST_CASE("a deadline ends an endless loop at a checkpoint inside it") {
    const auto pm = must_prepare(endless_model());
    const Request r = request_builder().in(std::vector<float>{1.0f}).out(sizeof(float)).build();
    ex::execute_options o;
    o.deadline = ty::clock::now() + std::chrono::milliseconds(20);
    const auto res = ex::execute(*pm, r, o);
    CHECK(st(res.status) == "MISSED_DEADLINE_TRANSIENT");
    CHECK(ty::clock::now() - *o.deadline < std::chrono::milliseconds(500));
  }

  TEST_CASE("8 threads x 8 runs on one prepared model match sequential runs") {
    const auto pm = must_prepare(growing_model());
    constexpr int threads = 8, runs = 8;
    auto x0_for = [](int t) { return std::vector<float>{static_cast<float>(t), 0.5f * static_cast<float>(t)}; };
    std::vector<std::vector<float>> expected(threads);
    for (int t = 0; t < threads; ++t) {
      const auto want = growing_reference(x0_for(t), t % 4);
      const Request r =
          request_builder().in(x0_for(t)).in(std::vector<std::int32_t>{t % 4}).out(want.size() * sizeof(float)).build();
      const auto res = ex::execute(*pm, r);
      REQUIRE(st(res.status) == "NONE");
      expected[t] = read_out<float>(r, 0, want.size());
      CHECK(expected[t] == want);
    }
    std::atomic<int> mismatches{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int k = 0; k < runs; ++k) {
          const Request r = request_builder()
                                .in(x0_for(t))
                                .in(std::vector<std::int32_t>{t % 4})
                                .out(expected[t].size() * sizeof(float))
                                .build();
          const auto res = ex::execute(*pm, r);
          if (res.status != ErrorStatus::NONE || read_out<float>(r, 0, expected[t].size()) != expected[t]) ++mismatches;
        }
      });
    for (auto& th : pool) th.join();
    CHECK(mismatches.load() == 0);
  }
}
