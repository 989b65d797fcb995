// SPACE_TO_DEPTH contract (HAL 1.3 types.hal, SPACE_TO_DEPTH; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct space_to_depth {
  static constexpr auto op = OperationType::SPACE_TO_DEPTH;
  enum class in : std::uint8_t { input, block_size, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // layout (optional, added in HAL 1.2): false (NHWC, the default) is the same as leaving it
      // off, so each row accepts it from the tensor type's own version; layout = true (NCHW)
      // needs HAL 1.2 -- a value rule for the version check, not expressible here.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});
};

}  // namespace nnhal::types::sig
