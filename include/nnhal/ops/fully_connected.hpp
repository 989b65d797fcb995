// FULLY_CONNECTED kernels; contract in types/signatures/fully_connected.hpp. The input is
// read as [batch_size, input_size] (row-major flattening, as the spec reshapes it).
// reference() is a plain GEMM loop (quantized: bit-exact with AOSP); bind() picks the
// x86 GEMM of kernels/gemm_avx512.hpp when the CPU has it (AVX-512: float32 FMA, quant8
// VNNI; else AVX2: float32 FMA, quant8 AVX-VNNI or vpmaddwd), else the packed xsimd GEMM
// of kernels/conv_gemm.hpp (float32 and quant8).
#pragma once

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"

namespace nnhal::ops::fully_connected {

using kernels::conv::requant;

/// out[b, u] = act(sum_k input[b * input_size + k] * weights[u, k] + bias[u]).
template <types::element E>
void reference(const kernel_io& io, const requant& q) {
  namespace kc = kernels::conv;
  if (kc::element_count(io.out[0].dims) == 0) return;
  const std::size_t units = io.in[1].dims[0], depth = io.in[1].dims[1], batch = io.out[0].dims[0];
  const auto in = kc::read_input<E>(io, 0);
  const auto w = kc::read_input<E>(io, 1);
  const auto store = kc::make_writer<E>(io, 2, io.scalar<std::int32_t>(3), &q);
  kc::gemm_loops<kc::acc_t<E>>(
      batch, units, depth, [&](std::size_t i, std::size_t p) { return in(i * depth + p); },
      [&](std::size_t p, std::size_t j) { return w(j * depth + p); },
      [&](std::size_t i, std::size_t j, kc::acc_t<E> acc) { store(i * units + j, j, acc); });
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
#if NNHAL_HAVE_X86_KERNELS
  if (auto k = kernels::conv::avx512::bind_fully_connected(c)) return std::move(*k);
#endif
  if (auto k = kernels::conv::bind_fully_connected_portable(c)) return std::move(*k);
  return unsupported(c);
}

}  // namespace nnhal::ops::fully_connected
