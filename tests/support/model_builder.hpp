// Test support: a small fluent builder for valid HAL models and requests, so a test
// can build a valid model in a few lines, break one thing and validate it.
//
//   model_builder b;
//   auto g = b.main();
//   auto x = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
//   auto y = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
//   auto z = g.output(OperandType::TENSOR_FLOAT32, {2, 2});
//   g.op(OperationType::ADD, {x, y, g.i32(0)}, {z});
//   Model m = b.build();  // numberOfConsumers filled in
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nnhal/types/model.hpp"
#include "nnhal/types/request.hpp"
#include "nnhal/types/validate.hpp"

namespace nnhal::test {

using namespace nnhal::types;

/// Builds one subgraph (main or a referenced one) of a model_builder's model. A cheap
/// handle: it names its subgraph by index, so it stays valid as subgraphs are added.
class graph_builder {
 public:
  graph_builder(Model* model, int index) : m_(model), index_(index) {}

  /// The subgraph being built (for tweaks the builder has no verb for).
  Subgraph& subgraph() const { return index_ < 0 ? m_->main : m_->referenced[static_cast<std::size_t>(index_)]; }
  /// Operand `i` of this subgraph.
  Operand& operand(std::uint32_t i) const { return subgraph().operands[i]; }
  std::uint32_t operand_count() const { return static_cast<std::uint32_t>(subgraph().operands.size()); }

  /// Appends `o` as is; returns its index.
  std::uint32_t add(Operand o) const {
    auto& ops = subgraph().operands;
    ops.push_back(std::move(o));
    return static_cast<std::uint32_t>(ops.size() - 1);
  }

  /// A subgraph input (lifetime SUBGRAPH_INPUT, appended to inputIndexes).
  std::uint32_t input(OperandType t, dims_t dims = {}, float scale = 0.0f, std::int32_t zero_point = 0) const {
    const auto i = add(make(t, std::move(dims), scale, zero_point, OperandLifeTime::SUBGRAPH_INPUT));
    subgraph().inputIndexes.push_back(i);
    return i;
  }
  /// A subgraph output (lifetime SUBGRAPH_OUTPUT, appended to outputIndexes).
  std::uint32_t output(OperandType t, dims_t dims = {}, float scale = 0.0f, std::int32_t zero_point = 0) const {
    const auto i = add(make(t, std::move(dims), scale, zero_point, OperandLifeTime::SUBGRAPH_OUTPUT));
    subgraph().outputIndexes.push_back(i);
    return i;
  }
  /// A temporary written by one operation and read by others.
  std::uint32_t temporary(OperandType t, dims_t dims = {}, float scale = 0.0f, std::int32_t zero_point = 0) const {
    return add(make(t, std::move(dims), scale, zero_point, OperandLifeTime::TEMPORARY_VARIABLE));
  }
  /// An omitted optional input (lifetime NO_VALUE).
  std::uint32_t no_value(OperandType t, dims_t dims = {}) const {
    return add(make(t, std::move(dims), 0.0f, 0, OperandLifeTime::NO_VALUE));
  }

  /// A CONSTANT_COPY operand: `values` are appended to the model's operandValues (aligned
  /// to 4 bytes) and the operand's location points at them.
  template <class S>
  std::uint32_t constant(OperandType t, dims_t dims, const std::vector<S>& values, float scale = 0.0f,
                         std::int32_t zero_point = 0) const {
    static_assert(std::is_trivially_copyable_v<S>);
    auto& bytes = m_->operandValues;
    while (bytes.size() % 4 != 0) bytes.push_back(0);
    Operand o = make(t, std::move(dims), scale, zero_point, OperandLifeTime::CONSTANT_COPY);
    o.location.poolIndex = 0;
    o.location.offset = static_cast<std::uint32_t>(bytes.size());
    o.location.length = static_cast<std::uint32_t>(values.size() * sizeof(S));
    bytes.resize(bytes.size() + values.size() * sizeof(S));
    if (!values.empty()) std::memcpy(bytes.data() + o.location.offset, values.data(), values.size() * sizeof(S));
    return add(std::move(o));
  }
  std::uint32_t i32(std::int32_t v) const { return constant(OperandType::INT32, {}, std::vector<std::int32_t>{v}); }
  std::uint32_t f32(float v) const { return constant(OperandType::FLOAT32, {}, std::vector<float>{v}); }
  std::uint32_t boolean(bool v) const {
    return constant(OperandType::BOOL, {}, std::vector<std::uint8_t>{static_cast<std::uint8_t>(v ? 1 : 0)});
  }
  /// A TENSOR_INT32 constant of shape [values.size()].
  std::uint32_t i32_tensor(const std::vector<std::int32_t>& values) const {
    return constant(OperandType::TENSOR_INT32, {static_cast<std::uint32_t>(values.size())}, values);
  }

