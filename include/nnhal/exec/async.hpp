// The coroutine runtime behind the asynchronous execution styles: a worker pool plus an
// epoll reactor (runtime), admission control (queue depth, deadlines predicted from a
// running per-model estimate), the checkpointed step loop every style shares, and
// execute_async (IPreparedModel::execute_1_3 with its IExecutionCallback).
//
// Priorities and preemption. Workers always take the highest-priority queued work. At each
// checkpoint (between two operations) a running execution looks whether anything of a
// higher priority is waiting; if so it requeues itself at the front of its own priority
// queue and gives its worker away. It later *resumes* where it stopped rather than
// restarting: its state between operations is exactly the execution object (operand
// slots, frame stack), which is small next to the work already done, and restarting would
// repeat finished operations and could starve a low-priority execution forever under a
// steady stream of high-priority work. Kernels themselves are never interrupted.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "nnhal/exec/execution.hpp"
#include "nnhal/exec/reactor.hpp"
#include "nnhal/exec/scheduler.hpp"
#include "nnhal/exec/task.hpp"

namespace nnhal::exec {

struct runtime_options {
  std::size_t workers = 0;           // 0: one per hardware thread
  std::size_t max_in_flight = 1024;  // admitted, unfinished executions; beyond: RESOURCE_EXHAUSTED_TRANSIENT
};

/// A running estimate of how long one execution of a model keeps the device busy (the sum
/// of its steps' wall times, without time spent queued or preempted).
class model_estimate {
 public:
  using ns = std::chrono::nanoseconds;
  /// Folds one successful execution's busy time into the estimate.
  void record(ns busy) noexcept {
    const auto v = static_cast<std::uint64_t>(std::max<ns::rep>(busy.count(), 1));
    auto fast = fastest_.load(std::memory_order_relaxed);
    while (v < fast && !fastest_.compare_exchange_weak(fast, v, std::memory_order_relaxed)) {
    }
    // Exponential moving average, weight 1/8; the first run seeds it. Concurrent updates
    // may lose one sample, which an estimate tolerates.
    const auto old = typical_.load(std::memory_order_relaxed);
    typical_.store(old == 0 ? v : old - old / 8 + v / 8, std::memory_order_relaxed);
    runs_.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t runs() const noexcept { return runs_.load(std::memory_order_relaxed); }
  /// The shortest run seen: what an idle device needs at least. 0 before any run.
  ns fastest() const noexcept {
    const auto f = fastest_.load(std::memory_order_relaxed);
    return ns(f == no_run ? 0 : static_cast<ns::rep>(f));
  }
  /// The usual run time. 0 before any run.
  ns typical() const noexcept { return ns(static_cast<ns::rep>(typical_.load(std::memory_order_relaxed))); }

 private:
  static constexpr std::uint64_t no_run = ~std::uint64_t{0};
  std::atomic<std::uint64_t> fastest_{no_run};
  std::atomic<std::uint64_t> typical_{0};
  std::atomic<std::uint64_t> runs_{0};
};

class runtime;

/// A slot in the runtime's in-flight budget, returned when the execution ends (RAII).
class admission {
 public:
  admission() = default;
  admission(admission&& o) noexcept : rt_(std::exchange(o.rt_, nullptr)), prio_(o.prio_), cost_(o.cost_) {}
  admission& operator=(admission&& o) noexcept {
    if (this != &o) {
      release();
      rt_ = std::exchange(o.rt_, nullptr);
      prio_ = o.prio_;
      cost_ = o.cost_;
    }
    return *this;
  }
  ~admission() { release(); }
  inline void release() noexcept;

 private:
  friend class runtime;
  admission(runtime* rt, types::Priority p, std::uint64_t cost) noexcept : rt_(rt), prio_(p), cost_(cost) {}
  runtime* rt_ = nullptr;
  types::Priority prio_ = types::Priority::MEDIUM;
  std::uint64_t cost_ = 0;  // ns this execution adds to the backlog of its priority
};

/// The executor's shared machinery: one worker pool, one reactor, admission control and
/// per-model estimates. One per driver process is typical. Destroying it ends pending fence
/// waits (DEVICE_UNAVAILABLE), then runs every queued execution to its end.
class runtime {
 public:
  explicit runtime(runtime_options o = {}) : opts_(o), pool_(o.workers) {}
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
  ~runtime() { io_.stop(); }

  thread_pool& pool() noexcept { return pool_; }
  reactor& io() noexcept { return io_; }
  const runtime_options& options() const noexcept { return opts_; }
  /// Executions admitted and not yet finished.
  std::size_t in_flight() const noexcept { return in_flight_.load(std::memory_order_relaxed); }

