// The axes/keep_dims shape inference MEAN shares with REDUCE_ALL, REDUCE_ANY, REDUCE_MAX,
// REDUCE_MIN, REDUCE_PROD and REDUCE_SUM.
#pragma once

#include <optional>
#include <vector>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

namespace detail {

/// What a reduction does with an input whose reduced extent is 0 (an empty reduction).
enum class empty_reduction : std::uint8_t {
  identity,  // SUM, PROD, ANY, ALL: the operation's identity (0, 1, false, true)
  reject,    // MEAN, MAX, MIN: no value is defined, the execution fails
};

/// Shape inference of MEAN and REDUCE_*: inputs (input, axes, keep_dims).
///  - input: rank 1..4 (rank 0 has no axis to reduce);
///  - axes: a 1-D TENSOR_INT32, each entry in [-rank, rank); entries may repeat, and an
///    empty list reduces nothing (the old MEAN text promising "all axes" was never
///    implemented upstream, see the spec's NOTE);
///  - keep_dims: BOOL (REDUCE_*) or INT32 (MEAN: positive means keep);
///  - output: the input's extents without the reduced ones (1s with keep_dims); when
///    every extent is reduced away the output is [1], as the AOSP reference reports;
///  - quantized outputs carry the input's scale and zero point (`same_quant`).
/// A zero extent that is not reduced gives a zero-sized output; a zero reduced extent
/// follows `empty`.
inline result<shapes> infer_reduce(const infer_context& c, bool same_quant_output, empty_reduction empty) {
  const auto& input = c.inputs[0];
  const auto& axes = c.inputs[1];
  const auto& keep = c.inputs[2];
  NNHAL_TRY(check_rank_at_most(input, 4, "input"));
  if (same_quant_output) NNHAL_TRY(check_same_quant(input, c.outputs[0], "output"));
  NNHAL_CHECK(axes.dims.size() == 1 || (!c.executing && axes.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
              "axes: must be a 1-D tensor, got rank ", axes.dims.size());

  std::optional<bool> keep_dims;
  if (keep.type == OperandType::BOOL) {
    if (auto v = keep.scalar<std::uint8_t>()) keep_dims = *v != 0;
  } else if (auto v = keep.scalar<std::int32_t>()) {
    keep_dims = *v > 0;
  }
  NNHAL_CHECK(keep_dims || !c.executing, ErrorStatus::INVALID_ARGUMENT, "keep_dims: no value at execution");
  NNHAL_CHECK(axes.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "axes: no value at execution");

  const bool rank_known = c.executing || !input.dims.empty();
  const std::size_t rank = input.dims.size();
  if (rank_known)
    NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "input: a rank 0 tensor has no axis to reduce");

  if (!axes.has_value()) {
    // Which axes go is unknown: only keep_dims = true pins the output rank.
    if (rank_known && keep_dims && *keep_dims) return shapes{dims_t(rank, 0)};
    return shapes{dims_t{}};
  }
  std::size_t count = axes.value_size / sizeof(std::int32_t);
  if (axes.dims.size() == 1 && (c.executing || axes.dims[0] != 0)) {
    NNHAL_CHECK(axes.value_size >= std::size_t{axes.dims[0]} * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                "axes: value holds fewer than ", axes.dims[0], " entries");
    count = axes.dims[0];
  }
  if (!rank_known) return shapes{dims_t{}};

  const auto r = static_cast<std::int64_t>(rank);
  std::vector<bool> reduced(rank, false);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t a = axes.at<std::int32_t>(i);
    NNHAL_CHECK(a >= -r && a < r, ErrorStatus::INVALID_ARGUMENT, "axes[", i, "]: ", a, " outside [", -r, ", ", r, ")");
    reduced[static_cast<std::size_t>(a < 0 ? a + r : a)] = true;
  }
  if (c.executing && empty == empty_reduction::reject)
    for (std::size_t d = 0; d < rank; ++d)
      NNHAL_CHECK(!reduced[d] || input.dims[d] != 0, ErrorStatus::INVALID_ARGUMENT, "input: dimension ", d,
                  " of ", format_dims(input.dims), " is reduced but has extent 0 (an empty ",
                  to_string(c.op), " is undefined)");
  if (!keep_dims) return shapes{dims_t{}};
  dims_t out;
  for (std::size_t d = 0; d < rank; ++d) {
    if (!reduced[d]) out.push_back(input.dims[d]);
    else if (*keep_dims) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return shapes{std::move(out)};
}

}  // namespace detail

}  // namespace nnhal::types::sig
