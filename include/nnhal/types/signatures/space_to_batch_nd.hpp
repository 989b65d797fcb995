// SPACE_TO_BATCH_ND contract (HAL 1.3 types.hal, SPACE_TO_BATCH_ND; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct space_to_batch_nd {
  static constexpr auto op = OperationType::SPACE_TO_BATCH_ND;
  enum class in : std::uint8_t { input, block_shape, paddings, layout };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. Value rules infer() applies to the version:
      //  - layout (optional, added in HAL 1.2): false (NHWC, the default) is the same as leaving
      //    it off, so each row accepts it from the tensor type's own version; true needs HAL 1.2;
      //  - a TENSOR_QUANT8_ASYMM input with a non-zero zeroPoint needs HAL 1.2 (the pad value is
      //    the logical zero only since then).
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32), .required = 3},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM), .required = 3},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16), .required = 3},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED), .required = 3},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (layout NHWC).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::BOOL, 0}});

  /// [n, h, w, c] -> [n * bh * bw, (top + h + bottom) / bh, (left + w + right) / bw, c]:
  /// block_shape [bh, bw] >= 1 must divide the padded extents; paddings [[top, bottom], [left,
  /// right]] >= 0. The pad value is zero (the quantized zero point); quantized outputs keep
  /// the input's scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    static constexpr std::array layout_since{V::V1_2};
    const auto& in = c.inputs[0];
    detail::spatial::raise_for_flags(c, 3, layout_since);
    detail::spatial::raise_for_nonzero_pad_zero_point(c, in);
    NNHAL_TRY(detail::spatial::check_rank_4(in, c.executing, "input"));
    NNHAL_TRY(detail::check_same_quant(in, c.outputs[0], "output"));
    auto block = detail::spatial::int_vector(c, c.inputs[1], 2, "block_shape");
    if (!block) return std::move(block).err();
    if (*block)
      for (std::size_t i = 0; i < 2; ++i)
        NNHAL_CHECK((**block)[i] >= 1, ErrorStatus::INVALID_ARGUMENT, "block_shape: entry ", i, " is ", (**block)[i],
                    " (must be >= 1)");
    auto pads = detail::spatial::paddings(c, c.inputs[2], 2, "paddings");
    if (!pads) return std::move(pads).err();
    const auto nchw = detail::spatial::bool_input(c, 3);
    const auto e = detail::spatial::split_image(in.dims, nchw);
    detail::spatial::image_dims o{0, 0, 0, e.c};
    if (*block) {
      const std::uint64_t bh = static_cast<std::uint32_t>((**block)[0]), bw = static_cast<std::uint32_t>((**block)[1]);
      if (e.n != 0 || c.executing) {
        NNHAL_TRY(detail::spatial::check_extent(e.n * bh * bw, "output", "batch"));
        o.n = static_cast<std::uint32_t>(e.n * bh * bw);
      }
      if (*pads) {
        const auto& p = **pads;
        auto spatial = [&](std::uint32_t extent, std::uint64_t b, std::size_t i, const char* what,
                           std::uint32_t& res) -> status {
          if (extent == 0 && !c.executing) return {};
          const std::uint64_t padded = std::uint64_t{extent} + static_cast<std::uint64_t>(p[i][0]) +
                                       static_cast<std::uint64_t>(p[i][1]);
          NNHAL_CHECK(padded % b == 0, ErrorStatus::INVALID_ARGUMENT, "input: padded ", what, " ", padded,
                      " is not a multiple of block_shape[", i, "] = ", b);
          NNHAL_TRY(detail::spatial::check_extent(padded / b, "output", what));
          res = static_cast<std::uint32_t>(padded / b);
          return {};
        };
        NNHAL_TRY(spatial(e.h, bh, 0, "height", o.h));
        NNHAL_TRY(spatial(e.w, bw, 1, "width", o.w));
      }
    }
    dims_t out = detail::spatial::join_image(o, nchw);
    if (c.executing) NNHAL_TRY(detail::spatial::check_output_size(out, in.type));
    return shapes{std::move(out)};
  }
};

}  // namespace nnhal::types::sig
