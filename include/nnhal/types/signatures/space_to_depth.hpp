// SPACE_TO_DEPTH contract (HAL 1.3 types.hal, SPACE_TO_DEPTH; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct space_to_depth {
  static constexpr auto op = OperationType::SPACE_TO_DEPTH;
  enum class in : std::uint8_t { input, block_size, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // layout (optional, added in HAL 1.2): false (NHWC, the default) is the same as leaving it
      // off, so each row accepts it from the tensor type's own version; layout = true (NCHW)
      // needs HAL 1.2 -- a value rule infer() applies.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});

  /// [n, h, w, c] -> [n, h / b, w / b, c * b * b]: block_size b >= 1 must divide the height
  /// and the width. Quantized outputs keep the input's scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    static constexpr std::array layout_since{V::V1_2};
    const auto& in = c.inputs[0];
    detail::spatial::raise_for_flags(c, 2, layout_since);
    NNHAL_TRY(detail::spatial::check_rank_4(in, c.executing, "input"));
    NNHAL_TRY(detail::check_same_quant(in, c.outputs[0], "output"));
    const auto block = c.inputs[1].scalar<std::int32_t>();
    NNHAL_CHECK(block || !c.executing, ErrorStatus::INVALID_ARGUMENT, "block_size: no value at execution");
    if (block) NNHAL_CHECK(*block >= 1, ErrorStatus::INVALID_ARGUMENT, "block_size: ", *block, " (must be >= 1)");
    const auto nchw = detail::spatial::bool_input(c, 2);
    const auto e = detail::spatial::split_image(in.dims, nchw);
    detail::spatial::image_dims o{e.n, 0, 0, 0};
    if (block) {
      const std::uint64_t b = static_cast<std::uint32_t>(*block);
      if (e.h != 0 || c.executing) {
        NNHAL_CHECK(e.h % b == 0, ErrorStatus::INVALID_ARGUMENT, "input: height ", e.h,
                    " is not a multiple of block_size ", b);
        o.h = static_cast<std::uint32_t>(e.h / b);
      }
      if (e.w != 0 || c.executing) {
        NNHAL_CHECK(e.w % b == 0, ErrorStatus::INVALID_ARGUMENT, "input: width ", e.w,
                    " is not a multiple of block_size ", b);
        o.w = static_cast<std::uint32_t>(e.w / b);
      }
      if (e.c != 0 || c.executing) {
        NNHAL_TRY(detail::spatial::check_extent(e.c * b * b, "output", "depth"));
        o.c = static_cast<std::uint32_t>(e.c * b * b);
      }
    }
    dims_t out = detail::spatial::join_image(o, nchw);
    if (c.executing) NNHAL_TRY(detail::spatial::check_output_size(out, in.type));
    return shapes{std::move(out)};
  }
};

}  // namespace nnhal::types::sig
