// One run of one request on one prepared model, as a resumable sequence of steps: the
// executor (sync execute() below, or the coroutine runtime) calls checkpoint() and step()
// until done(), then finish(). Each step runs one operation, so deadlines, cancellation
// and priorities act between operations, never inside a kernel. IF and WHILE
// (HAL 1.3 types.hal, "IF", "WHILE") run their referenced subgraphs as nested frames,
// one operation per step as well.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnhal/exec/device_memory.hpp"
#include "nnhal/exec/memory.hpp"
#include "nnhal/exec/parallel.hpp"
#include "nnhal/exec/prepared_model.hpp"

namespace nnhal::exec {

/// One execution of a request. Not thread-safe itself: one caller drives it at a time
/// (from any thread); many executions may share one prepared model.
class execution {
 public:
  /// Validates the request against the model, maps its pools and plans memory.
  /// Errors: INVALID_ARGUMENT (bad request or options), MISSED_DEADLINE_TRANSIENT
  /// (deadline already passed). The execution keeps `pm` and the request's pools alive
  /// (through Memory::owner); it does not keep a reference to `request`.
  static result<std::unique_ptr<execution>> start(std::shared_ptr<const prepared_model> pm,
                                                  const types::Request& request, const execute_options& options);

  /// Gives a leased execution back to its prepared model's pool (or frees it when the
  /// pool is full). The pooled execution keeps neither the model nor the request's pools.
  struct release_to_pool {
    void operator()(execution* e) const noexcept { recycle(e); }
  };
  using pooled = std::unique_ptr<execution, release_to_pool>;

  /// start(), but reusing a finished execution of `pm` when one is idle: its frames,
  /// arenas and loop buffers, so that a steady-state execution allocates no tensor memory.
  /// The same errors as start().
  static result<pooled> lease(std::shared_ptr<const prepared_model> pm, const types::Request& request,
                              const execute_options& options);

  execution(const execution&) = delete;
  execution& operator=(const execution&) = delete;

  /// True once every operation ran or an error ended the execution.
  bool done() const noexcept { return done_; }

  /// The stop reason, checked between steps: MISSED_DEADLINE_TRANSIENT once the deadline
  /// has passed, GENERAL_FAILURE once `options.stop` was requested, NONE otherwise.
  ErrorStatus checkpoint() const noexcept;

  /// Runs the next operation. IF and WHILE take several steps: entering the chosen
  /// branch or the condition, each operation inside, each return to the caller (which
  /// for WHILE decides between another iteration and leaving the loop). Returns NONE, or
  /// the error that ended the execution (then done() is true). When done(), returns the
  /// final status again without doing anything.
  ErrorStatus step(parallel_context& par);

  /// Ends the execution now with `status` (not NONE); done() becomes true.
  void abort(ErrorStatus status, std::string message);

  /// Output shapes, OUTPUT_INSUFFICIENT_SIZE, timing and profile. Call once, when done().
  execution_outcome finish();

  /// Runs `request` next on the same prepared model, reusing this execution's frames,
  /// arenas and loop buffers (a burst's per-execution resources). Only after finish().
  /// The same errors as start(); after an error the execution is done and finished.
  types::status restart(const types::Request& request, const execute_options& options);

  const prepared_model& model() const noexcept { return *pm_; }
  const execute_options& options() const noexcept { return options_; }

 private:
  /// Run-time state of one operand of one frame.
  struct slot {
    types::dims_t dims;
    std::byte* data = nullptr;  // where operations read it (always aligned for its type)
    bool omitted = false;
    std::unique_ptr<std::byte[]> owned;  // our memory for it when not in the arena
    std::size_t owned_size = 0;
    // Main outputs only: the request's buffer (nullptr if hasNoValue), its length, the
    // output's index in the request.
    std::byte* user = nullptr;
    std::size_t user_capacity = 0;
    int output = -1;
  };
  /// The operands of one subgraph. A subgraph is active at most once at a time (the
  /// validator rejects reference cycles), so one frame per subgraph id suffices and its
  /// buffers are reused by every later run of that subgraph.
  struct frame {
    std::uint32_t graph = main_graph;
    std::size_t pc = 0;  // next operation
    std::vector<slot> slots;
    detail::aligned_block arena;  // the planned temporaries
  };
  enum class role : std::uint8_t { main, branch, condition, body };
  /// One running subgraph and why it runs: main, an IF branch, or a WHILE's condition or
  /// body (the same activation alternates between those two).
  struct activation {
    role kind = role::main;
    std::uint32_t graph = main_graph;   // the frame running now
    std::uint32_t caller = main_graph;  // the frame holding the IF/WHILE
    std::uint32_t op_index = 0;         // the IF/WHILE in the caller
    // WHILE only.
    std::uint32_t cond_graph = 0, body_graph = 0;
    std::uint64_t iteration = 0;
    types::time_point loop_started{};
  };
  /// A value a WHILE carries into its next iteration (one of the body's outputs).
  struct carried {
    std::unique_ptr<std::byte[]> buf;
    std::size_t capacity = 0;
    types::dims_t dims;
  };
  /// A read-only view of a value passed into a subgraph.
  struct value {
    std::byte* data = nullptr;
    std::span<const std::uint32_t> dims;
    bool omitted = false;
  };

