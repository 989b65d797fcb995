// Heap traffic of repeated executions (exec/execution.hpp: execution::lease and the
// prepared model's pool of finished executions): once warm, an execution of a static-shape
// model allocates no tensor memory, whatever the style. This TU replaces the global
// operator new/delete to count allocations, so it holds nothing else.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "nnhal/exec/async.hpp"
#include "nnhal/exec/burst.hpp"
#include "nnhal/exec/driver.hpp"
#include "support/model_builder.hpp"

namespace {

std::atomic<std::uint64_t> allocations{0};
std::atomic<std::size_t> largest{0};  // largest single allocation since the last reset

void* counted(std::size_t n, std::size_t align) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  std::size_t seen = largest.load(std::memory_order_relaxed);
  while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) p = std::malloc(n ? n : 1);
  else p = std::aligned_alloc(align, (n + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// Under ASan, memory the runtime's own operator new handed out before ours took over can
// reach our operator delete (free): a mismatch only by ASan's bookkeeping, not a bug.
extern "C" const char* __asan_default_options() { return "alloc_dealloc_mismatch=0"; }
#endif

void* operator new(std::size_t n) { return counted(n, 0); }
void* operator new[](std::size_t n) { return counted(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace ex = nnhal::exec;
namespace ty = nnhal::types;

namespace {

constexpr std::uint32_t n = 1024;  // elements per tensor: 4 KiB, far above any bookkeeping allocation
constexpr std::size_t tensor_bytes = n * sizeof(float);
constexpr int warm_up = 3, measured = 20;

/// out = (a + b) + b through one temporary, so the arena is in use too.
ty::Model two_adds() {
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto a = g.input(ty::OperandType::TENSOR_FLOAT32, {n});
  const auto x = g.input(ty::OperandType::TENSOR_FLOAT32, {n});
  const auto t = g.temporary(ty::OperandType::TENSOR_FLOAT32, {n});
  const auto out = g.output(ty::OperandType::TENSOR_FLOAT32, {n});
  g.op(ty::OperationType::ADD, {a, x, g.i32(0)}, {t});
  g.op(ty::OperationType::ADD, {t, x, g.i32(0)}, {out});
  return b.build();
}

struct fixture {
  std::shared_ptr<const ex::prepared_model> pm;
  ty::Request request;
  float* pool = nullptr;

  fixture() {
    const ty::Model m = two_adds();
    auto prepared = ex::prepare(m);
    REQUIRE_MESSAGE(prepared.ok(), (prepared.ok() ? std::string() : prepared.err().message));
    pm = *prepared;
    request = nnhal::test::make_request(m);
    pool = reinterpret_cast<float*>(std::get<ty::Memory>(request.pools[0]).data);
    for (std::uint32_t i = 0; i < n; ++i) {
      pool[i] = static_cast<float>(i);             // a
      pool[n + i] = 0.25f * static_cast<float>(i);  // b
    }
  }
  /// The output against a + 2b, computed here (exact in float for these values).
  bool output_ok() const {
    for (std::uint32_t i = 0; i < n; ++i)
      if (pool[2 * n + i] != static_cast<float>(i) + 0.5f * static_cast<float>(i)) return false;
    return true;
  }
};

struct counts {
  double per_execution;
  std::size_t largest;
};

/// Allocations per call of `run` over `measured` calls after `warm_up` calls.
template <class Run>
counts measure(Run&& run) {
  for (int i = 0; i < warm_up; ++i) run();
  allocations.store(0);
  largest.store(0);
  for (int i = 0; i < measured; ++i) run();
  return {static_cast<double>(allocations.load()) / measured, largest.load()};
}

void report(const char* style, const counts& c) {
  std::printf("alloc_test: %-6s %.2f allocations per execution, largest %zu bytes\n", style, c.per_execution,
              c.largest);
}

}  // namespace

TEST_SUITE("executor allocations") {
  TEST_CASE("sync: a warm execution reuses a pooled execution and allocates no tensor memory") {
    fixture f;
    bool ok = true;
    const counts c = measure([&] { ok = ok && ex::execute(*f.pm, f.request).status == ty::ErrorStatus::NONE; });
    report("sync", c);
    CHECK(ok);
    CHECK(f.output_ok());
    CHECK(c.largest < tensor_bytes);
    // Measured 10 (gcc 12, -O2): small bookkeeping (the per-step shape lists of ADDs,
    // whose inference still returns by value, and the outcome's output shapes, which
    // belong to the caller); none is tensor-sized. Without the pool it was 20+.
    CHECK(c.per_execution <= 12.0);
  }

  TEST_CASE("burst: the burst's own execution is restarted") {
    fixture f;
    ex::runtime rt({.workers = 1});
    auto b = ex::burst::configure(rt, f.pm);
    REQUIRE(b.ok());
    bool ok = true;
    const counts c = measure([&] {
      ok = ok && (*b)->execute_synchronously(f.request).status == ty::ErrorStatus::NONE;
    });
    report("burst", c);
    CHECK(ok);
    CHECK(f.output_ok());
    CHECK(c.largest < tensor_bytes);
    CHECK(c.per_execution <= 12.0);  // measured 10
  }

  TEST_CASE("queued and async: bookkeeping only, no tensor memory") {
    fixture f;
    ex::runtime rt({.workers = 1});
    bool ok = true;
    const counts q = measure([&] {
      ok = ok && ex::execute_queued(rt, f.pm, f.request, {}).status == ty::ErrorStatus::NONE;
    });
    report("queued", q);
    CHECK(ok);
    CHECK(f.output_ok());
    CHECK(q.largest < tensor_bytes);

    std::atomic<int> done{0};
    std::atomic<bool> failed{false};  // set on a worker
    const counts a = measure([&] {
      done.store(0);
      const auto s = ex::execute_async(rt, f.pm, f.request, {}, [&](ex::execution_outcome o) {
        if (o.status != ty::ErrorStatus::NONE) failed.store(true);
        done.store(1);
        done.notify_one();
      });
      if (s != ty::ErrorStatus::NONE) failed.store(true);
      else done.wait(0);
    });
    report("async", a);
    CHECK_FALSE(failed.load());
    CHECK(f.output_ok());
    CHECK(a.largest < tensor_bytes);
  }

  TEST_CASE("the pool keeps neither the model nor the request's memory alive") {
    std::weak_ptr<const ex::prepared_model> weak;
    std::weak_ptr<const void> pool_owner;
    {
      fixture f;
      weak = f.pm;
      CHECK(ex::execute(*f.pm, f.request).status == ty::ErrorStatus::NONE);
      pool_owner = std::get<ty::Memory>(f.request.pools[0]).owner;
    }
    CHECK(weak.expired());
    CHECK(pool_owner.expired());
  }
}
