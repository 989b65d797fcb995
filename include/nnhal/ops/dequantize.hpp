// DEQUANTIZE kernels; contract in types/signatures/dequantize.hpp. output = scale * (value -
// zeroPoint) in float32 as the AOSP CPU path (float16: that, rounded once). Per-channel
// (TENSOR_QUANT8_SYMM_PER_CHANNEL): scales[c] where c is the element's index along
// channelDim; the zero point is 0.
#pragma once

#include <cstdint>

#include "nnhal/ops/kernels/unary.hpp"

namespace nnhal::ops::dequantize {

/// Types qu8 qs8 qsym8 (per-tensor) and qc8 (per-channel) to f32 f16.
template <types::quantized_element In, types::float_element Out>
void reference(const kernel_io& io) {
  using O = typename Out::storage;
  const auto in = io.input<In>(0);
  auto out = io.output<Out>(0);
  if constexpr (std::is_same_v<In, types::qc8>) {
    const auto* pc = io.in[0].channel_quant;
    const std::size_t axis = pc->channelDim;
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= in.dims[d];
    for (std::size_t d = axis + 1; d < in.dims.size(); ++d) inner *= in.dims[d];
    const std::size_t channels = in.dims[axis];
    std::size_t i = 0;
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t ch = 0; ch < channels; ++ch) {
        const float scale = pc->scales[ch];
        for (std::size_t k = 0; k < inner; ++k, ++i)
          out.data[i] = kernels::store_float<O>(scale * static_cast<float>(std::int32_t{in.data[i]} - in.zero_point));
      }
  } else {
    const float scale = in.scale;
    const std::int32_t zp = in.zero_point;
    kernels::vunary::map<In, Out>(io, [scale, zp](typename In::storage v) {
      return kernels::store_float<O>(scale * static_cast<float>(std::int32_t{v} - zp));
    });
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Per-tensor 8-bit In to float32 on AVX-512, the reference's operations 16 at a time:
/// bit-exact with it (tests check it). Call only when simd::cpu().avx512 is true.
template <types::quantized_element In>
void avx512_f32(const kernel_io& io) {
  const auto in = io.input<In>(0);
  auto out = io.output<types::f32>(0);
  const float scale = io.in[0].scale;
  const std::int32_t zero_point = io.in[0].zero_point;
  kernels::vunary::avx512::streamed_chunks(io, out.data, out.size(), elementwise_grain,
                                           [&]<bool S>(std::bool_constant<S>, std::size_t i, std::size_t n) {
                                             kernels::vunary::avx512::dequantize_loop<S>(in.data + i, out.data + i, n,
                                                                                         scale, zero_point);
                                           });
}
#endif

namespace detail {
template <types::quantized_element In>
types::result<kernel> bind_from(const bind_context& c) {
  switch (c.out[0].type) {
    case OperandType::TENSOR_FLOAT32:
#if NNHAL_HAVE_X86_KERNELS
      if constexpr (!std::is_same_v<In, types::qc8>)
        if (simd::cpu().avx512) return kernel{avx512_f32<In>};
#endif
      return kernel{reference<In, types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<In, types::f16>};
    default: return unsupported(c);
  }
}
}  // namespace detail

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_QUANT8_ASYMM: return detail::bind_from<types::qu8>(c);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return detail::bind_from<types::qs8>(c);
    case OperandType::TENSOR_QUANT8_SYMM: return detail::bind_from<types::qsym8>(c);
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      if (c.in[0].channel_quant == nullptr) return unsupported(c);
      return detail::bind_from<types::qc8>(c);
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::dequantize
