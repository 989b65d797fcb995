// RESHAPE contract (HAL 1.3 types.hal, RESHAPE; TENSOR_INT32 since the AIDL HAL's feature level 6).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct reshape {
  static constexpr auto op = OperationType::RESHAPE;
  enum class in : std::uint8_t { input, shape };
  enum class out : std::uint8_t { output };
  // Quantized: the output's scale and zero point equal the input's.
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
  });

  /// The output takes the shape operand's extents; one of them may be -1, meaning
  /// "whatever keeps the element count". Input and output rank <= 4.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& shape = c.inputs[1];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    NNHAL_CHECK(shape.dims.size() == 1 || (!c.executing && shape.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "shape: must be a 1-D tensor, got rank ", shape.dims.size());
    NNHAL_CHECK(shape.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "shape: no value at execution");
    if (!shape.has_value()) {
      // Known rank only: the shape tensor's length.
      const std::size_t rank = shape.dims.empty() ? 0 : shape.dims[0];
      NNHAL_CHECK(rank <= 4, ErrorStatus::INVALID_ARGUMENT, "shape: output rank ", rank, " exceeds 4");
      return shapes{dims_t(rank, 0)};
    }
    const std::size_t rank = shape.element_count();
    NNHAL_CHECK(rank >= 1 && rank <= 4, ErrorStatus::INVALID_ARGUMENT, "shape: output rank ", rank,
                " outside 1..4");
    NNHAL_CHECK(shape.value_size >= rank * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                "shape: value holds fewer than ", rank, " elements");
    dims_t outd(rank, 0);
    std::int64_t stretch = -1;
    std::uint64_t known = 1;
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int32_t v = shape.at<std::int32_t>(i);
      if (v == -1) {
        NNHAL_CHECK(stretch < 0, ErrorStatus::INVALID_ARGUMENT, "shape: more than one -1 entry");
        stretch = static_cast<std::int64_t>(i);
        continue;
      }
      NNHAL_CHECK(v >= 0, ErrorStatus::INVALID_ARGUMENT, "shape: entry ", i, " is ", v, " (must be >= 0 or -1)");
      outd[i] = static_cast<std::uint32_t>(v);
      known *= static_cast<std::uint64_t>(v);
      NNHAL_CHECK(known <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT,
                  "shape: element count overflows");
    }
    if (!c.executing && !input.dims_known()) return shapes{outd};  // -1 stays unknown
    const std::uint64_t total = input.element_count();
    if (stretch >= 0) {
      NNHAL_CHECK(known != 0 ? total % known == 0 : total == 0, ErrorStatus::INVALID_ARGUMENT, "shape: ",
                  total, " elements cannot be reshaped with the -1 entry into a multiple of ", known);
      outd[static_cast<std::size_t>(stretch)] = known == 0 ? 0 : static_cast<std::uint32_t>(total / known);
    } else {
      NNHAL_CHECK(known == total, ErrorStatus::INVALID_ARGUMENT, "shape: ", format_dims(outd), " has ", known,
                  " elements, the input has ", total);
    }
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
