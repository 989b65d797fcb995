// LOGISTIC contract (HAL 1.3 types.hal, LOGISTIC; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

namespace detail {

/// LOGISTIC and TANH: output shape = input shape, rank <= 4. Quantized: the output's scale
/// and zero point are fixed (1/scale_denominator; unsigned_zero_point for
/// TENSOR_QUANT8_ASYMM, 128 less for TENSOR_QUANT8_ASYMM_SIGNED), and the input scale must
/// make the fixed-point rescaling multiplier scale * 2^27 exceed one (the AOSP CPU path
/// rejects smaller scales).
inline result<shapes> infer_squashing(const infer_context& c, int scale_denominator, std::int32_t unsigned_zero_point) {
  const auto& input = c.inputs[0];
  const auto& output = c.outputs[0];
  NNHAL_TRY(check_rank_at_most(input, 4, "input"));
  if (is_quantized(input.type)) {
    const std::int32_t zp = input.type == T::TENSOR_QUANT8_ASYMM_SIGNED ? unsigned_zero_point - 128 : unsigned_zero_point;
    NNHAL_CHECK(output.scale == 1.0f / static_cast<float>(scale_denominator) && output.zero_point == zp,
                ErrorStatus::INVALID_ARGUMENT, "output: scale ", output.scale, " / zeroPoint ", output.zero_point,
                " must be 1/", scale_denominator, " / ", zp);
    NNHAL_CHECK(static_cast<double>(input.scale) * (1 << 27) > 1.0, ErrorStatus::INVALID_ARGUMENT, "input: scale ",
                input.scale, " is below the 2^-27 the fixed-point path needs");
  }
  return shapes{dims_t(input.dims.begin(), input.dims.end())};
}

}  // namespace detail

struct logistic {
  static constexpr auto op = OperationType::LOGISTIC;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // quantized output: scale 1/256, zeroPoint 0 (unsigned) or -128 (signed).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Output shape = input shape; rank <= 4. Quantized: output scale 1/256, zero point 0
  /// (unsigned) or -128 (signed); input scale * 2^27 > 1.
  static result<shapes> infer(const infer_context& c) { return detail::infer_squashing(c, 256, 0); }
};

}  // namespace nnhal::types::sig
