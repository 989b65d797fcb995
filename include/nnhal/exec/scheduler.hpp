// The worker pool behind the executor: a fixed set of threads serving three FIFO queues,
// one per HAL Priority (HIGH first), `co_await pool.schedule(prio)` to move a coroutine onto
// it, and pool_context, the parallel_context kernels use for intra-op parallelism.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "nnhal/exec/parallel.hpp"
#include "nnhal/types/device.hpp"

namespace nnhal::exec {

/// One unit of queued work: a plain function and its argument (a coroutine handle's
/// address, or a heap object the function frees).
struct work_item {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
  void operator()() const { fn(arg); }
  static work_item resume(std::coroutine_handle<> h) noexcept {
    return {[](void* a) { std::coroutine_handle<>::from_address(a).resume(); }, h.address()};
  }
};

class thread_pool;

namespace detail {
/// The pool whose worker is running on this thread, if any.
inline thread_local const thread_pool* current_pool = nullptr;
constexpr std::size_t priority_index(types::Priority p) noexcept {
  return p == types::Priority::HIGH ? 0 : p == types::Priority::MEDIUM ? 1 : 2;
}
/// One short pause of a polling loop (lets the sibling hyper-thread run).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace detail

/// How long an idle worker keeps polling for new work before it sleeps. The chunks of one
/// operation, and the operations of one execution, follow each other within microseconds,
/// while waking a sleeping thread costs several: a short poll lets a parallel loop start
/// on every thread at once. Bounded, so an idle pool still sleeps.
inline constexpr std::chrono::microseconds default_worker_spin{50};

/// A fixed-size pool of worker threads. Workers always take the oldest item of the highest
/// non-empty priority queue. Destruction runs every item still queued, then joins.
class thread_pool {
 public:
  /// `workers == 0` means one per hardware thread; an idle worker polls for `spin` before
  /// it sleeps (zero: sleeps at once).
  explicit thread_pool(std::size_t workers = 0, std::chrono::microseconds spin = default_worker_spin) : spin_(spin) {
    if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
    threads_.reserve(workers);
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { worker_loop(); });
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;
  ~thread_pool() {
    {
      std::lock_guard lk(mu_);
      stopping_.store(true, std::memory_order_relaxed);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  std::size_t size() const noexcept { return threads_.size(); }
  /// How long an idle thread of this pool polls before it sleeps.
  std::chrono::microseconds spin() const noexcept { return spin_; }
  /// True on a worker thread of this pool.
  bool on_worker() const noexcept { return detail::current_pool == this; }

  /// Queues `w` at priority `p`; `front` puts it ahead of the items already waiting at that
  /// priority (for work that was preempted and should resume before newer work).
  void post(types::Priority p, work_item w, bool front = false) {
    const auto q = detail::priority_index(p);
    {
      std::unique_lock lk(mu_, std::defer_lock);
      acquire(lk);
      if (front)
        queues_[q].push_front(w);
      else
        queues_[q].push_back(w);
      waiting_[q].fetch_add(1, std::memory_order_relaxed);
    }
    cv_.notify_one();
  }

  /// Whether anything of a priority strictly above `p` is waiting for a worker. Cheap
  /// (no lock): executions call it at every checkpoint.
  bool higher_waiting(types::Priority p) const noexcept {
    const auto q = detail::priority_index(p);
    for (std::size_t i = 0; i < q; ++i)
      if (waiting_[i].load(std::memory_order_relaxed) > 0) return true;
    return false;
  }
  /// Items waiting at every priority together.
  std::size_t queued() const noexcept {
    std::size_t n = 0;
    for (const auto& w : waiting_) n += w.load(std::memory_order_relaxed);
    return n;
  }

  /// `co_await pool.schedule(p)`: the coroutine continues on a worker, queued at `p`.
  auto schedule(types::Priority p, bool front = false) noexcept {
    struct awaiter {
      thread_pool* pool;
      types::Priority prio;
      bool front;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) const { pool->post(prio, work_item::resume(h), front); }
      void await_resume() const noexcept {}
    };
    return awaiter{this, p, front};
  }

 private:
  void worker_loop() {
    detail::current_pool = this;
    std::unique_lock lk(mu_);
    bool polled = false;  // whether this idle spell already polled
    for (;;) {
      work_item w;
      for (std::size_t q = 0; q < queues_.size() && !w.fn; ++q) {
        if (queues_[q].empty()) continue;
        w = queues_[q].front();
        queues_[q].pop_front();
        waiting_[q].fetch_sub(1, std::memory_order_relaxed);
      }
      if (w.fn) {
        lk.unlock();
        w();
        acquire(lk);
        polled = false;
        continue;
      }
      if (stopping_.load(std::memory_order_relaxed)) break;
      if (!polled && spin_.count() > 0) {
        polled = true;
        lk.unlock();
        poll_for_work();
        acquire(lk);
        continue;
      }
      polled = false;
      cv_.wait(lk);
    }
    detail::current_pool = nullptr;
  }

  /// Locks `lk`, trying a while before blocking: the queue lock is held only for a few
  /// instructions, and a thread that blocks on it sleeps for far longer than that.
  static void acquire(std::unique_lock<std::mutex>& lk) {
    for (int i = 0; i < 256; ++i) {
      if (lk.try_lock()) return;
      detail::cpu_relax();
    }
    lk.lock();
  }

  /// Returns once something is queued, the pool is stopping, or `spin_` has passed. Reads
  /// only atomics; yields the core now and then in case other threads want it.
  void poll_for_work() const {
    const auto until = std::chrono::steady_clock::now() + spin_;
    for (unsigned i = 1;; ++i) {
      if (queued() > 0 || stopping_.load(std::memory_order_relaxed)) return;
      detail::cpu_relax();
      if (i % 64 == 0) {
        if (std::chrono::steady_clock::now() >= until) return;
        std::this_thread::yield();
      }
    }
  }

  std::chrono::microseconds spin_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::array<std::deque<work_item>, 3> queues_;  // HIGH, MEDIUM, LOW
  std::array<std::atomic<std::size_t>, 3> waiting_{};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;  // last: started once everything above exists
};

namespace detail {

/// Shared by the caller of one parallel_for and the helpers it posted. Helpers may run
/// after the call returned (they find nothing left), hence the reference count.
///
/// Chunks shrink as the loop drains (guided scheduling): each claim takes its share,
/// 1/(2 x threads), of what is left, but at least `grain`. The first chunks are long (few
/// claims), and the last ones are short, so the threads finish close together even when
/// one started late or ran slower.
struct parallel_for_state {
  std::atomic<std::size_t> next{0};      // first element not yet claimed
  std::atomic<std::size_t> finished{0};  // elements whose chunk has returned
  std::atomic<int> refs{1};
  std::size_t n = 0, grain = 1, share = 2;
  range_fn fn;

