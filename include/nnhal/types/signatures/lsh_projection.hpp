// LSH_PROJECTION contract (HAL 1.3 types.hal, LSH_PROJECTION; AIDL keeps it unchanged).
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct lsh_projection {
  static constexpr auto op = OperationType::LSH_PROJECTION;
  enum class in : std::uint8_t { hash, input, weight, type };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // hash and weight share a float type; input may be any of the listed types; weight may be
      // a NO_VALUE operand of the hash type.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::TENSOR_FLOAT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT32, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_QUANT8_ASYMM, T::TENSOR_FLOAT16, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  // Inputs that may be omitted (lifetime NO_VALUE / hasNoValue): the optional ones of the spec.
  static constexpr std::uint64_t omittable = bit(2);

  /// LSHProjectionType values (AOSP numbering; SPARSE arrived in 1.2).
  static constexpr std::int32_t sparse_deprecated = 1, dense = 2, sparse = 3;

  /// hash [num_hash, num_bits] with num_bits <= 32; input of rank >= 1; a present weight
  /// is [input dim 0]. Output: [num_hash] (sparse) or [num_hash * num_bits] (dense).
  static result<shapes> infer(const infer_context& c) {
    const auto& hash = c.inputs[0];
    const auto& input = c.inputs[1];
    const auto& weight = c.inputs[2];
    const bool rank_known = c.executing || !hash.dims.empty();
    if (rank_known)
      NNHAL_CHECK(hash.dims.size() == 2, ErrorStatus::INVALID_ARGUMENT, "hash: rank ", hash.dims.size(),
                  " (must be 2)");
    const std::uint32_t num_hash = rank_known ? hash.dims[0] : 0, num_bits = rank_known ? hash.dims[1] : 0;
    NNHAL_CHECK(num_bits <= 32, ErrorStatus::INVALID_ARGUMENT, "hash: ", num_bits, " bits per hash (at most 32)");
    if (c.executing || !input.dims.empty())
      NNHAL_CHECK(!input.dims.empty(), ErrorStatus::INVALID_ARGUMENT, "input: rank 0 (must be at least 1)");
    if (!weight.omitted && (c.executing || !weight.dims.empty())) {
      NNHAL_CHECK(weight.dims.size() == 1, ErrorStatus::INVALID_ARGUMENT, "weight: rank ", weight.dims.size(),
                  " (must be 1)");
      const std::uint32_t n = input.dims.empty() ? 0 : input.dims[0];
      NNHAL_CHECK(weight.dims[0] == n || (!c.executing && (n == 0 || weight.dims[0] == 0)),
                  ErrorStatus::INVALID_ARGUMENT, "weight: ", weight.dims[0], " values for ", n, " input items");
    }
    const auto type = c.inputs[3].scalar<std::int32_t>();
    if (!type) {
      NNHAL_CHECK(!c.executing, ErrorStatus::INVALID_ARGUMENT, "type: no value");
      return shapes{dims_t{0}};
    }
    NNHAL_CHECK(*type == sparse_deprecated || *type == dense || *type == sparse, ErrorStatus::INVALID_ARGUMENT,
                "type: ", *type, " is not an LSHProjectionType (1 sparse deprecated, 2 dense, 3 sparse)");
    if (*type == sparse && c.min_version) *c.min_version = max_version(*c.min_version, V::V1_2);
    if (*type != dense) return shapes{dims_t{num_hash}};
    const std::uint64_t n = std::uint64_t{num_hash} * num_bits;
    NNHAL_CHECK(n <= std::numeric_limits<std::uint32_t>::max() / 4, ErrorStatus::INVALID_ARGUMENT, "output: ", n,
                " values do not fit a buffer");
    return shapes{dims_t{static_cast<std::uint32_t>(n)}};
  }
};

}  // namespace nnhal::types::sig
