// TRANSPOSE contract (HAL 1.3 types.hal, TRANSPOSE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig {

struct transpose {
  static constexpr auto op = OperationType::TRANSPOSE;
  enum class in : std::uint8_t { input, perm };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Introduced in HAL 1.1. perm is "optional" in the sense of an operand without a value
      // (NO_VALUE, meaning the reversed order): it stays in the input list.
      {.since = V::V1_1, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_1, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(1);

  /// Output dimension i is input dimension perm[i]; perm must be a permutation of
  /// [0, rank) (no repeats). An omitted perm is (n-1, ..., 0). Rank <= 4; the input may
  /// be zero-sized. Output quantization = input's.
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& perm = c.inputs[1];
    NNHAL_TRY(detail::check_rank_at_most(input, 4, "input"));
    NNHAL_TRY(detail::check_same_quant(input, c.outputs[0], "output"));
    if (!perm.omitted) {
      NNHAL_CHECK(perm.dims.size() == 1 || (!c.executing && perm.dims.empty()), ErrorStatus::INVALID_ARGUMENT,
                  "perm: must be a 1-D tensor, got rank ", perm.dims.size());
      NNHAL_CHECK(perm.has_value() || !c.executing, ErrorStatus::INVALID_ARGUMENT, "perm: no value at execution");
    }
    if (input.dims.empty() && !c.executing) return shapes{dims_t{}};
    const std::size_t n = input.dims.size();
    dims_t outd(n, 0);
    if (perm.omitted) {
      for (std::size_t i = 0; i < n; ++i) outd[i] = input.dims[n - 1 - i];
      return shapes{outd};
    }
    if (perm.dims.empty() || (perm.dims[0] == 0 && !c.executing)) return shapes{outd};
    NNHAL_CHECK(perm.dims[0] == n, ErrorStatus::INVALID_ARGUMENT, "perm: ", perm.dims[0],
                " entries for an input of rank ", n);
    if (!perm.has_value()) return shapes{outd};
    NNHAL_CHECK(perm.value_size >= n * sizeof(std::int32_t), ErrorStatus::INVALID_ARGUMENT,
                "perm: value holds fewer than ", n, " elements");
    std::uint32_t seen = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t p = perm.at<std::int32_t>(i);
      NNHAL_CHECK(p >= 0 && static_cast<std::size_t>(p) < n, ErrorStatus::INVALID_ARGUMENT, "perm: entry ", i, " is ",
                  p, ", outside [0, ", n, ")");
      NNHAL_CHECK(!((seen >> p) & 1u), ErrorStatus::INVALID_ARGUMENT, "perm: ", p, " appears twice");
      seen |= 1u << p;
      outd[i] = input.dims[static_cast<std::size_t>(p)];
    }
    return shapes{outd};
  }
};

}  // namespace nnhal::types::sig
