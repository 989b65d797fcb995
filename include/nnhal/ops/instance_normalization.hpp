// INSTANCE_NORMALIZATION kernels; contract in types/signatures/instance_normalization.hpp.
// For each (batch, channel): (x - mean) * gamma / sqrt(var + epsilon) + beta over the
// spatial extent, mean and (biased) variance in two passes in double; NHWC or NCHW
// through the shared layout view; f16 widened on load and rounded once.
#pragma once

#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::instance_normalization {

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  namespace an = types::sig::detail::axis_norm;
  const auto gamma = static_cast<double>(an::float_scalar(io.in[1]).value_or(1.0f));
  const auto beta = static_cast<double>(an::float_scalar(io.in[2]).value_or(0.0f));
  const auto epsilon = static_cast<double>(an::float_scalar(io.in[3]).value_or(0.0f));
  const bool nchw = io.scalar<types::bool8>(4) != 0;
  const auto l = kernels::pool_norm::nhwc_layout::of(in.dims, nchw);
  const auto count = static_cast<double>(l.h * l.w);
  for (std::size_t n = 0; n < l.n; ++n) {
    for (std::size_t c = 0; c < l.c; ++c) {
      auto at = [&](std::size_t h, std::size_t w) { return l.offset(n, h, w, c); };
      double sum = 0.0;
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) sum += static_cast<double>(kernels::load_float(in.data[at(h, w)]));
      const double mean = sum / count;
      double sq = 0.0;
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) {
          const double d = static_cast<double>(kernels::load_float(in.data[at(h, w)])) - mean;
          sq += d * d;
        }
      const double scale = gamma / std::sqrt(sq / count + epsilon);
      for (std::size_t h = 0; h < l.h; ++h)
        for (std::size_t w = 0; w < l.w; ++w) {
          const double x = static_cast<double>(kernels::load_float(in.data[at(h, w)]));
          out.data[at(h, w)] = kernels::store_float<S>(static_cast<float>((x - mean) * scale + beta));
        }
    }
  }
}

/// Types f32 f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::instance_normalization
