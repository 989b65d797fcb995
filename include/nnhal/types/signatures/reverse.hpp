// REVERSE contract (AIDL OperationType.aidl, REVERSE; NNAPI feature level 7).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct reverse {
  static constexpr auto op = OperationType::REVERSE;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // axis is a TENSOR_INT32 of shape [1], not a scalar.
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