  /// The estimate of `pm` (created on first use; reset if `pm` died and its address was reused).
  std::shared_ptr<model_estimate> estimate_for(const prepared_model& pm) {
    std::weak_ptr<const prepared_model> self = pm.weak_from_this();
    std::lock_guard lk(est_mu_);
    auto& e = estimates_[&pm];
    if (!e.stats || e.owner.expired() || e.owner.owner_before(self) || self.owner_before(e.owner)) {
      e.owner = std::move(self);
      e.stats = std::make_shared<model_estimate>();
    }
    if (estimates_.size() > 2 * prune_at_) {  // drop entries of models that no longer exist
      std::erase_if(estimates_, [](const auto& kv) { return kv.second.owner.expired(); });
      prune_at_ = std::max<std::size_t>(estimates_.size(), 16);
    }
    return e.stats;
  }

  /// Admission before an execution starts: the queue-depth limit, then the deadline against
  /// the model's estimate. MISSED_DEADLINE_PERSISTENT when even an idle device would miss it
  /// (the fastest run seen is longer than the time left), MISSED_DEADLINE_TRANSIENT when only
  /// the work queued ahead of it (same or higher priority, spread over the workers) would make
  /// it miss. No prediction is made before the model's first successful run.
  result<admission> admit(const model_estimate& est, types::Priority prio, types::OptionalTimePoint deadline) {
    NNHAL_CHECK(types::is_valid(prio), ErrorStatus::INVALID_ARGUMENT, "invalid priority ", static_cast<int>(prio));
    const std::size_t before = in_flight_.fetch_add(1, std::memory_order_relaxed);
    const auto cost = static_cast<std::uint64_t>(est.typical().count());
    admission a(this, prio, 0);  // owns the in-flight slot from here on
    if (before >= opts_.max_in_flight)
      return types::make_error(ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "too many executions in flight (limit ",
                               opts_.max_in_flight, ")");
    if (deadline) {
      const auto now = types::clock::now();
      if (*deadline <= now)
        return types::make_error(ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the execution deadline has passed");
      const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(*deadline - now);
      if (est.runs() > 0) {
        if (est.fastest() > left)
          return types::make_error(ErrorStatus::MISSED_DEADLINE_PERSISTENT, "the model needs at least ",
                                   est.fastest().count() / 1000, " us, the deadline leaves ", left.count() / 1000, " us");
        const auto wait = std::chrono::nanoseconds(static_cast<std::int64_t>(backlog_at_or_above(prio) / pool_.size()));
        if (est.typical() + wait > left)
          return types::make_error(ErrorStatus::MISSED_DEADLINE_TRANSIENT, "predicted to finish in ",
                                   (est.typical() + wait).count() / 1000, " us (", wait.count() / 1000,
                                   " us of queued work), the deadline leaves ", left.count() / 1000, " us");
      }
    }
    a.cost_ = cost;
    backlog_[detail::priority_index(prio)].fetch_add(cost, std::memory_order_relaxed);
    return a;
  }

 private:
  friend class admission;
  void release(types::Priority p, std::uint64_t cost) noexcept {
    backlog_[detail::priority_index(p)].fetch_sub(cost, std::memory_order_relaxed);
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
  }
  std::uint64_t backlog_at_or_above(types::Priority p) const noexcept {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i <= detail::priority_index(p); ++i) sum += backlog_[i].load(std::memory_order_relaxed);
    return sum;
  }

  struct estimate_entry {
    std::weak_ptr<const prepared_model> owner;
    std::shared_ptr<model_estimate> stats;
  };

