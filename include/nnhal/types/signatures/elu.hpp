// ELU contract (HAL 1.3 types.hal, ELU; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct elu {
  static constexpr auto op = OperationType::ELU;
  enum class in : std::uint8_t { input, alpha };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // alpha is FLOAT16 for a TENSOR_FLOAT16 input and FLOAT32 for TENSOR_FLOAT32.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
  });
  /// Output shape = input shape (any rank, zero-sized allowed). alpha may be any value.
  static result<shapes> infer(const infer_context& c) {
    return shapes{dims_t(c.inputs[0].dims.begin(), c.inputs[0].dims.end())};
  }
};

}  // namespace nnhal::types::sig
