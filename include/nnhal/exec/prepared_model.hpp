// prepare (IDevice::prepareModel): validate the model, bind one kernel per operation of
// every subgraph, place constants. The result is immutable, so any number of executions
// (exec/execution.hpp) may run on one prepared model at the same time.
#pragma once

#include <algorithm>
#include <numeric>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "nnhal/exec/memory.hpp"
#include "nnhal/ops/registry.hpp"
#include "nnhal/types/device.hpp"
#include "nnhal/types/request.hpp"
#include "nnhal/types/validate.hpp"

namespace nnhal::exec {

using types::ErrorStatus;
using types::result;

struct prepare_options {
  types::ExecutionPreference preference = types::ExecutionPreference::FAST_SINGLE_ANSWER;
  types::Priority priority = types::Priority::MEDIUM;
  types::OptionalTimePoint deadline;
  /// Weights an earlier preparation of the same model packed (the compilation cache's),
  /// used instead of packing again where a kernel's key and size match.
  const ops::packed_table* packed = nullptr;
};

class buffer_registry;  // exec/device_memory.hpp

struct execute_options {
  types::MeasureTiming measure = types::MeasureTiming::NO;
  types::OptionalTimePoint deadline;  // passed at a checkpoint -> MISSED_DEADLINE_TRANSIENT
  /// Longest time one WHILE may run (HAL default 2 s; values above 15 s are clamped).
  std::chrono::nanoseconds loop_timeout = types::LOOP_TIMEOUT_DEFAULT;
  /// Cancellation: a stop request ends the execution at the next checkpoint.
  std::stop_token stop;
  /// Record each operation's wall time in execution_outcome::profile.
  bool profile = false;
  /// The device's driver-managed buffers (exec/device_memory.hpp), which request pools may
  /// name by token; null: a token pool is INVALID_ARGUMENT.
  const buffer_registry* buffers = nullptr;
};

/// Subgraph ids used by the executor and the profile: 0 is main, k + 1 is referenced[k].
inline constexpr std::uint32_t main_graph = 0;

/// Wall time of one operation of one subgraph, summed over its runs in one execution.
struct op_profile {
  std::uint32_t subgraph = main_graph;
  std::uint32_t operation = 0;  // index in that subgraph's operations
  types::OperationType type = types::OperationType::ADD;
  std::uint32_t runs = 0;       // > 1 inside WHILE bodies, 0 for branches never taken
  std::uint64_t nanoseconds = 0;
};

/// A profile summed per operation type, the most expensive first (subgraph and
/// operation are 0 in the result): the per-type breakdown a tool prints.
inline std::vector<op_profile> profile_by_type(std::span<const op_profile> profile) {
  std::vector<op_profile> sums;
  for (const auto& p : profile) {
    auto it = std::find_if(sums.begin(), sums.end(), [&](const op_profile& s) { return s.type == p.type; });
    if (it == sums.end()) it = sums.insert(sums.end(), op_profile{main_graph, 0, p.type, 0, 0});
    it->runs += p.runs;
    it->nanoseconds += p.nanoseconds;
  }
  std::stable_sort(sums.begin(), sums.end(),
                   [](const op_profile& a, const op_profile& b) { return a.nanoseconds > b.nanoseconds; });
  return sums;
}

/// What an execution reports (IPreparedModel::executeSynchronously's results).
struct execution_outcome {
  ErrorStatus status = ErrorStatus::NONE;
  std::string message;                          // empty when status == NONE
  std::vector<types::OutputShape> outputShapes;  // on NONE and OUTPUT_INSUFFICIENT_SIZE
  types::Timing timing;                         // UINT64_MAX fields unless measured and NONE
  std::vector<op_profile> profile;              // filled when execute_options::profile
};

namespace detail {

/// Bytes of `d` (execution: every extent known, 0 means zero-sized).
inline std::size_t byte_size(types::OperandType t, std::span<const std::uint32_t> d) {
  std::size_t n = types::type_info(t).element_size;
  if (types::is_tensor(t))
    for (auto e : d) n *= e;
  return n;
}

/// Validation-time view of operand `i` of `g` (constants carry their value).
inline types::sig::operand_desc describe_static(const types::Subgraph& g, std::uint32_t i, const std::byte* value) {
  const types::Operand& o = g.operands[i];
  types::sig::operand_desc d;
  d.type = o.type;
  d.dims = o.dimensions;
  d.scale = o.scale;
  d.zero_point = o.zeroPoint;
  d.channel_quant = std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams);
  d.omitted = o.lifetime == types::OperandLifeTime::NO_VALUE;
  d.value = value;
  d.value_size = value ? o.location.length : 0;
  return d;
}

/// Address of a constant operand's bytes inside the model.
inline const std::byte* constant_bytes(const types::Model& m, const types::Operand& o) {
  using types::OperandLifeTime;
  if (o.lifetime == OperandLifeTime::CONSTANT_COPY)
    return reinterpret_cast<const std::byte*>(m.operandValues.data()) + o.location.offset;
  if (o.lifetime == OperandLifeTime::CONSTANT_REFERENCE) return m.pools[o.location.poolIndex].data + o.location.offset;
  return nullptr;
}

inline bool aligned_for(const void* p, types::OperandType t) {
  const std::size_t a = types::type_info(t).element_size;
  return a <= 1 || reinterpret_cast<std::uintptr_t>(p) % a == 0;
}

/// The subgraph with executor id `id` (see main_graph).
inline const types::Subgraph& graph_of(const types::Model& m, std::uint32_t id) {
  return id == main_graph ? m.main : m.referenced[id - 1];
}

/// The executor id of the subgraph a SUBGRAPH operand refers to.
inline std::uint32_t referenced_id(const types::Operand& o) { return o.location.offset + 1; }

constexpr bool is_control_flow(types::OperationType t) noexcept {
  return t == types::OperationType::IF || t == types::OperationType::WHILE;
}

/// Whether a kernel exists for operation `op` of subgraph `g` with its operand types.
/// IF and WHILE have no kernel: they are supported when every subgraph they may run is.
inline bool operation_supported(const types::Model& m, const types::Subgraph& g, const types::Operation& op,
                                std::vector<std::int8_t>& memo);

/// Whether every operation of subgraph `id` is supported (memo: -1 unknown, 0 no, 1 yes;
/// validation guarantees there is no reference cycle, so the recursion ends).
inline bool graph_supported(const types::Model& m, std::uint32_t id, std::vector<std::int8_t>& memo) {
  if (memo[id] >= 0) return memo[id] == 1;
  const types::Subgraph& g = graph_of(m, id);
  bool ok = true;
  for (const auto& op : g.operations) ok = ok && operation_supported(m, g, op, memo);
  memo[id] = ok ? 1 : 0;
  return ok;
}

inline bool operation_supported(const types::Model& m, const types::Subgraph& g, const types::Operation& op,
                                std::vector<std::int8_t>& memo) {
  if (is_control_flow(op.type)) {
    const std::size_t refs = op.type == types::OperationType::IF ? 3 : 2;
    for (std::size_t k = op.type == types::OperationType::IF ? 1 : 0; k < refs; ++k)
      if (!graph_supported(m, referenced_id(g.operands[op.inputs[k]]), memo)) return false;
    return true;
  }
  std::vector<types::sig::operand_desc> in, out;
  for (auto i : op.inputs) in.push_back(describe_static(g, i, constant_bytes(m, g.operands[i])));
  for (auto o : op.outputs) out.push_back(describe_static(g, o, nullptr));
  return ops::bind(ops::bind_context{op, in, out, m.relaxComputationFloat32toFloat16}).ok();
}

}  // namespace detail

