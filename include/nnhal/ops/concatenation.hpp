// CONCATENATION kernels; contract in types/signatures/concatenation.hpp. Each input is
// copied as contiguous runs; a quantized input whose scale/zero point differ from the
// output's is requantized with the AOSP formula round(x * s_in/s_out + bias) + zp_out.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops::concatenation {

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const std::size_t n = io.in.size() - 1;
  const std::int32_t axis = io.scalar<std::int32_t>(n);
  auto out = io.output<E>(0);
  const std::size_t a = static_cast<std::size_t>(axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out.dims[d];
  for (std::size_t d = a + 1; d < out.rank(); ++d) inner *= out.dims[d];
  const std::size_t out_run = out.dims[a] * inner;
  std::size_t base = 0;  // offset of this input's run inside an output run
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = io.input<E>(k);
    const std::size_t run = in.dims[a] * inner;
    bool rescale = false;
    if constexpr (types::quantized_element<E>) rescale = in.scale != out.scale || in.zero_point != out.zero_point;
    for (std::size_t o = 0; o < outer; ++o) {
      const S* src = in.data + o * run;
      S* dst = out.data + o * out_run + base;
      if (!rescale) {
        if (run) std::memcpy(dst, src, run * sizeof(S));
        continue;
      }
      if constexpr (types::quantized_element<E>) {
        // Signed values are moved to the unsigned domain first (+128), so the float
        // expression is the same for both and the signed result is exactly the unsigned
        // one minus 128 (the HAL's parity rule), ties included.
        constexpr std::int32_t offset = std::is_signed_v<S> ? 128 : 0;
        const float scale = in.scale * (1.0f / out.scale);  // as the AOSP path forms it
        const float bias = -static_cast<float>(in.zero_point + offset) * scale;
        constexpr std::int32_t lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
        for (std::size_t i = 0; i < run; ++i) {
          const std::int32_t v =
              static_cast<std::int32_t>(std::round(static_cast<float>(src[i] + offset) * scale + bias)) +
              out.zero_point;
          dst[i] = static_cast<S>(v < lo ? lo : (v > hi ? hi : v));
        }
      }
    }
    base += run;
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{reference<E>}; });
}

}  // namespace nnhal::ops::concatenation
