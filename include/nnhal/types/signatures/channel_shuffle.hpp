// CHANNEL_SHUFFLE contract (HAL 1.3 types.hal, CHANNEL_SHUFFLE; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct channel_shuffle {
  static constexpr auto op = OperationType::CHANNEL_SHUFFLE;
  enum class in : std::uint8_t { input, num_groups, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });

  /// Output shape = input shape (rank 1..4); axis in [-rank, rank); num_groups > 0 must
  /// divide the axis extent. Quantized outputs keep the input's scale and zeroPoint.
  static result<shapes> infer(const infer_context& c) {
    const auto& in = c.inputs[0];
    NNHAL_TRY(detail::check_rank_at_most(in, 4, "input"));
    NNHAL_TRY(detail::check_same_quant(in, c.outputs[0], "output"));
    const auto groups = c.inputs[1].scalar<std::int32_t>();
    const auto axis = c.inputs[2].scalar<std::int32_t>();
    NNHAL_CHECK((groups && axis) || !c.executing, ErrorStatus::INVALID_ARGUMENT,
                "num_groups / axis: no value at execution");
    if (groups) NNHAL_CHECK(*groups > 0, ErrorStatus::INVALID_ARGUMENT, "num_groups: ", *groups, " (must be > 0)");
    if (in.dims.empty() && !c.executing) return shapes{dims_t{}};
    const auto rank = static_cast<std::int64_t>(in.dims.size());
    if (axis) {
      NNHAL_CHECK(*axis >= -rank && *axis < rank, ErrorStatus::INVALID_ARGUMENT, "axis: ", *axis, " outside [",
                  -rank, ", ", rank, ")");
      const std::uint32_t extent = in.dims[static_cast<std::size_t>(*axis < 0 ? *axis + rank : *axis)];
      if (groups && (extent != 0 || c.executing))
        NNHAL_CHECK(extent % static_cast<std::uint32_t>(*groups) == 0, ErrorStatus::INVALID_ARGUMENT, "num_groups: ",
                    *groups, " does not divide the axis extent ", extent);
    }
    return shapes{dims_t(in.dims.begin(), in.dims.end())};
  }
};

}  // namespace nnhal::types::sig
