// Fences for fenced execution (IPreparedModel::executeFenced): something that is pending,
// then signalled or failed, once. Two kinds: local_fence lives in this process and calls
// back when it settles; fd fences are pollable file descriptors, like Android's sync_file
// (readable = settled), awaited through the epoll reactor (reactor.hpp).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "nnhal/types/error.hpp"

namespace nnhal::exec {

enum class fence_state : std::uint8_t { pending, signaled, failed };

/// A one-shot completion event. Shared by whoever waits on it (std::shared_ptr<fence>).
class fence {
 public:
  virtual ~fence() = default;
  /// Current state; never blocks.
  virtual fence_state state() const noexcept = 0;
  /// Why a failed fence failed (GENERAL_FAILURE when the producer gave no reason).
  virtual types::ErrorStatus error() const noexcept { return types::ErrorStatus::GENERAL_FAILURE; }
  /// A descriptor that polls readable (or POLLERR / POLLHUP) once the fence settles, or -1
  /// for a fence that can only notify through on_settled().
  virtual int pollable_fd() const noexcept { return -1; }
  /// Calls `fn` once, on the settling thread, when the fence leaves pending (right away if
  /// it already has). Only fences without a pollable fd must support it.
  virtual void on_settled(std::function<void()> fn) const { fn(); }
};

using fence_ptr = std::shared_ptr<const fence>;

namespace detail {

/// The signalled-or-failed state a producer sets exactly once, plus its waiters.
class settle_state {
 public:
  fence_state state() const noexcept { return state_.load(std::memory_order_acquire); }
  types::ErrorStatus error() const noexcept { return error_.load(std::memory_order_acquire); }
  /// Moves to `s` if still pending; returns the callbacks to run (outside any lock).
  std::vector<std::function<void()>> settle(fence_state s, types::ErrorStatus e) {
    std::lock_guard lk(mu_);
    if (state_.load(std::memory_order_relaxed) != fence_state::pending) return {};
    error_.store(e, std::memory_order_relaxed);
    state_.store(s, std::memory_order_release);
    return std::move(waiters_);
  }
  /// Keeps `fn` for later, or returns false if already settled (the caller runs it).
  bool add_waiter(std::function<void()>& fn) {
    std::lock_guard lk(mu_);
    if (state_.load(std::memory_order_relaxed) != fence_state::pending) return false;
    waiters_.push_back(std::move(fn));
    return true;
  }

 private:
  std::mutex mu_;
  std::atomic<fence_state> state_{fence_state::pending};
  std::atomic<types::ErrorStatus> error_{types::ErrorStatus::NONE};
  std::vector<std::function<void()>> waiters_;
};

inline void close_fd(int fd) noexcept {
  if (fd >= 0) ::close(fd);
}

/// poll() once without waiting.
inline short poll_now(int fd) noexcept {
  pollfd p{fd, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, 0);
  while (r < 0 && errno == EINTR);
  return r < 0 ? static_cast<short>(POLLERR) : p.revents;
}

}  // namespace detail

/// An in-process fence: the producer calls signal() or fail(); waiters get a callback.
class local_fence final : public fence {
 public:
  static std::shared_ptr<local_fence> make() { return std::make_shared<local_fence>(); }

  fence_state state() const noexcept override { return s_.state(); }
  types::ErrorStatus error() const noexcept override {
    return state() == fence_state::failed ? s_.error() : types::ErrorStatus::NONE;
  }
  void on_settled(std::function<void()> fn) const override {
    if (!s_.add_waiter(fn)) fn();
  }

  /// Settles the fence; only the first call counts.
  void signal() { run(s_.settle(fence_state::signaled, types::ErrorStatus::NONE)); }
  void fail(types::ErrorStatus why = types::ErrorStatus::GENERAL_FAILURE) { run(s_.settle(fence_state::failed, why)); }