  /// A CONSTANT_REFERENCE operand at [offset, offset + length) of model pool `pool`.
  std::uint32_t reference(OperandType t, dims_t dims, std::uint32_t pool, std::uint32_t offset,
                          std::uint32_t length, float scale = 0.0f, std::int32_t zero_point = 0) const {
    Operand o = make(t, std::move(dims), scale, zero_point, OperandLifeTime::CONSTANT_REFERENCE);
    o.location = {pool, offset, length};
    return add(std::move(o));
  }

  /// A SUBGRAPH operand referring to model.referenced[index] (for IF / WHILE).
  std::uint32_t subgraph_ref(std::uint32_t index) const {
    Operand o = make(OperandType::SUBGRAPH, {}, 0.0f, 0, OperandLifeTime::SUBGRAPH);
    o.location.offset = index;
    return add(std::move(o));
  }

  /// Appends an operation.
  const graph_builder& op(OperationType t, std::vector<std::uint32_t> inputs,
                          std::vector<std::uint32_t> outputs) const {
    subgraph().operations.push_back(Operation{t, std::move(inputs), std::move(outputs)});
    return *this;
  }

  static Operand make(OperandType t, dims_t dims, float scale, std::int32_t zero_point, OperandLifeTime lifetime) {
    Operand o;
    o.type = t;
    o.dimensions = std::move(dims);
    o.scale = scale;
    o.zeroPoint = zero_point;
    o.lifetime = lifetime;
    return o;
  }

 private:
  Model* m_;
  int index_;  // -1: main
};

/// Builds a whole model: main, referenced subgraphs, constant pools, extensions.
class model_builder {
 public:
  model_builder() = default;
  model_builder(const model_builder&) = delete;  // graph_builders point into this object
  model_builder& operator=(const model_builder&) = delete;

  graph_builder main() { return {&m_, -1}; }
  /// referenced[index], created (with any before it) when missing.
  graph_builder referenced(std::size_t index) {
    if (m_.referenced.size() <= index) m_.referenced.resize(index + 1);
    return {&m_, static_cast<int>(index)};
  }

  /// Adds a zero-filled model pool of `size` bytes; returns its index.
  std::uint32_t pool(std::size_t size) {
    m_.pools.push_back(Memory::allocate(size));
    return static_cast<std::uint32_t>(m_.pools.size() - 1);
  }
  model_builder& relaxed(bool on = true) {
    m_.relaxComputationFloat32toFloat16 = on;
    return *this;
  }
  model_builder& extension(std::string name, std::uint16_t prefix) {
    m_.extensionNameToPrefix.push_back({std::move(name), prefix});
    return *this;
  }

  /// The model as built so far, numberOfConsumers untouched.
  Model& model() { return m_; }

  /// A copy of the model with every operand's numberOfConsumers set to the number of
  /// operation inputs that read it.
  Model build() const {
    Model out = m_;
    count_consumers(out.main);
    for (auto& g : out.referenced) count_consumers(g);
    return out;
  }

  static void count_consumers(Subgraph& g) {
    for (auto& o : g.operands) o.numberOfConsumers = 0;
    for (const auto& op : g.operations)
      for (auto i : op.inputs)
        if (i < g.operands.size()) ++g.operands[i].numberOfConsumers;
  }

 private:
  Model m_;
};

/// out = ADD(a, b, activation) with a, b inputs and out the output, all `type` of shape
/// `dims` (quantized types get scale 0.5, zeroPoint 0 unless given).
inline Model make_add_model(OperandType type = OperandType::TENSOR_FLOAT32, dims_t dims = {2, 2},
                            std::int32_t activation = 0) {
  const float scale = is_quantized(type) ? 0.5f : 0.0f;
  model_builder b;
  auto g = b.main();
  const auto x = g.input(type, dims, scale);
  const auto y = g.input(type, dims, scale);
  const auto z = g.output(type, dims, scale);
  g.op(OperationType::ADD, {x, y, g.i32(activation)}, {z});
  return b.build();
}

/// A valid request for `model`: one pool, each input and output given a slice of it
/// sized for the operand's declared dimensions (`unknown_extent` stands in for 0s).
inline Request make_request(const Model& model, std::uint32_t unknown_extent = 1) {
  Request r;
  std::uint32_t offset = 0;
  auto argument = [&](std::uint32_t operand) {
    const Operand& o = model.main.operands[operand];
    dims_t dims = o.dimensions;
    for (auto& d : dims)
      if (d == 0) d = unknown_extent;
    std::uint64_t bytes = 0;
    if (!operand_byte_size(o.type, dims, bytes)) bytes = 0;
    RequestArgument a;
    a.location = {0, offset, static_cast<std::uint32_t>(bytes)};
    if (dims != o.dimensions) a.dimensions = dims;
    offset += static_cast<std::uint32_t>((bytes + 3) / 4 * 4);
    return a;
  };
  for (auto i : model.main.inputIndexes) r.inputs.push_back(argument(i));
  for (auto i : model.main.outputIndexes) r.outputs.push_back(argument(i));
  r.pools.emplace_back(Memory::allocate(offset));
  return r;
}

}  // namespace nnhal::test
