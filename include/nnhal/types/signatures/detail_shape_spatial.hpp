// Shape-inference helpers shared by the spatial data-movement operations (PAD, PAD_V2,
// MIRROR_PAD, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR): the optional NHWC/NCHW flag and the version it
// implies, 4-D extents by role, [n, 2] paddings tensors and small constant vectors.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig::detail::spatial {

/// A BOOL input's value: false when the input is absent (a trailing optional one left out),
/// nullopt when it is present but not known (validation of a non-constant operand).
inline std::optional<bool> bool_input(const infer_context& c, std::size_t k) {
  if (k >= c.inputs.size() || c.inputs[k].omitted) return false;
  const auto v = c.inputs[k].scalar<std::uint8_t>();
  if (!v) return std::nullopt;
  return *v != 0;
}

/// Raises the minimum HAL version for optional trailing BOOL flags starting at input `first`
/// (`since[i]`: the version flag first + i arrived in). Upstream strips trailing arguments
/// that hold their default (a constant false) before computing a model's version, so a flag
/// counts when it, or any flag after it, is true or not a constant.
inline void raise_for_flags(const infer_context& c, std::size_t first, std::span<const HalVersion> since) {
  if (!c.min_version) return;
  std::size_t n = c.inputs.size();
  while (n > first && bool_input(c, n - 1) == std::optional<bool>(false)) --n;
  for (std::size_t k = first; k < n && k - first < since.size(); ++k)
    *c.min_version = max_version(*c.min_version, since[k - first]);
}

/// A TENSOR_QUANT8_ASYMM input with a non-zero zeroPoint needs HAL 1.2 where the op pads with
/// "zero" (PAD, SPACE_TO_BATCH_ND): before 1.2 the pad value of such a tensor was undefined.
inline void raise_for_nonzero_pad_zero_point(const infer_context& c, const operand_desc& in) {
  if (c.min_version && in.type == OperandType::TENSOR_QUANT8_ASYMM && in.zero_point != 0)
    *c.min_version = max_version(*c.min_version, HalVersion::V1_2);
}

/// Batch, height, width and channel extents of a 4-D tensor (0: unknown at validation).
struct image_dims {
  std::uint32_t n = 0, h = 0, w = 0, c = 0;
};

/// The extents of `d` by role; an unknown layout (nullopt) leaves all but the batch unknown.
inline image_dims split_image(std::span<const std::uint32_t> d, std::optional<bool> nchw) {
  if (d.size() != 4) return {};
  if (!nchw) return {d[0], 0, 0, 0};
  return *nchw ? image_dims{d[0], d[2], d[3], d[1]} : image_dims{d[0], d[1], d[2], d[3]};
}

/// The dimension list of extents `e` in a layout (unknown layout: all but the batch unknown).
inline dims_t join_image(image_dims e, std::optional<bool> nchw) {
  if (!nchw) return {e.n, 0, 0, 0};
  return *nchw ? dims_t{e.n, e.c, e.h, e.w} : dims_t{e.n, e.h, e.w, e.c};
}

/// Rank exactly 4 where the rank is known (a 4-D NHWC/NCHW image operand).
inline status check_rank_4(const operand_desc& d, bool executing, std::string_view role) {
  if (d.dims.empty() && !executing) return {};
  NNHAL_CHECK(d.dims.size() == 4, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(),
              " (must be a 4-D image)");
  return {};
}

/// `v` as an extent: non-negative and no larger than a uint32 extent.
inline status check_extent(std::uint64_t v, std::string_view role, std::string_view what) {
  NNHAL_CHECK(v <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT, role, ": ", what,
              " ", v, " overflows an extent");
  return {};
}

/// At execution, the output must be addressable: element count times `element_size` fits
/// in a uint32 byte length, like every HAL operand.
inline status check_output_size(std::span<const std::uint32_t> d, OperandType t) {
  std::uint64_t n = 0;
  const std::uint64_t size = type_info(t).element_size;
  NNHAL_CHECK(checked_element_count(d, n, std::numeric_limits<std::uint32_t>::max() / (size ? size : 1)),
              ErrorStatus::INVALID_ARGUMENT, "output: dimensions ", format_dims(d), " describe more than 4 GiB");
  return {};
}

