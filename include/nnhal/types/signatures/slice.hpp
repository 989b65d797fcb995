// SLICE contract (HAL 1.3 types.hal, SLICE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct slice {
  static constexpr auto op = OperationType::SLICE;
  enum class in : std::uint8_t { input, begin, size };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output extent i = size[i], or input extent - begin[i] when size[i] is -1; needs
  /// 0 <= begin[i], begin[i] + size <= extent. begin and size are 1-D of length rank.
  /// The input may be zero-sized; rank <= 8 here. Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    // The spec sets no upper rank; the strided copy handles up to 8 dimensions.
    NNHAL_TRY(detail::check_rank_at_most(input, 8, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    const char* const names[2] = {"begin", "size"};
    for (std::size_t k = 1; k <= 2; ++k) {
      const auto& t = c.inputs[k];
      NNHAL_CHECK(t.dims.size() == 1 || (!c.executing && t.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                  names[k - 1], ": must be a 1-D tensor, got rank ", t.dims.size());
      NNHAL_CHECK(t.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, names[k - 1],
                  ": no value at execution");
    }
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};
    const std::size_t n = input.dims.size();
    NNHAL_CHECK(n >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0 tensors cannot be sliced");
    for (std::size_t k = 1; k <= 2; ++k) {
      const auto& t = c.inputs[k];
      if (t.dims.empty() || (t.dims[0] == 0 && !c.executing)) continue;
      NNHAL_CHECK(t.dims[0] == n, ErrorStatus::INVALID_ARGUMENT, names[k - 1], ": ", t.dims[0],
                  " entries for an input of rank ", n);
      if (t.has_value())
        NNHAL_CHECK(t.value_size >= n * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT, names[k - 1],
                    ": value holds fewer than ", n, " elements");
    }
    const auto& begin = c.inputs[1];
    const auto& size = c.inputs[2];
    const bool have_begin = begin.has_value() && !begin.dims.empty() && begin.dims[0] == n;
    const bool have_size = size.has_value() && !size.dims.empty() && size.dims[0] == n;
    dims_t outd(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t extent = input.dims[i];
      const bool extent_known = extent != 0 || c.executing;
      std::int64_t b = 0;
      if (have_begin) {
        b = begin.at<std::int32_t>(i);
        NNHAL_CHECK(b >= 0, ErrorStatus::INVALID_ARGUMENT, "begin: entry ", i, " is ", b, " (must be >= 0)");
        NNHAL_CHECK(!extent_known || b <= extent, ErrorStatus::INVALID_ARGUMENT, "begin: entry ", i, " is ", b,
                    ", beyond the extent ", extent);
      }
      if (!have_size) continue;
      std::int64_t s = size.at<std::int32_t>(i);
      if (s == -1) {
        if (!have_begin || !extent_known) continue;  // the rest of an unknown extent
        s = extent - b;
      }
      NNHAL_CHECK(s >= 0, ErrorStatus::INVALID_ARGUMENT, "size: entry ", i, " is ", s,
                  " (must be >= 0, or -1 for the rest)");
      if (have_begin && extent_known)
        NNHAL_CHECK(b + s <= extent, ErrorStatus::INVALID_ARGUMENT, "size: begin ", b, " + size ", s,
                    " exceeds the extent ", extent, " of dimension ", i);
      outd[i] = static_cast<std::uint32_t>(s);
    }
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
