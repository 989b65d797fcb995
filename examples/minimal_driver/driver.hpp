// The example driver: a minimal but complete NN HAL 1.3 driver in the shape of IDevice,
// IPreparedModel, IBurst and IBuffer, as plain C++ classes built only on nnhal. A vendor
// wraps each method in the generated HIDL or AIDL stub and converts the HAL structs (ours
// are named like theirs). This header is light (types/ only); driver.cpp is the one
// translation unit that instantiates nnhal's kernels, executor and cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnhal/types/device.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operation_type.hpp"
#include "nnhal/types/request.hpp"

namespace nnhal::exec {
class device_buffer;
}

namespace nnhal::example {

using types::ErrorStatus;
using types::result;

/// Wall time of one operation over one execution (a tooling extra, not in the HAL).
struct op_time {
  std::uint32_t operation = 0;  // index in main, or in the referenced subgraph
  std::uint32_t subgraph = 0;   // 0: main; k + 1: referenced[k]
  types::OperationType type = types::OperationType::ADD;
  std::uint64_t nanoseconds = 0;
};

/// What every execution style reports: status, output shapes (on NONE and
/// OUTPUT_INSUFFICIENT_SIZE), timing (UINT64_MAX fields unless measured and NONE).
struct execution_result {
  ErrorStatus status = ErrorStatus::NONE;
  std::string message;
  std::vector<types::OutputShape> outputShapes;
  types::Timing timing;
  std::vector<op_time> profile;  // when execution_args::profile
};

/// The arguments the HAL passes to every execution style.
struct execution_args {
  types::MeasureTiming measure = types::MeasureTiming::NO;
  types::OptionalTimePoint deadline;                     // missed -> MISSED_DEADLINE_*
  types::OptionalTimeoutDuration loopTimeoutDuration;    // WHILE limit; empty: 2 s default
  bool profile = false;                                  // per-operation times (tools only)
};

/// The four ways the HAL runs a prepared model.
enum class execution_style { sync, async, fenced, burst };
std::string_view to_string(execution_style s) noexcept;
/// Whether this build offers `s` (all four, on nnhal's executor runtime).
bool style_available(execution_style s) noexcept;

/// IDevice::allocate's arguments (HAL 1.3 BufferDesc / BufferRole).
struct BufferDesc {
  std::vector<std::uint32_t> dimensions;  // empty or 0 extents: take them from the roles
};
struct BufferRole {
  std::uint32_t modelIndex = 0;  // index into the prepared models passed to allocate
  std::uint32_t ioIndex = 0;     // input or output index of that model's main
  float frequency = 1.0f;        // (0, 1]: how often the buffer plays this role
};

class device;
class prepared_model;

/// IBuffer: driver-managed memory, named in requests by its token instead of a pool
/// (nnhal's exec::device_buffer: HAL state rules, role and shape checks).
class buffer {
 public:
  /// IBuffer::copyTo. INVALID_ARGUMENT unless dst is exactly its size; GENERAL_FAILURE
  /// while the buffer is uninitialized (never written by copyFrom or an execution).
  ErrorStatus copyTo(const types::Memory& dst) const;
  /// IBuffer::copyFrom; `dimensions` (empty: the allocated ones) must agree with its shape.
  ErrorStatus copyFrom(const types::Memory& src, const std::vector<std::uint32_t>& dimensions);
  std::uint32_t token() const noexcept;
  std::size_t size() const noexcept;

 private:
  friend class device;
  std::shared_ptr<exec::device_buffer> impl_;
};

/// IBurst: a fast path for repeated executions; request memories are cached by slot.
class burst {
 public:
  virtual ~burst() = default;
  /// executeSynchronously through the burst; `slots[i]` identifies request.pools[i].
  virtual execution_result execute(const types::Request& request, std::span<const std::int32_t> slots,
                                   const execution_args& args) = 0;
  /// IBurst::releaseMemoryResource: forget the memory cached in `slot`.
  virtual void freeMemory(std::int32_t slot) = 0;
};

/// IFencedExecutionCallback::getExecutionInfo's timing pair.
struct fenced_info {
  ErrorStatus status = ErrorStatus::NONE;
  types::Timing timingLaunched;  // from the call to executeFenced
  types::Timing timingFenced;    // from when every wait-for fence was signalled
};
struct fenced_execution {
  int syncFence = -1;                             // readable once done; the caller closes it
  std::function<fenced_info()> getExecutionInfo;  // IFencedExecutionCallback; valid once done
  std::function<execution_result()> outcome;      // tooling extra: shapes and message once done
};

/// IPreparedModel: immutable once prepared; every method may run concurrently. Its
/// device must outlive the executions it starts (destroy the device last).
class prepared_model : public std::enable_shared_from_this<prepared_model> {
 public:
  ~prepared_model();
  /// executeSynchronously_1_3.
  execution_result executeSynchronously(const types::Request& request, const execution_args& args) const;
  /// execute_1_3: validates, returns at once, and calls `callback` exactly once (the HAL's
  /// IExecutionCallback::notify_1_3): on a worker when the execution ends, or before
  /// returning when it cannot start (then the same status is returned).
  ErrorStatus execute(const types::Request& request, const execution_args& args,
                      std::function<void(execution_result)> callback) const;
  /// executeFenced: starts once every sync fence fd in `waitFor` is signalled (the fds stay
  /// the caller's). `fenceDuration` limits the time from then to completion.
  result<fenced_execution> executeFenced(const types::Request& request, std::span<const int> waitFor,
                                         const execution_args& args,
                                         types::OptionalTimeoutDuration fenceDuration = {}) const;
  /// configureExecutionBurst.
  result<std::shared_ptr<burst>> configureExecutionBurst() const;