/// A 1-D TENSOR_INT32 operand of `length` entries (shape checked where known); its values
/// when known. At execution the value must be present.
inline result<std::optional<std::vector<std::int32_t>>> int_vector(const infer_context& c, const operand_desc& d,
                                                                   std::size_t length, std::string_view role) {
  using out_t = std::optional<std::vector<std::int32_t>>;
  if (!d.dims.empty() || c.executing) {
    NNHAL_CHECK(d.dims.size() == 1, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(), " (must be 1-D)");
    NNHAL_CHECK(d.dims[0] == length || (d.dims[0] == 0 && !c.executing), ErrorStatus::INVALID_ARGUMENT, role,
                ": shape ", format_dims(d.dims), " (must be [", length, "])");
  }
  NNHAL_CHECK(d.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, role, ": no value at execution");
  if (!d.has_value()) return out_t{};
  NNHAL_CHECK(d.value_size >= length * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT, role, ": holds ",
              d.value_size / sizeof(std::int32_t), " values, needs ", length);
  std::vector<std::int32_t> v(length);
  for (std::size_t i = 0; i < length; ++i) v[i] = d.at<std::int32_t>(i);
  return out_t{std::move(v)};
}

/// A [rank, 2] TENSOR_INT32 paddings operand (shape checked where known): per dimension the
/// (before, after) amounts, each >= 0, when the value is known. At execution it must be.
using pad_amounts = std::vector<std::array<std::int32_t, 2>>;
inline result<std::optional<pad_amounts>> paddings(const infer_context& c, const operand_desc& p, std::size_t rank,
                                                   std::string_view role) {
  using out_t = std::optional<pad_amounts>;
  if (!p.dims.empty() || c.executing) {
    NNHAL_CHECK(p.dims.size() == 2, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", p.dims.size(),
                " (must be a 2-D [", rank, ", 2] tensor)");
    NNHAL_CHECK((p.dims[0] == rank || (p.dims[0] == 0 && !c.executing)) &&
                    (p.dims[1] == 2 || (p.dims[1] == 0 && !c.executing)),
                ErrorStatus::INVALID_ARGUMENT, role, ": shape ", format_dims(p.dims, !c.executing), " (must be [",
                rank, ", 2])");
  }
  NNHAL_CHECK(p.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, role, ": no value at execution");
  if (!p.has_value()) return out_t{};
  NNHAL_CHECK(p.value_size >= rank * 2 * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT, role, ": holds ",
              p.value_size / sizeof(std::int32_t), " values, needs ", rank * 2);
  pad_amounts v(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      v[i][j] = p.at<std::int32_t>(2 * i + j);
      NNHAL_CHECK(v[i][j] >= 0, ErrorStatus::INVALID_ARGUMENT, role, ": ", j == 0 ? "before" : "after",
                  "-padding of dimension ", i, " is ", v[i][j], " (must be >= 0)");
    }
  }
  return out_t{std::move(v)};
}

/// Shape inference shared by PAD, PAD_V2 and MIRROR_PAD: output[i] = before[i] + input[i] +
/// after[i]. Input rank in [1, max_rank] (0: no limit); the rank may come from the
/// paddings' shape when the input's is unknown. `mirror_reflect` / `mirror_symmetric`: the
/// MIRROR_PAD bounds on each amount (< extent, <= extent).
enum class pad_bound : std::uint8_t { none, below_extent, at_most_extent };
inline result<shapes> infer_pad(const infer_context& c, std::size_t max_rank, pad_bound bound = pad_bound::none) {
  const auto& in = c.inputs[0];
  const auto& p = c.inputs[1];
  if (max_rank) NNHAL_TRY(check_rank_at_most(in, max_rank, "input"));
  NNHAL_TRY(check_same_quant(in, c.outputs[0], "output"));
  std::size_t rank = in.dims.size();
  if (in.dims.empty() && !c.executing) {
    if (p.dims.size() != 2 || p.dims[0] == 0) return shapes{dims_t{}};
    rank = p.dims[0];
    if (max_rank)
      NNHAL_CHECK(rank <= max_rank, ErrorStatus::INVALID_ARGUMENT, "paddings: ", rank,
                  " rows imply an input rank above the supported ", max_rank);
  }
  NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0 (a tensor of rank >= 1 is padded)");
  auto amounts = paddings(c, p, rank, "paddings");
  if (!amounts) return std::move(amounts).err();
  dims_t out(rank, 0);
  if (!*amounts) return shapes{out};
  const bool rank_known = !in.dims.empty();
  for (std::size_t i = 0; i < rank; ++i) {
    const auto [before, after] = (**amounts)[i];
    const std::uint32_t e = rank_known ? in.dims[i] : 0;
    if (!rank_known || (e == 0 && !c.executing)) continue;
    if (bound != pad_bound::none) {
      const std::int64_t limit = std::int64_t{e} - (bound == pad_bound::below_extent ? 1 : 0);
      NNHAL_CHECK(before <= limit && after <= limit, ErrorStatus::INVALID_ARGUMENT, "paddings: dimension ", i,
                  " of extent ", e, " padded by (", before, ", ", after, "); ",
                  bound == pad_bound::below_extent ? "REFLECT needs each < " : "SYMMETRIC needs each <= ", "the extent");
    }
    const std::uint64_t sum = std::uint64_t{e} + static_cast<std::uint64_t>(before) + static_cast<std::uint64_t>(after);
    NNHAL_TRY(check_extent(sum, "output", str_cat("extent of dimension ", i)));
    out[i] = static_cast<std::uint32_t>(sum);
  }
  if (c.executing) NNHAL_TRY(check_output_size(out, in.type));
  return shapes{out};
}

