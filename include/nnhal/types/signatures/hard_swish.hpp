// HARD_SWISH contract (HAL 1.3 types.hal, HARD_SWISH; AIDL keeps it unchanged).
#pragma once

#include <cmath>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct hard_swish {
  static constexpr auto op = OperationType::HARD_SWISH;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // quantized output may have its own scale and zeroPoint.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape (any rank, zero-sized allowed). Quantized: the output may
  /// have its own quantization, but its scale must exceed input scale / 128 (the AOSP CPU
  /// path's fixed-point output multiplier input_scale / 128 / output_scale must stay below
  /// one after rounding to a Q31 mantissa, evaluated here as there, in float).
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& output = c.outputs[0];
    if (is_quantized(input.type)) {
      const float multiplier = (1.0f / 128.0f) * input.scale / output.scale;
      int exponent = 0;
      const double mantissa = std::frexp(static_cast<double>(multiplier), &exponent);
      if (std::llround(mantissa * 2147483648.0) == 2147483648LL) ++exponent;  // rounds up to the next power
      NNHAL_CHECK(!(multiplier > 0.0f) || exponent <= 0, ErrorStatus::INVALID_ARGUMENT, "output: scale ", output.scale,
                  " must exceed input scale / 128 (", input.scale / 128.0f, ")");
    }
    return shapes{dims_t(input.dims.begin(), input.dims.end())};
  }
};

}  // namespace nnhal::types::sig
