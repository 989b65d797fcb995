// RANDOM_MULTINOMIAL contract (HAL 1.3 types.hal, RANDOM_MULTINOMIAL; AIDL keeps it unchanged).
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct random_multinomial {
  static constexpr auto op = OperationType::RANDOM_MULTINOMIAL;
  enum class in : std::uint8_t { input, sample_count, seeds };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
  });

  /// input [batches, classes] of logits (classes > 0), sample_count > 0, seeds [2].
  /// Output: [batches, sample_count].
  static result<shapes> infer(const infer_context& c) {
    const auto& input = c.inputs[0];
    const auto& seeds = c.inputs[2];
    const bool rank_known = c.executing || !input.dims.empty();
    if (rank_known)
      NNHAL_CHECK(input.dims.size() == 2, ErrorStatus::INVALID_ARGUMENT, "input: rank ", input.dims.size(),
                  " (must be 2)");
    if (c.executing) NNHAL_CHECK(input.dims[1] > 0, ErrorStatus::INVALID_ARGUMENT, "input: no classes");
    if (c.executing || !seeds.dims.empty())
      NNHAL_CHECK(seeds.dims.size() == 1 && (seeds.dims[0] == 2 || (!c.executing && seeds.dims[0] == 0)),
                  ErrorStatus::INVALID_ARGUMENT, "seeds: ", format_dims(seeds.dims, true), " (must be [2])");
    const auto count = c.inputs[1].scalar<std::int32_t>();
    if (count) NNHAL_CHECK(*count > 0, ErrorStatus::INVALID_ARGUMENT, "sample_count: ", *count, " (must be positive)");
    NNHAL_CHECK(count || !c.executing, ErrorStatus::INVALID_ARGUMENT, "sample_count: no value");
    const std::uint32_t batches = rank_known ? input.dims[0] : 0;
    const std::uint32_t samples = count ? static_cast<std::uint32_t>(*count) : 0;
    NNHAL_CHECK(std::uint64_t{batches} * samples <= std::numeric_limits<std::uint32_t>::max() / 4,
                ErrorStatus::INVALID_ARGUMENT, "output: [", batches, ", ", samples, "] does not fit a buffer");
    return shapes{dims_t{batches, samples}};
  }
};

}  // namespace nnhal::types::sig
