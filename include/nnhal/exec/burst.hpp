// Burst execution (IBurst; HAL 1.2's burst context): executions of one prepared model in
// quick succession, with request memories cached by slot / identifier token between them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>

#include "nnhal/exec/async.hpp"

namespace nnhal::exec {

/// A burst object on one prepared model. A memory given with a token >= 0 is cached under
/// that token; a later request may then pass an empty Memory (data null, size 0) for that
/// pool and the cached one is used, as HAL 1.2 bursts send only slot numbers for memories
/// the driver already holds. releaseMemoryResource drops a cached memory.
///
/// Executions run on the calling thread (no queue hop: a burst exists to cut per-execution
/// overhead) and reuse one execution object (execution::restart: frames, arenas, buffers); kernels still spread over the runtime's pool, at the model's priority, and
/// deadline, cancellation, admission and the model estimate apply as for every style. One
/// execution at a time: a concurrent call waits for the running one.
class burst {
 public:
  /// configureExecutionBurst.
  static result<std::unique_ptr<burst>> configure(runtime& rt, std::shared_ptr<const prepared_model> pm) {
    NNHAL_CHECK(pm != nullptr, ErrorStatus::INVALID_ARGUMENT, "no prepared model");
    NNHAL_CHECK(types::is_valid(pm->priority()), ErrorStatus::INVALID_ARGUMENT, "invalid priority ",
                static_cast<int>(pm->priority()));
    return std::unique_ptr<burst>(new burst(rt, std::move(pm)));
  }

  /// IBurst::executeSynchronously. `memory_tokens` is empty (no identities) or has one
  /// entry per request pool: -1 for none, else the token; other negative values are
  /// INVALID_ARGUMENT, as is an empty pool whose token has nothing cached.
  execution_outcome execute_synchronously(const types::Request& request, std::span<const std::int64_t> memory_tokens,
                                          const execute_options& options) {
    std::lock_guard lk(mu_);
    if (auto ok = resolve_pools(request, memory_tokens); !ok) return detail::failed_outcome(std::move(ok).err());
    // The first execution starts one; later ones restart it, reusing its frames and arenas.
    if (!ex_) {
      auto started = execution::start(pm_, scratch_, options);
      scratch_.pools.clear();  // the execution holds the pools now; keep no client memory alive
      if (!started) return detail::failed_outcome(std::move(started).err());
      ex_ = std::move(*started);
    } else {
      auto ok = ex_->restart(scratch_, options);
      scratch_.pools.clear();
      if (!ok) return detail::failed_outcome(std::move(ok).err());
    }
    auto ticket = rt_.admit(*est_, pm_->priority(), options.deadline);
    if (!ticket) {
      ex_->abort(ticket.status(), ticket.err().message);
      (void)ex_->finish();  // leaves it ready for the next restart
      return detail::failed_outcome(std::move(ticket).err());
    }
    std::chrono::nanoseconds busy{0};
    detail::run_steps_here(*ex_, par_, busy);
    execution_outcome out = ex_->finish();
    if (out.status == ErrorStatus::NONE) est_->record(busy);
    return out;
  }
  execution_outcome execute_synchronously(const types::Request& request, const execute_options& options = {}) {
    return execute_synchronously(request, {}, options);
  }

  /// IBurst::releaseMemoryResource (HAL 1.2: IBurstContext::freeMemory). Releasing a token
  /// that holds nothing is fine; a negative one is INVALID_ARGUMENT.
  types::status release_memory_resource(std::int64_t token) {
    NNHAL_CHECK(token >= 0, ErrorStatus::INVALID_ARGUMENT, "memory token ", token, " is negative");
    std::lock_guard lk(mu_);
    cache_.erase(token);
    return {};
  }

  /// Cache statistics (tests, diagnostics).
  std::size_t cached() const {
    std::lock_guard lk(mu_);
    return cache_.size();
  }
  std::uint64_t cache_hits() const {
    std::lock_guard lk(mu_);
    return hits_;
  }

 private:
  burst(runtime& rt, std::shared_ptr<const prepared_model> pm)
      : rt_(rt), pm_(std::move(pm)), est_(rt.estimate_for(*pm_)), par_(rt.pool(), pm_->priority()) {}

  static bool empty(const types::MemoryPool& p) {
    const auto* m = std::get_if<types::Memory>(&p);
    return m && m->data == nullptr && m->size == 0;
  }

  /// scratch_ = request with cached memories substituted; the cache updated.
  types::status resolve_pools(const types::Request& request, std::span<const std::int64_t> tokens) {
    NNHAL_CHECK(tokens.empty() || tokens.size() == request.pools.size(), ErrorStatus::INVALID_ARGUMENT,
                tokens.size(), " memory tokens for ", request.pools.size(), " pools");
    scratch_.inputs = request.inputs;  // assignments reuse the scratch vectors' storage
    scratch_.outputs = request.outputs;
    scratch_.pools = request.pools;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const std::int64_t t = tokens[i];
      NNHAL_CHECK(t >= -1, ErrorStatus::INVALID_ARGUMENT, "memory token ", t, " for pool ", i, " is invalid");
      if (t < 0) continue;
      auto& pool = scratch_.pools[i];
      auto it = cache_.find(t);
      if (empty(pool)) {
        NNHAL_CHECK(it != cache_.end(), ErrorStatus::INVALID_ARGUMENT, "pool ", i, " is empty and memory token ", t,
                    " holds nothing");
        pool = it->second;
        ++hits_;
        continue;
      }
      if (it != cache_.end() && it->second.index() == pool.index() && same(it->second, pool)) {
        ++hits_;  // the mapping we hold already: a real driver skips mapping it again
        continue;
      }
      cache_[t] = pool;
    }
    return {};
  }
  static bool same(const types::MemoryPool& a, const types::MemoryPool& b) {
    if (const auto* ma = std::get_if<types::Memory>(&a)) {
      const auto& mb = std::get<types::Memory>(b);
      return ma->data == mb.data && ma->size == mb.size;
    }
    return std::get<std::uint32_t>(a) == std::get<std::uint32_t>(b);
  }

  runtime& rt_;
  std::shared_ptr<const prepared_model> pm_;
  std::shared_ptr<model_estimate> est_;
  pool_context par_;
  mutable std::mutex mu_;
  std::unique_ptr<execution> ex_;  // reused by every execution of the burst
  types::Request scratch_;  // reused by every execution
  std::unordered_map<std::int64_t, types::MemoryPool> cache_;
  std::uint64_t hits_ = 0;
};

}  // namespace nnhal::exec
