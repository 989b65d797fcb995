// FLOOR contract (HAL 1.3 types.hal, FLOOR; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct floor {
  static constexpr auto op = OperationType::FLOOR;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
  });
  /// Output shape = input shape; rank <= 4.
  static result<shapes> infer(const infer_context& c) {
    NNHAL_TRY(detail::check_rank_at_most(c.inputs[0], 4, "input"));
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
