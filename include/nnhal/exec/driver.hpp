// The first execution path: the support query, prepare (validate, bind one kernel per
// operation, place constants) and synchronous execution in operation order with shape
// inference at run time. The coroutine executor replaces execute() behind the same API.
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "nnhal/exec/parallel.hpp"
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
};

struct execute_options {
  types::MeasureTiming measure = types::MeasureTiming::NO;
  types::OptionalTimePoint deadline;
  std::chrono::nanoseconds loop_timeout = types::LOOP_TIMEOUT_DEFAULT;
};

/// What an execution reports (IPreparedModel::executeSynchronously's results).
struct execution_outcome {
  ErrorStatus status = ErrorStatus::NONE;
  std::string message;                          // empty when status == NONE
  std::vector<types::OutputShape> outputShapes;  // on NONE and OUTPUT_INSUFFICIENT_SIZE
  types::Timing timing;
};

namespace detail {

/// Bytes of `d` (execution: every extent known, 0 means zero-sized).
inline std::size_t byte_size(types::OperandType t, std::span<const std::uint32_t> d) {
  std::size_t n = types::type_info(t).element_size;
  if (types::is_tensor(t))
    for (auto e : d) n *= e;
  return n;
}

/// Validation-time view of main's operand `i` (constants carry their value).
inline types::sig::operand_desc describe_static(const types::Model& m, std::uint32_t i, const std::byte* value) {
  const types::Operand& o = m.main.operands[i];
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

}  // namespace detail

/// A model ready to execute: immutable after prepare, so many executions may share it.
class prepared_model {
 public:
  const types::Model& model() const noexcept { return model_; }

 private:
  friend result<std::shared_ptr<const prepared_model>> prepare(const types::Model&, const prepare_options&);
  friend execution_outcome execute(const prepared_model&, const types::Request&, const execute_options&);

  struct step {
    ops::kernel run;
    types::sig::infer_fn infer = nullptr;
  };
  types::Model model_;
  std::vector<step> steps_;
  std::vector<const std::byte*> constants_;             // per main operand; nullptr if not constant
  std::vector<std::unique_ptr<std::byte[]>> realigned_;  // copies of constants stored misaligned
};

/// getSupportedOperations: one flag per operation of the main subgraph. A flag is true
/// only when a kernel exists for that operation with these operand types.
inline result<std::vector<bool>> supported_operations(const types::Model& model) {
  auto valid = types::validate_model(model);
  if (!valid) return std::move(valid).err();
  std::vector<bool> flags;
  flags.reserve(model.main.operations.size());
  for (const auto& op : model.main.operations) {
    std::vector<types::sig::operand_desc> in, out;
    for (auto i : op.inputs)
      in.push_back(detail::describe_static(model, i, detail::constant_bytes(model, model.main.operands[i])));
    for (auto o : op.outputs) out.push_back(detail::describe_static(model, o, nullptr));
    flags.push_back(ops::bind(ops::bind_context{op, in, out, model.relaxComputationFloat32toFloat16}).ok());
  }
  return flags;
}

/// Validates the model, binds a kernel per operation and places constants.
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
  const types::Model& m = pm->model_;
  const auto& operands = m.main.operands;
  pm->constants_.assign(operands.size(), nullptr);
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
    pm->constants_[i] = p;
  }
  for (std::size_t k = 0; k < m.main.operations.size(); ++k) {
    const auto& op = m.main.operations[k];
    std::vector<types::sig::operand_desc> in, out;
    for (auto i : op.inputs) in.push_back(detail::describe_static(m, i, pm->constants_[i]));
    for (auto o : op.outputs) out.push_back(detail::describe_static(m, o, nullptr));
    auto bound = ops::bind(ops::bind_context{op, in, out, m.relaxComputationFloat32toFloat16});
    if (!bound)
      return types::make_error(ErrorStatus::INVALID_ARGUMENT, "operation ", k, ": ", bound.err().message);
    const types::op_entry* e = types::find_operation(op.type);
    pm->steps_.push_back({std::move(*bound), e ? e->infer : nullptr});
  }
  return std::shared_ptr<const prepared_model>(std::move(pm));
}

