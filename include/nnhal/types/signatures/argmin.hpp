// ARGMIN contract (HAL 1.3 types.hal, ARGMIN; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/argmax.hpp"  // detail::infer_arg_min_max

namespace nnhal::types::sig {

struct argmin {
  static constexpr auto op = OperationType::ARGMIN;
  enum class in : std::uint8_t { input, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The output is always TENSOR_INT32 indices, whatever the input type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  /// As ARGMAX (detail::infer_arg_min_max).
  static result<shapes> infer(const infer_context& c) { return detail::infer_arg_min_max(c); }
};

}  // namespace nnhal::types::sig