  runtime_options opts_;
  std::atomic<std::size_t> in_flight_{0};
  std::array<std::atomic<std::uint64_t>, 3> backlog_{};  // estimated ns admitted, per priority
  std::mutex est_mu_;
  std::unordered_map<const prepared_model*, estimate_entry> estimates_;
  std::size_t prune_at_ = 16;
  // Destroyed first: the pool (draining its queues), then the reactor, then the rest.
  reactor io_;
  thread_pool pool_;
};

inline void admission::release() noexcept {
  if (rt_) std::exchange(rt_, nullptr)->release(prio_, cost_);
}

namespace detail {

/// The stop reason at a checkpoint: the execution's own (deadline, cancellation), then an
/// extra deadline the style adds (executeFenced's duration after the fences).
inline ErrorStatus checkpoint(const execution& ex, const types::OptionalTimePoint& extra_deadline) noexcept {
  if (const ErrorStatus s = ex.checkpoint(); s != ErrorStatus::NONE) return s;
  if (extra_deadline && types::clock::now() >= *extra_deadline) return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
  return ErrorStatus::NONE;
}
inline void stop_at_checkpoint(execution& ex, ErrorStatus why) {
  ex.abort(why, why == ErrorStatus::MISSED_DEADLINE_TRANSIENT ? "the execution deadline passed at a checkpoint"
                                                              : "the execution was cancelled");
}

/// Runs one step and adds its wall time to `busy`.
inline void timed_step(execution& ex, parallel_context& par, std::chrono::nanoseconds& busy) {
  const auto t0 = types::clock::now();
  ex.step(par);
  busy += std::chrono::duration_cast<std::chrono::nanoseconds>(types::clock::now() - t0);
}

/// The step loop on a worker of `pool`, yielding to higher-priority work at checkpoints.
inline task<void> run_steps(thread_pool& pool, execution& ex, types::Priority prio,
                            types::OptionalTimePoint extra_deadline, std::chrono::nanoseconds& busy) {
  pool_context par(pool, prio);
  while (!ex.done()) {
    if (pool.higher_waiting(prio)) co_await pool.schedule(prio, /*front=*/true);  // preempted; resumes here
    if (const ErrorStatus s = checkpoint(ex, extra_deadline); s != ErrorStatus::NONE) {
      stop_at_checkpoint(ex, s);
      break;
    }
    timed_step(ex, par, busy);
  }
}

/// The step loop on the calling thread (burst), kernels still parallel over the pool.
inline void run_steps_here(execution& ex, parallel_context& par, std::chrono::nanoseconds& busy) {
  while (!ex.done()) {
    if (const ErrorStatus s = checkpoint(ex, {}); s != ErrorStatus::NONE) {
      stop_at_checkpoint(ex, s);
      break;
    }
    timed_step(ex, par, busy);
  }
}

/// finish() plus the bookkeeping every style does once an execution ends: feed the estimate
/// with successful runs, return the execution to its model's pool and free its admission slot at once.
inline execution_outcome conclude(execution::pooled& ex, model_estimate& est, admission& ticket,
                                  std::chrono::nanoseconds busy) {
  execution_outcome out = ex->finish();
  if (out.status == ErrorStatus::NONE) est.record(busy);
  ex.reset();
  ticket.release();
  return out;
}

inline execution_outcome failed_outcome(types::error e) {
  execution_outcome out;
  out.status = e.status;
  out.message = std::move(e.message);
  return out;
}

/// Everything launched and admitted, not yet running.
struct launched {
  execution::pooled ex;
  types::Priority prio;
  std::shared_ptr<model_estimate> est;
  admission ticket;
};

/// Validation and admission shared by the styles: request (execution::start), priority,
/// queue depth, deadline prediction.
inline result<launched> launch(runtime& rt, const std::shared_ptr<const prepared_model>& pm,
                               const types::Request& request, const execute_options& options) {
  NNHAL_CHECK(pm != nullptr, ErrorStatus::INVALID_ARGUMENT, "no prepared model");
  const types::Priority prio = pm->priority();
  NNHAL_CHECK(types::is_valid(prio), ErrorStatus::INVALID_ARGUMENT, "invalid priority ", static_cast<int>(prio));
  auto started = execution::lease(pm, request, options);
  if (!started) return std::move(started).err();
  auto est = rt.estimate_for(*pm);
  auto ticket = rt.admit(*est, prio, options.deadline);
  if (!ticket) return std::move(ticket).err();
  return launched{std::move(*started), prio, std::move(est), std::move(*ticket)};
}

inline task<execution_outcome> run_async(runtime& rt, launched l) {
  co_await rt.pool().schedule(l.prio);
  std::chrono::nanoseconds busy{0};
  co_await run_steps(rt.pool(), *l.ex, l.prio, {}, busy);
  co_return conclude(l.ex, *l.est, l.ticket, busy);
}

}  // namespace detail

/// IExecutionCallback::notify: status, output shapes and timing, called exactly once.
using execution_callback = std::function<void(execution_outcome)>;

/// execute_1_3: validates and admits the execution, then runs it on the runtime's pool.
/// On an error found at launch (bad request, deadline passed or predicted missed, too many
/// executions in flight, invalid priority) `callback` runs before this returns and the same
/// status is returned; otherwise this returns NONE and `callback` runs on a worker when the
/// execution ends. The request's pools stay alive until then (the execution holds them).
inline ErrorStatus execute_async(runtime& rt, std::shared_ptr<const prepared_model> pm, const types::Request& request,
                                 const execute_options& options, execution_callback callback) {
  auto l = detail::launch(rt, pm, request, options);
  if (!l) {
    auto out = detail::failed_outcome(std::move(l).err());
    const ErrorStatus s = out.status;
    callback(std::move(out));
    return s;
  }
  spawn(detail::run_async(rt, std::move(*l)), std::move(callback));
  return ErrorStatus::NONE;
}

/// A synchronous execution that still goes through the runtime's queues (so priorities
/// and admission apply): blocks the calling thread, which must not be one of the pool's workers.
inline execution_outcome execute_queued(runtime& rt, std::shared_ptr<const prepared_model> pm,
                                        const types::Request& request, const execute_options& options) {
  auto l = detail::launch(rt, pm, request, options);
  if (!l) return detail::failed_outcome(std::move(l).err());
  return sync_wait(detail::run_async(rt, std::move(*l)));
}

}  // namespace nnhal::exec
