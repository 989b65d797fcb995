// The driver-facing entry points: the support query, prepare (exec/prepared_model.hpp)
// and synchronous execution (exec/execution.hpp, which also holds the step interface
// the asynchronous runtime drives).
#pragma once

#include <vector>

#include "nnhal/exec/execution.hpp"
#include "nnhal/exec/parallel.hpp"
#include "nnhal/exec/prepared_model.hpp"

namespace nnhal::exec {

/// getSupportedOperations: one flag per operation of the main subgraph. A flag is true
/// only when a kernel exists for that operation with these operand types; for IF and
/// WHILE, when every operation of the subgraphs they may run is supported.
inline result<std::vector<bool>> supported_operations(const types::Model& model) {
  auto valid = types::validate_model(model);
  if (!valid) return std::move(valid).err();
  std::vector<bool> flags;
  flags.reserve(model.main.operations.size());
  std::vector<std::int8_t> memo(model.referenced.size() + 1, -1);
  for (const auto& op : model.main.operations) flags.push_back(detail::operation_supported(model, model.main, op, memo));
  return flags;
}

}  // namespace nnhal::exec
