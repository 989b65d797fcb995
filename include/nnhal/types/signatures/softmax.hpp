// SOFTMAX contract (HAL 1.3 types.hal, SOFTMAX; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct softmax {
  static constexpr auto op = OperationType::SOFTMAX;
  enum class in : std::uint8_t { input, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // beta is FLOAT32 for every type except TENSOR_FLOAT16, which takes a FLOAT16 beta.
      // The trailing axis (default -1) is optional and arrived in 1.2; a model passing the default
      // is stripped of it by the upstream runtime and stays 1.0 (rank 2 or 4 only before 1.2).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      // QUANT8 outputs: scale 1/256, zeroPoint 0 (unsigned) or -128 (signed).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (axis -1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::INT32, -1}});
};

}  // namespace nnhal::types::sig
