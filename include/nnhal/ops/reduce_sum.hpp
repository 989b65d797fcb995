// REDUCE_SUM kernels; contract in types/signatures/reduce_sum.hpp. Float16 is summed in
// float32 and rounded once per output (the AOSP reference sums in half precision); float32
// sums in the reference's order (kernels/reduce.hpp), so results match it bit for bit.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_sum {

/// Sum of the reduced elements; 0 for an empty reduction.
template <types::float_element E>
struct sum {
  using storage = typename E::storage;
  using acc = float;
  acc init() const noexcept { return 0.0f; }
  static constexpr bool order_free = false;
  acc step(acc a, storage x) const noexcept { return a + kernels::load_float(x); }
  kernels::f32_batch step(kernels::f32_batch a, kernels::f32_batch x) const noexcept { return a + x; }
  storage finish(acc a) const noexcept { return kernels::store_float<storage>(a); }
};

template <types::element E>
void reference(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce(plan, io.input<E>(0).data, io.output<E>(0).data, sum<E>{});
}

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline void vectorized_f32(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce_vectorized(plan, io.input<types::f32>(0).data, io.output<types::f32>(0).data, sum<types::f32>{});
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{vectorized_f32};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::reduce_sum
