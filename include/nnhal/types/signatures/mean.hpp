// MEAN contract (HAL 1.3 types.hal, MEAN; AIDL keeps it unchanged). The axes/keep_dims
// inference it shares with the REDUCE_* operations lives in detail_reduce.hpp.
#pragma once

#include <optional>
#include <vector>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"
#include "nnhal/types/signatures/detail_reduce.hpp"

namespace nnhal::types::sig {

struct mean {
  static constexpr auto op = OperationType::MEAN;
  enum class in : std::uint8_t { input, axes, keep_dims };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // keep_dims is an INT32 here (positive: keep), unlike the REDUCE_* BOOL.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// See detail::infer_reduce; quantized outputs keep the input's scale and zero point.
  static result<shapes> infer(const infer_context& c) {
    return detail::infer_reduce(c, true, detail::empty_reduction::reject);
  }
};

}  // namespace nnhal::types::sig
