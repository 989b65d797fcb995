// The interface kernels use for intra-op parallelism, and its serial implementation.
// The executor's worker pool implements the same interface, so kernels never change.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace nnhal::exec {

/// A non-owning reference to a callable `void(std::size_t begin, std::size_t end)`.
class range_fn {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, range_fn> && std::is_invocable_v<F&, std::size_t, std::size_t>)
  range_fn(F& f) noexcept  // NOLINT: implicit, like std::function_ref
      : obj_(static_cast<void*>(&f)), call_([](void* o, std::size_t b, std::size_t e) { (*static_cast<F*>(o))(b, e); }) {}
  void operator()(std::size_t b, std::size_t e) const { call_(obj_, b, e); }

 private:
  void* obj_;
  void (*call_)(void*, std::size_t, std::size_t);
};

/// What a kernel may ask of the executor: run a loop over [0, n) in chunks.
class parallel_context {
 public:
  virtual ~parallel_context() = default;
  /// How many chunks may run at once (1 for the serial context).
  virtual std::size_t concurrency() const noexcept = 0;
  /// Calls fn(begin, end) on disjoint chunks covering [0, n), each at least `grain` long
  /// (but the last); returns when every chunk has run. fn must not throw.
  virtual void parallel_for(std::size_t n, std::size_t grain, range_fn fn) = 0;
};

/// Runs everything on the calling thread, as one chunk.
class serial_context final : public parallel_context {
 public:
  std::size_t concurrency() const noexcept override { return 1; }
  void parallel_for(std::size_t n, std::size_t /*grain*/, range_fn fn) override {
    if (n > 0) fn(0, n);
  }
};

}  // namespace nnhal::exec