class execution;

namespace detail {

/// Finished executions of one prepared model, kept so that the next execution reuses
/// their frames, arenas and buffers instead of allocating them (exec/execution.hpp takes
/// and returns them). Thread-safe. The pool only knows execution as an incomplete type,
/// so whoever puts one in also says how to destroy it.
class execution_pool {
 public:
  using destroy_fn = void (*)(execution*) noexcept;
  /// Executions kept at most: enough for a few concurrent executions without holding
  /// the arenas of a burst of them forever.
  static constexpr std::size_t capacity = 4;

  execution_pool() { idle_.reserve(capacity); }
  execution_pool(const execution_pool&) = delete;
  execution_pool& operator=(const execution_pool&) = delete;
  ~execution_pool() {
    for (execution* e : idle_) destroy_(e);
  }

  /// An idle execution, or nullptr when there is none.
  execution* take() noexcept {
    std::lock_guard lk(mu_);
    if (idle_.empty()) return nullptr;
    execution* e = idle_.back();
    idle_.pop_back();
    return e;
  }
  /// Keeps `e` for a later take(); when the pool is full, destroys it instead.
  void give(execution* e, destroy_fn destroy) noexcept {
    {
      std::lock_guard lk(mu_);
      destroy_ = destroy;
      if (idle_.size() < capacity) {
        idle_.push_back(e);  // never reallocates: reserved
        return;
      }
    }
    destroy(e);
  }

 private:
  std::mutex mu_;
  std::vector<execution*> idle_;
  destroy_fn destroy_ = nullptr;
};

}  // namespace detail