  execution(std::shared_ptr<const prepared_model> pm, const execute_options& options)
      : pm_(std::move(pm)), options_(options) {}
  static void recycle(execution* e) noexcept;

  ErrorStatus fail(ErrorStatus s, std::string message) {
    if (!(done_ && status_ != ErrorStatus::NONE)) {
      status_ = s;
      message_ = std::move(message);
      done_ = true;
    }
    return status_;
  }
  static std::byte* ensure_owned(slot& s, std::size_t need) {
    if (!s.owned || s.owned_size < need) {
      s.owned.reset(new std::byte[need + 1]);  // +1: never a zero-sized new[]
      s.owned_size = need;
    }
    return s.owned.get();
  }
  static bool fits_declared(std::span<const std::uint32_t> declared, std::span<const std::uint32_t> got) {
    if (declared.empty()) return true;
    if (declared.size() != got.size()) return false;
    for (std::size_t d = 0; d < declared.size(); ++d)
      if (declared[d] != 0 && declared[d] != got[d]) return false;
    return true;
  }
  const types::Operation& operation_of(std::uint32_t graph, std::uint32_t k) const {
    return pm_->graphs_[graph].sub->operations[k];
  }
  std::string where(std::uint32_t graph, std::size_t k) const {
    const auto type = operation_of(graph, static_cast<std::uint32_t>(k)).type;
    if (graph == main_graph) return types::str_cat("operation ", k, " (", to_string(type), ")");
    return types::str_cat("referenced[", graph - 1, "] operation ", k, " (", to_string(type), ")");
  }

  types::status init(const types::Request& request, const execute_options& options, types::time_point started);
  types::status resolve_buffers(const types::Request& request, const buffer_registry* registry,
                                types::status& unready);
  execution_outcome collect();
  void settle_buffers(execution_outcome& outcome);
  frame& enter_frame(std::uint32_t graph);
  std::byte* place_output(frame& f, std::uint32_t operand, std::span<const std::uint32_t> dims, std::byte*& copy_to);
  ErrorStatus write_result(frame& f, std::uint32_t operand, const value& v, std::size_t op_index);
  ErrorStatus bind_inputs(frame& callee, std::size_t count, const activation& a, bool loop);
  value loop_value(const activation& a, std::size_t j);
  value caller_value(const activation& a, std::size_t operand_pos) const;
  std::vector<carried>& carry_of(const activation& a) { return carry_[op_base_[a.caller] + a.op_index]; }

  ErrorStatus run_operation(frame& f, parallel_context& par);
  ErrorStatus enter_if(frame& f);
  ErrorStatus enter_while(frame& f);
  ErrorStatus leave();

  std::shared_ptr<const prepared_model> pm_;
  execute_options options_;
  std::vector<types::Memory> pools_;  // the request's pools, kept alive
  /// A request naming driver-managed buffers, with each token swapped for its buffer's
  /// memory (reused between runs); and the buffers written as outputs, by output index.
  types::Request resolved_;
  std::vector<std::pair<std::size_t, std::weak_ptr<device_buffer>>> written_buffers_;
  std::vector<frame> frames_;         // per subgraph id
  std::vector<activation> stack_;     // stack_[0] is main; capacity reserved at start
  std::vector<std::vector<carried>> carry_;  // per WHILE: op_base_[graph] + operation index
  std::vector<std::size_t> op_base_;         // per subgraph id
  std::vector<bool> insufficient_;           // per request output

  // Per-step scratch, reused so that a steady-state step does not allocate buffers.
  std::vector<types::sig::operand_desc> in_, out_;
  std::vector<std::byte*> out_data_, copy_to_;
  types::sig::shapes shapes_;
  std::vector<types::sig::infer_scratch> scratch_;  // per operation: op_base_[graph] + index

  types::time_point started_{};
  std::uint64_t device_ns_ = 0;
  std::vector<op_profile> profile_;

  bool done_ = false;
  bool finished_ = false;
  bool ran_ = false;  // some step ran: outputs may have been written
  ErrorStatus status_ = ErrorStatus::NONE;
  std::string message_;
};

// ---------------------------------------------------------------------------------------
// Frames and operand passing

inline execution::frame& execution::enter_frame(std::uint32_t graph) {
  const auto& pg = pm_->graphs_[graph];
  const auto& operands = pg.sub->operands;
  frame& f = frames_[graph];
  f.graph = graph;
  f.pc = 0;
  if (f.slots.size() != operands.size()) f.slots.resize(operands.size());
  if (pg.arena_bytes && !f.arena.data()) f.arena = detail::aligned_block(pg.arena_bytes);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    slot& r = f.slots[i];
    r.dims.assign(operands[i].dimensions.begin(), operands[i].dimensions.end());
    r.omitted = operands[i].lifetime == types::OperandLifeTime::NO_VALUE;
    r.data = const_cast<std::byte*>(pg.constants[i]);  // read-only: constants are never outputs
  }
  return f;
}

