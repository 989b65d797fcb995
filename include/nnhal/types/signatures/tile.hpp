// TILE contract (HAL 1.3 types.hal, TILE; AIDL keeps it unchanged).
#pragma once

#include <limits>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct tile {
  static constexpr auto op = OperationType::TILE;
  enum class in : std::uint8_t { input, multiples };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output extent i = input extent i * multiples[i]; multiples is 1-D of length rank,
  /// entries >= 0 (0 gives a zero-sized output). Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& mult = c.inputs[1];
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    NNHAL_CHECK(mult.dims.size() == 1 || (!c.executing && mult.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "multiples: must be a 1-D tensor, got rank ", mult.dims.size());
    NNHAL_CHECK(mult.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "multiples: no value at execution");
    if (input.dims.empty() && !c.executing) {
      // The rank is the length of multiples, when that is known.
      if (!mult.dims.empty() && mult.dims[0] != 0) return shapes{dims_t(mult.dims[0], 0)};
      return shapes{dims_t{}};
    }
    const std::size_t n = input.dims.size();
    NNHAL_CHECK(n >= 1, ErrorStatus::INVALID_ARGUMENT, "input: rank 0 tensors cannot be tiled");
    dims_t outd(n, 0);
    if (mult.dims.empty() || (mult.dims[0] == 0 && !c.executing)) return shapes{outd};
    NNHAL_CHECK(mult.dims[0] == n, ErrorStatus::INVALID_ARGUMENT, "multiples: ", mult.dims[0],
                " entries for an input of rank ", n);
    if (!mult.has_value()) return shapes{outd};
    NNHAL_CHECK(mult.value_size >= n * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                "multiples: value holds fewer than ", n, " elements");
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t m = mult.at<std::int32_t>(i);
      NNHAL_CHECK(m >= 0, ErrorStatus::INVALID_ARGUMENT, "multiples: entry ", i, " is ", m, " (must be >= 0)");
      const std::uint64_t e = static_cast<std::uint64_t>(input.dims[i]) * static_cast<std::uint64_t>(m);
      NNHAL_CHECK(e <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT,
                  "multiples: output extent ", e, " of dimension ", i, " overflows");
      outd[i] = static_cast<std::uint32_t>(e);
    }
    std::uint64_t total = 0;
    const std::uint64_t es = type_info(c.outputs[0].type).element_size;
    NNHAL_CHECK(checked_element_count(outd, total, std::numeric_limits<std::uint32_t>::max() / (es ? es : 1)),
                ErrorStatus::INVALID_ARGUMENT, "multiples: the output ", format_dims(outd), " has too many elements");
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