 private:
  static void run(std::vector<std::function<void()>> fns) {
    for (auto& f : fns) f();
  }
  mutable detail::settle_state s_;  // waiters register through a const fence
};

/// A foreign pollable descriptor, e.g. a sync_file another driver gave us (owned: closed
/// on destruction). Readable means signalled; POLLERR, POLLHUP without data, or POLLNVAL
/// means failed. A sync_file's own error status (SYNC_IOC_FILE_INFO) is not read: one that
/// signals with an error looks signalled here.
class fd_fence final : public fence {
 public:
  /// Takes ownership of `fd`.
  static std::shared_ptr<fd_fence> adopt(int fd) { return std::shared_ptr<fd_fence>(new fd_fence(fd)); }
  ~fd_fence() override { detail::close_fd(fd_); }

  fence_state state() const noexcept override {
    if (fd_ < 0) return fence_state::failed;
    const short ev = detail::poll_now(fd_);
    if (ev & POLLIN) return fence_state::signaled;
    if (ev & (POLLERR | POLLHUP | POLLNVAL)) return fence_state::failed;
    return fence_state::pending;
  }
  int pollable_fd() const noexcept override { return fd_; }

 private:
  explicit fd_fence(int fd) noexcept : fd_(fd) {}
  int fd_;
};

/// A fence we produce, backed by an eventfd that becomes readable when it settles, so a
/// client can poll it like a sync_file (export it with dup_fd()). Whether it failed, and
/// why, is known in-process (state(), error()) and reported to clients through the fenced
/// execution's callback, as with a sync_file whose status is read through a separate call.
class event_fence final : public fence {
 public:
  /// A pending fence, or an error if no eventfd is available (RESOURCE_EXHAUSTED_TRANSIENT).
  static types::result<std::shared_ptr<event_fence>> make() {
    const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
      return types::make_error(types::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "eventfd failed: errno ", errno);
    return std::shared_ptr<event_fence>(new event_fence(fd));
  }
  ~event_fence() override { detail::close_fd(fd_); }

  fence_state state() const noexcept override { return s_.state(); }
  types::ErrorStatus error() const noexcept override {
    return state() == fence_state::failed ? s_.error() : types::ErrorStatus::NONE;
  }
  int pollable_fd() const noexcept override { return fd_; }

  /// A new descriptor for the same fence (the caller owns it), or -1.
  int dup_fd() const noexcept { return ::fcntl(fd_, F_DUPFD_CLOEXEC, 0); }

  void signal() noexcept { settle(fence_state::signaled, types::ErrorStatus::NONE); }
  void fail(types::ErrorStatus why = types::ErrorStatus::GENERAL_FAILURE) noexcept { settle(fence_state::failed, why); }

 private:
  explicit event_fence(int fd) noexcept : fd_(fd) {}
  void settle(fence_state st, types::ErrorStatus why) noexcept {
    // No waiter callbacks here: waiters watch the descriptor. The state is stored first, so
    // whoever sees the descriptor readable also sees the final state.
    (void)s_.settle(st, why);
    const std::uint64_t one = 1;
    ssize_t r;
    do r = ::write(fd_, &one, sizeof one);
    while (r < 0 && errno == EINTR);
  }
  int fd_;
  detail::settle_state s_;
};

/// Whether every fence has settled, and the first failure if one failed.
struct fences_status {
  bool all_settled = true;
  bool any_failed = false;
  types::ErrorStatus first_error = types::ErrorStatus::NONE;
};
inline fences_status probe(const std::vector<fence_ptr>& fences) noexcept {
  fences_status s;
  for (const auto& f : fences) {
    const auto st = f ? f->state() : fence_state::failed;
    if (st == fence_state::pending) s.all_settled = false;
    if (st == fence_state::failed && !s.any_failed) {
      s.any_failed = true;
      s.first_error = f ? f->error() : types::ErrorStatus::INVALID_ARGUMENT;
    }
  }
  return s;
}

}  // namespace nnhal::exec