/// Where operand `operand` of `f`, of shape `dims`, is written (aligned for its type).
/// A main output goes to the request's buffer when it fits and is aligned; otherwise it
/// goes to our memory, and `copy_to` is the request's buffer to copy the result to
/// (misaligned) or nullptr (no buffer, or too small: OUTPUT_INSUFFICIENT_SIZE).
/// Temporaries of fixed size live in the frame's arena, the others in the slot's memory.
inline std::byte* execution::place_output(frame& f, std::uint32_t operand, std::span<const std::uint32_t> dims,
                                          std::byte*& copy_to) {
  const auto& pg = pm_->graphs_[f.graph];
  const types::Operand& o = pg.sub->operands[operand];
  slot& r = f.slots[operand];
  r.dims.assign(dims.begin(), dims.end());
  r.omitted = false;
  copy_to = nullptr;
  const std::size_t need = detail::byte_size(o.type, dims);
  if (r.output >= 0) {
    if (r.user && r.user_capacity >= need && detail::aligned_for(r.user, o.type)) return r.data = r.user;
    if (r.user && r.user_capacity < need) insufficient_[static_cast<std::size_t>(r.output)] = true;
    else copy_to = r.user;
  }
  const std::size_t offset = pg.arena_offset[operand];
  if (offset != prepared_model::no_offset && need == detail::byte_size(o.type, o.dimensions))
    return r.data = f.arena.data() + offset;
  return r.data = ensure_owned(r, need);
}

/// Stores a subgraph's result `v` as operand `operand` of the caller frame `f`.
inline ErrorStatus execution::write_result(frame& f, std::uint32_t operand, const value& v, std::size_t op_index) {
  if (!fits_declared(f.slots[operand].dims, v.dims))
    return fail(ErrorStatus::INVALID_ARGUMENT,
                types::str_cat(where(f.graph, op_index), ": result of shape ", types::format_dims(v.dims),
                               " for operand ", operand, " declared ",
                               types::format_dims(f.slots[operand].dims, true)));
  const auto type = pm_->graphs_[f.graph].sub->operands[operand].type;
  const std::size_t n = detail::byte_size(type, v.dims);
  if (n && (v.omitted || !v.data))
    return fail(ErrorStatus::INVALID_ARGUMENT,
                types::str_cat(where(f.graph, op_index), ": operand ", operand, " would get a value that was omitted"));
  std::byte* copy_to = nullptr;
  std::byte* dst = place_output(f, operand, v.dims, copy_to);
  if (n) {
    std::memmove(dst, v.data, n);
    if (copy_to) std::memcpy(copy_to, dst, n);
  }
  return ErrorStatus::NONE;
}

/// The value of input `pos` of the IF/WHILE that `a` runs, as the caller holds it.
inline execution::value execution::caller_value(const activation& a, std::size_t pos) const {
  const auto& op = operation_of(a.caller, a.op_index);
  const slot& s = frames_[a.caller].slots[op.inputs[pos]];
  return {s.data, s.dims, s.omitted};
}

/// Loop input j (WHILE input 2 + j) for the current iteration: the caller's operand in
/// the first iteration and for input-only values, else what the body produced last.
inline execution::value execution::loop_value(const activation& a, std::size_t j) {
  auto& carry = carry_of(a);
  if (a.iteration > 0 && j < carry.size()) return {carry[j].buf.get(), carry[j].dims, false};
  return caller_value(a, 2 + j);
}

/// Binds the inputs of `callee` to the values `a` passes (IF: its inputs after the
/// branches; WHILE: the loop values), checking them against the declared shapes.
inline ErrorStatus execution::bind_inputs(frame& callee, std::size_t count, const activation& a, bool loop) {
  const types::Subgraph& sub = *pm_->graphs_[callee.graph].sub;
  for (std::size_t j = 0; j < count; ++j) {
    const value v = loop ? loop_value(a, j) : caller_value(a, 3 + j);
    slot& r = callee.slots[sub.inputIndexes[j]];
    if (!v.omitted && !fits_declared(r.dims, v.dims))
      return fail(ErrorStatus::INVALID_ARGUMENT,
                  types::str_cat(where(a.caller, a.op_index), ": value of shape ", types::format_dims(v.dims),
                                 " passed to referenced[", callee.graph - 1, "] input ", j, " declared ",
                                 types::format_dims(r.dims, true)));
    r.dims.assign(v.dims.begin(), v.dims.end());
    r.data = v.data;
    r.omitted = v.omitted;
  }
  return ErrorStatus::NONE;
}

// ---------------------------------------------------------------------------------------
// start, checkpoint, step, finish

inline result<std::unique_ptr<execution>> execution::start(std::shared_ptr<const prepared_model> pm,
                                                            const types::Request& request,
                                                            const execute_options& options) {
  const auto started = types::clock::now();
  NNHAL_CHECK(pm != nullptr, ErrorStatus::INVALID_ARGUMENT, "no prepared model");
  std::unique_ptr<execution> ex(new execution(std::move(pm), options));
  NNHAL_TRY(ex->init(request, options, started));
  return ex;
}

inline result<execution::pooled> execution::lease(std::shared_ptr<const prepared_model> pm,
                                                  const types::Request& request, const execute_options& options) {
  const auto started = types::clock::now();
  NNHAL_CHECK(pm != nullptr, ErrorStatus::INVALID_ARGUMENT, "no prepared model");
  pooled ex(pm->idle_.take());
  if (ex) ex->pm_ = std::move(pm);
  else ex.reset(new execution(std::move(pm), options));
  NNHAL_TRY(ex->init(request, options, started));  // init() resets whatever state the last run left
  return ex;
}

