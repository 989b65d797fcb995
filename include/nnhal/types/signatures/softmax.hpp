// SOFTMAX contract (HAL 1.3 types.hal, SOFTMAX; AIDL keeps it unchanged).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::types::sig {


struct softmax {
  static constexpr auto op = OperationType::SOFTMAX;
  enum class in : std::uint8_t { input, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // beta is FLOAT32 for every type except TENSOR_FLOAT16, which takes a FLOAT16 beta.
      // The trailing axis (default -1) is optional and arrived in 1.2; a model passing the default
      // is stripped of it by the upstream runtime and stays 1.0 (rank 2 or 4 only before 1.2).
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      // QUANT8 outputs: scale 1/256, zeroPoint 0 (unsigned) or -128 (signed).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (axis -1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::INT32, -1}});

  /// Output = input shape; rank 1..4 (other than 2 or 4 only since 1.2); beta > 0; axis
  /// in [-rank, rank); quantized output scale 1/256, zeroPoint 0 / -128.
  static result<shapes> infer(const infer_context& c) {
    namespace an = detail::axis_norm;
    NNHAL_TRY(an::check_positive(c.inputs[1], "beta"));
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 256, 0, "1/256"));
    if (c.outputs[0].type == T::TENSOR_QUANT8_ASYMM_SIGNED)
      NNHAL_TRY(an::check_fixed_output_quant(c.outputs[0], 1.0f / 256, -128, "1/256"));
    an::raise_for_rank(c, {2, 4});
    return an::infer_along_axis(c, 2, 4);
  }
};

}  // namespace nnhal::types::sig
