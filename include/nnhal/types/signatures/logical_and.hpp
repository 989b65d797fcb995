// LOGICAL_AND contract (HAL 1.3 types.hal, LOGICAL_AND; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_broadcast.hpp"

namespace nnhal::types::sig {

struct logical_and {
  static constexpr auto op = OperationType::LOGICAL_AND;
  enum class in : std::uint8_t { input0, input1 };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_BOOL8), .outputs = outs(T::TENSOR_BOOL8)},
  });
  /// Output = broadcast of the inputs' shapes (rank <= 8, the kernels' limit).
  static result<shapes> infer(const infer_context& c) { return detail::infer_broadcast_pair(c, "input0", "input1"); }
};

}  // namespace nnhal::types::sig