inline void execution::recycle(execution* e) noexcept {
  std::shared_ptr<const prepared_model> pm = std::move(e->pm_);  // the pool must not keep its model alive,
  e->pools_.clear();                                              // nor the client's memory,
  e->resolved_.pools.clear();                                     // nor its driver buffers,
  e->written_buffers_.clear();
  e->options_ = {};                                               // nor a stop state
  if (!pm) {
    delete e;
    return;
  }
  pm->idle_.give(e, [](execution* x) noexcept { delete x; });
}

inline types::status execution::restart(const types::Request& request, const execute_options& options) {
  const auto started = types::clock::now();
  NNHAL_CHECK(finished_, ErrorStatus::GENERAL_FAILURE, "restart() before finish()");
  return init(request, options, started);
}

inline types::status execution::init(const types::Request& request, const execute_options& options,
                                     types::time_point started) {
  // Left done and finished unless everything below succeeds.
  done_ = finished_ = true;
  status_ = ErrorStatus::GENERAL_FAILURE;
  message_ = "the execution did not start";
  NNHAL_CHECK(options.measure == types::MeasureTiming::NO || options.measure == types::MeasureTiming::YES,
              ErrorStatus::INVALID_ARGUMENT, "invalid MeasureTiming ", static_cast<int>(options.measure));
  NNHAL_CHECK(options.loop_timeout.count() >= 0, ErrorStatus::INVALID_ARGUMENT, "negative loop timeout");
  if (options.deadline && *options.deadline <= started)
    return types::make_error(ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the execution deadline has passed");
  const types::Model& m = pm_->model_;
  written_buffers_.clear();
  ran_ = false;
  const bool names_buffers = std::any_of(request.pools.begin(), request.pools.end(),
                                         [](const types::MemoryPool& p) { return std::holds_alternative<std::uint32_t>(p); });
  types::status unready;  // an input buffer without contents: reported once the request is known valid
  if (names_buffers && options.buffers) NNHAL_TRY(resolve_buffers(request, options.buffers, unready));
  const types::Request& req = names_buffers && options.buffers ? resolved_ : request;
  NNHAL_TRY(types::validate_request(req, m));
  NNHAL_TRY(std::move(unready));

  options_ = options;
  options_.loop_timeout = std::min(options.loop_timeout, types::LOOP_TIMEOUT_MAXIMUM);
  started_ = started;
  device_ns_ = 0;
  pools_.clear();
  for (const auto& p : req.pools) pools_.push_back(std::get<types::Memory>(p));

  // Frames, arenas and loop buffers stay from an earlier run (restart), sized as needed.
  const auto& graphs = pm_->graphs_;
  frames_.resize(graphs.size());
  stack_.clear();
  stack_.reserve(graphs.size() + 1);  // each subgraph is active at most once
  op_base_.resize(graphs.size());
  std::size_t ops = 0;
  for (std::uint32_t id = 0; id < graphs.size(); ++id) {
    op_base_[id] = ops;
    ops += graphs[id].sub->operations.size();
  }
  if (!m.referenced.empty()) carry_.resize(ops);
  scratch_.resize(ops);

  frame& f = enter_frame(main_graph);
  for (slot& r : f.slots) {
    r.user = nullptr;
    r.user_capacity = 0;
    r.output = -1;
  }
  stack_.push_back({});
  const auto& g = m.main;
  auto pool_bytes = [&](const types::DataLocation& loc) { return pools_[loc.poolIndex].data + loc.offset; };
  for (std::size_t k = 0; k < req.inputs.size(); ++k) {
    const auto& arg = req.inputs[k];
    slot& r = f.slots[g.inputIndexes[k]];
    const auto type = g.operands[g.inputIndexes[k]].type;
    if (arg.hasNoValue) {
      r.omitted = true;
      continue;
    }
    if (!arg.dimensions.empty()) r.dims = arg.dimensions;
    r.data = pool_bytes(arg.location);
    if (!detail::aligned_for(r.data, type)) {
      const std::size_t n = detail::byte_size(type, r.dims);  // validate_request: <= location.length
      std::byte* copy = ensure_owned(r, n);
      std::memcpy(copy, r.data, n);
      r.data = copy;
    }
  }
  for (std::size_t k = 0; k < req.outputs.size(); ++k) {
    const auto& arg = req.outputs[k];
    NNHAL_CHECK(arg.hasNoValue || pools_[arg.location.poolIndex].writable, ErrorStatus::INVALID_ARGUMENT, "output ",
                k, ": pool ", arg.location.poolIndex, " is read-only");
  }
  insufficient_.assign(req.outputs.size(), false);
  for (std::size_t k = 0; k < req.outputs.size(); ++k) {
    const auto& arg = req.outputs[k];
    slot& r = f.slots[g.outputIndexes[k]];
    r.output = static_cast<int>(k);
    if (!arg.dimensions.empty()) r.dims = arg.dimensions;
    if (!arg.hasNoValue) {
      r.user = pool_bytes(arg.location);
      r.user_capacity = arg.location.length;
    }
  }

  profile_.clear();
  if (options_.profile) {
    profile_.reserve(ops);
    for (std::uint32_t id = 0; id < graphs.size(); ++id) {
      const auto& gops = graphs[id].sub->operations;
      for (std::uint32_t k = 0; k < gops.size(); ++k) profile_.push_back({id, k, gops[k].type, 0, 0});
    }
  }
  finished_ = false;
  status_ = ErrorStatus::NONE;
  message_.clear();
  done_ = g.operations.empty();  // validation forbids it; stay safe anyway
  return {};
}

/// Swaps each token pool of `request` for its buffer's memory (into resolved_), after the
/// checks of HAL 1.3 IDevice::allocate / IBuffer: the token names a live buffer of this
/// device; each argument on it uses it whole (offset 0, length 0) in a role it was
/// allocated for with this prepared model; an input's shape agrees with the buffer's;
/// a buffer is at most one output and then no input (counted across pools, so naming
/// one token twice changes nothing). These are INVALID_ARGUMENT. An input buffer that was
/// never written goes to `unready` (GENERAL_FAILURE once the rest of the request is valid).
inline types::status execution::resolve_buffers(const types::Request& request, const buffer_registry* registry,
                                                types::status& unready) {
  resolved_.inputs.assign(request.inputs.begin(), request.inputs.end());
  resolved_.outputs.assign(request.outputs.begin(), request.outputs.end());
  resolved_.pools.assign(request.pools.begin(), request.pools.end());
  struct use_count {
    const device_buffer* buffer;
    bool read = false, written = false;
  };
  std::vector<use_count> uses;
  for (std::size_t p = 0; p < request.pools.size(); ++p) {
    const auto* token = std::get_if<std::uint32_t>(&request.pools[p]);
    if (!token) continue;
    std::shared_ptr<device_buffer> buf = registry->find(*token);
    NNHAL_CHECK(buf != nullptr, ErrorStatus::INVALID_ARGUMENT, "request pool ", p, ": token ", *token,
                " names no live driver-managed buffer");
    auto it = std::find_if(uses.begin(), uses.end(), [&](const use_count& u) { return u.buffer == buf.get(); });
    if (it == uses.end()) it = uses.insert(uses.end(), use_count{buf.get()});
    auto use = [&](types::RequestArgument& a, bool input, std::size_t k) -> types::status {
      const char* kind = input ? "input " : "output ";
      NNHAL_CHECK(!it->written && (input || !it->read), ErrorStatus::INVALID_ARGUMENT, kind, k, ": buffer ", *token,
                  " is already another argument of this request (an output must have a buffer of its own)");
      NNHAL_CHECK(a.location.offset == 0 && a.location.length == 0, ErrorStatus::INVALID_ARGUMENT, kind, k,
                  ": a driver-managed buffer is used whole (offset 0, length 0), not [", a.location.offset, ", +",
                  a.location.length, ")");
      NNHAL_CHECK(buf->has_role(*pm_, input, static_cast<std::uint32_t>(k)), ErrorStatus::INVALID_ARGUMENT, kind, k,
                  ": buffer ", *token, " was not allocated for this role of this prepared model");
      a.location.length = static_cast<std::uint32_t>(buf->size());
      if (input) {
        if (!buf->initialized() && unready)
          unready = types::make_error(ErrorStatus::GENERAL_FAILURE, "input ", k, ": buffer ", *token, " is uninitialized");
        const auto current = buf->dims();
        auto combined = detail::combine_dims(current, a.dimensions);
        NNHAL_CHECK(combined.has_value(), ErrorStatus::INVALID_ARGUMENT, "input ", k, ": dimensions ",
                    types::format_dims(a.dimensions), " conflict with buffer ", *token, "'s ", types::format_dims(current));
        a.dimensions = std::move(*combined);
        it->read = true;
      } else {
        NNHAL_CHECK(detail::combine_dims(buf->allocated_dims(), a.dimensions).has_value(), ErrorStatus::INVALID_ARGUMENT,
                    "output ", k, ": dimensions ", types::format_dims(a.dimensions, true), " conflict with buffer ",
                    *token, "'s ", types::format_dims(buf->allocated_dims()));
        written_buffers_.emplace_back(k, buf);
        it->written = true;
      }
      return {};
    };
    for (std::size_t k = 0; k < resolved_.inputs.size(); ++k)
      if (!resolved_.inputs[k].hasNoValue && resolved_.inputs[k].location.poolIndex == p)
        NNHAL_TRY(use(resolved_.inputs[k], true, k));
    for (std::size_t k = 0; k < resolved_.outputs.size(); ++k)
      if (!resolved_.outputs[k].hasNoValue && resolved_.outputs[k].location.poolIndex == p)
        NNHAL_TRY(use(resolved_.outputs[k], false, k));
    resolved_.pools[p] = buf->as_pool();
  }
  return {};
}

inline ErrorStatus execution::checkpoint() const noexcept {
  if (options_.deadline && types::clock::now() >= *options_.deadline) return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
  if (options_.stop.stop_requested()) return ErrorStatus::GENERAL_FAILURE;
  return ErrorStatus::NONE;
}

inline void execution::abort(ErrorStatus status, std::string message) {
  fail(status == ErrorStatus::NONE ? ErrorStatus::GENERAL_FAILURE : status, std::move(message));
}

inline ErrorStatus execution::step(parallel_context& par) {
  if (done_) return status_;
  ran_ = true;
  const activation& a = stack_.back();
  frame& f = frames_[a.graph];
  const bool timed = options_.measure == types::MeasureTiming::YES || options_.profile;
  const auto t0 = timed ? types::clock::now() : types::time_point{};
  // The operation this step is charged to: the one it runs, or the IF/WHILE it returns to.
  std::uint32_t graph = a.graph, op_index = static_cast<std::uint32_t>(f.pc);
  ErrorStatus s;
  if (f.pc < pm_->graphs_[a.graph].steps.size()) {
    switch (operation_of(a.graph, op_index).type) {
      case types::OperationType::IF: s = enter_if(f); break;
      case types::OperationType::WHILE: s = enter_while(f); break;
      default: s = run_operation(f, par);
    }
  } else {
    graph = a.caller;
    op_index = a.op_index;
    s = leave();
  }
  if (timed) {
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(types::clock::now() - t0).count());
    device_ns_ += ns;
    if (options_.profile) {
      op_profile& p = profile_[op_base_[graph] + op_index];
      ++p.runs;
      p.nanoseconds += ns;
    }
  }
  if (s != ErrorStatus::NONE) return s;
  if (stack_.size() == 1 && frames_[main_graph].pc == pm_->graphs_[main_graph].steps.size()) done_ = true;
  return ErrorStatus::NONE;
}

