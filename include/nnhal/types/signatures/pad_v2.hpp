// PAD_V2 contract (HAL 1.3 types.hal, PAD_V2; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct pad_v2 {
  static constexpr auto op = OperationType::PAD_V2;
  enum class in : std::uint8_t { input, paddings, pad_value };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // pad_value follows the tensor: FLOAT16 / FLOAT32 for float tensors, INT32 (a quantized
      // value with input0's scale and zeroPoint) for the 8-bit quantized tensors.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// As PAD, padding with pad_value. A quantized pad value is a stored value of input0's
  /// type: it must lie in that type's range (HAL: "scale and zeroPoint are assumed to be the
  /// same as in input0"), so the output needs no requantization.
  static result<shapes> infer(const infer_context& c) {
    const auto& in = c.inputs[0];
    if (is_quantized(in.type)) {
      if (auto v = c.inputs[2].scalar<std::int32_t>()) {
        const auto info = type_info(in.type);
        NNHAL_CHECK(*v >= info.zero_point_min && *v <= info.zero_point_max, ErrorStatus::INVALID_ARGUMENT,
                    "pad_value: ", *v, " outside [", info.zero_point_min, ", ", info.zero_point_max, "] of ", in.type);
      }
    }
    return detail::spatial::infer_pad(c, 4);
  }
};

}  // namespace nnhal::types::sig
