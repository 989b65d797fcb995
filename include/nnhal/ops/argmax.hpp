// ARGMAX kernels (and the fold ARGMIN shares); contract in types/signatures/argmax.hpp.
// The reduction loop (kernels/reduce.hpp) walks the axis in increasing index order and
// a later element wins only when strictly better, so ties resolve to the smallest index
// as in the AOSP reference; a NaN never wins over an earlier element, and a NaN first
// element is never replaced (the reference's comparisons behave the same way).
// Quantized inputs compare as stored: the scale is positive, so the order is the real one.
#pragma once

#include <cstdint>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::argmax {

/// Folds (best value, its index, elements seen); `Min` selects ARGMIN.
template <types::element E, bool Min>
struct arg_best {
  using storage = typename E::storage;
  using key = std::conditional_t<types::float_element<E>, float, std::int32_t>;
  struct acc {
    key best;
    std::int32_t index;
    std::int32_t seen;
  };
  acc init() const noexcept { return {key{}, 0, 0}; }
  acc step(acc a, storage x) const noexcept {
    key v;
    if constexpr (types::float_element<E>) v = kernels::load_float(x);
    else v = x;
    const bool better = Min ? v < a.best : v > a.best;
    if (a.seen == 0 || better) {
      a.best = v;
      a.index = a.seen;
    }
    ++a.seen;
    return a;
  }
  std::int32_t finish(acc a) const noexcept { return a.index; }
};

/// ARGMAX / ARGMIN over input 0 along the axis scalar in input 1 (validated, may be negative).
template <types::element E, bool Min>
void arg_min_max(const kernel_io& io) {
  const auto& input = io.in[0];
  const auto rank = static_cast<std::int64_t>(input.dims.size());
  std::int64_t axis = io.scalar<std::int32_t>(1);
  if (axis < 0) axis += rank;
  const auto plan = kernels::make_reduce_plan(
      input.dims, [axis](std::size_t d) { return static_cast<std::int64_t>(d) == axis; });
  kernels::reduce(plan, io.input<E>(0).data, io.output<types::i32>(0).data, arg_best<E, Min>{});
}

template <types::element E>
void reference(const kernel_io& io) {
  arg_min_max<E, false>(io);
}

/// Binds ARGMAX (`Min` false) or ARGMIN (`Min` true) for the input's type.
template <bool Min>
types::result<kernel> bind_arg(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32, types::qu8, types::qs8>(
      c, c.in[0].type, []<class E>(E) { return kernel{arg_min_max<E, Min>}; });
}

inline types::result<kernel> bind(const bind_context& c) { return bind_arg<false>(c); }

}  // namespace nnhal::ops::argmax
