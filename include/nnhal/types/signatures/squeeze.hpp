// SQUEEZE contract (HAL 1.3 types.hal, SQUEEZE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct squeeze {
  static constexpr auto op = OperationType::SQUEEZE;
  enum class in : std::uint8_t { input, squeeze_dims };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. squeeze_dims is "optional" in the sense of an operand without a
      // value (NO_VALUE): it stays in the input list, so both inputs are always present.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1);

  /// Omitted squeeze_dims: every extent of 1 goes. Given: exactly the listed dimensions
  /// (negative counts from the end, as AOSP does; repeats allowed), each of extent 1. An
  /// empty list squeezes nothing (AOSP). Squeezing every dimension gives [1], not a rank-0
  /// tensor. Input rank <= 4; output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& sq = c.inputs[1];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    if (!sq.omitted)
      NNHAL_CHECK(sq.dims.size() == 1 || (!c.executing && sq.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                  "squeeze_dims: must be a 1-D tensor, got rank ", sq.dims.size());
    NNHAL_CHECK(sq.omitted || sq.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "squeeze_dims: no value at execution");
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};  // unknown rank
    const std::size_t n = input.dims.size();
    std::vector<bool> drop(n, false);
    if (sq.omitted) {
      for (std::size_t d = 0; d < n; ++d) {
        if (input.dims[d] == 0 && !c.executing) return shapes{dims_t{}};  // may or may not be 1
        drop[d] = input.dims[d] == 1;
      }
    } else {
      if (!sq.has_value()) return shapes{dims_t{}};  // which dimensions go is unknown
      const std::size_t count = sq.element_count();
      NNHAL_CHECK(sq.value_size >= count * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                  "squeeze_dims: value holds fewer than ", count, " elements");
      const auto rank = static_cast<std::int64_t>(n);
      for (std::size_t k = 0; k < count; ++k) {
        const std::int32_t v = sq.at<std::int32_t>(k);
        NNHAL_CHECK(v >= -rank && v < rank, ErrorStatus::INVALID_ARGUMENT, "squeeze_dims: entry ", k, " is ", v,
                    ", outside [", -rank, ", ", rank, ")");
        const auto d = static_cast<std::size_t>(v < 0 ? v + rank : v);
        NNHAL_CHECK(input.dims[d] == 1 || (input.dims[d] == 0 && !c.executing), ErrorStatus::INVALID_ARGUMENT,
                    "squeeze_dims: dimension ", d, " has extent ", input.dims[d], ", not 1");
        drop[d] = true;
      }
    }
    dims_t outd;
    for (std::size_t d = 0; d < n; ++d)
      if (!drop[d]) outd.push_back(input.dims[d]);
    if (outd.empty()) outd.push_back(1);  // no rank-0 tensors: AOSP gives [1] (CTS squeeze_b155238914)
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
