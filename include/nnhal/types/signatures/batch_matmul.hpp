// BATCH_MATMUL contract (AIDL OperationType.aidl, BATCH_MATMUL; added in AIDL V2 / feature level 6).
#pragma once

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::types::sig {

struct batch_matmul {
  static constexpr auto op = OperationType::BATCH_MATMUL;
  enum class in : std::uint8_t { input0, input1, adj_x, adj_y };
  enum class out : std::uint8_t { output };
  static constexpr auto rows = std::to_array<row>({
      // Both tensors and the output share one type. adj_x and adj_y are documented as optional
      // (default false), but the reference validation and the VTS input-removal tests require all
      // four inputs, so the rows have a fixed arity.
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT32)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_FLOAT16, T::TENSOR_FLOAT16, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_FLOAT16)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_QUANT8_ASYMM_SIGNED)},
      {.since = V::AIDL_V2, .inputs = ins(T::TENSOR_INT32, T::TENSOR_INT32, T::BOOL, T::BOOL), .outputs = outs(T::TENSOR_INT32)},
  });

  /// Both inputs have the same rank (2..4) and the same batch dimensions (all but the last
  /// two; the spec asks for the same batch size, so no broadcasting). With adj_x / adj_y
  /// the slices of input0 / input1 are transposed first; the inner extents must agree and
  /// every matrix extent is > 0 (AOSP canMatrixMul). Output [..., r_o, c_o] with
  /// r_o = adj_x ? c_x : r_x and c_o = adj_y ? r_y : c_y.
  static result<shapes> infer(const infer_context& c) {
    const auto& x = c.inputs[0];
    const auto& y = c.inputs[1];
    auto check_rank = [&](const operand_desc& d, const char* role) -> status {
      if (c.executing || !d.dims.empty())
        NNHAL_CHECK(d.dims.size() >= 2 && d.dims.size() <= 4, ErrorStatus::INVALID_ARGUMENT, role, ": rank ",
                    d.dims.size(), " (must be 2..4)");
      return {};
    };
    NNHAL_TRY(check_rank(x, "input0"));
    NNHAL_TRY(check_rank(y, "input1"));
    if (x.dims.empty() || y.dims.empty()) {
      const std::size_t rank = x.dims.empty() ? y.dims.size() : x.dims.size();
      return shapes{dims_t(rank, 0)};  // validation: unknown rank of one input
    }
    NNHAL_CHECK(x.dims.size() == y.dims.size(), ErrorStatus::INVALID_ARGUMENT, "input1: rank ", y.dims.size(),
                " differs from input0's ", x.dims.size());
    const std::size_t rank = x.dims.size();
    auto known = [&](std::uint32_t e) { return c.executing || e != 0; };
    dims_t out(rank, 0);
    for (std::size_t d = 0; d + 2 < rank; ++d) {
      if (known(x.dims[d]) && known(y.dims[d]))
        NNHAL_CHECK(x.dims[d] == y.dims[d], ErrorStatus::INVALID_ARGUMENT, "input1: batch dimension ", d, " is ",
                    y.dims[d], ", input0's is ", x.dims[d]);
      out[d] = known(x.dims[d]) ? x.dims[d] : y.dims[d];
    }
    const auto adj_x = c.inputs[2].scalar<std::uint8_t>();
    const auto adj_y = c.inputs[3].scalar<std::uint8_t>();
    NNHAL_CHECK((adj_x && adj_y) || !c.executing, ErrorStatus::INVALID_ARGUMENT, "adj_x / adj_y: no value");
    if (c.executing)
      for (std::size_t d = rank - 2; d < rank; ++d)
        NNHAL_CHECK(x.dims[d] > 0 && y.dims[d] > 0, ErrorStatus::INVALID_ARGUMENT,
                    "input0 / input1: zero-sized matrix dimension ", d);
    if (!adj_x || !adj_y) return shapes{std::move(out)};
    const std::uint32_t xr = x.dims[rank - 2], xc = x.dims[rank - 1];
    const std::uint32_t yr = y.dims[rank - 2], yc = y.dims[rank - 1];
    const std::uint32_t inner_x = *adj_x ? xr : xc, inner_y = *adj_y ? yc : yr;
    if (known(inner_x) && known(inner_y))
      NNHAL_CHECK(inner_x == inner_y, ErrorStatus::INVALID_ARGUMENT, "input1: inner extent ", inner_y,
                  " differs from input0's ", inner_x, " (adj_x ", *adj_x != 0, ", adj_y ", *adj_y != 0, ")");
    out[rank - 2] = *adj_x ? xc : xr;
    out[rank - 1] = *adj_y ? yr : yc;
    return shapes{std::move(out)};
  }
};

}  // namespace nnhal::types::sig
