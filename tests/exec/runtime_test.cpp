// Runtime building blocks (exec/task.hpp, scheduler.hpp, fence.hpp, reactor.hpp): lazy
// tasks and sync_wait, the priority worker pool, pool_context::parallel_for, fences of both
// kinds and waiting on them through the reactor without holding a worker.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nnhal/exec/fence.hpp"
#include "nnhal/exec/reactor.hpp"
#include "nnhal/exec/scheduler.hpp"
#include "nnhal/exec/task.hpp"

namespace ex = nnhal::exec;
using nnhal::types::ErrorStatus;
using nnhal::types::Priority;
using namespace std::chrono_literals;

namespace {

ex::task<int> forty() { co_return 40; }
ex::task<int> add_two() {
  const int v = co_await forty();
  co_return v + 2;
}
// Coroutines take state as parameters: a capturing lambda coroutine would outlive its closure.
ex::task<int> set_and_return(bool& flag, int v) {
  flag = true;
  co_return v;
}
ex::task<void> bump(int& x) {
  ++x;
  co_return;
}
/// A chain of nested awaits (symmetric transfer keeps optimized builds from growing the
/// stack; -O0 and sanitizer builds do not turn it into a tail call, so keep it modest).
ex::task<long> chain(int depth) {
  if (depth == 0) co_return 0;
  co_return 1 + co_await chain(depth - 1);
}

ex::task<std::thread::id> hop(ex::thread_pool& pool, Priority p) {
  co_await pool.schedule(p);
  co_return std::this_thread::get_id();
}

/// Spins until `cond` or ~5 s (a safety net; tests do not rely on timing).
template <class F>
bool eventually(F cond) {
  for (int i = 0; i < 5000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return cond();
}

}  // namespace

TEST_CASE("task: lazy, returns values, composes, and void tasks run once") {
  bool started = false;
  auto lazy = set_and_return(started, 7);
  CHECK_FALSE(started);  // nothing runs before it is awaited
  CHECK(ex::sync_wait(std::move(lazy)) == 7);
  CHECK(started);

  CHECK(ex::sync_wait(add_two()) == 42);
  int x = 0;
  ex::sync_wait(bump(x));
  CHECK(x == 1);
  CHECK(ex::sync_wait(chain(1000)) == 1000);

  // A task destroyed without being awaited frees its frame and never runs.
  bool ran = false;
  { auto t = set_and_return(ran, 1); }
  CHECK_FALSE(ran);
}

TEST_CASE("thread_pool: schedule moves a coroutine onto a worker; spawn reports completion") {
  ex::thread_pool pool(2);
  CHECK(pool.size() == 2);
  CHECK_FALSE(pool.on_worker());
  const auto id = ex::sync_wait(hop(pool, Priority::LOW));
  CHECK(id != std::this_thread::get_id());

  std::atomic<int> done{0};
  for (int i = 0; i < 100; ++i) ex::spawn(hop(pool, Priority::MEDIUM), [&](std::thread::id) { ++done; });
  CHECK(eventually([&] { return done.load() == 100; }));

  ex::thread_pool dflt;  // one worker per hardware thread
  CHECK(dflt.size() == std::max(1u, std::thread::hardware_concurrency()));
}

TEST_CASE("thread_pool: a free worker takes HIGH before MEDIUM before LOW, FIFO within one priority") {
  ex::thread_pool pool(1);
  std::atomic<bool> release{false};
  std::mutex mu;
  std::vector<int> order;
  // Occupy the only worker, then queue in an order opposite to priority.
  pool.post(Priority::HIGH, {[](void* a) { static_cast<std::atomic<bool>*>(a)->wait(false); }, &release});
  CHECK(eventually([&] { return pool.queued() == 0; }));
  struct item {
    std::mutex* mu;
    std::vector<int>* order;
    int tag;
  };
  std::vector<item> items;
  items.reserve(6);
  const std::pair<Priority, int> plan[] = {{Priority::LOW, 0},    {Priority::MEDIUM, 10}, {Priority::HIGH, 20},
                                           {Priority::LOW, 1},    {Priority::MEDIUM, 11}, {Priority::HIGH, 21}};
  for (auto [p, tag] : plan) {
    items.push_back({&mu, &order, tag});
    pool.post(p, {[](void* a) {
                    auto* it = static_cast<item*>(a);
                    std::lock_guard lk(*it->mu);
                    it->order->push_back(it->tag);
                  },
                  &items.back()});
  }
  CHECK(pool.queued() == 6);
  CHECK(pool.higher_waiting(Priority::LOW));
  CHECK(pool.higher_waiting(Priority::MEDIUM));
  CHECK_FALSE(pool.higher_waiting(Priority::HIGH));
  release = true;
  release.notify_all();
  CHECK(eventually([&] {
    std::lock_guard lk(mu);
    return order.size() == 6;
  }));
  std::lock_guard lk(mu);
  CHECK(order == std::vector<int>{20, 21, 10, 11, 0, 1});
}

TEST_CASE("pool_context: parallel_for covers [0, n) exactly once, for many n and grains, nested too") {
  ex::thread_pool pool(3);
  ex::pool_context par(pool, Priority::MEDIUM);
  CHECK(par.concurrency() == 4);  // three workers plus the calling thread
  for (std::size_t n : {0u, 1u, 2u, 7u, 64u, 1000u, 100003u}) {
    for (std::size_t grain : {0u, 1u, 5u, 4096u}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<std::size_t> calls{0}, short_chunks{0}, long_chunks{0};
      // Guided chunks: none longer than half a thread's share of the whole (a late thread
      // still finds work), none shorter than the grain but the last piece, and each past
      // the grain at most 1/(2 x threads) of what was left at its start, so that the last
      // chunks are short. Under two grains the loop is one chunk.
      const std::size_t g = std::max<std::size_t>(grain, 1), share = 2 * par.concurrency();
      const std::size_t longest = n < 2 * g ? n : std::max(g, n / share);
      std::atomic<std::size_t> not_shrinking{0};
      auto body = [&](std::size_t b, std::size_t e) {
        CHECK(b < e);
        CHECK(e <= n);
        ++calls;
        if (e - b < grain) ++short_chunks;
        if (e - b > longest) ++long_chunks;
        if (n >= 2 * g && e - b > g && (e - b) * share > n - b) ++not_shrinking;
        for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
      };
      par.parallel_for(n, grain, body);
      std::size_t bad = 0;
      for (auto& h : hits) bad += h.load() != 1;
      CHECK_MESSAGE(bad == 0, "n=", n, " grain=", grain);
      if (grain > 0 && n > 0) CHECK(calls.load() <= (n + grain - 1) / grain);
      CHECK_MESSAGE(short_chunks.load() <= 1, "n=", n, " grain=", grain);
      CHECK_MESSAGE(long_chunks.load() == 0, "n=", n, " grain=", grain);
      CHECK_MESSAGE(not_shrinking.load() == 0, "n=", n, " grain=", grain);
    }
  }

  // Nested: every outer chunk runs an inner parallel_for on the same pool, from workers and
  // from the caller; all inner work happens exactly once and nothing deadlocks.
  const std::size_t outer = 16, inner = 1000;
  std::vector<std::atomic<int>> hits(outer * inner);
  auto outer_body = [&](std::size_t b, std::size_t e) {
    for (std::size_t o = b; o < e; ++o) {
      auto inner_body = [&](std::size_t ib, std::size_t ie) {
        for (std::size_t i = ib; i < ie; ++i) hits[o * inner + i].fetch_add(1, std::memory_order_relaxed);
      };
      par.parallel_for(inner, 10, inner_body);
    }
  };
  par.parallel_for(outer, 1, outer_body);
  std::size_t bad = 0;
  for (auto& h : hits) bad += h.load() != 1;
  CHECK(bad == 0);
}

TEST_CASE("thread_pool: workers that poll before sleeping, or sleep at once, run every item and stop promptly") {
  for (const auto spin : {std::chrono::microseconds{0}, ex::default_worker_spin, std::chrono::microseconds{2000000}}) {
    auto pool = std::make_unique<ex::thread_pool>(2, spin);
    CHECK(pool->spin() == spin);
    ex::pool_context par(*pool);
    std::atomic<std::size_t> sum{0};
    auto body = [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) sum.fetch_add(i, std::memory_order_relaxed);
    };
    for (int round = 0; round < 200; ++round) {
      sum = 0;
      par.parallel_for(1000, 10, body);
      REQUIRE(sum.load() == 999u * 1000u / 2);
      // Idle gaps longer than the default poll: workers also go to sleep and are woken.
      if (round % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Workers still polling (2 s for the last pool) notice the stop at once.
    const auto t0 = std::chrono::steady_clock::now();
    pool.reset();
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1000));
  }
}