  const types::Model& model() const noexcept;
  types::Priority priority() const noexcept { return priority_; }
  bool from_cache() const noexcept { return from_cache_; }
  /// What happened with the compilation cache at prepare (for tools; empty: not used).
  const std::string& cache_note() const noexcept { return cache_note_; }

  struct impl;  // nnhal's prepared model and the executor handles (driver.cpp)

 private:
  friend class device;
  prepared_model() = default;
  std::unique_ptr<impl> impl_;
  std::shared_ptr<const device> device_;
  types::Priority priority_ = types::Priority::MEDIUM;
  bool from_cache_ = false;
  std::string cache_note_;
};

/// How the example device is set up (a real driver reads this from its vendor config).
struct device_config {
  std::string name = "nnhal-example";
  std::size_t threads = 1;      // executor worker threads (0: one per core)
  std::string cache_store_dir;  // driver-private directory of the cache token store; empty: no caching
  // Disk the driver's own copies of data caches may take (in cache_store_dir/data): preparing
  // from the cache maps a copy instead of reading the runtime's file. 0: no copies.
  std::uint64_t cache_copies_bytes = std::uint64_t{512} << 20;
  bool measure_capabilities = true;  // false: report 1.0 everywhere (tests)
};

/// IDevice.
class device : public std::enable_shared_from_this<device> {
 public:
  /// Creates the device. Performance numbers are measured here, once, on small
  /// reference workloads, and reported unchanged for the device's lifetime as the HAL asks.
  static result<std::shared_ptr<device>> create(device_config config = {});
  ~device();

  /// getVersionString: identifies the driver build; cache files from another version are stale.
  std::string getVersionString() const;
  /// getType.
  types::DeviceType getType() const noexcept { return types::DeviceType::CPU; }
  /// getCapabilities_1_3. Lower is better; 1.0 is the CPU reference.
  const types::Capabilities& getCapabilities() const noexcept { return capabilities_; }
  /// getSupportedExtensions: none.
  std::vector<types::Extension> getSupportedExtensions() const { return {}; }
  /// getNumberOfCacheFilesNeeded: {model, data}; {0, 0} when caching is off.
  std::pair<std::uint32_t, std::uint32_t> getNumberOfCacheFilesNeeded() const noexcept;
  /// getSupportedOperations_1_3: one flag per operation of main; INVALID_ARGUMENT for an invalid model.
  result<std::vector<bool>> getSupportedOperations(const types::Model& model) const;

  /// prepareModel_1_3. When cache handles are given (as many as getNumberOfCacheFilesNeeded
  /// says) the prepared model is also saved there under `token`; a failed save does not fail
  /// the preparation (the HAL treats caching as best effort).
  result<std::shared_ptr<const prepared_model>> prepareModel(
      const types::Model& model, types::ExecutionPreference preference, types::Priority priority,
      types::OptionalTimePoint deadline, std::span<const int> modelCache = {}, std::span<const int> dataCache = {},
      const types::CacheToken& token = {}) const;

  /// prepareModelFromCache_1_3: GENERAL_FAILURE on any mismatch, then the runtime prepares from scratch.
  result<std::shared_ptr<const prepared_model>> prepareModelFromCache(types::OptionalTimePoint deadline,
                                                                      std::span<const int> modelCache,
                                                                      std::span<const int> dataCache,
                                                                      const types::CacheToken& token) const;

  /// allocate: a driver-managed buffer usable in the given roles of the given models.
  struct allocation {
    std::shared_ptr<example::buffer> ibuffer;
    std::uint32_t token = 0;
  };
  result<allocation> allocate(const BufferDesc& desc,
                              const std::vector<std::shared_ptr<const prepared_model>>& preparedModels,
                              const std::vector<BufferRole>& inputRoles,
                              const std::vector<BufferRole>& outputRoles) const;

  struct impl;  // thread pool, token store, buffer registry (driver.cpp)
  impl& internals() const noexcept { return *impl_; }

 private:
  device() = default;
  device_config config_;
  types::Capabilities capabilities_;
  std::unique_ptr<impl> impl_;
};

/// The relative execTime of one operand type in `caps` (1.0 when not listed).
float exec_time_of(const types::Capabilities& caps, types::OperandType type) noexcept;

}  // namespace nnhal::example
