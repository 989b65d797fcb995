// REDUCE_ALL contract (HAL 1.3 types.hal, REDUCE_ALL; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_reduce.hpp"  // detail::infer_reduce

namespace nnhal::types::sig {

struct reduce_all {
  static constexpr auto op = OperationType::REDUCE_ALL;
  enum class in : std::uint8_t { input, axes, keep_dims };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_BOOL8)},
  });
  /// Axes, keep_dims and output shape as MEAN (detail::infer_reduce). Empty reductions give true.
  static result<shapes> infer(const infer_context& c) {
    return detail::infer_reduce(c, false, detail::empty_reduction::identity);
  }
};

}  // namespace nnhal::types::sig
