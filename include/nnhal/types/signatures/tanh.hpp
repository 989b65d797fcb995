// TANH contract (HAL 1.3 types.hal, TANH; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

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
  /// Output shape = input shape; rank <= 4. Quantized: the output scale and zero point are
  /// fixed (1/128 with zero point 128, or 0 for TENSOR_QUANT8_ASYMM_SIGNED);
  /// the input scale must make the fixed-point rescaling multiplier scale * 2^27 exceed one
  /// (the AOSP CPU path rejects smaller scales).
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& output = c.outputs[0];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    if (is_quantized(input.type)) {
      const bool is_signed = input.type == T::TENSOR_QUANT8_ASYMM_SIGNED;
      const std::int32_t zp = is_signed ? 0 : 128;
      NNHAL_CHECK(output.scale == 1.0f / 128 && output.zero_point == zp, ErrorStatus::INVALID_ARGUMENT,
                  "output: scale ", output.scale, " / zeroPoint ", output.zero_point, " must be 1/128 / ", zp);
      NNHAL_CHECK(static_cast<double>(input.scale) * (1 << 27) > 1.0, ErrorStatus::INVALID_ARGUMENT, "input: scale ",
                  input.scale, " is below the 2^-27 the fixed-point path needs");
    }
    return shapes{dims_t(input.dims.begin(), input.dims.end())};
  }
};

}  // namespace nnhal::types::sig