inline ErrorStatus execution::run_operation(frame& f, parallel_context& par) {
  const auto& pg = pm_->graphs_[f.graph];
  const types::Subgraph& g = *pg.sub;
  const std::size_t s = f.pc++;
  const auto& op = g.operations[s];
  const auto& operands = g.operands;

  in_.resize(op.inputs.size());
  out_.resize(op.outputs.size());
  for (std::size_t j = 0; j < op.inputs.size(); ++j) {
    const auto i = op.inputs[j];
    const auto& o = operands[i];
    const slot& r = f.slots[i];
    auto& d = in_[j];
    d.type = o.type;
    d.dims = r.dims;
    d.scale = o.scale;
    d.zero_point = o.zeroPoint;
    d.channel_quant = std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams);
    d.omitted = r.omitted;
    d.value = r.omitted ? nullptr : r.data;
    d.value_size = r.omitted ? 0 : detail::byte_size(o.type, r.dims);
  }
  for (std::size_t j = 0; j < op.outputs.size(); ++j) {
    const auto& o = operands[op.outputs[j]];
    out_[j] = {o.type, f.slots[op.outputs[j]].dims, o.scale, o.zeroPoint,
               std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams)};
  }
  // Shape inference writes into shapes_ (kept between steps) and may leave work for the
  // kernel in this operation's scratch.
  types::sig::infer_scratch& scratch = scratch_[op_base_[f.graph] + s];
  scratch.ready = false;
  if (pg.steps[s].infer) {
    const types::sig::infer_context ctx{op.type, in_, out_, true, nullptr, &scratch};
    if (auto inferred = pg.steps[s].infer(ctx, shapes_); !inferred)
      return fail(ErrorStatus::INVALID_ARGUMENT, types::str_cat(where(f.graph, s), ": ", inferred.err().message));
    if (shapes_.size() != op.outputs.size())
      return fail(ErrorStatus::GENERAL_FAILURE, types::str_cat(where(f.graph, s), ": shape inference gave ",
                                                               shapes_.size(), " shapes for ", op.outputs.size(),
                                                               " outputs"));
  } else {
    shapes_.resize(out_.size());
    for (std::size_t j = 0; j < out_.size(); ++j) shapes_[j].assign(out_[j].dims.begin(), out_[j].dims.end());
  }

  out_data_.assign(op.outputs.size(), nullptr);
  copy_to_.assign(op.outputs.size(), nullptr);
  for (std::size_t j = 0; j < op.outputs.size(); ++j) {
    const auto oi = op.outputs[j];
    if (!fits_declared(f.slots[oi].dims, shapes_[j]))
      return fail(ErrorStatus::INVALID_ARGUMENT,
                  types::str_cat(where(f.graph, s), ": output ", j, " has shape ", types::format_dims(shapes_[j]),
                                 " but was declared ", types::format_dims(f.slots[oi].dims, true)));
    out_data_[j] = place_output(f, oi, shapes_[j], copy_to_[j]);
  }
  for (std::size_t j = 0; j < op.outputs.size(); ++j) out_[j].dims = f.slots[op.outputs[j]].dims;
  pg.steps[s].run(ops::kernel_io{in_, out_, out_data_, &par, &scratch});
  for (std::size_t j = 0; j < op.outputs.size(); ++j) {
    if (!copy_to_[j]) continue;
    const auto oi = op.outputs[j];
    std::memcpy(copy_to_[j], out_data_[j], detail::byte_size(operands[oi].type, f.slots[oi].dims));
  }
  return ErrorStatus::NONE;
}

