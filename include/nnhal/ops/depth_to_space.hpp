// DEPTH_TO_SPACE kernels; contract in types/signatures/depth_to_space.hpp. Output pixel
// (y, x) takes the depth/(b*b) channels starting at ((y % b) * b + x % b) * out_depth of input
// pixel (y / b, x / b). NHWC and NCHW share the loop through kernels::spatial::image_layout.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::depth_to_space {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const bool nchw = kernels::spatial::flag(io, 2);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  const auto b = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  for (std::size_t n = 0; n < lo.n; ++n)
    for (std::size_t y = 0; y < lo.h; ++y)
      for (std::size_t x = 0; x < lo.w; ++x) {
        const std::size_t first = ((y % b) * b + x % b) * lo.c;
        kernels::spatial::copy_run(in + li.at(n, y / b, x / b, first), li.sc, out + lo.at(n, y, x), lo.sc, lo.c);
      }
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::depth_to_space
