// PACK contract (AIDL OperationType.aidl, PACK; NNAPI feature level 6).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct pack {
  static constexpr auto op = OperationType::PACK;
  enum class in : std::uint8_t { axis, input };  // input repeats: inputs 1 ~ N, N >= 1
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // All packed tensors and the output share one type (and, when quantized, one scale and
      // zeroPoint).
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .repeat_in = 1},
      {.since = V::AIDL_V2, .inputs = ins(T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32), .repeat_in = 1},
  });
};

}  // namespace nnhal::types::sig
