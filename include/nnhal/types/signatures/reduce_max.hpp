// REDUCE_MAX contract (HAL 1.3 types.hal, REDUCE_MAX; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_reduce.hpp"  // detail::infer_reduce

namespace nnhal::types::sig {

struct reduce_max {
  static constexpr auto op = OperationType::REDUCE_MAX;
  enum class in : std::uint8_t { input, axes, keep_dims };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // QUANT8 outputs keep the input's scale and zeroPoint.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// Axes, keep_dims and output shape as MEAN (detail::infer_reduce); quantized outputs
  /// keep the input's scale and zero point; an empty reduction is rejected.
  static result<shapes> infer(const infer_context& c) {
    return detail::infer_reduce(c, true, detail::empty_reduction::reject);
  }
};

}  // namespace nnhal::types::sig
