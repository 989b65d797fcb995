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

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define NNHAL_HAS_MMAP 1
#endif

#include "nnhal/types/error.hpp"
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
  bool writable = true;  // false: may hold only inputs and constants (a read-only mapping)

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

#ifdef NNHAL_HAS_MMAP
  /// Maps bytes [offset, offset + length) of the shared-memory file `fd` (memfd, ashmem,
  /// a regular file) with MAP_SHARED, read-write unless `writable` is false (then no
  /// request output may be placed in it: INVALID_ARGUMENT at execution). Any offset
  /// works (the mapping starts at the page below it). The mapping holds its own
  /// reference, so `fd` may be closed afterwards. INVALID_ARGUMENT for a bad fd, a zero
  /// length, a range outside the file, or a failed mmap.
  static result<Memory> map_fd(int fd, std::size_t offset, std::size_t length, bool writable = true) {
    NNHAL_CHECK(fd >= 0, ErrorStatus::INVALID_ARGUMENT, "memory pool: bad file descriptor ", fd);
    NNHAL_CHECK(length > 0, ErrorStatus::INVALID_ARGUMENT, "memory pool: zero length");
    NNHAL_CHECK(offset <= SIZE_MAX - length, ErrorStatus::INVALID_ARGUMENT, "memory pool: offset + length overflows");
    struct stat st {};
    NNHAL_CHECK(::fstat(fd, &st) == 0, ErrorStatus::INVALID_ARGUMENT, "memory pool: fd ", fd, " is not open");
    // Past the end of a file a mapping faults on access, so check what can be checked.
    if (S_ISREG(st.st_mode))
      NNHAL_CHECK(st.st_size >= 0 && offset + length <= static_cast<std::uint64_t>(st.st_size),
                  ErrorStatus::INVALID_ARGUMENT, "memory pool: [", offset, ", +", length, ") outside the ",
                  static_cast<std::int64_t>(st.st_size), " bytes of fd ", fd);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    const std::size_t page = page_size > 0 ? static_cast<std::size_t>(page_size) : 4096;
    const std::size_t start = offset / page * page;
    const std::size_t span_bytes = length + (offset - start);
    void* base = ::mmap(nullptr, span_bytes, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd,
                        static_cast<off_t>(start));
    NNHAL_CHECK(base != MAP_FAILED, ErrorStatus::INVALID_ARGUMENT, "memory pool: mmap of fd ", fd, " failed");
    Memory m;
    m.owner = std::shared_ptr<void>(base, [span_bytes](void* p) { ::munmap(p, span_bytes); });
    m.data = static_cast<std::byte*>(base) + (offset - start);
    m.size = length;
    m.writable = writable;
    return m;
  }
#endif
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
