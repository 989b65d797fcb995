// MIRROR_PAD contract (AIDL OperationType.aidl, MIRROR_PAD; NNAPI feature level 7).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_shape_spatial.hpp"

namespace nnhal::types::sig {

struct mirror_pad {
  static constexpr auto op = OperationType::MIRROR_PAD;
  enum class in : std::uint8_t { input, paddings, mode };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // mode: 0 = REFLECT, 1 = SYMMETRIC.
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V3, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::INT32), .outputs = outs(T::TENSOR_INT32)},
  });
  static constexpr std::int32_t reflect = 0, symmetric = 1;

  /// As PAD (input rank >= 1, no upper limit), filling with mirrored values: REFLECT
  /// excludes the border element, so each amount must be < the extent; SYMMETRIC repeats
  /// it, so each amount must be <= the extent.
  static result<shapes> infer(const infer_context& c) {
    auto bound = detail::spatial::pad_bound::none;
    if (auto mode = c.inputs[2].scalar<std::int32_t>()) {
      NNHAL_CHECK(*mode == reflect || *mode == symmetric, ErrorStatus::INVALID_ARGUMENT, "mode: ", *mode,
                  " (must be 0 REFLECT or 1 SYMMETRIC)");
      bound = *mode == reflect ? detail::spatial::pad_bound::below_extent : detail::spatial::pad_bound::at_most_extent;
    } else {
      NNHAL_CHECK(!c.executing, ErrorStatus::INVALID_ARGUMENT, "mode: no value at execution");
    }
    return detail::spatial::infer_pad(c, 0, bound);
  }
};

}  // namespace nnhal::types::sig
