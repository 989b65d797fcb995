// Fenced execution (IPreparedModel::executeFenced, IFencedExecutionCallback): wait for a
// list of fences through the reactor, run, then settle a returned fence; a callback object
// reports the status and the launched / fenced timings.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "nnhal/exec/async.hpp"
#include "nnhal/exec/fence.hpp"

namespace nnhal::exec {

/// What IFencedExecutionCallback::getExecutionInfo returns.
struct fenced_execution_info {
  ErrorStatus status = ErrorStatus::GENERAL_FAILURE;
  types::Timing timingLaunched;  // from the executeFenced call to the returned fence settling
  types::Timing timingFenced;    // from the last waited-for fence signalling to the returned fence settling
};

namespace detail {
struct fenced_result_setter;
}

/// IFencedExecutionCallback. Filled in once, just before the returned fence settles.
class fenced_execution_callback {
 public:
  /// GENERAL_FAILURE (and no timing) until the execution has ended, as the HAL requires.
  fenced_execution_info getExecutionInfo() const {
    std::lock_guard lk(mu_);
    return info_ ? *info_ : fenced_execution_info{};
  }
  /// nnhal extension: the whole outcome (output shapes, message) once the execution ended.
  std::optional<execution_outcome> outcome() const {
    std::lock_guard lk(mu_);
    return outcome_;
  }

 private:
  friend struct detail::fenced_result_setter;
  void set(execution_outcome out, fenced_execution_info info) {
    std::lock_guard lk(mu_);
    outcome_ = std::move(out);
    info_ = info;
  }
  mutable std::mutex mu_;
  std::optional<execution_outcome> outcome_;
  std::optional<fenced_execution_info> info_;
};

/// executeFenced's result: the fence that settles when the execution ends (signalled on
/// success, failed with the status otherwise) and the callback object.
struct fenced_execution {
  std::shared_ptr<event_fence> sync_fence;
  std::shared_ptr<fenced_execution_callback> callback;
};

namespace detail {

struct fenced_result_setter {
  static void set(fenced_execution_callback& cb, execution_outcome out, fenced_execution_info info) {
    cb.set(std::move(out), info);
  }
};

inline std::uint64_t micros(types::clock::duration d) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(d).count()));
}

/// The launched / fenced pair from one outcome: timeOnDevice is the execution's own device
/// time in both; timeInDriver runs from the call (launched) or from the fences (fenced) to
/// the end, never below timeOnDevice. UINT64_MAX unless measured and successful.
inline fenced_execution_info fenced_timing(const execution_outcome& out, types::MeasureTiming measure,
                                           types::time_point called, types::time_point fenced, types::time_point ended) {
  fenced_execution_info info;
  info.status = out.status;
  if (out.status != ErrorStatus::NONE || measure != types::MeasureTiming::YES) return info;
  const std::uint64_t device = out.timing.timeOnDevice;
  const bool have_device = device != types::Timing::not_available;
  info.timingLaunched.timeOnDevice = device;
  info.timingFenced.timeOnDevice = device;
  info.timingLaunched.timeInDriver = std::max(micros(ended - called), have_device ? device : 0);
  info.timingFenced.timeInDriver = std::max(micros(ended - fenced), have_device ? device : 0);
  return info;
}

