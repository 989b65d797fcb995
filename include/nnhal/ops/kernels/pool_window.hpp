// The input window of one 2-D pooling output pixel, clipped to the input: shared by the
// portable pooling loops (kernels/pool.hpp) and the AVX-512 ones (kernels/pool_avx512.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/types/signatures/detail_pool2d.hpp"

namespace nnhal::ops::kernels::pool_norm {

/// One output pixel's window clipped to the input: rows [y_begin, y_end), columns
/// [x_begin, x_end).
struct pool_window {
  std::int64_t y_begin, y_end, x_begin, x_end;

  /// The window of output pixel (oh, ow) over an input laid out as `in_l`.
  static pool_window of(std::size_t oh, std::size_t ow, const nhwc_layout& in_l,
                        const types::sig::detail::pool2d::geometry& g) noexcept {
    const std::int64_t y0 = static_cast<std::int64_t>(oh) * g.stride_h - g.pad_h.head;
    const std::int64_t x0 = static_cast<std::int64_t>(ow) * g.stride_w - g.pad_w.head;
    return {std::max<std::int64_t>(y0, 0), std::min<std::int64_t>(y0 + g.filter_h, static_cast<std::int64_t>(in_l.h)),
            std::max<std::int64_t>(x0, 0), std::min<std::int64_t>(x0 + g.filter_w, static_cast<std::int64_t>(in_l.w))};
  }
  /// Input elements covered. Validation guarantees every window overlaps the input; the
  /// max() only keeps a malformed call from dividing by zero.
  std::int64_t count() const noexcept { return std::max<std::int64_t>((y_end - y_begin) * (x_end - x_begin), 1); }
};

}  // namespace nnhal::ops::kernels::pool_norm
