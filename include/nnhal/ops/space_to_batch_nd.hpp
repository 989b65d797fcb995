// SPACE_TO_BATCH_ND kernels; contract in types/signatures/space_to_batch_nd.hpp. Output batch
// k = ((dy * bw) + dx) * in_batches + n gathers the pixels at offset (dy, dx) of every bh x bw
// block of input batch n after padding; padding holds zero (the zero point when quantized).
// reference() walks pixels (NHWC and NCHW share the loop through
// kernels::spatial::image_layout); the bound kernel pads when asked, then permutes a 6-D
// view (kernels::spatial::space_to_batch).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::space_to_batch_nd {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const bool nchw = kernels::spatial::flag(io, 3);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  const auto bh = static_cast<std::size_t>(io.in[1].at<std::int32_t>(0));
  const auto bw = static_cast<std::size_t>(io.in[1].at<std::int32_t>(1));
  const auto top = static_cast<std::size_t>(io.in[2].at<std::int32_t>(0));
  const auto left = static_cast<std::size_t>(io.in[2].at<std::int32_t>(2));
  const S zero = kernels::spatial::stored_zero<E>(io);
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  for (std::size_t k = 0; k < lo.n; ++k) {
    const std::size_t n = k % li.n, block = k / li.n, dy = block / bw, dx = block % bw;
    for (std::size_t y = 0; y < lo.h; ++y) {
      const std::size_t py = y * bh + dy;  // row in the padded input
      for (std::size_t x = 0; x < lo.w; ++x) {
        const std::size_t px = x * bw + dx;
        S* o = out + lo.at(k, y, x);
        if (py < top || py - top >= li.h || px < left || px - left >= li.w) kernels::spatial::fill_run(o, lo.sc, lo.c, zero);
        else kernels::spatial::copy_run(in + li.at(n, py - top, px - left), li.sc, o, lo.sc, lo.c);
      }
    }
  }
}

template <types::element E>
void permuted(const kernel_io& io) {
  kernels::spatial::space_to_batch<typename E::storage>(io, kernels::spatial::stored_zero<E>(io));
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{permuted<E>}; });
}

}  // namespace nnhal::ops::space_to_batch_nd
