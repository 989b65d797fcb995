// RANK contract (HAL 1.3 types.hal, RANK; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct rank {
  static constexpr auto op = OperationType::RANK;
  enum class in : std::uint8_t { input };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Any tensor type in; the rank comes out as an INT32 scalar.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT16), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_FLOAT32), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT16_SYMM), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_BOOL8), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_SYMM_PER_CHANNEL), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT16_ASYMM), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_SYMM), .outputs = outs(T::INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::INT32)},
  });

  /// The output is an INT32 scalar holding the input's number of dimensions; any input
  /// shape is accepted (a zero-sized input still has a rank).
  static result<shapes> infer(const infer_context& c) {
    NNHAL_CHECK(c.outputs[0].dims.empty(), ErrorStatus::INVALID_ARGUMENT, "output: a scalar has no dimensions, got ",
                format_dims(c.outputs[0].dims));
    return shapes{dims_t{}};
  }
};

}  // namespace nnhal::types::sig
