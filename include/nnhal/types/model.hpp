// Model, Subgraph, Operand, Operation, DataLocation and memory pools (HAL 1.3 types.hal).
// Struct and field names follow the HAL so a driver maps its HIDL/AIDL objects 1:1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "nnhal/types/operand_type.hpp"
#include "nnhal/types/operation_type.hpp"

namespace nnhal::types {

/// Where an operand's or argument's bytes live: pool `poolIndex`, [offset, offset + length).
struct DataLocation {
  std::uint32_t poolIndex = 0;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
};

/// TENSOR_QUANT8_SYMM_PER_CHANNEL parameters: one scale per slice along `channelDim`.
struct SymmPerChannelQuantParams {
  std::vector<float> scales;
  std::uint32_t channelDim = 0;
};

/// Operand::extraParams: none, per-channel quantization, or opaque extension data.
using ExtraParams = std::variant<std::monostate, SymmPerChannelQuantParams, std::vector<std::uint8_t>>;

struct Operand {
  OperandType type = OperandType::FLOAT32;
  std::vector<std::uint32_t> dimensions;  // empty: scalar or unknown rank; 0 extent: unknown
  std::uint32_t numberOfConsumers = 0;
  float scale = 0.0f;
  std::int32_t zeroPoint = 0;
  OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
  DataLocation location;
  ExtraParams extraParams;
};

struct Operation {
  OperationType type = OperationType::ADD;
  std::vector<std::uint32_t> inputs;
  std::vector<std::uint32_t> outputs;
};

struct Subgraph {
  std::vector<Operand> operands;
  std::vector<Operation> operations;
  std::vector<std::uint32_t> inputIndexes;
  std::vector<std::uint32_t> outputIndexes;
};

/// A block of memory shared with the driver (hidl_memory / AIDL Memory). The bytes stay
/// alive while any copy of the Memory exists. nnhal never reads outside [data, data + size).
struct Memory {
  std::shared_ptr<void> owner;  // keeps the mapping or allocation alive
  std::byte* data = nullptr;
  std::size_t size = 0;

  std::span<std::byte> bytes() const noexcept { return {data, size}; }

  /// A zero-filled heap block of `n` bytes (tests, tools, the CTS runner).
  static Memory allocate(std::size_t n) {
    auto block = std::shared_ptr<std::byte[]>(new std::byte[n == 0 ? 1 : n]());
    Memory m;
    m.data = block.get();
    m.size = n;
    m.owner = std::move(block);
    return m;
  }
};

struct ExtensionNameAndPrefix {
  std::string name;
  std::uint16_t prefix = 0;
};

struct Model {
  Subgraph main;
  std::vector<Subgraph> referenced;            // graphs that IF/WHILE refer to by index
  std::vector<std::uint8_t> operandValues;     // CONSTANT_COPY bytes
  std::vector<Memory> pools;                   // CONSTANT_REFERENCE bytes
  bool relaxComputationFloat32toFloat16 = false;
  std::vector<ExtensionNameAndPrefix> extensionNameToPrefix;
};

}  // namespace nnhal::types