namespace {
ex::task<std::size_t> sum_on_worker(ex::thread_pool& pool) {
  co_await pool.schedule(Priority::LOW);
  ex::pool_context par(pool, Priority::LOW);
  std::atomic<std::size_t> sum{0};
  auto body = [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) sum += i;
  };
  par.parallel_for(10000, 1, body);
  co_return sum.load();
}
}  // namespace

TEST_CASE("pool_context: a call from the only worker while it is busy still completes (caller runs every chunk)") {
  ex::thread_pool pool(1);
  CHECK(ex::sync_wait(sum_on_worker(pool)) == 10000u * 9999u / 2);
}

TEST_CASE("local_fence: pending, signalled, failed; only the first settle counts; callbacks once") {
  auto f = ex::local_fence::make();
  CHECK(f->state() == ex::fence_state::pending);
  CHECK(f->pollable_fd() == -1);
  int calls = 0;
  f->on_settled([&] { ++calls; });
  CHECK(calls == 0);
  f->signal();
  CHECK(f->state() == ex::fence_state::signaled);
  CHECK(f->error() == ErrorStatus::NONE);
  CHECK(calls == 1);
  f->fail(ErrorStatus::DEVICE_UNAVAILABLE);  // too late: ignored
  CHECK(f->state() == ex::fence_state::signaled);
  f->on_settled([&] { ++calls; });  // already settled: runs at once
  CHECK(calls == 2);

  auto g = ex::local_fence::make();
  g->fail(ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(g->state() == ex::fence_state::failed);
  CHECK(g->error() == ErrorStatus::MISSED_DEADLINE_TRANSIENT);

  const auto s = ex::probe({f, g});
  CHECK(s.all_settled);
  CHECK(s.any_failed);
  CHECK(s.first_error == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK_FALSE(ex::probe({ex::local_fence::make()}).all_settled);
}

TEST_CASE("fd fences: eventfd fence and foreign pipes poll as pending, signalled, failed") {
  auto made = ex::event_fence::make();
  REQUIRE(made.ok());
  auto f = *made;
  REQUIRE(f->pollable_fd() >= 0);
  CHECK(f->state() == ex::fence_state::pending);
  const int exported = f->dup_fd();
  REQUIRE(exported >= 0);
  auto client = ex::fd_fence::adopt(exported);  // a client's view: only the descriptor
  CHECK(client->state() == ex::fence_state::pending);
  f->fail(ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(f->state() == ex::fence_state::failed);
  CHECK(f->error() == ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  CHECK(client->state() == ex::fence_state::signaled);  // readable once settled, like sync_file

  // Foreign pipe: data = signalled; writer gone without data = failed.
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  auto ok = ex::fd_fence::adopt(p[0]);
  CHECK(ok->state() == ex::fence_state::pending);
  REQUIRE(::write(p[1], "x", 1) == 1);
  CHECK(ok->state() == ex::fence_state::signaled);
  ::close(p[1]);
  CHECK(ok->state() == ex::fence_state::signaled);
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  auto bad = ex::fd_fence::adopt(p[0]);
  ::close(p[1]);
  CHECK(bad->state() == ex::fence_state::failed);
  CHECK(bad->error() == ErrorStatus::GENERAL_FAILURE);
  CHECK(ex::fd_fence::adopt(-1)->state() == ex::fence_state::failed);
}

namespace {

ex::task<ex::fence_wait_result> await_fence(ex::reactor& rx, ex::thread_pool& pool, ex::fence_ptr f,
                                            nnhal::types::OptionalTimePoint deadline = {}) {
  co_await pool.schedule(Priority::MEDIUM);
  co_return co_await rx.wait(std::move(f), pool, Priority::MEDIUM, deadline);
}

/// A fence of each kind plus a way to settle it.
struct fence_kind {
  const char* name;
  ex::fence_ptr fence;
  std::function<void()> signal;
  std::function<void(ErrorStatus)> fail;
};
std::vector<fence_kind> one_of_each() {
  auto local = ex::local_fence::make();
  auto event = *ex::event_fence::make();
  return {{"local", local, [local] { local->signal(); }, [local](ErrorStatus s) { local->fail(s); }},
          {"event", event, [event] { event->signal(); }, [event](ErrorStatus s) { event->fail(s); }}};
}

}  // namespace

TEST_CASE("reactor: waits end signalled, failed or timed out; already-settled fences do not suspend") {
  ex::thread_pool pool(2);
  ex::reactor rx;
  REQUIRE(rx.ok());
  for (auto& k : one_of_each()) {
    CAPTURE(k.name);
    std::atomic<bool> got{false};
    ex::fence_wait_result r;
    ex::spawn(await_fence(rx, pool, k.fence), [&](ex::fence_wait_result v) {
      r = v;
      got = true;
    });
    std::this_thread::sleep_for(20ms);
    CHECK_FALSE(got.load());
    k.signal();
    REQUIRE(eventually([&] { return got.load(); }));
    CHECK(r.ok());
    // Already settled: immediate.
    CHECK(ex::sync_wait(await_fence(rx, pool, k.fence)).ok());
  }
  for (auto& k : one_of_each()) {
    CAPTURE(k.name);
    std::atomic<bool> got{false};
    ex::fence_wait_result r;
    ex::spawn(await_fence(rx, pool, k.fence), [&](ex::fence_wait_result v) {
      r = v;
      got = true;
    });
    k.fail(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
    REQUIRE(eventually([&] { return got.load(); }));
    CHECK(r.outcome == ex::fence_wait_result::kind::failed);
    CHECK(r.error == ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT);
  }
  for (auto& k : one_of_each()) {
    CAPTURE(k.name);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = ex::sync_wait(await_fence(rx, pool, k.fence, t0 + 30ms));
    CHECK(r.outcome == ex::fence_wait_result::kind::timed_out);
    CHECK(std::chrono::steady_clock::now() - t0 >= 30ms);
    k.signal();  // settling after the timeout must be harmless
    // Deadline already passed: no suspension at all.
    CHECK(ex::sync_wait(await_fence(rx, pool, ex::local_fence::make(), t0)).outcome ==
          ex::fence_wait_result::kind::timed_out);
  }
  // A foreign pipe whose writer goes away fails the wait.
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  std::atomic<bool> got{false};
  ex::fence_wait_result r;
  ex::spawn(await_fence(rx, pool, ex::fd_fence::adopt(p[0])), [&](ex::fence_wait_result v) {
    r = v;
    got = true;
  });
  CHECK(eventually([&] { return rx.watching() == 1; }));
  ::close(p[1]);
  REQUIRE(eventually([&] { return got.load(); }));
  CHECK(r.outcome == ex::fence_wait_result::kind::failed);
  CHECK(rx.watching() == 0);
}

TEST_CASE("reactor: a pool of one worker keeps running other work while many fence waits are pending") {
  ex::thread_pool pool(1);
  ex::reactor rx;
  std::vector<std::shared_ptr<ex::event_fence>> fds;
  std::vector<std::shared_ptr<ex::local_fence>> locals;
  std::atomic<int> woke{0};
  for (int i = 0; i < 8; ++i) {
    fds.push_back(*ex::event_fence::make());
    locals.push_back(ex::local_fence::make());
    ex::spawn(await_fence(rx, pool, fds.back()), [&](ex::fence_wait_result v) { woke += v.ok(); });
    ex::spawn(await_fence(rx, pool, locals.back()), [&](ex::fence_wait_result v) { woke += v.ok(); });
  }
  CHECK(eventually([&] { return rx.watching() == 8; }));
  // Sixteen waits are pending, yet the single worker is free: other work runs now.
  const auto worker = ex::sync_wait(hop(pool, Priority::LOW));
  CHECK(worker != std::this_thread::get_id());
  CHECK(woke.load() == 0);
  for (auto& f : fds) f->signal();
  for (auto& f : locals) f->signal();
  CHECK(eventually([&] { return woke.load() == 16; }));
}

TEST_CASE("reactor: destroying it ends pending waits as DEVICE_UNAVAILABLE; later waits fail at once") {
  ex::thread_pool pool(1);
  auto f = *ex::event_fence::make();
  std::atomic<bool> got{false};
  ex::fence_wait_result r;
  ex::reactor rx;
  ex::spawn(await_fence(rx, pool, f), [&](ex::fence_wait_result v) {
    r = v;
    got = true;
  });
  CHECK(eventually([&] { return rx.watching() == 1; }));
  rx.stop();
  CHECK_FALSE(rx.ok());
  REQUIRE(eventually([&] { return got.load(); }));
  CHECK(r.outcome == ex::fence_wait_result::kind::failed);
  CHECK(r.error == ErrorStatus::DEVICE_UNAVAILABLE);
  // A wait on a local fence that never settles ends too.
  auto local = ex::local_fence::make();
  ex::reactor rx2;
  std::atomic<bool> got2{false};
  ex::fence_wait_result r2;
  ex::spawn(await_fence(rx2, pool, local), [&](ex::fence_wait_result v) {
    r2 = v;
    got2 = true;
  });
  std::this_thread::sleep_for(10ms);
  CHECK_FALSE(got2.load());
  rx2.stop();
  REQUIRE(eventually([&] { return got2.load(); }));
  CHECK(r2.error == ErrorStatus::DEVICE_UNAVAILABLE);
  local->signal();  // after the wait ended: nothing happens
  const auto later = ex::sync_wait(await_fence(rx, pool, ex::local_fence::make(), nnhal::types::clock::now() + 1h));
  CHECK(later.outcome == ex::fence_wait_result::kind::failed);
  CHECK(later.error == ErrorStatus::DEVICE_UNAVAILABLE);
}
