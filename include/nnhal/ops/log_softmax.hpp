// LOG_SOFTMAX kernels; contract in types/signatures/log_softmax.hpp. Each 1-D slice
// along the axis becomes beta (x - max) - log(sum exp(beta (x - max))), the max taken out
// for stability; exp, sum and log in double, f16 widened on load and rounded once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::log_softmax {

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  const auto beta = static_cast<double>(types::sig::detail::axis_norm::float_scalar(io.in[1]).value_or(1.0f));
  const auto split = kernels::pool_norm::axis_split::of(in.dims, io.scalar<std::int32_t>(2));
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    float max_v = -std::numeric_limits<float>::infinity();
    for (std::size_t k = 0; k < count; ++k) max_v = std::max(max_v, kernels::load_float(in.data[first + k * stride]));
    auto scaled = [&](std::size_t k) {
      return (static_cast<double>(kernels::load_float(in.data[first + k * stride])) - max_v) * beta;
    };
    double sum = 0.0;
    for (std::size_t k = 0; k < count; ++k) sum += std::exp(scaled(k));
    const double log_sum = std::log(sum);
    for (std::size_t k = 0; k < count; ++k)
      out.data[first + k * stride] = kernels::store_float<S>(static_cast<float>(scaled(k) - log_sum));
  });
}

/// Types f32 f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::log_softmax
