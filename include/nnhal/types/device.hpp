// Device-level HAL types: Priority, ExecutionPreference, deadlines, Capabilities,
// DeviceType, extensions, the cache token and the HAL's numeric constants.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nnhal/types/operand_type.hpp"

namespace nnhal::types {

enum class Priority : std::int32_t { LOW = 0, MEDIUM = 1, HIGH = 2 };
inline constexpr Priority default_priority = Priority::MEDIUM;
constexpr bool is_valid(Priority p) noexcept {
  return p == Priority::LOW || p == Priority::MEDIUM || p == Priority::HIGH;
}

enum class ExecutionPreference : std::int32_t { LOW_POWER = 0, FAST_SINGLE_ANSWER = 1, SUSTAINED_SPEED = 2 };
constexpr bool is_valid(ExecutionPreference p) noexcept {
  return p == ExecutionPreference::LOW_POWER || p == ExecutionPreference::FAST_SINGLE_ANSWER ||
         p == ExecutionPreference::SUSTAINED_SPEED;
}

enum class DeviceType : std::int32_t { OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };

/// Deadlines are points on the steady clock (the HAL's OptionalTimePoint counts
/// nanoseconds since boot); an empty optional means "no deadline".
using clock = std::chrono::steady_clock;
using time_point = clock::time_point;
using OptionalTimePoint = std::optional<time_point>;
using OptionalTimeoutDuration = std::optional<std::chrono::nanoseconds>;

/// Relative cost versus the CPU reference: lower is better; 1.0 is the CPU.
struct PerformanceInfo {
  float execTime = 1.0f;
  float powerUsage = 1.0f;
};

struct OperandPerformance {
  OperandType type = OperandType::FLOAT32;
  PerformanceInfo info;
};

struct Capabilities {
  PerformanceInfo relaxedFloat32toFloat16PerformanceScalar;
  PerformanceInfo relaxedFloat32toFloat16PerformanceTensor;
  std::vector<OperandPerformance> operandPerformance;  // sorted by type, no duplicates
  PerformanceInfo ifPerformance;
  PerformanceInfo whilePerformance;
};

struct ExtensionOperandTypeInformation {
  std::uint16_t type = 0;
  bool isTensor = false;
  std::uint32_t byteSize = 0;  // element size for tensors, whole size for scalars
};

struct Extension {
  std::string name;
  std::vector<ExtensionOperandTypeInformation> operandTypes;
};

/// HAL constants (Constant enum of 1.2/1.3 and the AIDL IDevice/IPreparedModel constants).
inline constexpr std::size_t BYTE_SIZE_OF_CACHE_TOKEN = 32;
inline constexpr std::uint32_t MAX_NUMBER_OF_CACHE_FILES = 32;
inline constexpr std::chrono::nanoseconds LOOP_TIMEOUT_DEFAULT = std::chrono::seconds(2);
inline constexpr std::chrono::nanoseconds LOOP_TIMEOUT_MAXIMUM = std::chrono::seconds(15);
inline constexpr std::uint32_t EXTENSION_TYPE_HIGH_BITS_PREFIX = 16;
inline constexpr std::uint32_t EXTENSION_TYPE_LOW_BITS_TYPE = 16;

using CacheToken = std::array<std::uint8_t, BYTE_SIZE_OF_CACHE_TOKEN>;

}  // namespace nnhal::types
