// WHILE contract (HAL 1.3 types.hal, WHILE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct while_ {
  static constexpr auto op = OperationType::WHILE;
  enum class in : std::uint8_t { condition_model, body_model, input };  // input repeats
  enum class out : std::uint8_t { output };                             // output repeats
  static constexpr auto rows = std::to_array<row>({
      // Inputs 2 ~ (m + k + n + 1) (m >= 1) and outputs 0 ~ (m - 1) take any type; the split
      // into input-output, state-only and input-only operands, and the agreement with the
      // condition and body subgraphs, is checked by control-flow validation.
      {.since = V::V1_3, .inputs = ins(T::SUBGRAPH, T::SUBGRAPH, any_type), .outputs = outs(any_type), .repeat_in = 2, .repeat_out = 0},
  });
};

}  // namespace nnhal::types::sig
