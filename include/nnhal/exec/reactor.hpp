// The reactor: one thread blocked in epoll_wait on fence descriptors and deadline timers,
// so that a coroutine waiting for a fence holds no worker. When the fence settles (or the
// deadline passes first) the coroutine is queued back on its pool at its priority.
#pragma once

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nnhal/exec/fence.hpp"
#include "nnhal/exec/scheduler.hpp"
#include "nnhal/types/device.hpp"

namespace nnhal::exec {

/// How a fence wait ended.
struct fence_wait_result {
  enum class kind : std::uint8_t { signaled, failed, timed_out } outcome = kind::signaled;
  types::ErrorStatus error = types::ErrorStatus::NONE;  // the fence's error when failed
  bool ok() const noexcept { return outcome == kind::signaled; }
};

namespace detail {

/// One suspended wait. Shared by the awaiting frame, the reactor and a local fence's
/// callback list; whoever claims it first resumes the coroutine, the others only let go.
struct fence_wait_node {
  std::atomic<bool> claimed{false};
  std::coroutine_handle<> handle;
  thread_pool* pool = nullptr;
  types::Priority prio = types::Priority::MEDIUM;
  fence_ptr fence;
  types::OptionalTimePoint deadline;
  fence_wait_result result;
  std::uint64_t watch_id = 0;  // reactor thread only: the fd registration, 0 if none

  bool complete(fence_wait_result r) {
    if (claimed.exchange(true, std::memory_order_acq_rel)) return false;
    result = r;
    pool->post(prio, work_item::resume(handle));
    return true;
  }
  fence_wait_result from_state() const {
    switch (fence->state()) {
      case fence_state::signaled: return {fence_wait_result::kind::signaled, types::ErrorStatus::NONE};
      case fence_state::failed: return {fence_wait_result::kind::failed, fence->error()};
      case fence_state::pending: break;
    }
    return {fence_wait_result::kind::failed, types::ErrorStatus::GENERAL_FAILURE};
  }
};

}  // namespace detail

/// An epoll loop on its own thread. Destroy it before the pools its waiters resume on: a
/// wait still pending then ends as failed (DEVICE_UNAVAILABLE).
class reactor {
 public:
  reactor() {
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0;  // id 0: the wake-up descriptor
    if (ep_ < 0 || wake_ < 0 || ::epoll_ctl(ep_, EPOLL_CTL_ADD, wake_, &ev) != 0) {
      closed_ = true;
      return;
    }
    thread_ = std::thread([this] { loop(); });
  }
  reactor(const reactor&) = delete;
  reactor& operator=(const reactor&) = delete;
  ~reactor() {
    stop();
    detail::close_fd(ep_);
    detail::close_fd(wake_);
  }

  /// False if epoll or the wake-up eventfd could not be created, or after stop(): waits
  /// that need the reactor then fail at once with DEVICE_UNAVAILABLE.
  bool ok() const noexcept {
    std::lock_guard lk(mu_);
    return !closed_;
  }

  /// Ends every pending wait as failed (DEVICE_UNAVAILABLE) and stops the thread. The
  /// pools those waits resume on must still be alive. Idempotent.
  void stop() {
    if (thread_.joinable()) {
      stopping_.store(true, std::memory_order_release);
      wake();
      thread_.join();
    }
    std::lock_guard lk(mu_);
    closed_ = true;
  }

  /// `co_await rx.wait(f, pool, prio, deadline)`: suspends until `f` settles or `deadline`
  /// passes, then continues on a worker of `pool` queued at `prio`. No thread blocks.
  auto wait(fence_ptr f, thread_pool& pool, types::Priority prio, types::OptionalTimePoint deadline = {}) {
    struct awaiter {
      reactor* rx;
      std::shared_ptr<detail::fence_wait_node> node;
      bool await_ready() const noexcept {
        if (!node->fence) {
          node->result = {fence_wait_result::kind::failed, types::ErrorStatus::INVALID_ARGUMENT};
          return true;
        }
        if (node->fence->state() != fence_state::pending) {
          node->result = node->from_state();
          return true;
        }
        if (node->deadline && *node->deadline <= types::clock::now()) {
          node->result = {fence_wait_result::kind::timed_out, types::ErrorStatus::NONE};
          return true;
        }
        return false;
      }
      void await_suspend(std::coroutine_handle<> h) {
        node->handle = h;
        // From here on another thread may resume the coroutine (and destroy this awaiter)
        // at any moment: work on local copies only.
        auto n = node;
        reactor* r = rx;
        // Every wait is registered, so stop() can end it even if its fence never settles.
        r->submit(n);
        // Weak: the node owns the fence, so a strong reference from the fence's waiter list
        // would keep both alive forever if the fence never settles. The suspended frame owns
        // the node meanwhile.
        if (n->fence->pollable_fd() < 0)
          n->fence->on_settled([w = std::weak_ptr<detail::fence_wait_node>(n)] {
            if (auto alive = w.lock()) alive->complete(alive->from_state());
          });
      }
      fence_wait_result await_resume() const noexcept { return node->result; }
    };
    auto node = std::make_shared<detail::fence_wait_node>();
    node->pool = &pool;
    node->prio = prio;
    node->fence = std::move(f);
    node->deadline = deadline;
    return awaiter{this, std::move(node)};
  }

  /// Waits currently registered with the reactor thread (for tests and diagnostics).
  std::size_t watching() const noexcept { return watching_.load(std::memory_order_relaxed); }

 private:
  void wake() noexcept {
    const std::uint64_t one = 1;
    ssize_t r;
    do r = ::write(wake_, &one, sizeof one);
    while (r < 0 && errno == EINTR);
  }

