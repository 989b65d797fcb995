// Execution styles over the coroutine runtime (exec/async.hpp, fenced.hpp, burst.hpp):
// async with callbacks, fenced with fences and timings, bursts with a memory cache;
// priorities, deadlines (passed, predicted, mid-run), cancellation, admission limits.
// Expected outputs come from the formula the test model computes, x + n * y, in double.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "nnhal/exec/async.hpp"
#include "nnhal/exec/burst.hpp"
#include "nnhal/exec/fenced.hpp"
#include "support/model_builder.hpp"

namespace ex = nnhal::exec;
namespace ty = nnhal::types;
using ty::ErrorStatus;
using ty::Priority;
using namespace std::chrono_literals;

namespace {

/// out = x + y + y + ... (`ops` ADDs in a chain through temporaries), all [elems] float32.
ty::Model chain_model(std::uint32_t elems, int ops) {
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(ty::OperandType::TENSOR_FLOAT32, {elems});
  const auto y = g.input(ty::OperandType::TENSOR_FLOAT32, {elems});
  auto cur = x;
  for (int k = 0; k < ops; ++k) {
    const auto next = k + 1 == ops ? g.output(ty::OperandType::TENSOR_FLOAT32, {elems})
                                   : g.temporary(ty::OperandType::TENSOR_FLOAT32, {elems});
    g.op(ty::OperationType::ADD, {cur, y, g.i32(0)}, {next});
    cur = next;
  }
  return b.build();
}

struct chain {
  std::uint32_t elems;
  int ops;
  std::shared_ptr<const ex::prepared_model> pm;
};
chain prepare_chain(std::uint32_t elems, int ops, Priority prio = Priority::MEDIUM) {
  auto pm = ex::prepare(chain_model(elems, ops), ex::prepare_options{.priority = prio});
  REQUIRE(pm.ok());
  return {elems, ops, *pm};
}

/// A request with its own pool; x[i] = seed + i % 7, y[i] = (i % 5) - 2 (small integers:
/// every sum is exact in float32, so "identical" and "equals the formula" are exact checks).
struct job {
  ty::Request request;
  std::vector<float> x, y;
};
job make_job(const chain& c, int seed) {
  job j;
  j.request = nnhal::test::make_request(c.pm->model());
  j.x.resize(c.elems);
  j.y.resize(c.elems);
  for (std::uint32_t i = 0; i < c.elems; ++i) {
    j.x[i] = static_cast<float>(seed + static_cast<int>(i % 7));
    j.y[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  }
  auto& pool = std::get<ty::Memory>(j.request.pools[0]);
  std::memcpy(pool.data + j.request.inputs[0].location.offset, j.x.data(), c.elems * sizeof(float));
  std::memcpy(pool.data + j.request.inputs[1].location.offset, j.y.data(), c.elems * sizeof(float));
  return j;
}
std::vector<float> output_of(const ty::Request& r, std::uint32_t elems) {
  std::vector<float> out(elems);
  const auto& pool = std::get<ty::Memory>(r.pools[0]);
  std::memcpy(out.data(), pool.data + r.outputs[0].location.offset, elems * sizeof(float));
  return out;
}
/// How many elements differ from x + ops * y, computed in double.
std::size_t mismatches(const job& j, const std::vector<float>& out, int ops) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    bad += static_cast<double>(out[i]) != static_cast<double>(j.x[i]) + ops * static_cast<double>(j.y[i]);
  return bad;
}

template <class F>
bool eventually(F cond, std::chrono::milliseconds limit = 20s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

/// Collects async outcomes.
struct inbox {
  std::mutex mu;
  std::vector<ex::execution_outcome> got;
  std::atomic<int> count{0};
  ex::execution_callback callback() {
    return [this](ex::execution_outcome o) {
      std::lock_guard lk(mu);
      got.push_back(std::move(o));
      ++count;
    };
  }
};

/// Runs `c` once through the runtime so its estimate has a first sample.
void warm(ex::runtime& rt, const chain& c, int runs = 3) {
  for (int i = 0; i < runs; ++i) {
    auto j = make_job(c, i);
    REQUIRE(ex::execute_queued(rt, c.pm, j.request, {}).status == ErrorStatus::NONE);
  }
}

}  // namespace

TEST_CASE("async: 64 concurrent executions on one prepared model equal sync execution and the formula") {
  ex::runtime rt({.workers = 2});
  const auto c = prepare_chain(1000, 20);
  std::vector<job> jobs;
  for (int k = 0; k < 64; ++k) jobs.push_back(make_job(c, k));
  // The synchronous path on copies of the same requests.
  std::vector<std::vector<float>> sync_out;
  for (int k = 0; k < 64; ++k) {
    auto j = make_job(c, k);
    const auto o = ex::execute(*c.pm, j.request);
    REQUIRE(o.status == ErrorStatus::NONE);
    sync_out.push_back(output_of(j.request, c.elems));
  }
  inbox box;
  for (auto& j : jobs) CHECK(ex::execute_async(rt, c.pm, j.request, {}, box.callback()) == ErrorStatus::NONE);
  REQUIRE(eventually([&] { return box.count.load() == 64; }));
  for (const auto& o : box.got) {
    CHECK(o.status == ErrorStatus::NONE);
    REQUIRE(o.outputShapes.size() == 1);
    CHECK(o.outputShapes[0].dimensions == std::vector<std::uint32_t>{c.elems});
    CHECK(o.outputShapes[0].isSufficient);
  }
  for (int k = 0; k < 64; ++k) {
    const auto out = output_of(jobs[static_cast<std::size_t>(k)].request, c.elems);
    CHECK(out == sync_out[static_cast<std::size_t>(k)]);
    CHECK(mismatches(jobs[static_cast<std::size_t>(k)], out, c.ops) == 0);
  }
  CHECK(eventually([&] { return rt.in_flight() == 0; }));
}

TEST_CASE("priorities: a HIGH execution submitted behind queued LOW ones runs before all of them") {
  // One worker, held by a gate item while the LOWs and then the HIGH are queued, so the
  // order the worker sees is fixed and the check does not depend on machine load.
  ex::runtime rt({.workers = 1});
  const auto low = prepare_chain(4096, 50, Priority::LOW);
  const auto high = prepare_chain(4096, 50, Priority::HIGH);
  constexpr int lows = 6;
  std::vector<job> jobs;
  for (int k = 0; k < lows + 1; ++k) jobs.push_back(make_job(low, k));
  struct gate_state {
    std::atomic<bool> entered{false}, open{false};
  } gate;
  rt.pool().post(Priority::HIGH, ex::work_item{[](void* a) {
                                                 auto& g = *static_cast<gate_state*>(a);
                                                 g.entered.store(true);
                                                 while (!g.open.load()) std::this_thread::sleep_for(1ms);
                                               },
                                               &gate});
  REQUIRE(eventually([&] { return gate.entered.load(); }));
  std::mutex mu;
  std::vector<int> order;  // -1 = the HIGH one
  std::atomic<int> finished{0};
  auto record = [&](int tag) {
    return [&, tag](ex::execution_outcome o) {
      CHECK(o.status == ErrorStatus::NONE);
      std::lock_guard lk(mu);
      order.push_back(tag);
      ++finished;
    };
  };
  for (int k = 0; k < lows; ++k)
    REQUIRE(ex::execute_async(rt, low.pm, jobs[static_cast<std::size_t>(k)].request, {}, record(k)) == ErrorStatus::NONE);
  REQUIRE(ex::execute_async(rt, high.pm, jobs[lows].request, {}, record(-1)) == ErrorStatus::NONE);
  REQUIRE(eventually([&] { return rt.pool().queued() == lows + 1; }));
  gate.open.store(true);
  REQUIRE(eventually([&] { return finished.load() == lows + 1; }, 120s));
  MESSAGE("completion order (-1 = HIGH): ", [&] {
    std::string s;
    for (int t : order) s += std::to_string(t) + " ";
    return s;
  }());
  // FIFO would put HIGH last; the LOWs keep their submission order among themselves.
  REQUIRE(order.size() == lows + 1);
  CHECK(order.front() == -1);
  CHECK(std::is_sorted(order.begin() + 1, order.end()));
  CHECK(mismatches(jobs[lows], output_of(jobs[lows].request, high.elems), high.ops) == 0);
  for (int k = 0; k < lows; ++k)
    CHECK(mismatches(jobs[static_cast<std::size_t>(k)], output_of(jobs[static_cast<std::size_t>(k)].request, low.elems),
                     low.ops) == 0);
}

TEST_CASE("deadlines: already passed -> MISSED_DEADLINE_TRANSIENT in every style, reported at launch") {
  ex::runtime rt({.workers = 1});
  const auto c = prepare_chain(64, 2);
  ex::execute_options past;
  past.deadline = ty::clock::now() - 1ms;
  auto j = make_job(c, 0);
  inbox box;
  CHECK(ex::execute_async(rt, c.pm, j.request, past, box.callback()) == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  REQUIRE(box.count.load() == 1);  // the callback ran before execute_async returned
  CHECK(box.got[0].status == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(box.got[0].outputShapes.empty());
  CHECK(box.got[0].timing.timeInDriver == ty::Timing::not_available);

  auto f = ex::execute_fenced(rt, c.pm, j.request, {}, past);
  CHECK(f.status() == ErrorStatus::MISSED_DEADLINE_TRANSIENT);

  auto b = ex::burst::configure(rt, c.pm);
  REQUIRE(b.ok());
  CHECK((*b)->execute_synchronously(j.request, past).status == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(ex::execute_queued(rt, c.pm, j.request, past).status == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(rt.in_flight() == 0);
}

TEST_CASE("deadlines: predicted unattainable -> rejected before starting (PERSISTENT idle, TRANSIENT busy)") {
  ex::runtime rt({.workers = 1});
  // Long enough (about 1 ms) that half the fastest run outlasts a preemption between
  // setting the deadline and the admission reading the clock: a deadline already past by
  // then is TRANSIENT.
  const auto c = prepare_chain(16384, 800, Priority::LOW);
  warm(rt, c);
  auto est = rt.estimate_for(*c.pm);
  REQUIRE(est->runs() >= 3);
  REQUIRE(est->fastest().count() > 0);
  MESSAGE("fastest ", est->fastest().count() / 1000, " us, typical ", est->typical().count() / 1000, " us");

  // Idle, yet the deadline is shorter than the fastest run ever seen.
  auto j = make_job(c, 1);
  ex::execute_options tight;
  tight.deadline = ty::clock::now() + est->fastest() / 2;
  inbox box;
  CHECK(ex::execute_async(rt, c.pm, j.request, tight, box.callback()) == ErrorStatus::MISSED_DEADLINE_PERSISTENT);
  CHECK(box.count.load() == 1);
  CHECK(est->runs() == 3);  // nothing ran

  // Busy: eight executions queued ahead on the only worker. Alone it would make 3x typical;
  // behind them it cannot.
  std::vector<job> ahead;
  for (int k = 0; k < 8; ++k) ahead.push_back(make_job(c, 10 + k));
  inbox busy;
  for (auto& a : ahead) REQUIRE(ex::execute_async(rt, c.pm, a.request, {}, busy.callback()) == ErrorStatus::NONE);
  ex::execute_options roomy;
  roomy.deadline = ty::clock::now() + 3 * std::max(est->typical(), est->fastest());
  CHECK(ex::execute_async(rt, c.pm, j.request, roomy, box.callback()) == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  REQUIRE(eventually([&] { return busy.count.load() == 8; }, 120s));
  for (auto& o : busy.got) CHECK(o.status == ErrorStatus::NONE);

  // Idle again, the same room is enough.
  CHECK(eventually([&] { return rt.in_flight() == 0; }));
  roomy.deadline = ty::clock::now() + 20 * std::max(est->typical(), est->fastest()) + 1s;
  CHECK(ex::execute_queued(rt, c.pm, j.request, roomy).status == ErrorStatus::NONE);
}

TEST_CASE("deadlines: a long execution is aborted at the first checkpoint after its deadline") {
  ex::runtime rt({.workers = 1});
  // Never run before: no prediction, it starts. Long enough (tens of ms, as the
  // cancellation case below) that half of it outlasts a preemption before admission
  // (a deadline already past is rejected), also on a loaded machine.
  const auto c = prepare_chain(65536, 4000);
  // Per-operation time, measured on a short run of the same shapes: the fastest of a few
  // runs after a warm-up (a cold first run, with its page faults and allocations, took
  // several times longer per operation and put the deadline after the whole long run).
  const auto s = prepare_chain(65536, 20);
  auto js = make_job(s, 0);
  REQUIRE(ex::execute(*s.pm, js.request).status == ErrorStatus::NONE);
  auto fastest = ty::clock::duration::max();
  for (int k = 0; k < 5; ++k) {
    const auto t0 = ty::clock::now();
    REQUIRE(ex::execute(*s.pm, js.request).status == ErrorStatus::NONE);
    fastest = std::min(fastest, ty::clock::now() - t0);
  }
  const auto per_op = fastest / 20;

  auto j = make_job(c, 0);
  ex::execute_options opt;
  opt.deadline = ty::clock::now() + per_op * 2000;  // about half the run (per_op is its fastest)
  std::atomic<bool> done{false};
  ex::execution_outcome got;
  ty::time_point ended;
  REQUIRE(ex::execute_async(rt, c.pm, j.request, opt, [&](ex::execution_outcome o) {
            ended = ty::clock::now();
            got = std::move(o);
            done = true;
          }) == ErrorStatus::NONE);
  REQUIRE(eventually([&] { return done.load(); }, 120s));
  CHECK(got.status == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(got.outputShapes.empty());
  const auto late = ended - *opt.deadline;
  MESSAGE("per operation ", std::chrono::duration_cast<std::chrono::microseconds>(per_op).count(),
          " us; callback ", std::chrono::duration_cast<std::chrono::microseconds>(late).count(), " us after the deadline");
  CHECK(late >= 0ns);
  CHECK(late < per_op * 4 + 20ms);  // one operation plus scheduling noise
  CHECK(eventually([&] { return rt.in_flight() == 0; }));  // resources freed at once
}

TEST_CASE("cancellation: a stop request ends a running execution at the next checkpoint") {
  ex::runtime rt({.workers = 1});
  const auto c = prepare_chain(65536, 4000);  // tens of ms even with vectorized ADDs
  auto j = make_job(c, 0);
  std::stop_source stop;
  ex::execute_options opt;
  opt.stop = stop.get_token();
  std::atomic<bool> done{false};
  ex::execution_outcome got;
  REQUIRE(ex::execute_async(rt, c.pm, j.request, opt, [&](ex::execution_outcome o) {
            got = std::move(o);
            done = true;
          }) == ErrorStatus::NONE);
  std::this_thread::sleep_for(5ms);
  stop.request_stop();
  REQUIRE(eventually([&] { return done.load(); }, 120s));
  CHECK(got.status != ErrorStatus::NONE);
  CHECK(got.message.find("cancel") != std::string::npos);
  CHECK(got.outputShapes.empty());
  CHECK(got.timing.timeOnDevice == ty::Timing::not_available);
  CHECK(rt.estimate_for(*c.pm)->runs() == 0);  // an aborted run does not feed the estimate
}

TEST_CASE("timing: measured only when asked and successful; timeOnDevice <= timeInDriver") {
  ex::runtime rt({.workers = 2});
  const auto c = prepare_chain(4096, 30);
  ex::execute_options yes;
  yes.measure = ty::MeasureTiming::YES;
  for (int k = 0; k < 4; ++k) {
    auto j = make_job(c, k);
    const auto t0 = ty::clock::now();
    std::atomic<bool> done{false};
    ex::execution_outcome got;
    REQUIRE(ex::execute_async(rt, c.pm, j.request, yes, [&](ex::execution_outcome o) {
              got = std::move(o);
              done = true;
            }) == ErrorStatus::NONE);
    REQUIRE(eventually([&] { return done.load(); }));
    const auto wall = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(ty::clock::now() - t0).count());
    REQUIRE(got.status == ErrorStatus::NONE);
    CHECK(got.timing.timeOnDevice != ty::Timing::not_available);
    CHECK(got.timing.timeInDriver != ty::Timing::not_available);
    CHECK(got.timing.timeOnDevice <= got.timing.timeInDriver);
    CHECK(got.timing.timeInDriver <= wall + 1);
  }
  auto j = make_job(c, 0);
  const auto no = ex::execute_queued(rt, c.pm, j.request, {});
  CHECK(no.status == ErrorStatus::NONE);
  CHECK(no.timing.timeOnDevice == ty::Timing::not_available);
  CHECK(no.timing.timeInDriver == ty::Timing::not_available);
  auto b = ex::burst::configure(rt, c.pm);
  REQUIRE(b.ok());
  const auto bo = (*b)->execute_synchronously(j.request, yes);
  CHECK(bo.status == ErrorStatus::NONE);
  CHECK(bo.timing.timeOnDevice <= bo.timing.timeInDriver);
  CHECK(bo.timing.timeInDriver != ty::Timing::not_available);
}

TEST_CASE("fenced: waits for every fence, then signals its own; launched/fenced timings as the HAL defines") {
  ex::runtime rt({.workers = 1});
  const auto c = prepare_chain(4096, 30);
  auto j = make_job(c, 3);
  auto a = ex::local_fence::make();
  auto b = *ex::event_fence::make();
  ex::execute_options yes;
  yes.measure = ty::MeasureTiming::YES;
  auto r = ex::execute_fenced(rt, c.pm, j.request, {a, b}, yes);
  REQUIRE(r.ok());
  const auto done = r->sync_fence;  // named: clang 14 cannot capture structured bindings
  const auto cb = r->callback;
  REQUIRE(done);
  REQUIRE(cb);
  std::this_thread::sleep_for(10ms);
  CHECK(done->state() == ex::fence_state::pending);
  CHECK(cb->getExecutionInfo().status == ErrorStatus::GENERAL_FAILURE);  // not finished yet
  CHECK(cb->getExecutionInfo().timingLaunched.timeInDriver == ty::Timing::not_available);
  a->signal();
  std::this_thread::sleep_for(30ms);
  CHECK(done->state() == ex::fence_state::pending);  // still waiting for b
  b->signal();
  REQUIRE(eventually([&] { return done->state() != ex::fence_state::pending; }));
  CHECK(done->state() == ex::fence_state::signaled);
  const auto info = cb->getExecutionInfo();
  CHECK(info.status == ErrorStatus::NONE);
  CHECK(info.timingFenced.timeOnDevice <= info.timingFenced.timeInDriver);
  CHECK(info.timingLaunched.timeOnDevice <= info.timingLaunched.timeInDriver);
  CHECK(info.timingLaunched.timeOnDevice == info.timingFenced.timeOnDevice);
  // Launched counts the ~40 ms spent waiting for the fences; fenced does not.
  CHECK(info.timingLaunched.timeInDriver >= info.timingFenced.timeInDriver + 35000);
  CHECK(mismatches(j, output_of(j.request, c.elems), c.ops) == 0);
  REQUIRE(cb->outcome().has_value());
  CHECK(cb->outcome()->outputShapes.size() == 1);

  // Without measurement: no timing even on success.
  auto j2 = make_job(c, 4);
  auto r2 = ex::execute_fenced(rt, c.pm, j2.request, {}, {});
  REQUIRE(r2.ok());
  REQUIRE(eventually([&] { return r2->sync_fence->state() != ex::fence_state::pending; }));
  CHECK(r2->callback->getExecutionInfo().status == ErrorStatus::NONE);
  CHECK(r2->callback->getExecutionInfo().timingFenced.timeInDriver == ty::Timing::not_available);
  // The returned fence's descriptor polls readable for a client.
  const int fd = r2->sync_fence->dup_fd();
  REQUIRE(fd >= 0);
  CHECK(ex::fd_fence::adopt(fd)->state() == ex::fence_state::signaled);
}

TEST_CASE("fenced: errors at the call, a fence failing later, deadline and duration after the fences") {
  ex::runtime rt({.workers = 1});
  const auto c = prepare_chain(4096, 30);
  auto j = make_job(c, 0);
  auto failed = ex::local_fence::make();
  failed->fail(ErrorStatus::DEVICE_UNAVAILABLE);
  CHECK(ex::execute_fenced(rt, c.pm, j.request, {failed}, {}).status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(ex::execute_fenced(rt, c.pm, j.request, {nullptr}, {}).status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(ex::execute_fenced(rt, c.pm, j.request, {}, {}, -1ns).status() == ErrorStatus::INVALID_ARGUMENT);
  {
    // Outputs must be fully specified.
    auto m = chain_model(16, 1);
    m.main.operands[m.main.outputIndexes[0]].dimensions = {0};
    auto pm = ex::prepare(m);
    REQUIRE(pm.ok());
    auto r = nnhal::test::make_request(m, 16);
    r.outputs[0].dimensions.clear();
    CHECK(ex::execute_fenced(rt, *pm, r, {}, {}).status() == ErrorStatus::INVALID_ARGUMENT);
  }
  CHECK(rt.in_flight() == 0);

  // A fence failing after the call fails the execution with that fence's error.
  auto later = *ex::event_fence::make();
  auto r = ex::execute_fenced(rt, c.pm, j.request, {later}, {});
  REQUIRE(r.ok());
  later->fail(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  REQUIRE(eventually([&] { return r->sync_fence->state() != ex::fence_state::pending; }));
  CHECK(r->sync_fence->state() == ex::fence_state::failed);
  CHECK(r->sync_fence->error() == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  CHECK(r->callback->getExecutionInfo().status == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);

  // The deadline passes while the fence is still pending.
  ex::execute_options dl;
  dl.deadline = ty::clock::now() + 30ms;
  auto never = ex::local_fence::make();
  auto r2 = ex::execute_fenced(rt, c.pm, j.request, {never}, dl);
  REQUIRE(r2.ok());
  REQUIRE(eventually([&] { return r2->sync_fence->state() != ex::fence_state::pending; }));
  CHECK(r2->sync_fence->error() == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(ty::clock::now() >= *dl.deadline);

  // The duration after the fences is too short for a long model.
  const auto longer = prepare_chain(65536, 1000);  // well over 1 ms even with vectorized ADDs
  auto jl = make_job(longer, 0);
  auto go = ex::local_fence::make();
  auto r3 = ex::execute_fenced(rt, longer.pm, jl.request, {go}, {}, 1ms);
  REQUIRE(r3.ok());
  std::this_thread::sleep_for(20ms);  // waiting before the fence does not count
  go->signal();
  REQUIRE(eventually([&] { return r3->sync_fence->state() != ex::fence_state::pending; }, 120s));
  CHECK(r3->sync_fence->error() == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(eventually([&] { return rt.in_flight() == 0; }));
}

TEST_CASE("fenced: executions waiting for fences hold no worker (one worker, others still run)") {
  ex::runtime rt({.workers = 1});
  const auto c = prepare_chain(256, 4);
  std::vector<std::shared_ptr<ex::event_fence>> gates;
  std::vector<job> waiting;
  std::vector<ex::fenced_execution> fenced;
  for (int k = 0; k < 4; ++k) {
    gates.push_back(*ex::event_fence::make());
    waiting.push_back(make_job(c, k));
  }
  for (int k = 0; k < 4; ++k) {
    auto r = ex::execute_fenced(rt, c.pm, waiting[static_cast<std::size_t>(k)].request, {gates[static_cast<std::size_t>(k)]}, {});
    REQUIRE(r.ok());
    fenced.push_back(*r);
  }
  REQUIRE(eventually([&] { return rt.io().watching() == 4; }));
  auto j = make_job(c, 9);
  CHECK(ex::execute_queued(rt, c.pm, j.request, {}).status == ErrorStatus::NONE);  // the worker is free
  CHECK(mismatches(j, output_of(j.request, c.elems), c.ops) == 0);
  for (auto& f : fenced) CHECK(f.sync_fence->state() == ex::fence_state::pending);
  for (auto& g : gates) g->signal();
  for (std::size_t k = 0; k < fenced.size(); ++k) {
    REQUIRE(eventually([&] { return fenced[k].sync_fence->state() == ex::fence_state::signaled; }));
    CHECK(mismatches(waiting[k], output_of(waiting[k].request, c.elems), c.ops) == 0);
  }
}

TEST_CASE("admission: queue depth -> RESOURCE_EXHAUSTED_TRANSIENT; invalid priority -> INVALID_ARGUMENT") {
  ex::runtime rt({.workers = 1, .max_in_flight = 2});
  const auto c = prepare_chain(64, 2);
  auto gate = ex::local_fence::make();
  auto j1 = make_job(c, 1), j2 = make_job(c, 2), j3 = make_job(c, 3);
  auto a = ex::execute_fenced(rt, c.pm, j1.request, {gate}, {});
  auto b = ex::execute_fenced(rt, c.pm, j2.request, {gate}, {});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(rt.in_flight() == 2);
  inbox box;
  CHECK(ex::execute_async(rt, c.pm, j3.request, {}, box.callback()) == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  CHECK(box.got.at(0).status == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  gate->signal();
  REQUIRE(eventually([&] { return rt.in_flight() == 0; }));
  CHECK(ex::execute_async(rt, c.pm, j3.request, {}, box.callback()) == ErrorStatus::NONE);
  REQUIRE(eventually([&] { return box.count.load() == 2; }));
  CHECK(box.got.at(1).status == ErrorStatus::NONE);

  CHECK(ex::prepare(chain_model(4, 1), ex::prepare_options{.priority = static_cast<Priority>(7)}).status() ==
        ErrorStatus::INVALID_ARGUMENT);
  ex::model_estimate est;
  CHECK(rt.admit(est, static_cast<Priority>(-1), {}).status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(rt.in_flight() == 0);
}

TEST_CASE("burst: memories cached by token, used for empty pools, released; bad tokens rejected") {
  ex::runtime rt({.workers = 2});
  const auto c = prepare_chain(512, 5);
  auto made = ex::burst::configure(rt, c.pm);
  REQUIRE(made.ok());
  ex::burst& br = **made;
  auto j = make_job(c, 4);
  const std::int64_t token5[] = {5};
  auto o = br.execute_synchronously(j.request, token5, {});
  REQUIRE(o.status == ErrorStatus::NONE);
  CHECK(br.cached() == 1);
  CHECK(br.cache_hits() == 0);
  CHECK(mismatches(j, output_of(j.request, c.elems), c.ops) == 0);

  // Same memory again: a hit. Then only the token: the cached memory is used.
  CHECK(br.execute_synchronously(j.request, token5, {}).status == ErrorStatus::NONE);
  CHECK(br.cache_hits() == 1);
  std::memset(std::get<ty::Memory>(j.request.pools[0]).data + j.request.outputs[0].location.offset, 0, c.elems * 4);
  ty::Request slim = j.request;
  slim.pools[0] = ty::Memory{};
  CHECK(br.execute_synchronously(slim, token5, {}).status == ErrorStatus::NONE);
  CHECK(br.cache_hits() == 2);
  CHECK(mismatches(j, output_of(j.request, c.elems), c.ops) == 0);  // written into the cached memory

  // A burst is reused many times with fresh memories and no identity.
  for (int k = 0; k < 10; ++k) {
    auto jk = make_job(c, 20 + k);
    REQUIRE(br.execute_synchronously(jk.request).status == ErrorStatus::NONE);
    CHECK(mismatches(jk, output_of(jk.request, c.elems), c.ops) == 0);
  }
  CHECK(br.cached() == 1);

  CHECK(br.release_memory_resource(5).ok());
  CHECK(br.cached() == 0);
  CHECK(br.release_memory_resource(5).ok());  // nothing held: fine
  CHECK(br.release_memory_resource(-1).status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(br.execute_synchronously(slim, token5, {}).status == ErrorStatus::INVALID_ARGUMENT);
  const std::int64_t bad[] = {-2};
  CHECK(br.execute_synchronously(j.request, bad, {}).status == ErrorStatus::INVALID_ARGUMENT);
  const std::int64_t two[] = {1, 2};
  CHECK(br.execute_synchronously(j.request, two, {}).status == ErrorStatus::INVALID_ARGUMENT);
  CHECK(rt.in_flight() == 0);
}
