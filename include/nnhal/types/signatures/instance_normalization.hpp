// INSTANCE_NORMALIZATION contract (HAL 1.3 types.hal, INSTANCE_NORMALIZATION; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct instance_normalization {
  static constexpr auto op = OperationType::INSTANCE_NORMALIZATION;
  enum class in : std::uint8_t { input, gamma, beta, epsilon, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // gamma, beta and epsilon follow the tensor type; the layout BOOL is mandatory.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::FLOAT16, T::FLOAT16, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
  });

  /// Output = input shape; the input is 4-D (NHWC, or NCHW when layout is true).
  static result<shapes> infer(const infer_context& c) {
    const operand_desc& input = c.inputs[0];
    NNHAL_CHECK(input.dims.size() == 4 || (!c.executing && input.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "input: rank ", input.dims.size(), " (must be 4)");
    if (input.dims.empty()) return shapes{dims_t(4, 0)};
    return shapes{dims_t(input.dims.begin(), input.dims.end())};
  }
};

}  // namespace nnhal::types::sig
