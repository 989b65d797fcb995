// EXP contract (HAL 1.3 types.hal, EXP; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct exp {
  static constexpr auto op = OperationType::EXP;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
  });
  /// Output shape = input shape (any rank).
  static result<shapes> infer(const infer_context& c) {
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