  parallel_for_state(std::size_t total, std::size_t min_chunk, std::size_t threads, range_fn f)
      : n(total), grain(min_chunk), share(2 * threads), fn(f) {}

  /// Runs chunks until none is left to claim.
  void work() {
    std::size_t b = next.load(std::memory_order_relaxed);
    for (;;) {
      if (b >= n) return;
      const std::size_t len = std::min(n - b, std::max(grain, (n - b) / share));
      if (!next.compare_exchange_weak(b, b + len, std::memory_order_relaxed)) continue;
      fn(b, b + len);
      if (finished.fetch_add(len, std::memory_order_acq_rel) + len == n) finished.notify_all();
      b = next.load(std::memory_order_relaxed);
    }
  }
  void release() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
};

}  // namespace detail

/// parallel_context over a thread_pool. The calling thread runs chunks too, and only waits
/// for chunks other threads have already started, so a nested call, or a call from a
/// worker while every other worker is busy, always finishes (no deadlock): in the worst
/// case the caller runs every chunk itself. Helpers are queued at the execution's priority.
class pool_context final : public parallel_context {
 public:
  pool_context(thread_pool& pool, types::Priority prio = types::Priority::MEDIUM) noexcept
      : pool_(pool), prio_(prio) {}

  std::size_t concurrency() const noexcept override { return pool_.size() + (pool_.on_worker() ? 0 : 1); }

  void parallel_for(std::size_t n, std::size_t grain, range_fn fn) override {
    if (n == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t threads = concurrency();
    if (threads <= 1 || n / 2 < grain) {  // (not n < 2 * grain: that can wrap)
      fn(0, n);
      return;
    }
    auto* st = new detail::parallel_for_state(n, grain, threads, fn);
    const std::size_t helpers = std::min(pool_.size(), n / grain - 1);
    st->refs.fetch_add(static_cast<int>(helpers), std::memory_order_relaxed);
    for (std::size_t i = 0; i < helpers; ++i)
      pool_.post(prio_, {[](void* a) {
                           auto* s = static_cast<detail::parallel_for_state*>(a);
                           s->work();
                           s->release();
                         },
                         st});
    st->work();
    // Every chunk is claimed; wait for those still running elsewhere: poll first (they
    // are usually about to finish, and a sleeping caller wakes late), then sleep.
    const auto until = std::chrono::steady_clock::now() + pool_.spin();
    for (unsigned i = 1; st->finished.load(std::memory_order_acquire) != n; ++i) {
      detail::cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
    }
    for (std::size_t done = st->finished.load(std::memory_order_acquire); done != n;
         done = st->finished.load(std::memory_order_acquire))
      st->finished.wait(done, std::memory_order_acquire);
    st->release();
  }

 private:
  thread_pool& pool_;
  types::Priority prio_;
};

}  // namespace nnhal::exec
