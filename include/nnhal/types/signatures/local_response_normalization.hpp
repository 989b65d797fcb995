// LOCAL_RESPONSE_NORMALIZATION contract (HAL 1.3 types.hal, LOCAL_RESPONSE_NORMALIZATION; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"  // detail::axis_norm

namespace nnhal::types::sig {

struct local_response_normalization {
  static constexpr auto op = OperationType::LOCAL_RESPONSE_NORMALIZATION;
  enum class in : std::uint8_t { input, radius, bias, alpha, beta, axis };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // bias, alpha and beta follow the tensor type (FLOAT16 scalars for TENSOR_FLOAT16).
      // The trailing axis (default -1) is optional and arrived in 1.2, as did ranks other than 4.
      // A model passing the default axis is stripped of it by the upstream runtime and stays 1.0.
      {.since = V::V1_0, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32, T::INT32), .outputs = outs(T::TENSOR_FLOAT32), .required = 5},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_FLOAT16, T::INT32, T::FLOAT16, T::FLOAT16, T::FLOAT16, T::INT32), .outputs = outs(T::TENSOR_FLOAT16), .required = 5},
  });
  // Trailing optional inputs that equal these defaults do not raise the version (axis -1).
  static constexpr auto trailing_defaults = std::to_array<trailing_default>({{T::INT32, -1}});

  /// Output = input shape; rank 1..4 (other than 4 only since 1.2); axis in [-rank, rank).
  /// The spec asks for a non-zero bias, but the CTS itself runs bias 0 (the AOSP CPU path
  /// accepts any bias, alpha, beta and radius), so none of them is restricted here.
  static result<shapes> infer(const infer_context& c) {
    detail::axis_norm::raise_for_rank(c, {4});
    return detail::axis_norm::infer_along_axis(c, 5, 4);
  }
};

}  // namespace nnhal::types::sig
