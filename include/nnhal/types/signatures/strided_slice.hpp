// STRIDED_SLICE contract (HAL 1.3 types.hal, STRIDED_SLICE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct strided_slice {
  static constexpr auto op = OperationType::STRIDED_SLICE;
  enum class in : std::uint8_t { input, begin, end, strides, begin_mask, end_mask, shrink_axis_mask };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32, T::INT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// One dimension of a resolved slice: `count` elements starting at index `start`,
  /// stepping `stride` (negative walks backwards). `start` is inside the extent whenever
  /// count > 0.
  struct dim_slice {
    std::int64_t start = 0;
    std::int64_t stride = 1;
    std::int64_t count = 0;
  };

  /// The AOSP/TFLite index rules: a begin/end index is first clamped into the extent
  /// (negative counts from the end; out-of-range values saturate to the range a walk in
  /// the stride's direction can use), a masked begin/end means "from the first/last
  /// element", and count = ceil((end - begin) / stride), at least 0. stride != 0.
  static constexpr dim_slice resolve(std::int64_t extent, std::int64_t begin, std::int64_t end, std::int64_t stride,
                                     bool begin_masked, bool end_masked) noexcept {
    if (extent <= 0) return {0, stride, 0};
    const bool forward = stride > 0;
    auto clamp_index = [&](std::int64_t i) -> std::int64_t {
      if (forward) {
        if (i >= extent) return extent;
        if (i < -extent) i = -extent;
      } else {
        if (i < -extent) return -1;
        if (i > extent - 1) i = extent - 1;
      }
      return i < 0 ? i + extent : i;
    };
    const std::int64_t b = begin_masked ? (forward ? 0 : extent - 1) : clamp_index(begin);
    const std::int64_t e = end_masked ? (forward ? extent : -1) : clamp_index(end);
    std::int64_t count = 0;
    if (forward && e > b) count = (e - b + stride - 1) / stride;
    if (!forward && e < b) count = (b - e + (-stride) - 1) / (-stride);
    return {b, stride, count};
  }

  /// Per dimension, the slice above; shrink_axis_mask bit i drops dimension i, which
  /// must then have a positive stride and exactly one element (all shrunk: the output is
  /// [1]). begin/end/strides are 1-D
  /// of length rank (<= 4), strides non-zero. Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    const char* const names[3] = {"begin", "end", "strides"};
    for (std::size_t k = 1; k <= 3; ++k) {
      const auto& t = c.inputs[k];
      NNHAL_CHECK(t.dims.size() == 1 || (!c.executing && t.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                  names[k - 1], ": must be a 1-D tensor, got rank ", t.dims.size());
      NNHAL_CHECK(t.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, names[k - 1],
                  ": no value at execution");
    }
    const auto begin_mask = c.inputs[4].scalar<std::int32_t>();
    const auto end_mask = c.inputs[5].scalar<std::int32_t>();
    const auto shrink_mask = c.inputs[6].scalar<std::int32_t>();
    NNHAL_CHECK((begin_mask && end_mask && shrink_mask) || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "begin_mask / end_mask / shrink_axis_mask: no value at execution");
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};
    const std::size_t n = input.dims.size();
    bool values = true;  // begin, end and strides all known
    for (std::size_t k = 1; k <= 3; ++k) {
      const auto& t = c.inputs[k];
      if (t.dims.empty() || (t.dims[0] == 0 && !c.executing)) {
        values = false;
        continue;
      }
      NNHAL_CHECK(t.dims[0] == n, ErrorStatus::INVALID_ARGUMENT, names[k - 1], ": ", t.dims[0],
                  " entries for an input of rank ", n);
      if (!t.has_value()) {
        values = false;
        continue;
      }
      NNHAL_CHECK(t.value_size >= n * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT, names[k - 1],
                  ": value holds fewer than ", n, " elements");
    }
    const auto& strides = c.inputs[3];
    if (strides.has_value() && !strides.dims.empty() && strides.dims[0] == n)
      for (std::size_t i = 0; i < n; ++i)
        NNHAL_CHECK(strides.at<std::int32_t>(i) != 0, ErrorStatus::INVALID_ARGUMENT, "strides: entry ", i, " is 0");
    if (!shrink_mask) return shapes{dims_t{}};  // the output rank is unknown
    std::size_t out_rank = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!((*shrink_mask >> i) & 1)) ++out_rank;
    // Shrinking every dimension gives [1], not a rank-0 tensor (AOSP; CTS strided_slice_b155662254).
    if (!values || !begin_mask || !end_mask) return shapes{out_rank == 0 ? dims_t{1} : dims_t(out_rank, 0)};
    dims_t outd;
    for (std::size_t i = 0; i < n; ++i) {
      const bool shrink = (*shrink_mask >> i) & 1;
      const std::int64_t stride = strides.at<std::int32_t>(i);
      const bool known = input.dims[i] != 0 || c.executing;
      const dim_slice s = resolve(input.dims[i], c.inputs[1].at<std::int32_t>(i), c.inputs[2].at<std::int32_t>(i),
                                  stride, (*begin_mask >> i) & 1, (*end_mask >> i) & 1);
      if (shrink) {
        NNHAL_CHECK(stride > 0, ErrorStatus::INVALID_ARGUMENT, "shrink_axis_mask: dimension ", i,
                    " is shrunk but its stride ", stride, " is not positive");
        NNHAL_CHECK(!known || s.count == 1, ErrorStatus::INVALID_ARGUMENT, "shrink_axis_mask: dimension ", i,
                    " is shrunk but its slice has ", s.count, " elements, not 1");
        continue;
      }
      outd.push_back(known ? static_cast<std::uint32_t>(s.count) : 0u);
    }
    if (outd.empty()) outd.push_back(1);
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
