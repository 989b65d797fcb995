// GREATER_EQUAL contract (HAL 1.3 types.hal, GREATER_EQUAL; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_broadcast.hpp"

namespace nnhal::types::sig {

struct greater_equal {
  static constexpr auto op = OperationType::GREATER_EQUAL;
  enum class in : std::uint8_t { input0, input1 };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_BOOL8), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_BOOL8)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_BOOL8)},
  });
  /// Output = broadcast of the inputs' shapes (rank <= 8, the kernels' limit).
  static result<shapes> infer(const infer_context& c) { return detail::infer_broadcast_pair(c, "input0", "input1"); }
};

}  // namespace nnhal::types::sig