/// Synchronous execution (IPreparedModel::executeSynchronously).
inline execution_outcome execute(const prepared_model& pm, const types::Request& request,
                                 const execute_options& options = {}) {
  using types::OperandLifeTime;
  const auto started = types::clock::now();
  execution_outcome outcome;
  auto fail = [&](ErrorStatus s, std::string msg) {
    outcome.status = s;
    outcome.message = std::move(msg);
    outcome.outputShapes.clear();
    outcome.timing = {};
    return outcome;
  };
  if (options.deadline && *options.deadline <= started)
    return fail(ErrorStatus::MISSED_DEADLINE_TRANSIENT, "the execution deadline has passed");
  const types::Model& m = pm.model_;
  if (auto ok = types::validate_request(request, m); !ok) return fail(ok.status(), ok.err().message);

  struct rt_operand {
    types::dims_t dims;
    std::byte* data = nullptr;
    std::size_t capacity = 0;
    bool omitted = false;
    std::unique_ptr<std::byte[]> owned;
  };
  const auto& operands = m.main.operands;
  std::vector<rt_operand> rt(operands.size());
  auto pool_bytes = [&](const types::DataLocation& loc) {
    return std::get<types::Memory>(request.pools[loc.poolIndex]).data + loc.offset;
  };
  for (std::size_t i = 0; i < operands.size(); ++i) {
    rt[i].dims = operands[i].dimensions;
    rt[i].omitted = operands[i].lifetime == OperandLifeTime::NO_VALUE;
    if (pm.constants_[i]) {
      rt[i].data = const_cast<std::byte*>(pm.constants_[i]);  // read-only: constants are never outputs
      rt[i].capacity = operands[i].location.length;
    }
  }
  for (std::size_t k = 0; k < request.inputs.size(); ++k) {
    const auto& arg = request.inputs[k];
    auto& r = rt[m.main.inputIndexes[k]];
    const auto type = operands[m.main.inputIndexes[k]].type;
    if (arg.hasNoValue) {
      r.omitted = true;
      continue;
    }
    if (!arg.dimensions.empty()) r.dims = arg.dimensions;
    r.data = pool_bytes(arg.location);
    r.capacity = detail::byte_size(type, r.dims);
    if (!detail::aligned_for(r.data, type)) {
      r.owned = std::make_unique<std::byte[]>(r.capacity + 1);
      std::memcpy(r.owned.get(), r.data, r.capacity);
      r.data = r.owned.get();
    }
  }
  std::vector<bool> insufficient(request.outputs.size(), false);
  std::vector<int> output_slot(operands.size(), -1);
  for (std::size_t k = 0; k < request.outputs.size(); ++k) {
    const auto& arg = request.outputs[k];
    auto& r = rt[m.main.outputIndexes[k]];
    output_slot[m.main.outputIndexes[k]] = static_cast<int>(k);
    if (!arg.dimensions.empty()) r.dims = arg.dimensions;
    if (!arg.hasNoValue) {
      r.data = pool_bytes(arg.location);
      r.capacity = arg.location.length;
    }
  }

  const auto device_start = types::clock::now();
  serial_context serial;
  for (std::size_t s = 0; s < pm.steps_.size(); ++s) {
    const auto& op = m.main.operations[s];
    std::vector<types::sig::operand_desc> in(op.inputs.size()), out(op.outputs.size());
    for (std::size_t j = 0; j < op.inputs.size(); ++j) {
      const auto i = op.inputs[j];
      const auto& o = operands[i];
      auto& d = in[j];
      d.type = o.type;
      d.dims = rt[i].dims;
      d.scale = o.scale;
      d.zero_point = o.zeroPoint;
      d.channel_quant = std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams);
      d.omitted = rt[i].omitted;
      d.value = rt[i].omitted ? nullptr : rt[i].data;
      d.value_size = rt[i].omitted ? 0 : detail::byte_size(o.type, rt[i].dims);
    }
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
      const auto& o = operands[op.outputs[j]];
      out[j] = {o.type, rt[op.outputs[j]].dims, o.scale, o.zeroPoint,
                std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams)};
    }
    std::vector<types::dims_t> shapes;
    if (pm.steps_[s].infer) {
      auto inferred = pm.steps_[s].infer(types::sig::infer_context{op.type, in, out, true, nullptr});
      if (!inferred)
        return fail(ErrorStatus::INVALID_ARGUMENT,
                    types::str_cat("operation ", s, " (", to_string(op.type), "): ", inferred.err().message));
      shapes = std::move(*inferred);
    } else {
      for (auto& d : out) shapes.emplace_back(d.dims.begin(), d.dims.end());
    }
    std::vector<std::byte*> out_data(op.outputs.size());
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
      const auto oi = op.outputs[j];
      auto& r = rt[oi];
      const auto& declared = r.dims;
      const auto& got = shapes[j];
      bool compatible = declared.empty() || declared.size() == got.size();
      for (std::size_t d = 0; compatible && d < declared.size(); ++d)
        compatible = declared[d] == 0 || declared[d] == got[d];
      if (!compatible)
        return fail(ErrorStatus::INVALID_ARGUMENT,
                    types::str_cat("operation ", s, " (", to_string(op.type), "): output ", j, " has shape ",
                                   types::format_dims(got), " but was declared ", types::format_dims(declared, true)));
      r.dims = got;
      const std::size_t need = detail::byte_size(operands[oi].type, got);
      const bool is_model_output = output_slot[oi] >= 0;
      if (is_model_output && r.data && r.capacity >= need && detail::aligned_for(r.data, operands[oi].type)) {
        out_data[j] = r.data;
        continue;
      }
      if (is_model_output && (r.capacity < need || !r.data) &&
          !request.outputs[static_cast<std::size_t>(output_slot[oi])].hasNoValue)
        insufficient[static_cast<std::size_t>(output_slot[oi])] = true;
      // Temporaries, and model outputs that are too small or misaligned, run in our own memory.
      r.owned = std::make_unique<std::byte[]>(need + 1);
      out_data[j] = r.owned.get();
      if (!is_model_output) {
        r.data = r.owned.get();
        r.capacity = need;
      }
    }
    // Model outputs computed in our memory are read from there by later operations.
    std::vector<std::byte*> user_data(op.outputs.size());
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
      auto& r = rt[op.outputs[j]];
      user_data[j] = r.data;
      if (r.owned && out_data[j] == r.owned.get()) r.data = r.owned.get();
    }
    for (std::size_t j = 0; j < op.outputs.size(); ++j) out[j].dims = rt[op.outputs[j]].dims;
    pm.steps_[s].run(ops::kernel_io{in, out, out_data, &serial});
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
      const auto oi = op.outputs[j];
      const int slot = output_slot[oi];
      if (slot < 0 || insufficient[static_cast<std::size_t>(slot)] || !user_data[j] || out_data[j] == user_data[j])
        continue;
      // A misaligned but large enough user buffer: copy the result over.
      std::memcpy(user_data[j], out_data[j], detail::byte_size(operands[oi].type, rt[oi].dims));
    }
  }
  const auto device_end = types::clock::now();

  bool any_insufficient = false;
  outcome.outputShapes.resize(request.outputs.size());
  for (std::size_t k = 0; k < request.outputs.size(); ++k) {
    outcome.outputShapes[k].dimensions = rt[m.main.outputIndexes[k]].dims;
    outcome.outputShapes[k].isSufficient = !insufficient[k];
    any_insufficient = any_insufficient || insufficient[k];
  }
  if (any_insufficient) {
    outcome.status = ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
    outcome.message = "an output buffer is too small for its result";
    return outcome;
  }
  if (options.measure == types::MeasureTiming::YES) {
    using std::chrono::duration_cast;
    using std::chrono::microseconds;
    outcome.timing.timeOnDevice = static_cast<std::uint64_t>(duration_cast<microseconds>(device_end - device_start).count());
    outcome.timing.timeInDriver = static_cast<std::uint64_t>(duration_cast<microseconds>(types::clock::now() - started).count());
  }
  return outcome;
}

}  // namespace nnhal::exec
