// REDUCE_MAX kernels; contract in types/signatures/reduce_max.hpp. Quantized inputs are
// compared as stored (the output keeps the input's scale and zero point), so the signed
// result is exactly the unsigned one minus 128. Floats fold with a < x ? x : a, which
// skips NaN inputs as the AOSP reference's std::max fold does; the fold starts from
// -infinity where the reference starts from the lowest finite value, which differs only
// when every input is -infinity or NaN.
#pragma once

#include <limits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_max {

template <types::element E>
struct max_of {
  using storage = typename E::storage;
  using acc = std::conditional_t<types::float_element<E>, float, std::int32_t>;
  acc init() const noexcept {
    if constexpr (types::float_element<E>) return -std::numeric_limits<float>::infinity();
    else return std::numeric_limits<storage>::lowest();
  }
  acc step(acc a, storage x) const noexcept {
    acc v;
    if constexpr (types::float_element<E>) v = kernels::load_float(x);
    else v = x;
    return a < v ? v : a;
  }
  static constexpr bool order_free = true;  // same value in any order; NaN skipped either way
  kernels::f32_batch step(kernels::f32_batch a, kernels::f32_batch x) const noexcept {
    return xsimd::select(a < x, x, a);
  }
  storage finish(acc a) const noexcept {
    if constexpr (types::float_element<E>) return kernels::store_float<storage>(a);
    else return static_cast<storage>(a);
  }
};

template <types::element E>
void reference(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce(plan, io.input<E>(0).data, io.output<E>(0).data, max_of<E>{});
}

/// Float32 with xsimd batches (kernels::reduce_vectorized): the values of reference().
inline void vectorized_f32(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce_vectorized(plan, io.input<types::f32>(0).data, io.output<types::f32>(0).data, max_of<types::f32>{});
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{vectorized_f32};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::reduce_max
