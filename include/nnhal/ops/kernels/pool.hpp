// The 2-D pooling window loop, written once for AVERAGE_POOL_2D, MAX_POOL_2D and
// L2_POOL_2D: each op supplies a per-lane reduction (init / step / finish). Windows are
// clipped to the input, so padding never contributes and `count` is the number of
// input elements the window covers (the AOSP / TFLite convention for averages).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "nnhal/ops/kernels/pool_avx512.hpp"
#include "nnhal/ops/kernels/pool_window.hpp"
#include "nnhal/ops/kernels/pooling_norm.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"
#include "nnhal/types/signatures/detail_pool2d.hpp"

namespace nnhal::ops::kernels::pool_norm {

/// What a pooling reduction provides, for storage type S:
///   acc_t init() const;                       the empty window
///   acc_t step(acc_t a, S x) const;           one more input element
///   S finish(acc_t a, std::int64_t count) const;  the output element (count >= 1)
template <class Op, class S>
concept pool_reduction = requires(const Op& op, typename Op::acc_t a, S x, std::int64_t n) {
  { op.init() } -> std::convertible_to<typename Op::acc_t>;
  { op.step(a, x) } -> std::convertible_to<typename Op::acc_t>;
  { op.finish(a, n) } -> std::convertible_to<S>;
};

/// Calls f(n, oh, ow, window) for every output pixel of `out_l`, row-major.
template <class F>
void for_each_pool_window(const nhwc_layout& in_l, const nhwc_layout& out_l,
                          const types::sig::detail::pool2d::geometry& g, F&& f) {
  for (std::size_t n = 0; n < out_l.n; ++n)
    for (std::size_t oh = 0; oh < out_l.h; ++oh)
      for (std::size_t ow = 0; ow < out_l.w; ++ow) f(n, oh, ow, pool_window::of(oh, ow, in_l, g));
}

/// out[n, oh, ow, c] = finish(fold(step, window(n, oh, ow, c)), count) for every output
/// element; `in_l` / `out_l` address either layout. The window loop runs over channels
/// innermost, which is unit-stride (and vectorizable) for NHWC.
template <class S, class Op>
  requires pool_reduction<Op, S>
void pool_2d(const S* in, const nhwc_layout& in_l, S* out, const nhwc_layout& out_l,
             const types::sig::detail::pool2d::geometry& g, const Op& op) {
  using acc_t = typename Op::acc_t;
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  std::vector<acc_t> acc(channels);
  for_each_pool_window(in_l, out_l, g, [&](std::size_t n, std::size_t oh, std::size_t ow, const pool_window& w) {
    std::fill(acc.begin(), acc.end(), op.init());
    for (std::int64_t y = w.y_begin; y < w.y_end; ++y) {
      for (std::int64_t x = w.x_begin; x < w.x_end; ++x) {
        const S* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(x), 0);
        if (in_l.stride_c == 1) {
          for (std::size_t c = 0; c < channels; ++c) acc[c] = op.step(acc[c], p[c]);
        } else {
          for (std::size_t c = 0; c < channels; ++c) acc[c] = op.step(acc[c], p[c * in_l.stride_c]);
        }
      }
    }
    const std::int64_t count = w.count();
    S* q = out + out_l.offset(n, oh, ow, 0);
    for (std::size_t c = 0; c < channels; ++c) q[c * out_l.stride_c] = op.finish(acc[c], count);
  });
}

/// What a float32 SIMD pooling lane provides: the same reduction on floats (channel
/// tails) and on batches of Arch.
template <class Lane, class Arch>
concept simd_pool_lane = requires(const Lane& l, float a, xsimd::batch<float, Arch> b, std::int64_t n) {
  { l.init() } -> std::convertible_to<float>;
  { l.step(a, a) } -> std::convertible_to<float>;
  { l.finish(a, n) } -> std::convertible_to<float>;
  { l.step(b, b) } -> std::convertible_to<xsimd::batch<float, Arch>>;
  { l.finish(b, n) } -> std::convertible_to<xsimd::batch<float, Arch>>;
};

