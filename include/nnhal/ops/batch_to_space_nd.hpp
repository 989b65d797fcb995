// BATCH_TO_SPACE_ND kernels; contract in types/signatures/batch_to_space_nd.hpp. Input batch
// k = ((dy * bw) + dx) * out_batches + n holds the pixels of output batch n at offset (dy, dx)
// of every bh x bw block. reference() walks pixels (NHWC and NCHW share the loop through
// kernels::spatial::image_layout); the bound kernel is one permutation of a 6-D view
// (kernels::spatial::batch_to_space).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::batch_to_space_nd {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const bool nchw = kernels::spatial::flag(io, 2);
  const auto li = kernels::spatial::image_layout::of(io.in[0].dims, nchw);
  const auto lo = kernels::spatial::image_layout::of(io.out[0].dims, nchw);
  const auto bh = static_cast<std::size_t>(io.in[1].at<std::int32_t>(0));
  const auto bw = static_cast<std::size_t>(io.in[1].at<std::int32_t>(1));
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  for (std::size_t k = 0; k < li.n; ++k) {
    const std::size_t n = k % lo.n, block = k / lo.n, dy = block / bw, dx = block % bw;
    for (std::size_t y = 0; y < li.h; ++y)
      for (std::size_t x = 0; x < li.w; ++x)
        kernels::spatial::copy_run(in + li.at(k, y, x), li.sc, out + lo.at(n, y * bh + dy, x * bw + dx), lo.sc, li.c);
  }
}

template <types::element E>
void permuted(const kernel_io& io) {
  kernels::spatial::batch_to_space(io, sizeof(typename E::storage));
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{permuted<E>}; });
}

}  // namespace nnhal::ops::batch_to_space_nd
