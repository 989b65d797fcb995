// REDUCE_PROD kernels; contract in types/signatures/reduce_prod.hpp. As the AOSP
// reference, a zero factor makes the product 0 even against an infinity (0 * inf would
// be NaN). Float16 multiplies in float32 and rounds once per output.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_prod {

/// Product of the reduced elements; 1 for an empty reduction.
template <types::float_element E>
struct prod {
  using storage = typename E::storage;
  using acc = float;
  acc init() const noexcept { return 1.0f; }
  acc step(acc a, storage x) const noexcept {
    const float v = kernels::load_float(x);
    return (a == 0.0f || v == 0.0f) ? 0.0f : a * v;
  }
  static constexpr bool order_free = false;
  kernels::f32_batch step(kernels::f32_batch a, kernels::f32_batch x) const noexcept {
    const kernels::f32_batch zero(0.0f);
    return xsimd::select((a == zero) | (x == zero), zero, a * x);
  }
  storage finish(acc a) const noexcept { return kernels::store_float<storage>(a); }
};

using op = kernels::axes_reduction<prod>;

/// The scalar loops (kernels::reduce): the fallback and the tests' oracle.
template <types::element E>
inline constexpr auto& reference = op::reference<E>;

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline constexpr auto& vectorized_f32 = op::vectorized<types::f32>;

inline types::result<kernel> bind(const bind_context& c) { return op::bind<types::f32, types::f16>(c); }

}  // namespace nnhal::ops::reduce_prod
