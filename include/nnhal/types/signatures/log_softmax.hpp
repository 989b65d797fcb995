// LOG_SOFTMAX contract (HAL 1.3 types.hal, LOG_SOFTMAX; AIDL keeps it unchanged).
#pragma once

#include <limits>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"  // detail::axis_norm

namespace nnhal::types::sig {

struct log_softmax {
  static constexpr auto op = OperationType::LOG_SOFTMAX;
  enum class in : std::uint8_t { input, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // beta follows the tensor type (FLOAT16 for TENSOR_FLOAT16); the axis is mandatory.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
  });

  /// Output = input shape; any rank from 1; beta > 0; axis in [-rank, rank).
  static result<shapes> infer(const infer_context& c) {
    NNHAL_TRY(detail::axis_norm::check_positive(c.inputs[1], "beta"));
    return detail::axis_norm::infer_along_axis(c, 2, std::numeric_limits<std::size_t>::max());
  }
};

}  // namespace nnhal::types::sig
