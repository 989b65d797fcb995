// DEQUANTIZE contract (HAL 1.3 types.hal, DEQUANTIZE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct dequantize {
  static constexpr auto op = OperationType::DEQUANTIZE;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // every supported quantized input type to every supported float output type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_SYMM), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_SYMM), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_SYMM_PER_CHANNEL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_SYMM_PER_CHANNEL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_FLOAT32)},
  });
  /// Output shape = input shape; rank <= 4 (zero-sized allowed). Per-channel input: the
  /// channel dimension's extent must match the number of scales.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    if (input.type == T::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const auto* pc = input.channel_quant;
      NNHAL_CHECK(pc != nullptr, ErrorStatus::INVALID_ARGUMENT, "input: no per-channel quantization parameters");
      if (!input.dims.empty() || c.executing) {
        NNHAL_CHECK(pc->channelDim < input.dims.size(), ErrorStatus::INVALID_ARGUMENT, "input: channelDim ",
                    pc->channelDim, " outside rank ", input.dims.size());
        const std::uint32_t channels = input.dims[pc->channelDim];
        NNHAL_CHECK((channels == 0 && !c.executing) || pc->scales.size() == channels, ErrorStatus::INVALID_ARGUMENT,
                    "input: ", pc->scales.size(), " per-channel scales for ", channels, " channels");
      }
    }
    return shapes{dims_t(input.dims.begin(), input.dims.end())};
  }
};

}  // namespace nnhal::types::sig
