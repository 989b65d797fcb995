// The parts of op_runner.hpp that bind kernels and prepare models, compiled once for all
// test executables (library nnhal_test_support).
#include "support/op_runner.hpp"

#include "nnhal/exec/driver.hpp"
#include "nnhal/ops/registry.hpp"

namespace nnhal::test::op {

kernel_result run_kernel(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls,
                         nnhal::exec::parallel_context* par) {
  kernel_result r;
  auto shapes = infer(op, ins, out_decls, true);
  if (!shapes) {
    r.error = "infer: " + shapes.err().message;
    return r;
  }
  std::vector<operand_desc> in = descs_of(ins);
  channel_params cp;
  cp.attach(ins, in);
  guarded_outputs g(out_decls, *shapes);
  ty::Operation operation;
  operation.type = op;
  for (std::size_t i = 0; i < ins.size(); ++i) operation.inputs.push_back(static_cast<std::uint32_t>(i));
  for (std::size_t j = 0; j < g.descs.size(); ++j)
    operation.outputs.push_back(static_cast<std::uint32_t>(ins.size() + j));
  std::vector<operand_desc> bind_in = in;
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (!ins[i].bind_sees_value) {
      bind_in[i].value = nullptr;
      bind_in[i].value_size = 0;
    }
  auto k = nnhal::ops::bind(nnhal::ops::bind_context{operation, bind_in, g.descs, false});
  if (!k) {
    r.error = "bind: " + k.err().message;
    return r;
  }
  nnhal::exec::serial_context serial;
  (*k)(nnhal::ops::kernel_io{in, g.descs, g.data, par ? par : &serial});
  r.guards_intact = g.finish();
  r.outs = std::move(g.outs);
  r.ok = true;
  return r;
}

std::string bind_error(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls) {
  std::vector<operand_desc> in = descs_of(ins);
  channel_params cp;
  cp.attach(ins, in);
  std::vector<operand_desc> outs = descs_of(out_decls);
  ty::Operation operation;
  operation.type = op;
  for (std::size_t i = 0; i < ins.size(); ++i) operation.inputs.push_back(static_cast<std::uint32_t>(i));
  for (std::size_t j = 0; j < outs.size(); ++j) operation.outputs.push_back(static_cast<std::uint32_t>(ins.size() + j));
  auto k = nnhal::ops::bind(nnhal::ops::bind_context{operation, in, outs, false});
  return k ? std::string() : k.err().message;
}

namespace {

/// Lays `inputs` out in one pool and gives every output of `model` a pool of its own
/// (see request_layout); returns the request (pool 0 inputs, pool 1 + j output j).
ty::Request make_request(const ty::Model& model, const std::vector<tensor>& inputs, const request_layout& l) {
  std::size_t total = 0;
  std::vector<std::uint32_t> offsets;
  for (const auto& t : inputs) {
    total = (total + 7) / 8 * 8 + l.in_misalign;
    offsets.push_back(static_cast<std::uint32_t>(total));
    total += t.bytes.size();
  }
  ty::Memory in_pool = ty::Memory::allocate(total + 8);
  ty::Request req;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& t = inputs[k];
    ty::RequestArgument a;
    if (t.omitted) {
      a.hasNoValue = true;
    } else {
      if (!t.bytes.empty()) std::memcpy(in_pool.data + offsets[k], t.bytes.data(), t.bytes.size());
      a.location = {0, offsets[k], static_cast<std::uint32_t>(t.bytes.size())};
      // Extents the model leaves unknown arrive with the request.
      if (k < model.main.inputIndexes.size() && model.main.operands[model.main.inputIndexes[k]].dimensions != t.dims)
        a.dimensions = t.dims;
    }
    req.inputs.push_back(a);
  }
  req.pools = {in_pool};
  for (std::size_t j = 0; j < model.main.outputIndexes.size(); ++j) {
    req.pools.push_back(ty::Memory::allocate(l.out_misalign + l.capacity));
    ty::RequestArgument o;
    o.location = {static_cast<std::uint32_t>(j + 1), l.out_misalign, l.capacity};
    req.outputs.push_back(o);
  }
  return req;
}

/// Executes `req` on a prepared `model`; outputs typed by the model's output operands.
model_result execute_request(const ty::Model& model, const ty::Request& req, const request_layout& l) {
  model_result r;
  auto pm = nnhal::exec::prepare(model);
  if (!pm) {
    r.status = pm.status();
    r.message = "prepare: " + pm.err().message;
    return r;
  }
  const auto outcome = nnhal::exec::execute(**pm, req);
  r.status = outcome.status;
  r.message = outcome.message;
  if (outcome.status != ty::ErrorStatus::NONE) return r;
  const auto& outs = model.main.outputIndexes;
  REQUIRE(outcome.outputShapes.size() == outs.size());
  for (std::size_t j = 0; j < outs.size(); ++j) {
    const ty::Operand& o = model.main.operands[outs[j]];
    tensor t = make_tensor(o.type, outcome.outputShapes[j].dimensions, o.scale, o.zeroPoint);
    REQUIRE(t.bytes.size() <= l.capacity);
    if (!t.bytes.empty())
      std::memcpy(t.bytes.data(), std::get<ty::Memory>(req.pools[j + 1]).data + l.out_misalign, t.bytes.size());
    r.outs.push_back(std::move(t));
  }
  return r;
}

}  // namespace

model_result run_model(const one_op_model& m, std::uint32_t capacity) {
  return run_model_with(m, request_layout{.capacity = capacity});
}

model_result run_model_with(const one_op_model& m, const request_layout& layout) {
  return execute_request(m.model, make_request(m.model, m.inputs, layout), layout);
}

model_result run_any_model(const ty::Model& model, const std::vector<tensor>& inputs, std::uint32_t capacity) {
  const request_layout layout{.capacity = capacity};
  return execute_request(model, make_request(model, inputs, layout), layout);
}

model_result prepare_only(const ty::Model& model) {
  model_result r;
  auto pm = nnhal::exec::prepare(model);
  if (!pm) {
    r.status = pm.status();
    r.message = pm.err().message;
  }
  return r;
}

support_result supported(const ty::Model& model) {
  support_result r;
  auto flags = nnhal::exec::supported_operations(model);
  if (!flags) {
    r.status = flags.status();
    r.message = flags.err().message;
  } else {
    r.flags = std::move(*flags);
  }
  return r;
}

}  // namespace nnhal::test::op
