// DIV kernels; contract in types/signatures/div.hpp. Float divides in float32 (float16
// rounded once) and clamps by the activation; TENSOR_INT32 is floor division ("//").
// Float32 has an xsimd path, equal to the reference bit for bit where vector division is
// IEEE (x86, AArch64).
#pragma once

#include <cstdint>
#include <limits>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/elementwise_binary.hpp"
#include "nnhal/ops/simd/cpu.hpp"

namespace nnhal::ops::div {

/// Floor division (-5 // 2 == -3), as AOSP computes it. The HAL leaves two cases
/// undefined and AOSP has undefined behaviour there; here they cannot trap:
/// x // 0 is 0, and INT32_MIN // -1 wraps to INT32_MIN.
inline std::int32_t floor_div(std::int32_t a, std::int32_t b) noexcept {
  if (b == 0) return 0;
  if (b == -1) return static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(a));
  std::int32_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

template <types::element E>
void reference(const kernel_io& io) {
  if constexpr (types::float_element<E>) {
    kernels::binary_float<E>(io, 2, [](float x, float y) { return x / y; });
  } else {
    static_assert(std::is_same_v<E, types::i32>, "DIV: float or TENSOR_INT32 only");
    kernels::binary_int32(io, floor_div);
  }
}

struct lane {
  float operator()(float x, float y) const noexcept { return x / y; }
  template <class Arch>
  xsimd::batch<float, Arch> operator()(const xsimd::batch<float, Arch>& x, const xsimd::batch<float, Arch>& y) const noexcept {
    return x / y;
  }
};

/// float32 through xsimd batches.
template <class Arch>
void vectorized(const kernel_io& io) {
  kernels::vbinary::f32_simd<Arch>(io, kernels::activation_range_float(io.scalar<std::int32_t>(2)), lane{});
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::i32>(c, c.in[0].type, []<class E>(E) {
    if constexpr (std::is_same_v<E, types::f32>) {
#if NNHAL_HAVE_X86_KERNELS
      if (simd::cpu().avx512) return kernel{kernels::vbinary::arith_f32_avx512<kernels::vbinary::arith::div>};
#endif
      if constexpr (kernels::vbinary::has_simd) return kernel{vectorized<kernels::vbinary::simd_arch>};
      else return kernel{reference<E>};
    } else {
      return kernel{reference<E>};
    }
  });
}

}  // namespace nnhal::ops::div