/// pool_2d for float32 NHWC (unit channel stride) with the channel loop in batches of
/// Arch and the channel tail through the scalar lane. Accumulates in float32.
template <class Arch, class Lane>
  requires simd_pool_lane<Lane, Arch>
void pool_2d_f32_nhwc(const float* in, const nhwc_layout& in_l, float* out, const nhwc_layout& out_l,
                      const types::sig::detail::pool2d::geometry& g, const Lane& lane) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t lanes = batch::size;
  const std::size_t channels = in_l.c;
  if (out_l.n == 0 || out_l.h == 0 || out_l.w == 0 || channels == 0) return;
  const std::size_t vec_end = channels - channels % lanes;
  std::vector<float> acc(channels);
  for_each_pool_window(in_l, out_l, g, [&](std::size_t n, std::size_t oh, std::size_t ow, const pool_window& w) {
    std::fill(acc.begin(), acc.end(), lane.init());
    for (std::int64_t y = w.y_begin; y < w.y_end; ++y) {
      for (std::int64_t x = w.x_begin; x < w.x_end; ++x) {
        const float* p = in + in_l.offset(n, static_cast<std::size_t>(y), static_cast<std::size_t>(x), 0);
        std::size_t c = 0;
        for (; c < vec_end; c += lanes)
          lane.step(batch::load_unaligned(acc.data() + c), batch::load_unaligned(p + c)).store_unaligned(acc.data() + c);
        for (; c < channels; ++c) acc[c] = lane.step(acc[c], p[c]);
      }
    }
    const std::int64_t count = w.count();
    float* q = out + out_l.offset(n, oh, ow, 0);
    std::size_t c = 0;
    for (; c < vec_end; c += lanes) lane.finish(batch::load_unaligned(acc.data() + c), count).store_unaligned(q + c);
    for (; c < channels; ++c) q[c] = lane.finish(acc[c], count);
  });
}

/// reference(), vectorized() and bind() of one pooling operation, written once:
/// `FloatOp<S>` / `QuantOp<S>` are its pool_reduction for float / quantized storage S
/// (constructed from the activation range), `Lane` its float32 SIMD lane.
template <template <class> class FloatOp, template <class> class QuantOp, class Lane>
struct pool_op {
  template <types::element E>
  static void reference(const kernel_io& io) {
    using S = typename E::storage;
    namespace pool2d = types::sig::detail::pool2d;
    const auto in = io.input<E>(0);
    auto out = io.output<E>(0);
    if (out.size() == 0) return;
    const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
    const auto in_l = nhwc_layout::of(in.dims, g.nchw);
    const auto out_l = nhwc_layout::of(out.dims, g.nchw);
    if constexpr (types::float_element<E>) {
      pool_2d(in.data, in_l, out.data, out_l, g, FloatOp<S>{activation_range_float(g.activation)});
    } else {
      const auto r = quant::activation_range(g.activation, out.scale, out.zero_point, std::numeric_limits<S>::min(),
                                             std::numeric_limits<S>::max());
      pool_2d(in.data, in_l, out.data, out_l, g, QuantOp<S>{r});
    }
  }

