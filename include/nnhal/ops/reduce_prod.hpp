// REDUCE_PROD kernels; contract in types/signatures/reduce_prod.hpp. As the AOSP
// reference, a zero factor makes the product 0 even against an infinity (0 * inf would
// be NaN). Float16 multiplies in float32 and rounds once per output.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float
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

template <types::element E>
void reference(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce(plan, io.input<E>(0).data, io.output<E>(0).data, prod<E>{});
}

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline void vectorized_f32(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce_vectorized(plan, io.input<types::f32>(0).data, io.output<types::f32>(0).data, prod<types::f32>{});
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{vectorized_f32};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::reduce_prod
