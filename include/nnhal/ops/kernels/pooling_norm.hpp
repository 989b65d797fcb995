// Loop shapes shared by the pooling and normalization family: a 4-D layout view that
// addresses NHWC and NCHW tensors through strides (so no op transposes its data), and
// the outer x axis x inner split that SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION and
// LOCAL_RESPONSE_NORMALIZATION walk one 1-D slice at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float, activation ranges

namespace nnhal::ops::kernels::pool_norm {

/// The SIMD target of this family's float32 paths (xsimd): fixed at compile time by the
/// build's -m flags; without any SIMD instruction set the reference kernels run.
using simd_arch = xsimd::default_arch;
inline constexpr bool has_simd = !std::is_same_v<simd_arch, xsimd::unavailable>;

/// kernels::clamp_activation on a batch: max-then-min through compares, so NaN propagates exactly
/// as in the scalar version.
template <class Arch>
xsimd::batch<float, Arch> clamp_activation_batch(xsimd::batch<float, Arch> v, float_range r) noexcept {
  using batch = xsimd::batch<float, Arch>;
  const batch lo(r.lo), hi(r.hi);
  v = xsimd::select(v < lo, lo, v);
  return xsimd::select(v > hi, hi, v);
}

/// The largest lane of a batch (xsimd 8 has no reduce_max), by the scalar compare.
template <class Arch>
float horizontal_max(xsimd::batch<float, Arch> b) noexcept {
  alignas(Arch::alignment()) float lanes[xsimd::batch<float, Arch>::size];
  b.store_aligned(lanes);
  float m = lanes[0];
  for (float v : lanes) m = v > m ? v : m;
  return m;
}

/// A 4-D tensor seen in NHWC order whatever its storage order: extents plus the
/// element stride of each logical dimension. NCHW support is this struct, once.
struct nhwc_layout {
  std::size_t n = 0, h = 0, w = 0, c = 0;                 // extents
  std::size_t stride_n = 0, stride_h = 0, stride_w = 0, stride_c = 0;

  /// `dims` is the stored shape: [N, H, W, C], or [N, C, H, W] when `nchw`.
  static nhwc_layout of(std::span<const std::uint32_t> dims, bool nchw) noexcept {
    nhwc_layout l;
    if (nchw) {
      l.n = dims[0], l.c = dims[1], l.h = dims[2], l.w = dims[3];
      l.stride_w = 1, l.stride_h = l.w, l.stride_c = l.h * l.w, l.stride_n = l.c * l.h * l.w;
    } else {
      l.n = dims[0], l.h = dims[1], l.w = dims[2], l.c = dims[3];
      l.stride_c = 1, l.stride_w = l.c, l.stride_h = l.w * l.c, l.stride_n = l.h * l.w * l.c;
    }
    return l;
  }
  std::size_t offset(std::size_t in, std::size_t ih, std::size_t iw, std::size_t ic) const noexcept {
    return in * stride_n + ih * stride_h + iw * stride_w + ic * stride_c;
  }
};

/// A tensor split around one axis: `outer` blocks of `axis` x `inner` elements. The
/// elements of one 1-D slice along the axis are `inner` apart.
struct axis_split {
  std::size_t outer = 1, axis = 1, inner = 1;

  /// `axis` may be negative (counted from the end); the caller validated its range.
  static axis_split of(std::span<const std::uint32_t> dims, std::int32_t axis) noexcept {
    const std::size_t rank = dims.size();
    const std::size_t a = axis < 0 ? static_cast<std::size_t>(axis + static_cast<std::int32_t>(rank))
                                   : static_cast<std::size_t>(axis);
    axis_split s;
    for (std::size_t d = 0; d < a; ++d) s.outer *= dims[d];
    s.axis = dims[a];
    for (std::size_t d = a + 1; d < rank; ++d) s.inner *= dims[d];
    return s;
  }
};

/// Calls f(first, stride, count) once per 1-D slice along the axis: the slice's
/// elements are at first + k * stride for k < count.
template <class F>
void for_each_axis_slice(const axis_split& s, F&& f) {
  for (std::size_t o = 0; o < s.outer; ++o) {
    const std::size_t base = o * s.axis * s.inner;
    for (std::size_t i = 0; i < s.inner; ++i) f(base + i, s.inner, s.axis);
  }
}

/// The frame of a float32 kernel for slices along the last axis: rows(in, out, count, n)
/// over contiguous slices of n, in parallel chunks of slices; a tensor whose axis is not
/// the last runs fallback(io) instead.
template <class Rows, class Fallback>
void last_axis_rows_f32(const kernel_io& io, std::int32_t axis, Rows&& rows, Fallback&& fallback) {
  const auto in = io.input<types::f32>(0);
  auto out = io.output<types::f32>(0);
  if (out.size() == 0) return;
  const axis_split split = axis_split::of(in.dims, axis);
  if (split.inner != 1) return fallback(io);
  const std::size_t n = split.axis;
  for_chunks(io, split.outer, std::max<std::size_t>(1, 16384 / std::max<std::size_t>(n, 1)),
             [&](std::size_t o0, std::size_t o1) { rows(in.data + o0 * n, out.data + o0 * n, o1 - o0, n); });
}

}  // namespace nnhal::ops::kernels::pool_norm
