// REDUCE_ALL kernels; contract in types/signatures/reduce_all.hpp. TENSOR_BOOL8 reads
// any non-zero byte as true and writes 0 or 1.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::reduce_all {

/// The logical and of the reduced elements; true for an empty reduction.
struct all_of {
  using acc = bool;
  acc init() const noexcept { return true; }
  acc step(acc a, types::bool8 x) const noexcept { return a && x != 0; }
  types::bool8 finish(acc a) const noexcept { return a ? 1 : 0; }
};

template <types::element E>
void reference(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  kernels::reduce(plan, io.input<E>(0).data, io.output<E>(0).data, all_of{});
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_BOOL8: return kernel{reference<types::b8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::reduce_all
