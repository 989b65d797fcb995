// TANH contract (HAL 1.3 types.hal, TANH; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/logistic.hpp"  // detail::infer_squashing

namespace nnhal::types::sig {

struct tanh {
  static constexpr auto op = OperationType::TANH;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // quantized output: scale 1/128, zeroPoint 128 (unsigned) or 0 (signed).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape; rank <= 4. Quantized: output scale 1/128, zero point 128
  /// (unsigned) or 0 (signed); input scale * 2^27 > 1.
  static result<shapes> infer(const infer_context& c) { return detail::infer_squashing(c, 128, 128); }
};

}  // namespace nnhal::types::sig
