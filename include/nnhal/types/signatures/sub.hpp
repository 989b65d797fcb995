// SUB contract (HAL 1.3 types.hal, SUB; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_broadcast.hpp"

namespace nnhal::types::sig {

struct sub {
  static constexpr auto op = OperationType::SUB;
  enum class in : std::uint8_t { input0, input1, activation };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      // activation must be NONE for TENSOR_INT32.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  /// Output = broadcast of the inputs' shapes; rank <= 4; TENSOR_INT32 needs activation NONE.
  static result<shapes> infer(const infer_context& c) { return detail::infer_broadcast_activation(c); }
};

}  // namespace nnhal::types::sig
