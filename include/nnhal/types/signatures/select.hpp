// SELECT contract (HAL 1.3 types.hal, SELECT; AIDL keeps it unchanged).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct select {
  static constexpr auto op = OperationType::SELECT;
  enum class in : std::uint8_t { mask, input1, input2 };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // the mask is TENSOR_BOOL8; input1, input2 and the output share one type.
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_FLOAT16, T::TENSOR_FLOAT16), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_FLOAT32, T::TENSOR_FLOAT32), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_INT32, T::TENSOR_INT32), .outputs = outs(T::TENSOR_INT32)},
      {.since = V::V1_2, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM), .outputs = outs(T::TENSOR_QUANT8_ASYMM)},
      {.since = V::V1_3, .inputs = ins(T::TENSOR_BOOL8, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
  });
  /// mask, input1 and input2 have one shape (no broadcasting); the output has it too.
  /// Validation: unknown extents (0) and unknown ranks (no dims) match anything.
  static result<shapes> infer(const infer_context& c) {
    static constexpr std::string_view roles[] = {"mask", "input1", "input2"};
    dims_t outd;
    bool rank_known = false;
    std::size_t first = 0;  // the input that fixed the rank
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& d = c.inputs[k].dims;
      if (!c.executing && d.empty()) continue;
      if (!rank_known) {
        outd.assign(d.begin(), d.end());
        rank_known = true;
        first = k;
        continue;
      }
      NNHAL_CHECK(d.size() == outd.size(), ErrorStatus::INVALID_ARGUMENT, roles[k], ": shape ",
                  format_dims(d, !c.executing), " differs from ", roles[first], "'s ", format_dims(outd, !c.executing));
      for (std::size_t i = 0; i < d.size(); ++i) {
        const bool unknown = !c.executing && (d[i] == 0 || outd[i] == 0);
        NNHAL_CHECK(unknown || d[i] == outd[i], ErrorStatus::INVALID_ARGUMENT, roles[k], ": shape ",
                    format_dims(d, !c.executing), " differs from ", roles[first], "'s ", format_dims(outd, !c.executing));
        if (outd[i] == 0) outd[i] = d[i];
      }
    }
    return shapes{std::move(outd)};
  }
};

}  // namespace nnhal::types::sig
