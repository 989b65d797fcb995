// REDUCE_PROD contract (HAL 1.3 types.hal, REDUCE_PROD; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_reduce.hpp"  // detail::infer_reduce

namespace nnhal::types::sig {

struct reduce_prod {
  static constexpr auto op = OperationType::REDUCE_PROD;
  enum class in : std::uint8_t { input, axes, keep_dims };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
  });
  /// Axes, keep_dims and output shape as MEAN (detail::infer_reduce). Empty reductions give 1.
  static result<shapes> infer(const infer_context& c) {
    return detail::infer_reduce(c, false, detail::empty_reduction::identity);
  }
};

}  // namespace nnhal::types::sig
