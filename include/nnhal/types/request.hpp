// Request, RequestArgument, request memory pools, OutputShape, Timing and MeasureTiming
// (HAL 1.3 types.hal).
#pragma once

#include <cstdint>
#include <limits>
#include <variant>
#include <vector>

#include "nnhal/types/model.hpp"

namespace nnhal::types {

struct RequestArgument {
  bool hasNoValue = false;                 // an omitted optional input / unused output
  DataLocation location;
  std::vector<std::uint32_t> dimensions;   // empty: use the model's; else must be compatible
};

/// HAL 1.3 Request::MemoryPool: shared memory, or a token naming a driver-managed buffer
/// (IDevice::allocate).
using MemoryPool = std::variant<Memory, std::uint32_t>;

struct Request {
  std::vector<RequestArgument> inputs;
  std::vector<RequestArgument> outputs;
  std::vector<MemoryPool> pools;
};

struct OutputShape {
  std::vector<std::uint32_t> dimensions;
  bool isSufficient = true;
};

enum class MeasureTiming : std::int32_t { NO = 0, YES = 1 };

/// Durations in microseconds; UINT64_MAX means "not available".
struct Timing {
  static constexpr std::uint64_t not_available = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t timeOnDevice = not_available;
  std::uint64_t timeInDriver = not_available;
};

}  // namespace nnhal::types
