// CHANNEL_SHUFFLE kernels; contract in types/signatures/channel_shuffle.hpp. Along the axis,
// output channel k * groups + g = input channel g * group_size + k: a transpose of the
// [groups, group_size] view of the axis, moving whole inner runs.
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"

namespace nnhal::ops::channel_shuffle {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto& dims = io.in[0].dims;
  const auto groups = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  std::int32_t axis = io.scalar<std::int32_t>(2);
  if (axis < 0) axis += static_cast<std::int32_t>(dims.size());
  const auto a = static_cast<std::size_t>(axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= dims[d];
  for (std::size_t d = a + 1; d < dims.size(); ++d) inner *= dims[d];
  const std::size_t channels = dims[a], group_size = channels / groups;
  const S* in = reinterpret_cast<const S*>(io.in[0].value);
  S* out = reinterpret_cast<S*>(io.out_data[0]);
  if (inner == 1) {  // the last axis (NHWC channels): element moves, no run copies
    for (std::size_t o = 0; o < outer; ++o) {
      const S* src = in + o * channels;
      S* dst = out + o * channels;
      for (std::size_t k = 0; k < group_size; ++k)
        for (std::size_t g = 0; g < groups; ++g) dst[k * groups + g] = src[g * group_size + k];
    }
    return;
  }
  for (std::size_t o = 0; o < outer; ++o) {
    const S* src = in + o * channels * inner;
    S* dst = out + o * channels * inner;
    for (std::size_t k = 0; k < group_size; ++k)
      for (std::size_t g = 0; g < groups; ++g)
        kernels::spatial::copy_run(src + (g * group_size + k) * inner, 1, dst + (k * groups + g) * inner, 1, inner);
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::channel_shuffle
