// Portable (xsimd) versions of the fixed-point requantization in ops/quant/fixed_point.hpp,
// one int32 lane per value, equal to the scalar functions bit for bit (tests assert it).
// Only 32-bit lanes are used, so every xsimd architecture has them: the doubling high
// multiply is floor((a*b + 2^30) / 2^31) (equal to the scalar nudge-and-truncate form),
// assembled from the 16-bit halves of a and of b (0 <= b < 2^31, as a fixed_multiplier's
// mantissa is), whose products all fit 32 bits.
#pragma once

#include <cstdint>
#include <limits>
#include <xsimd/xsimd.hpp>

namespace nnhal::simd::portable {

template <class Arch>
using i32_lanes = xsimd::batch<std::int32_t, Arch>;

/// quant::saturating_rounding_doubling_high_mul(a, b) per lane, for 0 <= b < 2^31.
template <class Arch>
inline i32_lanes<Arch> doubling_high_mul(const i32_lanes<Arch>& a, const i32_lanes<Arch>& b) noexcept {
  using I = i32_lanes<Arch>;
  using U = xsimd::batch<std::uint32_t, Arch>;
  const I low16(0xFFFF), low15(0x7FFF);
  const I a1 = a >> 16, a0 = a & low16;  // a = a1 2^16 + a0 (a1 signed, 0 <= a0 < 2^16)
  const I b1 = b >> 16, b0 = b & low16;  // 0 <= b1 < 2^15
  const I t1 = a1 * b0;                  // |t1| < 2^31
  const I t2 = a0 * b1;                  // 0 <= t2 < 2^31
  const U t0 = xsimd::bitwise_cast<U>(a0) * xsimd::bitwise_cast<U>(b0);  // < 2^32
  // a*b = 2^32 a1 b1 + 2^16 (t1 + t2) + t0. With t = 2^15 floor(t / 2^15) + (t & 0x7FFF):
  // a*b + 2^30 = 2^31 (2 a1 b1 + (t1 >> 15) + (t2 >> 15) + (t0 >> 31)) + R, where
  // R = 2^16 ((t1 & 0x7FFF) + (t2 & 0x7FFF)) + (t0 & 0x7FFFFFFF) + 2^30 < 2^33. Halving R
  // (dropping at most one half, which cannot cross a multiple of 2^30) keeps it in 32 bits.
  const U half_r = (xsimd::bitwise_cast<U>((t1 & low15) + (t2 & low15)) << 15) + ((t0 & U(0x7FFFFFFFu)) >> 1) +
                   U(1u << 29);
  return ((a1 * b1) << 1) + (t1 >> 15) + (t2 >> 15) + xsimd::bitwise_cast<I>(t0 >> 31) +
         xsimd::bitwise_cast<I>(half_r >> 30);
}

/// quant::apply_multiplier per lane with a multiplier per lane: mantissa[i] and shift
/// left[i] (0..30) or right[i] (0..31), at most one of them non-zero. Left false skips
/// the saturating left shift, valid when every left[i] is 0.
template <bool Left, class Arch>
inline i32_lanes<Arch> apply_multiplier_lanes(i32_lanes<Arch> x, const i32_lanes<Arch>& mantissa,
                                              const i32_lanes<Arch>& left, const i32_lanes<Arch>& right) noexcept {
  using I = i32_lanes<Arch>;
  using U = xsimd::batch<std::uint32_t, Arch>;
  if constexpr (Left) {
    const I hi = I(std::numeric_limits<std::int32_t>::max()) >> left;
    const I lo = I(std::numeric_limits<std::int32_t>::min()) >> left;
    x = xsimd::min(xsimd::max(x, lo), hi) << left;
  }
  const I h = doubling_high_mul<Arch>(x, mantissa);
  // Divide by 2^right rounding to nearest, ties away from zero.
  const I mask = (I(1) << right) - I(1);
  const I threshold = (mask >> 1) + xsimd::bitwise_cast<I>(xsimd::bitwise_cast<U>(h) >> 31);
  return (h >> right) + xsimd::select((h & mask) > threshold, I(1), I(0));
}

}  // namespace nnhal::simd::portable
