// AVERAGE_POOL_2D contract (HAL 1.3 types.hal, AVERAGE_POOL_2D; AIDL keeps it unchanged).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_pool2d.hpp"

namespace nnhal::types::sig {

struct average_pool_2d {
  static constexpr auto op = OperationType::AVERAGE_POOL_2D;
  enum class in : std::uint8_t { input, padding_left, padding_right, padding_top, padding_bottom, stride_width, stride_height, filter_width, filter_height, activation, layout };
  enum class in_implicit : std::uint8_t { input, padding_scheme, stride_width, stride_height, filter_width, filter_height, activation, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Two forms, told apart by the input count: explicit padding (10 or 11 inputs, `in`)
      // and implicit padding (7 or 8 inputs, `in_implicit`). The trailing layout BOOL is optional
      // and arrived in 1.2 (NCHW). The upstream runtime drops a trailing layout equal to its
      // default (false) before version checks, so such a model still counts as 1.0.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      // 1.2: the layout input for the 1.0 types; TENSOR_FLOAT16.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 7},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 10},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 7},
      // 1.3: TENSOR_QUANT8_ASYMM_SIGNED (output scale and zeroPoint equal the input's).
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 10},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 7},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});
  /// Output [batches, out_height, out_width, depth] (NCHW: [batches, depth, out_height, out_width]).
  static result<shapes> infer(const infer_context& c) { return detail::pool2d::infer(c); }
};

}  // namespace nnhal::types::sig