// ---------------------------------------------------------------------------------------
// IF and WHILE

namespace detail {
/// Reads a TENSOR_BOOL8 of one element (IF's condition, a WHILE condition's output).
inline bool read_condition(std::span<const std::uint32_t> dims, const std::byte* data, bool omitted, bool& value) {
  std::uint64_t n = 0;
  if (omitted || !data || !types::checked_element_count(dims, n) || n != 1) return false;
  value = std::to_integer<std::uint8_t>(*data) != 0;
  return true;
}
}  // namespace detail

inline ErrorStatus execution::enter_if(frame& f) {
  const auto k = static_cast<std::uint32_t>(f.pc++);
  const auto& op = operation_of(f.graph, k);
  const types::Subgraph& g = *pm_->graphs_[f.graph].sub;
  const slot& c = f.slots[op.inputs[0]];
  bool cond = false;
  if (!detail::read_condition(c.dims, c.data, c.omitted, cond))
    return fail(ErrorStatus::INVALID_ARGUMENT,
                types::str_cat(where(f.graph, k), ": the condition must be a TENSOR_BOOL8 of one element, got ",
                               c.omitted ? std::string("no value") : types::format_dims(c.dims)));
  const std::uint32_t branch = detail::referenced_id(g.operands[op.inputs[cond ? 1 : 2]]);
  activation a;
  a.kind = role::branch;
  a.graph = branch;
  a.caller = f.graph;
  a.op_index = k;
  frame& callee = enter_frame(branch);
  if (bind_inputs(callee, op.inputs.size() - 3, a, false) != ErrorStatus::NONE) return status_;
  stack_.push_back(a);
  return ErrorStatus::NONE;
}

