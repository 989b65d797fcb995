// REDUCE_SUM kernels; contract in types/signatures/reduce_sum.hpp. Float16 is summed in
// float32 and rounded once per output (the AOSP reference sums in half precision); float32
// sums in the reference's order (kernels/reduce.hpp), so results match it bit for bit.
#pragma once

#include <type_traits>

#include "nnhal/ops/kernel.hpp"
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
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 a, __m512 x) const noexcept { return _mm512_add_ps(a, x); }
  NNHAL_TARGET_AVX512 __m512 finish512(__m512 a) const noexcept
    requires std::is_same_v<storage, float>
  {
    return a;
  }
#endif
  storage finish(acc a) const noexcept { return kernels::store_float<storage>(a); }
};

using op = kernels::axes_reduction<sum>;

/// The scalar loops (kernels::reduce): the fallback and the tests' oracle.
template <types::element E>
inline constexpr auto& reference = op::reference<E>;

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline constexpr auto& vectorized_f32 = op::vectorized<types::f32>;

inline types::result<kernel> bind(const bind_context& c) { return op::bind<types::f32, types::f16>(c); }

}  // namespace nnhal::ops::reduce_sum