  /// Runs nhwc(in, in_l, out, out_l, geometry, out_view) for an NHWC input, on parallel
  /// chunks of output rows; NCHW (and empty outputs) go to reference(): the frame of every
  /// vectorized form below.
  template <types::element E, class Nhwc>
  static void on_nhwc(const kernel_io& io, Nhwc&& nhwc) {
    namespace pool2d = types::sig::detail::pool2d;
    const auto in = io.input<E>(0);
    auto out = io.output<E>(0);
    if (out.size() == 0) return;
    const pool2d::geometry g = pool2d::resolve(pool2d::read_scalars(io.in), in.dims);
    if (g.nchw) return reference<E>(io);
    const nhwc_layout il = nhwc_layout::of(in.dims, false), ol = nhwc_layout::of(out.dims, false);
    // Output rows (batch x height) in parallel chunks of about 8K elements: rows [oh0, oh1)
    // of image n are pooled as an image of their own, whose top padding is oh0 strides
    // higher.
    const std::size_t row = std::max<std::size_t>(ol.w * ol.c, 1);
    for_chunks(io, ol.n * ol.h, std::max<std::size_t>(1, 8192 / row), [&](std::size_t r0, std::size_t r1) {
      for (std::size_t r = r0; r < r1;) {
        const std::size_t n = r / ol.h, oh0 = r % ol.h, oh1 = std::min(ol.h, oh0 + (r1 - r));
        pool2d::geometry gs = g;
        gs.pad_h.head -= static_cast<std::int64_t>(oh0) * g.stride_h;
        nhwc_layout il1 = il, ol1 = ol;
        il1.n = 1;
        ol1.n = 1;
        ol1.h = oh1 - oh0;
        nhwc(in.data + il.offset(n, 0, 0, 0), il1, out.data + ol.offset(n, oh0, 0, 0), ol1, gs, out);
        r += oh1 - oh0;
      }
    });
  }

  /// Float32 NHWC with the channel loop in xsimd batches of Arch; NCHW runs the reference.
  template <class Arch>
  static void vectorized(const kernel_io& io) {
    on_nhwc<types::f32>(io, [](const float* in, const nhwc_layout& il, float* out, const nhwc_layout& ol,
                               const types::sig::detail::pool2d::geometry& g, const auto&) {
      pool_2d_f32_nhwc<Arch>(in, il, out, ol, g, Lane{activation_range_float(g.activation)});
    });
  }

#if NNHAL_HAVE_X86_KERNELS
  /// Float32 NHWC through the lane's AVX-512 form; NCHW runs the reference.
  static void vectorized_avx512(const kernel_io& io) {
    on_nhwc<types::f32>(io, [](const float* in, const nhwc_layout& il, float* out, const nhwc_layout& ol,
                               const types::sig::detail::pool2d::geometry& g, const auto&) {
      avx512::pool_f32_nhwc(in, il, out, ol, g, Lane{activation_range_float(g.activation)});
    });
  }

  /// 8-bit NHWC through Q8{}(in, in_l, out, out_l, geometry, lo, hi) with the activation's
  /// range in stored values; NCHW runs the reference.
  template <types::element E, class Q8>
  static void q8_avx512(const kernel_io& io) {
    using S = typename E::storage;
    on_nhwc<E>(io, [](const S* in, const nhwc_layout& il, S* out, const nhwc_layout& ol,
                      const types::sig::detail::pool2d::geometry& g, const auto& o) {
      const auto r = quant::activation_range(g.activation, o.scale, o.zero_point, std::numeric_limits<S>::min(),
                                             std::numeric_limits<S>::max());
      Q8{}(in, il, out, ol, g, r.lo, r.hi);
    });
  }
#endif

  /// Float32 through AVX-512 when the CPU has it and the lane has that form, else xsimd
  /// when the build has SIMD (relaxed f32 runs in f32); quant8 through Q8 on AVX-512; the
  /// other element tags `Es` through reference().
  /// `Q8` is the op's 8-bit AVX-512 kernel functor for q8_avx512() (void: none).
  template <class Q8, types::element... Es>
  static types::result<kernel> bind(const bind_context& c) {
    return bind_for<types::f32, Es...>(c, c.in[0].type, []<class E>(E) {
      if constexpr (std::is_same_v<E, types::f32>) {
#if NNHAL_HAVE_X86_KERNELS
        if constexpr (avx512::lane_avx512<Lane>)
          if (simd::cpu().avx512) return kernel{vectorized_avx512};
#endif
        if constexpr (has_simd) return kernel{vectorized<simd_arch>};
        else return kernel{reference<E>};
      } else {
#if NNHAL_HAVE_X86_KERNELS
        if constexpr (!std::is_void_v<Q8> && types::quantized_element<E>)
          if (simd::cpu().avx512) return kernel{q8_avx512<E, Q8>};
#endif
        return kernel{reference<E>};
      }
    });
  }
};

}  // namespace nnhal::ops::kernels::pool_norm
