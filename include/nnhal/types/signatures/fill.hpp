// FILL contract (HAL 1.3 types.hal, FILL; AIDL keeps it unchanged).
#pragma once

#include <limits>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct fill {
  static constexpr auto op = OperationType::FILL;
  enum class in : std::uint8_t { shape, value };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // The value scalar's type follows the output tensor's type.
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });

  /// The output's extents are the values of the 1-D shape tensor (each >= 0; rank >= 1);
  /// every element is the value scalar.
  static result<shapes> infer(const infer_context& c) {
    const auto& shape = c.inputs[0];
    NNHAL_CHECK(shape.dims.size() == 1 || (!c.executing && shape.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                "shape: must be a 1-D tensor, got rank ", shape.dims.size());
    NNHAL_CHECK(shape.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "shape: no value at execution");
    NNHAL_CHECK(c.inputs[1].has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "value: no value at execution");
    if (shape.dims.empty() || (shape.dims[0] == 0 && !c.executing)) return shapes{dims_t{}};
    const std::size_t rank = shape.dims[0];
    NNHAL_CHECK(rank >= 1, ErrorStatus::INVALID_ARGUMENT, "shape: empty, the output needs rank >= 1");
    if (!shape.has_value()) return shapes{dims_t(rank, 0)};
    NNHAL_CHECK(shape.value_size >= rank * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                "shape: value holds fewer than ", rank, " elements");
    dims_t outd(rank, 0);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::int32_t v = shape.at<std::int32_t>(i);
      NNHAL_CHECK(v >= 0, ErrorStatus::INVALID_ARGUMENT, "shape: entry ", i, " is ", v, " (must be >= 0)");
      outd[i] = static_cast<std::uint32_t>(v);
    }
    std::uint64_t total = 0;
    const std::uint64_t es = type_info(c.outputs[0].type).element_size;
    NNHAL_CHECK(checked_element_count(outd, total, std::numeric_limits<std::uint32_t>::max() / (es ? es : 1)),
                ErrorStatus::INVALID_ARGUMENT, "shape: ", format_dims(outd), " has too many elements");
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
