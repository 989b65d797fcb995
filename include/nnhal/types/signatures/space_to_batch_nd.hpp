// SPACE_TO_BATCH_ND contract (HAL 1.3 types.hal, SPACE_TO_BATCH_ND; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct space_to_batch_nd {
  static constexpr auto op = OperationType::SPACE_TO_BATCH_ND;
  enum class in : std::uint8_t { input, block_shape, paddings, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. Value rules for the version check, not expressible here:
      //  - layout (optional, added in HAL 1.2): false (NHWC, the default) is the same as leaving
      //    it off, so each row accepts it from the tensor type's own version; true needs HAL 1.2;
      //  - a TENSOR_QUANT8_ASYMM input with a non-zero zeroPoint needs HAL 1.2 (the pad value is
      //    the logical zero only since then).
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 3},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 3},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 3},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});
};

}  // namespace nnhal::types::sig
