// POW contract (HAL 1.3 types.hal, POW; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_broadcast.hpp"

namespace nnhal::types::sig {

struct pow {
  static constexpr auto op = OperationType::POW;
  enum class in : std::uint8_t { base, exponent };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
  });
  /// Output = broadcast of the inputs' shapes (rank <= 8, the kernels' limit).
  static result<shapes> infer(const infer_context& c) { return detail::infer_broadcast_pair(c, "base", "exponent"); }
};

}  // namespace nnhal::types::sig