/// A model ready to execute: immutable after prepare, so many executions may share it.
class prepared_model : public std::enable_shared_from_this<prepared_model> {
 public:
  prepared_model(const prepared_model&) = delete;
  prepared_model& operator=(const prepared_model&) = delete;

  const types::Model& model() const noexcept { return model_; }
  /// What the kernels packed from constant weights at prepare, by key (for the cache).
  const ops::packed_table& packed() const noexcept { return packed_; }
  types::Priority priority() const noexcept { return priority_; }
  /// The arena plan of the temporaries, summed over all subgraphs.
  const memory_plan_stats& memory_plan() const noexcept { return plan_stats_; }

 private:
  friend result<std::shared_ptr<const prepared_model>> prepare(const types::Model&, const prepare_options&);
  friend class execution;
  prepared_model() = default;

  /// One operation, ready to run.
  struct step {
    ops::kernel run;                        // empty for IF and WHILE
    types::sig::infer_into_fn infer = nullptr;  // shape inference into the execution's reused list
  };
  /// One subgraph (main or referenced), ready to run.
  struct graph {
    const types::Subgraph* sub = nullptr;  // into model_
    std::vector<step> steps;
    std::vector<const std::byte*> constants;  // per operand; nullptr if not a constant
    std::vector<std::size_t> arena_offset;    // per operand; no_offset unless planned
    std::size_t arena_bytes = 0;
  };
  static constexpr std::size_t no_offset = SIZE_MAX;

  /// Plans the temporaries of `pg` whose size the model fixes into one arena.
  void plan_memory(graph& pg);

  types::Model model_;
  types::Priority priority_ = types::Priority::MEDIUM;
  mutable detail::execution_pool idle_;  // finished executions for reuse (not part of the model's state)
  std::vector<graph> graphs_;  // indexed by subgraph id
  memory_plan_stats plan_stats_;
  ops::packed_table packed_;
  std::vector<std::unique_ptr<std::byte[]>> realigned_;  // copies of constants stored misaligned
};

inline void prepared_model::plan_memory(graph& pg) {
  const types::Subgraph& g = *pg.sub;
  const std::size_t n = g.operands.size();
  pg.arena_offset.assign(n, no_offset);
  std::vector<std::uint32_t> first(n, 0), last(n, 0);
  for (std::uint32_t k = 0; k < g.operations.size(); ++k) {
    for (auto i : g.operations[k].inputs) last[i] = k;
    for (auto o : g.operations[k].outputs) first[o] = last[o] = k;
  }
  std::vector<std::uint64_t> size(n, 0);
  std::vector<bool> planned(n, false);
  for (std::uint32_t i = 0; i < n; ++i) {
    const types::Operand& o = g.operands[i];
    if (o.lifetime != types::OperandLifeTime::TEMPORARY_VARIABLE) continue;
    std::uint64_t bytes = 0;
    const bool fixed = types::is_fundamental(o.type) && (!types::is_tensor(o.type) || types::all_known(o.dimensions)) &&
                       types::operand_byte_size(o.type, o.dimensions, bytes);
    if (!fixed) {
      ++plan_stats_.dynamic;
      continue;
    }
    planned[i] = true;
    size[i] = bytes;
    plan_stats_.temporaries_bytes += static_cast<std::size_t>(bytes);
    ++plan_stats_.planned;
  }
  // RESHAPE, SQUEEZE and EXPAND_DIMS keep their input's bytes: a planned output of one
  // shares its planned input's buffer (the kernel then has nothing to copy). Operands
  // sharing a buffer form a tree whose root is the first writer; the buffer lives from
  // it to the last reader of any of them. Nothing writes an operation's input, so the
  // readers of either never see the other change.
  std::vector<std::uint32_t> root(n);
  std::iota(root.begin(), root.end(), std::uint32_t{0});
  for (const types::Operation& op : g.operations) {
    using types::OperationType;
    if (op.type != OperationType::RESHAPE && op.type != OperationType::SQUEEZE &&
        op.type != OperationType::EXPAND_DIMS)
      continue;
    if (op.inputs.empty() || op.outputs.size() != 1) continue;
    const std::uint32_t in = op.inputs[0], out = op.outputs[0];
    if (in >= n || out >= n || !planned[in] || !planned[out] || size[in] != size[out]) continue;
    root[out] = root[in];  // operations run in order: in's root is final already
    last[root[out]] = std::max({last[root[out]], last[out], first[out]});
    ++plan_stats_.aliased;
  }
  std::vector<detail::buffer_lifetime> buffers;
  std::vector<std::uint32_t> owner;  // root operand of each buffer
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!planned[i] || root[i] != i) continue;
    buffers.push_back({static_cast<std::size_t>(size[i]), first[i], std::max(first[i], last[i])});
    owner.push_back(i);
  }
  const auto layout = detail::plan_arena(buffers);
  for (std::size_t b = 0; b < buffers.size(); ++b) pg.arena_offset[owner[b]] = layout.offsets[b];
  for (std::uint32_t i = 0; i < n; ++i)
    if (planned[i] && root[i] != i) pg.arena_offset[i] = pg.arena_offset[root[i]];
  pg.arena_bytes = layout.bytes;
  plan_stats_.arena_bytes += layout.bytes;
}

