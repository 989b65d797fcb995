// LSH_PROJECTION contract (HAL 1.3 types.hal, LSH_PROJECTION; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct lsh_projection {
  static constexpr auto op = OperationType::LSH_PROJECTION;
  enum class in : std::uint8_t { hash, input, weight, type };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // hash and weight share a float type; input may be any of the listed types; weight may be
      // a NO_VALUE operand of the hash type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(2);
};

}  // namespace nnhal::types::sig