  void submit(std::shared_ptr<detail::fence_wait_node> n) {
    {
      std::lock_guard lk(mu_);
      if (!closed_) {
        inbox_.push_back(std::move(n));
        n = nullptr;
      }
    }
    if (n)
      n->complete({fence_wait_result::kind::failed, types::ErrorStatus::DEVICE_UNAVAILABLE});
    else
      wake();
  }

  // Everything below runs on the reactor thread only.

  void loop() {
    std::vector<epoll_event> events(64);
    while (!stopping_.load(std::memory_order_acquire)) {
      const int n = ::epoll_wait(ep_, events.data(), static_cast<int>(events.size()), next_timeout_ms());
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t id = events[static_cast<std::size_t>(i)].data.u64;
        if (id == 0) {
          std::uint64_t drained;
          while (::read(wake_, &drained, sizeof drained) > 0) {
          }
          continue;
        }
        if (auto node = unwatch(id)) node->complete(node->from_state());
      }
      take_inbox();
      fire_timers();
    }
    // Shutting down: nothing will ever resume these waits otherwise. Closing under the lock
    // makes every later submit() fail at once instead of landing in a dead inbox.
    {
      std::lock_guard lk(mu_);
      closed_ = true;
    }
    take_inbox();
    for (auto& [id, w] : watches_) {
      detail::close_fd(w.fd);
      w.node->complete({fence_wait_result::kind::failed, types::ErrorStatus::DEVICE_UNAVAILABLE});
    }
    watches_.clear();
    for (auto& [when, weak] : timers_)
      if (auto node = weak.lock())
        node->complete({fence_wait_result::kind::failed, types::ErrorStatus::DEVICE_UNAVAILABLE});
    timers_.clear();
    for (auto& weak : locals_)
      if (auto node = weak.lock())
        node->complete({fence_wait_result::kind::failed, types::ErrorStatus::DEVICE_UNAVAILABLE});
    locals_.clear();
    watching_.store(0, std::memory_order_relaxed);
  }

  int next_timeout_ms() const {
    if (timers_.empty()) return -1;
    const auto left = timers_.begin()->first - types::clock::now();
    if (left <= std::chrono::nanoseconds::zero()) return 0;
    // Round up so a timer never fires early; cap so the conversion to int cannot overflow.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<decltype(ms)>(ms, 1'000'000));
  }

  void take_inbox() {
    std::vector<std::shared_ptr<detail::fence_wait_node>> in;
    {
      std::lock_guard lk(mu_);
      in.swap(inbox_);
    }
    for (auto& node : in) {
      if (node->claimed.load(std::memory_order_acquire)) continue;
      if (node->fence->pollable_fd() >= 0) {
        if (!watch(node)) continue;
      } else {
        locals_.push_back(node);  // settles through its callback; kept only to end it at stop()
      }
      if (node->deadline) timers_.emplace(*node->deadline, node);
    }
    // Waits on local fences that ended are dropped now and then (their frames own them).
    if (locals_.size() > 2 * locals_pruned_at_) {
      std::erase_if(locals_, [](const auto& w) {
        auto n = w.lock();
        return !n || n->claimed.load(std::memory_order_acquire);
      });
      locals_pruned_at_ = std::max<std::size_t>(locals_.size(), 64);
    }
  }

  /// Registers the node's descriptor (a duplicate, so the same fence can be watched many
  /// times). Returns false if the wait already ended.
  bool watch(const std::shared_ptr<detail::fence_wait_node>& node) {
    const int fd = ::fcntl(node->fence->pollable_fd(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      node->complete({fence_wait_result::kind::failed, types::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT});
      return false;
    }
    const std::uint64_t id = ++last_id_;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (::epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      // Not pollable (e.g. a regular file): take its state as it is now.
      detail::close_fd(fd);
      const auto st = node->fence->state();
      node->complete(st == fence_state::pending
                         ? fence_wait_result{fence_wait_result::kind::failed, types::ErrorStatus::INVALID_ARGUMENT}
                         : node->from_state());
      return false;
    }
    node->watch_id = id;
    watches_.emplace(id, watch_entry{fd, node});
    watching_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  std::shared_ptr<detail::fence_wait_node> unwatch(std::uint64_t id) {
    auto it = watches_.find(id);
    if (it == watches_.end()) return nullptr;
    ::epoll_ctl(ep_, EPOLL_CTL_DEL, it->second.fd, nullptr);
    detail::close_fd(it->second.fd);
    auto node = std::move(it->second.node);
    watches_.erase(it);
    node->watch_id = 0;
    watching_.fetch_sub(1, std::memory_order_relaxed);
    return node;
  }

  void fire_timers() {
    const auto now = types::clock::now();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      auto node = timers_.begin()->second.lock();
      timers_.erase(timers_.begin());
      if (!node || node->claimed.load(std::memory_order_acquire)) continue;
      if (node->watch_id) unwatch(node->watch_id);
      node->complete({fence_wait_result::kind::timed_out, types::ErrorStatus::NONE});
    }
  }

  struct watch_entry {
    int fd;
    std::shared_ptr<detail::fence_wait_node> node;
  };

  int ep_ = -1;
  int wake_ = -1;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  bool closed_ = false;  // under mu_: no new waits accepted
  std::vector<std::shared_ptr<detail::fence_wait_node>> inbox_;
  std::unordered_map<std::uint64_t, watch_entry> watches_;
  std::multimap<types::time_point, std::weak_ptr<detail::fence_wait_node>> timers_;
  std::vector<std::weak_ptr<detail::fence_wait_node>> locals_;  // waits on fences without a descriptor
  std::size_t locals_pruned_at_ = 64;
  std::uint64_t last_id_ = 0;
  std::atomic<std::size_t> watching_{0};
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace nnhal::exec
