// MIRROR_PAD contract (AIDL OperationType.aidl, MIRROR_PAD; NNAPI feature level 7).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct mirror_pad {
  static constexpr auto op = OperationType::MIRROR_PAD;
  enum class in : std::uint8_t { input, paddings, mode };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // mode: 0 = REFLECT, 1 = SYMMETRIC.
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