inline ErrorStatus execution::enter_while(frame& f) {
  const auto k = static_cast<std::uint32_t>(f.pc++);
  const auto& op = operation_of(f.graph, k);
  const types::Subgraph& g = *pm_->graphs_[f.graph].sub;
  activation a;
  a.kind = role::condition;
  a.caller = f.graph;
  a.op_index = k;
  a.cond_graph = detail::referenced_id(g.operands[op.inputs[0]]);
  a.body_graph = detail::referenced_id(g.operands[op.inputs[1]]);
  a.graph = a.cond_graph;
  a.loop_started = types::clock::now();
  carry_of(a).resize(pm_->graphs_[a.body_graph].sub->outputIndexes.size());
  frame& cond = enter_frame(a.cond_graph);
  if (bind_inputs(cond, op.inputs.size() - 2, a, true) != ErrorStatus::NONE) return status_;
  stack_.push_back(a);
  return ErrorStatus::NONE;
}

/// The running subgraph has run its last operation: hand its results to the caller.
inline ErrorStatus execution::leave() {
  activation& a = stack_.back();
  frame& callee = frames_[a.graph];
  frame& caller = frames_[a.caller];
  const types::Subgraph& sub = *pm_->graphs_[a.graph].sub;
  const auto& op = operation_of(a.caller, a.op_index);
  auto output_value = [&](std::size_t i) {
    const slot& r = callee.slots[sub.outputIndexes[i]];
    return value{r.data, r.dims, r.omitted};
  };

  switch (a.kind) {
    case role::main: return fail(ErrorStatus::GENERAL_FAILURE, "step() past the end of main");
    case role::branch:
      for (std::size_t i = 0; i < op.outputs.size(); ++i)
        if (write_result(caller, op.outputs[i], output_value(i), a.op_index) != ErrorStatus::NONE) return status_;
      stack_.pop_back();
      return ErrorStatus::NONE;
    case role::condition: {
      const slot& r = callee.slots[sub.outputIndexes[0]];
      bool again = false;
      if (!detail::read_condition(r.dims, r.data, r.omitted, again))
        return fail(ErrorStatus::INVALID_ARGUMENT,
                    types::str_cat(where(a.caller, a.op_index), ": the condition's output must have one element, got ",
                                   types::format_dims(r.dims)));
      if (!again) {
        for (std::size_t i = 0; i < op.outputs.size(); ++i)
          if (write_result(caller, op.outputs[i], loop_value(a, i), a.op_index) != ErrorStatus::NONE) return status_;
        stack_.pop_back();
        return ErrorStatus::NONE;
      }
      // As the AOSP CPU path does: the timeout is checked before each body run.
      const auto elapsed = types::clock::now() - a.loop_started;
      if (elapsed > options_.loop_timeout)
        return fail(ErrorStatus::MISSED_DEADLINE_TRANSIENT,
                    types::str_cat(where(a.caller, a.op_index), ": loop timed out after ", a.iteration,
                                   " iterations (",
                                   std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), " ms)"));
      a.kind = role::body;
      a.graph = a.body_graph;
      frame& body = enter_frame(a.body_graph);
      return bind_inputs(body, op.inputs.size() - 2, a, true);
    }
    case role::body: {
      // The body's outputs become the next iteration's values. Swapping buffers double-
      // buffers them: the body reads the old values while writing the new ones.
      auto& carry = carry_of(a);
      for (std::size_t j = 0; j < carry.size(); ++j) {
        slot& r = callee.slots[sub.outputIndexes[j]];
        const auto type = sub.operands[sub.outputIndexes[j]].type;
        carried& c = carry[j];
        if (r.owned && r.data == r.owned.get()) {
          std::swap(c.buf, r.owned);
          std::swap(c.capacity, r.owned_size);
        } else {
          const std::size_t n = detail::byte_size(type, r.dims);
          if (!c.buf || c.capacity < n) {
            c.buf.reset(new std::byte[n + 1]);
            c.capacity = n;
          }
          if (n) std::memcpy(c.buf.get(), r.data, n);
        }
        c.dims = r.dims;
      }
      ++a.iteration;
      a.kind = role::condition;
      a.graph = a.cond_graph;
      frame& cond = enter_frame(a.cond_graph);
      return bind_inputs(cond, op.inputs.size() - 2, a, true);
    }
  }
  return ErrorStatus::NONE;
}

