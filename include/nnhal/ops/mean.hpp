// MEAN kernels; contract in types/signatures/mean.hpp. Floats sum in float32 in the AOSP
// reference's order and divide by the element count in float32 (float16 is widened once
// and rounded once per output), so float32 matches the reference bit for bit.
// Quantized MEAN keeps the input's scale and zero point, so the mean of the stored values
// is the stored mean: the exact integer sum divided by the count, rounded down. This is
// the AOSP result for TENSOR_QUANT8_ASYMM (TFLite Mean<uint8_t, int32_t> truncates a
// non-negative quotient); for TENSOR_QUANT8_ASYMM_SIGNED the reference truncates toward
// zero, which is one above floor for negative non-integral means, while floor keeps the
// signed result exactly the unsigned one minus 128 (and matches the CTS expectations).
#pragma once

#include <cstdint>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/reduce.hpp"

namespace nnhal::ops::mean {

/// Float mean: sum, then one division by the count.
template <types::float_element E>
struct float_mean {
  using storage = typename E::storage;
  using acc = float;
  float count = 1.0f;
  acc init() const noexcept { return 0.0f; }
  static constexpr bool order_free = false;
  acc step(acc a, storage x) const noexcept { return a + kernels::load_float(x); }
  kernels::f32_batch step(kernels::f32_batch a, kernels::f32_batch x) const noexcept { return a + x; }
#if NNHAL_HAVE_X86_KERNELS
  NNHAL_TARGET_AVX512 __m512 step512(__m512 a, __m512 x) const noexcept { return _mm512_add_ps(a, x); }
  NNHAL_TARGET_AVX512 __m512 finish512(__m512 a) const noexcept
    requires std::is_same_v<storage, float>
  {
    return _mm512_div_ps(a, _mm512_set1_ps(count));
  }
#endif
  storage finish(acc a) const noexcept { return kernels::store_float<storage>(a / count); }
};

/// Quantized mean of stored values: floor(exact sum / count).
template <types::quantized_element E>
struct quant_mean {
  using storage = typename E::storage;
  using acc = std::int64_t;
  std::int64_t count = 1;
  acc init() const noexcept { return 0; }
  acc step(acc a, storage x) const noexcept { return a + x; }
  storage finish(acc a) const noexcept {
    std::int64_t q = a / count;
    if (a % count != 0 && a < 0) --q;
    return static_cast<storage>(q);
  }
};

/// The fold for tag E: float_mean or quant_mean over the plan's reduced count.
template <types::element E>
struct mean_of {
  static auto of(const kernels::reduce_plan& p) {
    // Shape inference rejects empty reductions; the guard keeps the division defined.
    const std::size_t n = p.reduced_count == 0 ? 1 : p.reduced_count;
    if constexpr (types::float_element<E>) return float_mean<E>{static_cast<float>(n)};
    else return quant_mean<E>{static_cast<std::int64_t>(n)};
  }
};
using op = kernels::axes_reduction<mean_of>;

/// The scalar loops (kernels::reduce): the fallback and the tests' oracle.
template <types::element E>
inline constexpr auto& reference = op::reference<E>;

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline constexpr auto& vectorized_f32 = op::vectorized<types::f32>;

inline types::result<kernel> bind(const bind_context& c) {
  return op::bind<types::f32, types::f16, types::qu8, types::qs8>(c);
}

}  // namespace nnhal::ops::mean
