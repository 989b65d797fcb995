// L2_NORMALIZATION contract (HAL 1.3 types.hal, L2_NORMALIZATION; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"  // detail::axis_norm

namespace nnhal::types::sig {

struct l2_normalization {
  static constexpr auto op = OperationType::L2_NORMALIZATION;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The trailing axis (default -1) is optional and arrived in 1.2, as did ranks other than 4.
      // A model passing the default axis is stripped of it by the upstream runtime and stays 1.0.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .required = 1},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .required = 1},
      // QUANT8 outputs: scale 1/128, zeroPoint 128 (unsigned) or 0 (signed).
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 1},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 1},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (axis -1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::INT32, -1}});

  /// Output = input shape; rank 1..4 (other than 4 only since 1.2); axis in
  /// [-rank, rank); quantized output scale 1/128, zeroPoint 128 / 0.
  static result<shapes> infer(const infer_context& c) {
    namespace an = detail::axis_norm;
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 128, 128, "1/128"));
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM_SIGNED)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 128, 0, "1/128"));
    an::raise_for_rank(c, {4});
    return an::infer_along_axis(c, 1, 4);
  }
};

}  // namespace nnhal::types::sig
