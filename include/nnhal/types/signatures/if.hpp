// IF contract (HAL 1.3 types.hal, IF; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct if_ {
  static constexpr auto op = OperationType::IF;
  enum class in : std::uint8_t { condition, then_model, else_model, input };  // input repeats
  enum class out : std::uint8_t { output };                                   // output repeats
  static constexpr auto rows = std::to_array<row>({
      // condition: TENSOR_BOOL8 of shape [1]. Inputs 3 ~ (n + 2) (n >= 0) and outputs
      // 0 ~ (m - 1) (m >= 1) take any type; that they agree with both branch subgraphs' inputs
      // and outputs is checked by control-flow validation.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_BOOL8, T::SUBGRAPH, T::SUBGRAPH, any_type), .outputs = outs(any_type), .repeat_in = 3, .repeat_in_min = 0, .repeat_out = 0},
  });
};

}  // namespace nnhal::types::sig
