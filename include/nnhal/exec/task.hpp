// task<T>: a lazy coroutine that starts when awaited and resumes its awaiter by symmetric
// transfer; sync_wait() runs one to completion on the calling thread; spawn() starts one
// detached. The library reports failures through result<T>, never through exceptions, so
// an exception escaping a task body is a bug and terminates.
#pragma once

#include <atomic>
#include <coroutine>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace nnhal::exec {

template <class T = void>
class task;

namespace detail {

/// Where a finished task goes next: back to whoever awaited it, or nowhere.
struct final_awaiter {
  bool await_ready() const noexcept { return false; }
  template <class Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> h) const noexcept {
    auto next = h.promise().continuation;
    return next ? next : std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

struct task_promise_base {
  std::coroutine_handle<> continuation;
  std::suspend_always initial_suspend() const noexcept { return {}; }
  final_awaiter final_suspend() const noexcept { return {}; }
  [[noreturn]] void unhandled_exception() const noexcept { std::terminate(); }
};

template <class T>
struct task_promise : task_promise_base {
  std::optional<T> value;
  task<T> get_return_object() noexcept;
  template <class U>
    requires std::is_constructible_v<T, U&&>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() { return std::move(*value); }
};

template <>
struct task_promise<void> : task_promise_base {
  task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
  void take() const noexcept {}
};

}  // namespace detail

/// A lazy, single-shot coroutine producing T. Nothing runs until it is awaited (or handed
/// to sync_wait / spawn); awaiting resumes the awaiter on whatever thread the task ends on.
template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;
  using handle = std::coroutine_handle<promise_type>;

  task() noexcept = default;
  explicit task(handle h) noexcept : h_(h) {}
  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (h_) h_.destroy();
  }

  bool valid() const noexcept { return static_cast<bool>(h_); }

  auto operator co_await() && noexcept {
    struct awaiter {
      handle h;
      bool await_ready() const noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
        h.promise().continuation = caller;
        return h;  // symmetric transfer: start the task without growing the stack
      }
      T await_resume() { return h.promise().take(); }
    };
    return awaiter{h_};
  }

  /// Gives up ownership of the coroutine frame (for the detached starters below).
  handle release() noexcept { return std::exchange(h_, {}); }

 private:
  handle h_;
};

namespace detail {
template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<task_promise<T>>::from_promise(*this));
}
inline task<void> task_promise<void>::get_return_object() noexcept {
  return task<void>(std::coroutine_handle<task_promise<void>>::from_promise(*this));
}

/// A coroutine that starts eagerly and frees its own frame when it ends.
struct detached {
  struct promise_type {
    detached get_return_object() const noexcept { return {}; }
    std::suspend_never initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    [[noreturn]] void unhandled_exception() const noexcept { std::terminate(); }
  };
};

template <class T, class Done>
detached run_detached(task<T> t, Done done) {
  if constexpr (std::is_void_v<T>) {
    co_await std::move(t);
    done();
  } else {
    done(co_await std::move(t));
  }
}

template <class T>
struct sync_state {
  std::atomic<bool> finished{false};
  std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
};

}  // namespace detail

/// Starts `t` now on the calling thread and returns once it first suspends (or ends).
/// `done(value)` (or `done()` for task<void>) runs on the thread that finishes it.
template <class T, class Done>
void spawn(task<T> t, Done done) {
  detail::run_detached(std::move(t), std::move(done));
}

/// Runs `t` to completion and returns its value. The calling thread blocks until the task
/// ends (it may finish on another thread, e.g. after a scheduler hop). Never call it from a
/// worker of the pool the task needs, or that worker is lost while it waits.
template <class T>
T sync_wait(task<T> t) {
  // Shared ownership: the finishing thread may still touch the flag after the waiter woke.
  auto s = std::make_shared<detail::sync_state<T>>();
  auto finish = [](detail::sync_state<T>& st) {
    st.finished.store(true, std::memory_order_release);
    st.finished.notify_one();
  };
  if constexpr (std::is_void_v<T>) {
    spawn(std::move(t), [s, finish] { finish(*s); });
  } else {
    spawn(std::move(t), [s, finish](T v) {
      s->value.emplace(std::move(v));
      finish(*s);
    });
  }
  s->finished.wait(false, std::memory_order_acquire);
  if constexpr (!std::is_void_v<T>) return std::move(*s->value);
}

}  // namespace nnhal::exec