/// Validates the model, binds a kernel per operation of every subgraph and places constants.
inline result<std::shared_ptr<const prepared_model>> prepare(const types::Model& model,
                                                             const prepare_options& options = {}) {
  NNHAL_CHECK(types::is_valid(options.priority), ErrorStatus::INVALID_ARGUMENT, "invalid priority ",
              static_cast<int>(options.priority));
  NNHAL_CHECK(types::is_valid(options.preference), ErrorStatus::INVALID_ARGUMENT, "invalid execution preference ",
              static_cast<int>(options.preference));
  if (options.deadline && *options.deadline <= types::clock::now())
    return types::make_error(ErrorStatus::MISSED_DEADLINE_PERSISTENT, "the preparation deadline has passed");
  auto valid = types::validate_model(model);
  if (!valid) return std::move(valid).err();

  auto pm = std::shared_ptr<prepared_model>(new prepared_model());
  pm->model_ = model;
  // Kernels look up packed weights in options.packed and record theirs in pm->packed_.
  struct packs final : ops::packed_weights {
    const ops::packed_table* from;
    ops::packed_table& kept;
    packs(const ops::packed_table* f, ops::packed_table& k) : from(f), kept(k) {}
    ops::packed_blob find(std::string_view key) const override {
      if (!from) return {};
      const auto it = from->find(key);
      return it == from->end() ? ops::packed_blob{} : it->second;
    }
    void keep(std::string key, ops::packed_blob blob) override { kept.insert_or_assign(std::move(key), std::move(blob)); }
  } store(options.packed, pm->packed_);
  pm->priority_ = options.priority;
  const types::Model& m = pm->model_;
  pm->graphs_.resize(m.referenced.size() + 1);
  for (std::uint32_t id = 0; id < pm->graphs_.size(); ++id) {
    auto& pg = pm->graphs_[id];
    pg.sub = &detail::graph_of(m, id);
    const auto& operands = pg.sub->operands;
    pg.constants.assign(operands.size(), nullptr);
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const std::byte* p = detail::constant_bytes(m, operands[i]);
      if (!p) continue;
      if (!detail::aligned_for(p, operands[i].type)) {
        // Kernels read typed pointers: keep an aligned copy of a constant stored misaligned.
        auto copy = std::make_unique<std::byte[]>(operands[i].location.length + 1);
        std::memcpy(copy.get(), p, operands[i].location.length);
        p = copy.get();
        pm->realigned_.push_back(std::move(copy));
      }
      pg.constants[i] = p;
    }
    const std::string gname = id == main_graph ? std::string("main") : types::str_cat("referenced[", id - 1, "]");
    for (std::size_t k = 0; k < pg.sub->operations.size(); ++k) {
      const auto& op = pg.sub->operations[k];
      if (detail::is_control_flow(op.type)) {
        pg.steps.push_back({});  // run by the executor; its subgraphs are bound like any other
        continue;
      }
      std::vector<types::sig::operand_desc> in, out;
      for (auto i : op.inputs) in.push_back(detail::describe_static(*pg.sub, i, pg.constants[i]));
      for (auto o : op.outputs) out.push_back(detail::describe_static(*pg.sub, o, nullptr));
      const std::string site = types::str_cat(id, "/", k);
      auto bound = ops::bind(ops::bind_context{op, in, out, m.relaxComputationFloat32toFloat16, &store, site});
      if (!bound) {
        // Keep the old message shape for main ("operation k: ...").
        if (id == main_graph)
          return types::make_error(ErrorStatus::INVALID_ARGUMENT, "operation ", k, ": ", bound.err().message);
        return types::make_error(ErrorStatus::INVALID_ARGUMENT, gname, " operation ", k, ": ", bound.err().message);
      }
      const types::op_entry* e = types::find_operation(op.type);
      pg.steps.push_back({std::move(*bound), e ? e->infer_into : nullptr});
    }
    pm->plan_memory(pg);
  }
  return std::shared_ptr<const prepared_model>(std::move(pm));
}

}  // namespace nnhal::exec