inline execution_outcome execution::finish() {
  if (finished_) {
    execution_outcome outcome;
    outcome.status = ErrorStatus::GENERAL_FAILURE;
    outcome.message = "finish() called twice";
    return outcome;
  }
  finished_ = true;
  execution_outcome outcome = collect();
  if (!written_buffers_.empty()) settle_buffers(outcome);
  return outcome;
}

/// The outcome of a done execution (finish() without the driver buffers' bookkeeping).
inline execution_outcome execution::collect() {
  execution_outcome outcome;
  outcome.profile = std::move(profile_);
  if (!done_) fail(ErrorStatus::GENERAL_FAILURE, "finish() called before the execution was done");
  if (status_ != ErrorStatus::NONE) {
    outcome.status = status_;
    outcome.message = message_;
    return outcome;
  }
  const types::Subgraph& g = pm_->model_.main;
  const frame& f = frames_[main_graph];
  bool any_insufficient = false;
  outcome.outputShapes.resize(g.outputIndexes.size());
  for (std::size_t k = 0; k < g.outputIndexes.size(); ++k) {
    outcome.outputShapes[k].dimensions = f.slots[g.outputIndexes[k]].dims;
    outcome.outputShapes[k].isSufficient = !insufficient_[k];
    any_insufficient = any_insufficient || insufficient_[k];
  }
  if (any_insufficient) {
    outcome.status = ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
    outcome.message = "an output buffer is too small for its result";
    return outcome;
  }
  if (options_.measure == types::MeasureTiming::YES) {
    using std::chrono::duration_cast;
    using std::chrono::microseconds;
    const std::uint64_t on_device = device_ns_ / 1000;
    const auto in_driver = static_cast<std::uint64_t>(duration_cast<microseconds>(types::clock::now() - started_).count());
    outcome.timing.timeOnDevice = on_device;
    outcome.timing.timeInDriver = std::max(in_driver, on_device);
  }
  return outcome;
}

/// Driver buffers written as outputs, once some operation ran (an execution that never
/// started leaves them alone): initialized with the shape written when the execution
/// succeeded, uninitialized (contents undefined) when it failed. A result that is not the
/// buffer's shape fails with GENERAL_FAILURE, as does a result too large for its buffer:
/// the client cannot grow a driver buffer, so OUTPUT_INSUFFICIENT_SIZE would not help it.
/// Buffers the client released meanwhile are skipped.
inline void execution::settle_buffers(execution_outcome& outcome) {
  auto fail_with = [&](std::string message) {
    outcome.status = ErrorStatus::GENERAL_FAILURE;
    outcome.message = std::move(message);
    outcome.outputShapes.clear();
    outcome.timing = {};
  };
  for (const auto& [k, weak] : written_buffers_) {
    const auto buf = weak.lock();
    if (!buf || outcome.outputShapes.size() <= k) continue;
    const auto& shape = outcome.outputShapes[k];
    if (outcome.status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE && !shape.isSufficient) {
      fail_with(types::str_cat("output ", k, ": result of shape ", types::format_dims(shape.dimensions),
                               " does not fit driver buffer ", buf->token()));
      break;
    }
    // The allocated shape is fully specified (allocate refuses others), so it must be the result's.
    if (outcome.status == ErrorStatus::NONE && shape.dimensions != buf->allocated_dims()) {
      fail_with(types::str_cat("output ", k, ": result of shape ", types::format_dims(shape.dimensions),
                               " is not the shape ", types::format_dims(buf->allocated_dims()), " of driver buffer ",
                               buf->token()));
      break;
    }
  }
  const bool ok = outcome.status == ErrorStatus::NONE;
  if (ran_)
    for (const auto& [k, weak] : written_buffers_)
      if (const auto buf = weak.lock())
        buf->settle(ok, ok ? std::span<const std::uint32_t>(outcome.outputShapes[k].dimensions)
                           : std::span<const std::uint32_t>{});
  written_buffers_.clear();
}

// ---------------------------------------------------------------------------------------

/// Synchronous execution (IPreparedModel::executeSynchronously) on the calling thread,
/// kernels parallelized through `par`: start, then checkpoint and step until done.
inline execution_outcome execute(const prepared_model& pm, const types::Request& request,
                                 const execute_options& options, parallel_context& par) {
  auto started = execution::lease(pm.shared_from_this(), request, options);
  if (!started) {
    execution_outcome outcome;
    outcome.status = started.err().status;
    outcome.message = std::move(started).err().message;
    return outcome;
  }
  execution& ex = **started;
  while (!ex.done()) {
    if (const ErrorStatus stop = ex.checkpoint(); stop != ErrorStatus::NONE) {
      ex.abort(stop, stop == ErrorStatus::MISSED_DEADLINE_TRANSIENT ? "the execution deadline passed"
                                                                    : "the execution was cancelled");
      break;
    }
    ex.step(par);
  }
  return ex.finish();
}

/// Synchronous execution on the calling thread alone.
inline execution_outcome execute(const prepared_model& pm, const types::Request& request,
                                 const execute_options& options = {}) {
  serial_context serial;
  return execute(pm, request, options, serial);
}

}  // namespace nnhal::exec
