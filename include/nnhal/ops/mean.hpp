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

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float
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

template <types::element E>
void reference(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  const auto* x = io.input<E>(0).data;
  auto* y = io.output<E>(0).data;
  // Shape inference rejects empty reductions; the guard keeps the division defined.
  const std::size_t n = plan.reduced_count == 0 ? 1 : plan.reduced_count;
  if constexpr (types::float_element<E>) {
    kernels::reduce(plan, x, y, float_mean<E>{static_cast<float>(n)});
  } else {
    kernels::reduce(plan, x, y, quant_mean<E>{static_cast<std::int64_t>(n)});
  }
}

/// Float32 with xsimd batches (kernels::reduce_vectorized): equal to reference() bit for bit.
inline void vectorized_f32(const kernel_io& io) {
  const auto plan = kernels::reduce_plan_from_axes(io);
  const std::size_t n = plan.reduced_count == 0 ? 1 : plan.reduced_count;
  kernels::reduce_vectorized(plan, io.input<types::f32>(0).data, io.output<types::f32>(0).data,
                             float_mean<types::f32>{static_cast<float>(n)});
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

}  // namespace nnhal::ops::mean
