// MIRROR_PAD kernels; contract in types/signatures/mirror_pad.hpp. Each output index maps to
// an input index by reflection about the border: REFLECT skips the border element
// ([1 2 3] padded (0, 2) -> [1 2 3 2 1]), SYMMETRIC repeats it (-> [1 2 3 3 2]).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/shape_spatial.hpp"
#include "nnhal/types/signatures/mirror_pad.hpp"

namespace nnhal::ops::mirror_pad {

/// The input index output index `o` reads in a dimension of extent n padded `before` in front.
/// Infer guarantees before, after < n (REFLECT) or <= n (SYMMETRIC), so the result is in range.
constexpr std::int64_t source_index(std::int64_t o, std::int64_t n, std::int64_t before, bool reflect) noexcept {
  const std::int64_t i = o - before;
  const std::int64_t skip = reflect ? 1 : 0;  // REFLECT does not repeat the border element
  if (i < 0) return -i - 1 + skip;
  if (i >= n) return 2 * n - 1 - i - skip;
  return i;
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto& in = io.in[0];
  const auto& out = io.out[0];
  const bool reflect = io.scalar<std::int32_t>(2) == types::sig::mirror_pad::reflect;
  const std::size_t rank = out.dims.size();
  kernels::spatial::index_maps maps(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    maps[d].resize(out.dims[d]);
    const std::int64_t before = kernels::spatial::pad_before(io, 1, d);
    for (std::size_t o = 0; o < out.dims[d]; ++o)
      maps[d][o] = source_index(static_cast<std::int64_t>(o), in.dims[d], before, reflect);
  }
  kernels::spatial::gather_padded(reinterpret_cast<const S*>(in.value), in.dims, reinterpret_cast<S*>(io.out_data[0]), out.dims,
                         maps, S{});
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8, types::i32>(
      c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::mirror_pad
