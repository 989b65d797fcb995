// BATCH_MATMUL kernels; contract in types/signatures/batch_matmul.hpp. A GEMM per batch
// slice with the slices of input0 / input1 read transposed when adj_x / adj_y is set.
// TENSOR_QUANT8_ASYMM_SIGNED follows the AOSP reference (int32 sums of zero-point-corrected
// values, requantized by input0_scale * input1_scale / output_scale, clamped to int8);
// TENSOR_INT32 wraps on overflow; float16 is computed in float32. Not vectorized yet.
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"

namespace nnhal::ops::batch_matmul {

using kernels::conv::requant;

/// out[..., i, j] = sum_p x(i, p) * y(p, j), x(i, p) = adj_x ? input0[..., p, i] :
/// input0[..., i, p], y(p, j) = adj_y ? input1[..., j, p] : input1[..., p, j].
template <types::element E>
void reference(const kernel_io& io, const requant& q) {
  namespace kc = kernels::conv;
  const std::size_t total = kc::element_count(io.out[0].dims);
  if (total == 0) return;
  const auto& xd = io.in[0].dims;
  const auto& yd = io.in[1].dims;
  const std::size_t rank = xd.size();
  const bool adj_x = io.scalar<std::uint8_t>(2) != 0, adj_y = io.scalar<std::uint8_t>(3) != 0;
  const std::size_t xr = xd[rank - 2], xc = xd[rank - 1], yr = yd[rank - 2], yc = yd[rank - 1];
  const std::size_t m = adj_x ? xc : xr, depth = adj_x ? xr : xc, n = adj_y ? yr : yc;
  const std::size_t slices = total / (m * n);
  const auto x = kc::read_input<E>(io, 0);
  const auto y = kc::read_input<E>(io, 1);
  const auto store = kc::make_writer<E>(io, -1, 0, &q);
  for (std::size_t s = 0; s < slices; ++s) {
    const std::size_t x0 = s * xr * xc, y0 = s * yr * yc, o0 = s * m * n;
    kc::gemm_loops<kc::acc_t<E>>(
        m, n, depth, [&](std::size_t i, std::size_t p) { return x(x0 + (adj_x ? p * xc + i : i * xc + p)); },
        [&](std::size_t p, std::size_t j) { return y(y0 + (adj_y ? j * yc + p : p * yc + j)); },
        [&](std::size_t i, std::size_t j, kc::acc_t<E> acc) { store(o0 + i * n + j, j, acc); });
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{[](const kernel_io& io) { reference<types::f32>(io, {}); }};
    case OperandType::TENSOR_FLOAT16: return kernel{[](const kernel_io& io) { reference<types::f16>(io, {}); }};
    case OperandType::TENSOR_INT32: return kernel{[](const kernel_io& io) { reference<types::i32>(io, {}); }};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      const requant q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
      return kernel{[q](const kernel_io& io) { reference<types::qs8>(io, q); }};
    }
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::batch_matmul