/// Shape inference shared by RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR, inputs (input,
/// width, height, layout, align_corners, half_pixel_centers): the output is [n, new_height,
/// new_width, c] with the new extents given as INT32 sizes (> 0) or as FLOAT32/FLOAT16
/// scales (new = floor(extent * scale), computed in float as upstream does, >= 1). Only the
/// batch may be zero-sized. `first_flag`/`flag_since`: see raise_for_flags.
inline result<shapes> infer_resize(const infer_context& c, std::size_t first_flag,
                                   std::span<const HalVersion> flag_since) {
  const auto& in = c.inputs[0];
  raise_for_flags(c, first_flag, flag_since);
  NNHAL_TRY(check_rank_4(in, c.executing, "input"));
  NNHAL_TRY(check_same_quant(in, c.outputs[0], "output"));
  const auto nchw = bool_input(c, 3);
  NNHAL_CHECK(!(bool_input(c, 4) == std::optional<bool>(true) && bool_input(c, 5) == std::optional<bool>(true)),
              ErrorStatus::INVALID_ARGUMENT, "half_pixel_centers: must be false when align_corners is true");
  const auto e = split_image(in.dims, nchw);
  if (c.executing)
    NNHAL_CHECK(e.h > 0 && e.w > 0 && e.c > 0, ErrorStatus::INVALID_ARGUMENT, "input: ", format_dims(in.dims),
                " (only the batch may be zero-sized)");
  image_dims o{e.n, 0, 0, e.c};
  auto new_extent = [&](std::size_t k, std::uint32_t extent, std::string_view role, std::uint32_t& res) -> status {
    const auto& d = c.inputs[k];
    if (d.type == OperandType::INT32) {
      const auto v = d.scalar<std::int32_t>();
      NNHAL_CHECK(v || !c.executing, ErrorStatus::INVALID_ARGUMENT, role, ": no value at execution");
      if (!v) return {};
      NNHAL_CHECK(*v > 0, ErrorStatus::INVALID_ARGUMENT, role, ": output size ", *v, " (must be > 0)");
      res = static_cast<std::uint32_t>(*v);
      return {};
    }
    std::optional<float> scale;
    if (d.type == OperandType::FLOAT16) {
      if (const auto h = d.scalar<float16>()) scale = to_float(*h);
    } else {
      scale = d.scalar<float>();
    }
    NNHAL_CHECK(scale || !c.executing, ErrorStatus::INVALID_ARGUMENT, role, ": no value at execution");
    if (!scale || (extent == 0 && !c.executing)) return {};
    const float scaled = std::floor(static_cast<float>(extent) * *scale);
    NNHAL_CHECK(scaled >= 1.0f && scaled < 2147483648.0f, ErrorStatus::INVALID_ARGUMENT, role, ": scale ", *scale,
                " of extent ", extent, " gives ", scaled, " (must be in [1, 2^31))");
    res = static_cast<std::uint32_t>(scaled);
    return {};
  };
  NNHAL_TRY(new_extent(1, e.w, "width", o.w));
  NNHAL_TRY(new_extent(2, e.h, "height", o.h));
  dims_t out = join_image(o, nchw);
  if (c.executing) NNHAL_TRY(check_output_size(out, in.type));
  return shapes{std::move(out)};
}

}  // namespace nnhal::types::sig::detail::spatial
