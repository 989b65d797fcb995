// BATCH_TO_SPACE_ND contract (HAL 1.3 types.hal, BATCH_TO_SPACE_ND; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct batch_to_space_nd {
  static constexpr auto op = OperationType::BATCH_TO_SPACE_ND;
  enum class in : std::uint8_t { input, block_shape, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. layout (optional, added in HAL 1.2): false (NHWC, the default) is
      // the same as leaving it off, so each row accepts it from the tensor type's own version;
      // layout = true (NCHW) needs HAL 1.2 -- a value rule infer() applies.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 2},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 2},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 2},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 2},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});

  /// [n, h, w, c] -> [n / (bh * bw), h * bh, w * bw, c]: block_shape [bh, bw] >= 1 must divide
  /// the batch. Quantized outputs keep the input's scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    static constexpr std::array layout_since{V::V1_2};
    const auto& in = c.inputs[0];
    detail::spatial::raise_for_flags(c, 2, layout_since);
    NNHAL_TRY(detail::spatial::check_rank_4(in, c.executing, "input"));
    NNHAL_TRY(detail::check_same_quant(in, c.outputs[0], "output"));
    auto block = detail::spatial::int_vector(c, c.inputs[1], 2, "block_shape");
    if (!block) return std::move(block).err();
    if (*block)
      for (std::size_t i = 0; i < 2; ++i)
        NNHAL_CHECK((**block)[i] >= 1, ErrorStatus::INVALID_ARGUMENT, "block_shape: entry ", i, " is ", (**block)[i],
                    " (must be >= 1)");
    const auto nchw = detail::spatial::bool_input(c, 2);
    const auto e = detail::spatial::split_image(in.dims, nchw);
    detail::spatial::image_dims o{0, 0, 0, e.c};
    if (*block) {
      const std::uint64_t bh = static_cast<std::uint32_t>((**block)[0]), bw = static_cast<std::uint32_t>((**block)[1]);
      if (e.n != 0 || c.executing) {
        NNHAL_CHECK(e.n % (bh * bw) == 0, ErrorStatus::INVALID_ARGUMENT, "input: batch ", e.n,
                    " is not a multiple of the block size ", bh, " x ", bw);
        o.n = static_cast<std::uint32_t>(e.n / (bh * bw));
      }
      if (e.h != 0 || c.executing) {
        NNHAL_TRY(detail::spatial::check_extent(e.h * bh, "output", "height"));
        o.h = static_cast<std::uint32_t>(e.h * bh);
      }
      if (e.w != 0 || c.executing) {
        NNHAL_TRY(detail::spatial::check_extent(e.w * bw, "output", "width"));
        o.w = static_cast<std::uint32_t>(e.w * bw);
      }
    }
    dims_t out = detail::spatial::join_image(o, nchw);
    if (c.executing) NNHAL_TRY(detail::spatial::check_output_size(out, in.type));
    return shapes{std::move(out)};
  }
};

}  // namespace nnhal::types::sig
