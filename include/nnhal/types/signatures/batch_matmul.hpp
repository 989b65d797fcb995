// BATCH_MATMUL contract (AIDL OperationType.aidl, BATCH_MATMUL; added in AIDL V2 / feature level 6).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct batch_matmul {
  static constexpr auto op = OperationType::BATCH_MATMUL;
  enum class in : std::uint8_t { input0, input1, adj_x, adj_y };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Both tensors and the output share one type. adj_x and adj_y are documented as optional
      // (default false), but the reference validation and the VTS input-removal tests require all
      // four inputs, so the rows have a fixed arity.
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_INT32)},
  });
};

}  // namespace nnhal::types::sig
