// LOCAL_RESPONSE_NORMALIZATION kernels; contract in
// types/signatures/local_response_normalization.hpp. Along the axis, element d becomes
// x[d] * (bias + alpha * sum(x[d - radius .. d + radius]^2))^-beta, the window clipped
// to the slice (a negative radius gives an empty window). Computed in double, f16
// widened on load and rounded once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::ops::local_response_normalization {

template <types::element E>
  requires types::float_element<E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto out = io.output<E>(0);
  if (out.size() == 0) return;
  namespace an = types::sig::detail::axis_norm;
  const std::int64_t radius = io.scalar<std::int32_t>(1);
  const auto bias = static_cast<double>(an::float_scalar(io.in[2]).value_or(1.0f));
  const auto alpha = static_cast<double>(an::float_scalar(io.in[3]).value_or(1.0f));
  const auto beta = static_cast<double>(an::float_scalar(io.in[4]).value_or(0.5f));
  const std::int32_t axis = io.in.size() > 5 ? io.scalar<std::int32_t>(5, -1) : -1;
  const auto split = kernels::pool_norm::axis_split::of(in.dims, axis);
  kernels::pool_norm::for_each_axis_slice(split, [&](std::size_t first, std::size_t stride, std::size_t count) {
    auto at = [&](std::int64_t k) {
      return static_cast<double>(kernels::load_float(in.data[first + static_cast<std::size_t>(k) * stride]));
    };
    const auto n = static_cast<std::int64_t>(count);
    for (std::int64_t d = 0; d < n; ++d) {
      const std::int64_t lo = std::max<std::int64_t>(d - radius, 0);
      const std::int64_t hi = std::min<std::int64_t>(d + radius, n - 1);
      double sum = 0.0;
      for (std::int64_t k = lo; k <= hi; ++k) sum += at(k) * at(k);
      const double v = at(d) * std::pow(bias + alpha * sum, -beta);
      out.data[first + static_cast<std::size_t>(d) * stride] = kernels::store_float<S>(static_cast<float>(v));
    }
  });
}

/// Types f32 f16 (relaxed f32 runs in f32).
inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16>(c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::local_response_normalization
