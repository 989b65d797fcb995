// The example driver's implementation (see driver.hpp), and the one translation unit of
// the examples that instantiates nnhal's whole operation registry, executor and cache.
#include "driver.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "nnhal/cache/cache.hpp"
#include "nnhal/exec/async.hpp"
#include "nnhal/exec/burst.hpp"
#include "nnhal/exec/driver.hpp"
#include "nnhal/exec/fenced.hpp"
#include "nnhal/types/builder.hpp"
#include "nnhal/types/validate.hpp"

#ifndef NNHAL_EXAMPLE_VERSION
#define NNHAL_EXAMPLE_VERSION "0"
#endif

namespace nnhal::example {

using types::Model;
using types::OperandType;
using types::Request;

std::string_view to_string(execution_style s) noexcept {
  switch (s) {
    case execution_style::sync: return "sync";
    case execution_style::async: return "async";
    case execution_style::fenced: return "fenced";
    case execution_style::burst: return "burst";
  }
  return "?";
}

bool style_available(execution_style) noexcept { return true; }

float exec_time_of(const types::Capabilities& caps, OperandType type) noexcept {
  for (const auto& p : caps.operandPerformance)
    if (p.type == type) return p.info.execTime;
  return 1.0f;
}

// ---------------------------------------------------------------------------------------
// Internals

struct device::impl {
  std::unique_ptr<exec::runtime> rt;          // worker pool, reactor, admission (every style)
  std::optional<cache::token_store> store;    // compilation cache; empty: caching off
  std::shared_ptr<const cache::data_mirror> copies;  // the driver's copies of data caches, or none
  mutable exec::buffer_registry buffers;       // IBuffer tokens (memory domains)
};

struct prepared_model::impl {
  std::shared_ptr<const exec::prepared_model> pm;
};

prepared_model::~prepared_model() = default;
device::~device() = default;

const Model& prepared_model::model() const noexcept { return impl_->pm->model(); }

namespace {

execution_result failure(ErrorStatus s, std::string message) {
  execution_result r;
  r.status = s;
  r.message = std::move(message);
  return r;
}

}  // namespace

namespace {

/// A small reference workload (one MobileNet-like block, 28x28x32) in element type E.
template <types::element E>
Model capability_workload(bool relaxed) {
  using namespace types;
  constexpr bool q = quantized_element<E>;
  builder b;
  b.relaxed(relaxed);
  const quant act = q ? quant{6.0f / 255.0f, 0} : quant{};
  auto x = b.input<E>({1, 28, 28, 32}, act);
  const std::size_t n1 = 32 * 3 * 3 * 32, n2 = 9 * 32;
  auto weights = [&](dims_t d, std::size_t n) {
    if constexpr (q) return b.constant<E>(std::move(d), std::vector<typename E::storage>(n, 130), {0.01f, 128});
    else return b.constant<E>(std::move(d), std::vector<float>(n, 0.01f));
  };
  auto bias = [&](std::size_t n) {
    if constexpr (q) return b.constant<i32>({static_cast<std::uint32_t>(n)}, std::vector<std::int32_t>(n, 0), {act.scale * 0.01f, 0});
    else return b.constant<E>({static_cast<std::uint32_t>(n)}, std::vector<float>(n, 0.0f));
  };
  auto y = b.conv_2d(x, weights({32, 3, 3, 32}, n1), bias(32), {.act = activation::RELU6}, act);
  auto z = b.depthwise_conv_2d(y, weights({1, 3, 3, 32}, n2), bias(32), {.act = activation::RELU6}, 1, act);
  b.output(z);
  auto m = b.build();
  return m ? std::move(*m) : Model{};
}

/// Best of a few runs of `m`, in seconds; 0 when it cannot run.
double time_workload(const Model& m, exec::parallel_context& par) {
  auto pm = exec::prepare(m);
  if (!pm) return 0.0;
  Request r;
  auto size_of = [&](std::uint32_t i) {
    std::uint64_t n = 0;
    (void)types::operand_byte_size(m.main.operands[i].type, m.main.operands[i].dimensions, n);
    return static_cast<std::size_t>(n);
  };
  for (auto list : {&m.main.inputIndexes, &m.main.outputIndexes}) {
    for (auto i : *list) {
      types::RequestArgument a;
      a.location = {static_cast<std::uint32_t>(r.pools.size()), 0, static_cast<std::uint32_t>(size_of(i))};
      r.pools.emplace_back(types::Memory::allocate(size_of(i)));
      (list == &m.main.inputIndexes ? r.inputs : r.outputs).push_back(a);
    }
  }
  double best = 0.0;
  for (int k = 0; k < 4; ++k) {
    const auto t0 = types::clock::now();
    if (exec::execute(**pm, r, {}, par).status != ErrorStatus::NONE) return 0.0;
    const double s = std::chrono::duration<double>(types::clock::now() - t0).count();
    if (k > 0 && (best == 0.0 || s < best)) best = s;  // the first run warms caches
  }
  return best;
}

/// The HAL asks for performance relative to the CPU reference. This driver is a CPU
/// driver, so float32 is 1.0 by definition; other types are scaled by their measured
/// cost on the same workload. Power is taken as proportional to time (one CPU).
types::Capabilities measure_capabilities(bool measure, exec::parallel_context& par) {
  float f32 = 1.0f, relaxed = 1.0f, q8 = 1.0f;
  if (measure) {
    const double t_f32 = time_workload(capability_workload<types::f32>(false), par);
    const double t_rel = time_workload(capability_workload<types::f32>(true), par);
    const double t_q8 = time_workload(capability_workload<types::qu8>(false), par);
    if (t_f32 > 0.0) {
      if (t_rel > 0.0) relaxed = static_cast<float>(t_rel / t_f32);
      if (t_q8 > 0.0) q8 = static_cast<float>(t_q8 / t_f32);
    }
  }
  types::Capabilities caps;
  caps.relaxedFloat32toFloat16PerformanceScalar = {relaxed, relaxed};
  caps.relaxedFloat32toFloat16PerformanceTensor = {relaxed, relaxed};
  // One entry per operand type, sorted by type (the HAL requires both); SUBGRAPH is
  // described by if/whilePerformance instead.
  for (std::int32_t c = types::OPERAND_TYPE_FUNDAMENTAL_MIN; c <= types::OPERAND_TYPE_FUNDAMENTAL_MAX; ++c) {
    const auto t = static_cast<OperandType>(c);
    if (t == OperandType::SUBGRAPH) continue;
    const bool is_q8 = t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
                       t == OperandType::TENSOR_QUANT8_SYMM || t == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    const float v = is_q8 ? q8 : (t == OperandType::TENSOR_FLOAT16 || t == OperandType::FLOAT16) ? relaxed : f32;
    caps.operandPerformance.push_back({t, {v, v}});
  }
  caps.ifPerformance = {f32, f32};
  caps.whilePerformance = {f32, f32};
  return caps;
}

cache::cache_options cache_options_for(exec::prepare_options prepare,
                                      std::shared_ptr<const cache::data_mirror> copies) {
  cache::cache_options o;
  o.prepare = prepare;
  o.mirror = std::move(copies);
  return o;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// IDevice

result<std::shared_ptr<device>> device::create(device_config config) {
  auto d = std::shared_ptr<device>(new device());
  d->impl_ = std::make_unique<impl>();
  if (config.threads == 0) config.threads = std::max(1u, std::thread::hardware_concurrency());
  d->impl_->rt = std::make_unique<exec::runtime>(exec::runtime_options{.workers = config.threads});
  d->config_ = std::move(config);
  if (!d->config_.cache_store_dir.empty()) {
    auto store = cache::token_store::open(d->config_.cache_store_dir, d->getVersionString());
    if (!store) return types::make_error(store.err().status, "cache store: ", store.err().message);
    d->impl_->store.emplace(std::move(*store));
    if (d->config_.cache_copies_bytes > 0) {
      auto copies = cache::data_mirror::open(std::filesystem::path(d->config_.cache_store_dir) / "data",
                                             d->config_.cache_copies_bytes);
      // Only a speed-up: without the directory, preparing from the cache reads the files.
      if (copies) d->impl_->copies = std::move(*copies);
    }
  }
  // Measured on one thread: the numbers compare element types, not thread counts.
  exec::serial_context serial;
  d->capabilities_ = measure_capabilities(d->config_.measure_capabilities, serial);
  return d;
}

std::string device::getVersionString() const {
  // Cache files are tied to this string: change it whenever kernels or formats change.
  return types::str_cat(config_.name, " ", NNHAL_EXAMPLE_VERSION, " (nnhal cache format ",
                        cache::format_version, ")");
}

std::pair<std::uint32_t, std::uint32_t> device::getNumberOfCacheFilesNeeded() const noexcept {
  if (!impl_->store) return {0, 0};
  const auto n = cache::number_of_cache_files_needed();
  return n ? std::pair{n->model, n->data} : std::pair{0u, 0u};
}

result<std::vector<bool>> device::getSupportedOperations(const Model& model) const {
  return exec::supported_operations(model);
}

result<std::shared_ptr<const prepared_model>> device::prepareModel(const Model& model,
                                                                   types::ExecutionPreference preference,
                                                                   types::Priority priority,
                                                                   types::OptionalTimePoint deadline,
                                                                   std::span<const int> modelCache,
                                                                   std::span<const int> dataCache,
                                                                   const types::CacheToken& token) const {
  // The HAL: cache handle counts must be what getNumberOfCacheFilesNeeded said (or none).
  const auto [n_model, n_data] = getNumberOfCacheFilesNeeded();
  const bool caching = !modelCache.empty() || !dataCache.empty();
  NNHAL_CHECK(!caching || (modelCache.size() == n_model && dataCache.size() == n_data), ErrorStatus::INVALID_ARGUMENT,
              modelCache.size(), " model / ", dataCache.size(), " data cache handles; the driver asked for ", n_model,
              " / ", n_data);
  const exec::prepare_options options{preference, priority, deadline};
  auto pm = exec::prepare(model, options);
  if (!pm) return std::move(pm).err();
  auto out = std::shared_ptr<prepared_model>(new prepared_model());
  out->impl_ = std::make_unique<prepared_model::impl>();
  out->impl_->pm = std::move(*pm);
  out->device_ = shared_from_this();
  out->priority_ = priority;
  if (caching) {
    // Best effort: a failed save leaves a cache miss for next time, not a failed prepare.
    auto saved = cache::save_to_cache(*out->impl_->pm, modelCache, dataCache, token, *impl_->store,
                                      cache_options_for(options, impl_->copies));
    out->cache_note_ = saved ? "saved to the compilation cache" : "not cached: " + saved.err().message;
  }
  return std::shared_ptr<const prepared_model>(std::move(out));
}

result<std::shared_ptr<const prepared_model>> device::prepareModelFromCache(types::OptionalTimePoint deadline,
                                                                            std::span<const int> modelCache,
                                                                            std::span<const int> dataCache,
                                                                            const types::CacheToken& token) const {
  NNHAL_CHECK(impl_->store.has_value(), ErrorStatus::GENERAL_FAILURE, "this device does not cache compilations");
  if (deadline && *deadline <= types::clock::now())
    return types::make_error(ErrorStatus::MISSED_DEADLINE_PERSISTENT, "the preparation deadline has passed");
  exec::prepare_options po;
  po.deadline = deadline;
  auto pm = cache::prepare_from_cache(modelCache, dataCache, token, *impl_->store, cache_options_for(po, impl_->copies));
  if (!pm) return std::move(pm).err();
  auto out = std::shared_ptr<prepared_model>(new prepared_model());
  out->impl_ = std::make_unique<prepared_model::impl>();
  out->impl_->pm = std::move(*pm);
  out->device_ = shared_from_this();
  out->from_cache_ = true;
  out->cache_note_ = "prepared from the compilation cache";
  return std::shared_ptr<const prepared_model>(std::move(out));
}

result<device::allocation> device::allocate(const BufferDesc& desc,
                                            const std::vector<std::shared_ptr<const prepared_model>>& models,
                                            const std::vector<BufferRole>& inputRoles,
                                            const std::vector<BufferRole>& outputRoles) const {
  using types::ErrorStatus;
  NNHAL_CHECK(!models.empty(), ErrorStatus::INVALID_ARGUMENT, "allocate: no prepared models");
  auto roles_of = [&](const std::vector<BufferRole>& roles) -> result<std::vector<exec::buffer_role>> {
    std::vector<exec::buffer_role> out;
    for (const auto& r : roles) {
      NNHAL_CHECK(r.modelIndex < models.size() && models[r.modelIndex], ErrorStatus::INVALID_ARGUMENT,
                  "allocate: a role names model ", r.modelIndex, " of ", models.size());
      NNHAL_CHECK(models[r.modelIndex]->device_.get() == this, ErrorStatus::INVALID_ARGUMENT,
                  "allocate: a prepared model of another device");
      out.push_back({models[r.modelIndex]->impl_->pm, r.ioIndex, r.frequency});
    }
    return out;
  };
  auto in = roles_of(inputRoles);
  if (!in) return std::move(in).err();
  auto out = roles_of(outputRoles);
  if (!out) return std::move(out).err();
  auto buf = impl_->buffers.allocate(desc.dimensions, *in, *out);
  if (!buf) return std::move(buf).err();
  auto ibuffer = std::shared_ptr<buffer>(new buffer());
  ibuffer->impl_ = std::move(*buf);
  return allocation{ibuffer, ibuffer->token()};
}

// ---------------------------------------------------------------------------------------
// IBuffer

std::uint32_t buffer::token() const noexcept { return impl_->token(); }
std::size_t buffer::size() const noexcept { return impl_->size(); }

ErrorStatus buffer::copyTo(const types::Memory& dst) const {
  const auto s = impl_->copy_to(dst);
  return s ? ErrorStatus::NONE : s.err().status;
}

ErrorStatus buffer::copyFrom(const types::Memory& src, const std::vector<std::uint32_t>& dimensions) {
  const auto s = impl_->copy_from(src, dimensions);
  return s ? ErrorStatus::NONE : s.err().status;
}

// ---------------------------------------------------------------------------------------
// IPreparedModel

namespace {

exec::execute_options options_of(const execution_args& args, const exec::buffer_registry& buffers) {
  exec::execute_options o;
  o.buffers = &buffers;
  o.measure = args.measure;
  o.deadline = args.deadline;
  if (args.loopTimeoutDuration)
    o.loop_timeout = std::min<std::chrono::nanoseconds>(*args.loopTimeoutDuration, types::LOOP_TIMEOUT_MAXIMUM);
  o.profile = args.profile;
  return o;
}

execution_result result_of(exec::execution_outcome outcome) {
  execution_result r;
  r.status = outcome.status;
  r.message = std::move(outcome.message);
  r.outputShapes = std::move(outcome.outputShapes);
  r.timing = outcome.timing;
  for (const auto& p : outcome.profile) r.profile.push_back({p.operation, p.subgraph, p.type, p.nanoseconds});
  return r;
}

}  // namespace

// Every style goes through the device's runtime, so priorities, deadlines (passed or
// predicted missed) and the queue-depth limit apply the same way to all of them.

execution_result prepared_model::executeSynchronously(const Request& request, const execution_args& args) const {
  const auto& dev = device_->internals();
  return result_of(exec::execute_queued(*dev.rt, impl_->pm, request, options_of(args, dev.buffers)));
}

ErrorStatus prepared_model::execute(const Request& request, const execution_args& args,
                                    std::function<void(execution_result)> callback) const {
  const auto& dev = device_->internals();
  return exec::execute_async(*dev.rt, impl_->pm, request, options_of(args, dev.buffers),
                             [cb = std::move(callback)](exec::execution_outcome o) { cb(result_of(std::move(o))); });
}

result<fenced_execution> prepared_model::executeFenced(const Request& request, std::span<const int> waitFor,
                                                       const execution_args& args,
                                                       types::OptionalTimeoutDuration fenceDuration) const {
  // The caller keeps its descriptors: wait on duplicates we own.
  std::vector<exec::fence_ptr> fences;
  for (int fd : waitFor) {
    const int mine = fd >= 0 ? ::fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    NNHAL_CHECK(mine >= 0, ErrorStatus::INVALID_ARGUMENT, "waitFor: ", fd, " is not an open sync fence");
    fences.push_back(exec::fd_fence::adopt(mine));
  }
  const auto& dev = device_->internals();
  auto f = exec::execute_fenced(*dev.rt, impl_->pm, request, std::move(fences), options_of(args, dev.buffers),
                                fenceDuration);
  if (!f) return std::move(f).err();
  fenced_execution out;
  out.syncFence = f->sync_fence->dup_fd();
  NNHAL_CHECK(out.syncFence >= 0, ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "no descriptor for the sync fence");
  out.getExecutionInfo = [cb = f->callback] {
    const auto i = cb->getExecutionInfo();
    return fenced_info{i.status, i.timingLaunched, i.timingFenced};
  };
  out.outcome = [cb = f->callback] {
    auto o = cb->outcome();
    return o ? result_of(std::move(*o)) : failure(ErrorStatus::GENERAL_FAILURE, "the execution has not ended");
  };
  return out;
}

namespace {

/// IBurst over nnhal's burst object (driver buffers resolve through the device's registry).
class example_burst final : public burst {
 public:
  example_burst(std::shared_ptr<const prepared_model> owner, std::unique_ptr<exec::burst> b,
                const exec::buffer_registry& buffers)
      : owner_(std::move(owner)), b_(std::move(b)), buffers_(buffers) {}
  execution_result execute(const Request& request, std::span<const std::int32_t> slots,
                           const execution_args& args) override {
    std::vector<std::int64_t> tokens(slots.begin(), slots.end());
    return result_of(b_->execute_synchronously(request, tokens, options_of(args, buffers_)));
  }
  void freeMemory(std::int32_t slot) override { (void)b_->release_memory_resource(slot); }

 private:
  std::shared_ptr<const prepared_model> owner_;
  std::unique_ptr<exec::burst> b_;
  const exec::buffer_registry& buffers_;  // the device's, which outlives its prepared models' bursts
};

}  // namespace

result<std::shared_ptr<burst>> prepared_model::configureExecutionBurst() const {
  auto b = exec::burst::configure(*device_->internals().rt, impl_->pm);
  if (!b) return std::move(b).err();
  return std::shared_ptr<burst>(
      std::make_shared<example_burst>(shared_from_this(), std::move(*b), device_->internals().buffers));
}

}  // namespace nnhal::example