inline task<void> run_fenced(runtime& rt, launched l, std::vector<fence_ptr> wait_for,
                             types::OptionalTimeoutDuration after_fence, std::shared_ptr<event_fence> done,
                             std::shared_ptr<fenced_execution_callback> cb, types::time_point called) {
  co_await rt.pool().schedule(l.prio);
  const auto deadline = l.ex->options().deadline;
  for (std::size_t k = 0; k < wait_for.size() && !l.ex->done(); ++k) {
    auto waiting = rt.io().wait(wait_for[k], rt.pool(), l.prio, deadline);
    const fence_wait_result r = co_await waiting;
    if (r.outcome == fence_wait_result::kind::timed_out)
      l.ex->abort(ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the deadline passed while waiting for the fences");
    else if (r.outcome == fence_wait_result::kind::failed)
      l.ex->abort(r.error == ErrorStatus::NONE ? ErrorStatus::GENERAL_FAILURE : r.error,
                  types::str_cat("wait_for fence ", k, " failed (", r.error, ")"));
  }
  const auto fenced = types::clock::now();
  types::OptionalTimePoint extra;
  if (after_fence) extra = fenced + std::chrono::duration_cast<types::clock::duration>(*after_fence);
  std::chrono::nanoseconds busy{0};
  co_await run_steps(rt.pool(), *l.ex, l.prio, extra, busy);
  const types::MeasureTiming measure = l.ex->options().measure;
  execution_outcome out = conclude(l.ex, *l.est, l.ticket, busy);
  const fenced_execution_info info = fenced_timing(out, measure, called, fenced, types::clock::now());
  const ErrorStatus status = out.status;
  fenced_result_setter::set(*cb, std::move(out), info);
  if (status == ErrorStatus::NONE)
    done->signal();
  else
    done->fail(status);
}

}  // namespace detail

/// executeFenced. Checked at the call (the error is returned, nothing runs): the request
/// (INVALID_ARGUMENT, and every output must have fully specified dimensions), each fence
/// (null or already failed: INVALID_ARGUMENT), a negative duration, a deadline already
/// passed or predicted missed, the queue-depth limit. Otherwise the execution waits for
/// every fence on the reactor (no worker held), runs, and settles `sync_fence`. A fence that
/// fails later fails the execution with that fence's error; the deadline or `after_fence`
/// (counted from the moment the fences signalled) passing fails it with
/// MISSED_DEADLINE_TRANSIENT.
inline result<fenced_execution> execute_fenced(runtime& rt, std::shared_ptr<const prepared_model> pm,
                                               const types::Request& request, std::vector<fence_ptr> wait_for,
                                               const execute_options& options,
                                               types::OptionalTimeoutDuration after_fence = {}) {
  const auto called = types::clock::now();
  NNHAL_CHECK(pm != nullptr, ErrorStatus::INVALID_ARGUMENT, "no prepared model");
  for (std::size_t k = 0; k < wait_for.size(); ++k) {
    NNHAL_CHECK(wait_for[k] != nullptr, ErrorStatus::INVALID_ARGUMENT, "wait_for fence ", k, " is null");
    NNHAL_CHECK(wait_for[k]->state() != fence_state::failed, ErrorStatus::INVALID_ARGUMENT, "wait_for fence ", k,
                " is in an error state");
  }
  NNHAL_CHECK(!after_fence || after_fence->count() >= 0, ErrorStatus::INVALID_ARGUMENT,
              "negative duration after the fences");
  const auto& g = pm->model().main;
  for (std::size_t k = 0; k < request.outputs.size() && k < g.outputIndexes.size(); ++k) {
    const auto& arg = request.outputs[k];
    const auto& o = g.operands[g.outputIndexes[k]];
    if (!types::is_tensor(o.type)) continue;
    const auto& dims = arg.dimensions.empty() ? o.dimensions : arg.dimensions;
    const bool full = !dims.empty() && std::none_of(dims.begin(), dims.end(), [](auto d) { return d == 0; });
    NNHAL_CHECK(full, ErrorStatus::INVALID_ARGUMENT, "output ", k,
                " has unspecified dimensions (a fenced execution needs them all)");
  }
  auto done = event_fence::make();
  if (!done) return std::move(done).err();
  auto l = detail::launch(rt, pm, request, options);
  if (!l) return std::move(l).err();
  auto cb = std::make_shared<fenced_execution_callback>();
  spawn(detail::run_fenced(rt, std::move(*l), std::move(wait_for), after_fence, *done, cb, called), [] {});
  return fenced_execution{std::move(*done), std::move(cb)};
}

}  // namespace nnhal::exec
