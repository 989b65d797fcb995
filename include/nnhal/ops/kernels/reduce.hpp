// The reduction loop shared by MEAN, REDUCE_* and ARGMAX/ARGMIN: the input's extents
// and a reduced-axis mask become an outer x reduced x inner walk, and a per-op reducer
// (init / step / finish) supplies the arithmetic. A scalar loop (the reference) and an
// xsimd one for reducers that also step batches (float32, TENSOR_BOOL8 bytes); outputs
// side by side in float32 take 16 AVX-512 lanes when the reducer has step512 and the CPU
// the instructions.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float, store_float
#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_HAVE_X86_KERNELS
#include <immintrin.h>
#endif

namespace nnhal::ops::kernels {

/// One level of a walk: `extent` steps of `stride` elements.
struct walk_level {
  std::size_t extent = 1;
  std::size_t stride = 0;
};

/// The geometry of one reduction, built once per execution from the input's extents.
/// Extents of 1 are dropped and neighbouring axes of the same kind (kept / reduced) are
/// merged, so the input reads as alternating kept and reduced groups. Then:
///  - `inner`: the trailing group's extent when it is kept (1 otherwise): outputs that
///    are contiguous in the input and in the output, reduced side by side;
///  - `run`: the trailing group's extent when it is reduced (1 otherwise): a
///    contiguous run folded into one accumulator;
///  - `outer` / `reduced`: the remaining kept / reduced groups, walked row-major.
/// Every output element thus folds its inputs in increasing input order, the order the
/// AOSP reference (TFLite ReduceImpl) visits them in, so float sums round alike.
struct reduce_plan {
  static constexpr std::size_t max_levels = 8;
  std::array<walk_level, max_levels> outer{};
  std::array<walk_level, max_levels> reduced{};
  std::size_t outer_levels = 0, reduced_levels = 0;
  std::size_t inner = 1, run = 1;
  std::size_t reduced_count = 1;  // input elements folded into each output element

  std::span<const walk_level> outer_walk() const noexcept { return {outer.data(), outer_levels}; }
  std::span<const walk_level> reduced_walk() const noexcept { return {reduced.data(), reduced_levels}; }
};

/// The plan for `dims` (row-major) with axis d reduced when `is_reduced(d)`.
/// Precondition: at most 2 * reduce_plan::max_levels alternating groups, which rank <= 4
/// (REDUCE_*, MEAN) and a single axis (ARGMAX/ARGMIN: kept, reduced, kept) satisfy.
template <class IsReduced>
reduce_plan make_reduce_plan(std::span<const std::uint32_t> dims, IsReduced is_reduced) {
  struct group {
    std::size_t extent;
    bool reduced;
  };
  std::array<group, 2 * reduce_plan::max_levels> g{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const bool r = is_reduced(d);
    if (dims[d] == 1) continue;  // no effect on either side
    if (n > 0 && g[n - 1].reduced == r) {
      g[n - 1].extent *= dims[d];
    } else if (n < g.size()) {
      g[n++] = {dims[d], r};
    }
  }
  reduce_plan p;
  std::size_t stride = 1;  // input stride of group i, filled from the last group backwards
  std::array<std::size_t, 2 * reduce_plan::max_levels> strides{};
  for (std::size_t i = n; i-- > 0;) {
    strides[i] = stride;
    stride *= g[i].extent;
  }
  std::size_t last = n;
  if (n > 0) {
    last = n - 1;
    if (g[last].reduced) p.run = g[last].extent;
    else p.inner = g[last].extent;
  }
  for (std::size_t i = 0; i < last; ++i) {
    const walk_level w{g[i].extent, strides[i]};
    if (g[i].reduced) {
      if (p.reduced_levels < reduce_plan::max_levels) p.reduced[p.reduced_levels++] = w;
    } else if (p.outer_levels < reduce_plan::max_levels) {
      p.outer[p.outer_levels++] = w;
    }
  }
  p.reduced_count = p.run;
  for (const auto& w : p.reduced_walk()) p.reduced_count *= w.extent;
  return p;
}

/// The plan of MEAN / REDUCE_*: input 0 reduced along the TENSOR_INT32 list in input 1
/// (entries validated by shape inference: in [-rank, rank), repeats allowed).
inline reduce_plan reduce_plan_from_axes(const kernel_io& io) {
  const auto& input = io.in[0];
  const auto& axes = io.in[1];
  const auto rank = static_cast<std::int64_t>(input.dims.size());
  std::array<bool, 64> reduced{};
  const std::size_t count = axes.dims.empty() ? 0 : axes.dims[0];
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t a = axes.at<std::int32_t>(i);
    if (a < 0) a += rank;
    if (a >= 0 && a < rank && a < 64) reduced[static_cast<std::size_t>(a)] = true;
  }
  return make_reduce_plan(input.dims, [&](std::size_t d) { return d < reduced.size() && reduced[d]; });
}

/// Calls f(offset) for every position of `w`, row-major; offset = sum(index * stride).
template <class F>
void for_each_offset(std::span<const walk_level> w, F&& f) {
  for (const auto& l : w)
    if (l.extent == 0) return;
  std::array<std::size_t, reduce_plan::max_levels> idx{};
  std::size_t offset = 0;
  for (;;) {
    f(offset);
    std::size_t d = w.size();
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < w[d].extent) {
        offset += w[d].stride;
        break;
      }
      offset -= (w[d].extent - 1) * w[d].stride;
      idx[d] = 0;
    }
  }
}

/// A reducer folds input elements into an accumulator and turns it into an output
/// element: `acc a = r.init(); a = r.step(a, x)...; out = r.finish(a)`.
template <class R, class In, class Out>
concept reducer = requires(const R& r, typename R::acc a, In x) {
  { r.init() } -> std::convertible_to<typename R::acc>;
  { r.step(a, x) } -> std::convertible_to<typename R::acc>;
  { r.finish(a) } -> std::convertible_to<Out>;
};

template <class T>
using batch_of = xsimd::batch<T, xsimd::default_arch>;
using f32_batch = batch_of<float>;

/// A reducer whose inputs and accumulator are both `In` (float32, or the bytes of
/// TENSOR_BOOL8) and whose step also takes batches of them, with the same per-lane
/// arithmetic as the scalar step. `order_free` reducers (MAX, MIN, ANY, ALL) give the
/// same value whatever order they fold in (for floats only the sign of a +0/-0 tie may
/// differ), so a contiguous run may also be split across lanes.
template <class R, class In>
concept batch_reducer = std::same_as<typename R::acc, In> && requires(const R& r, typename R::acc a, In x, batch_of<In> b) {
  { r.init() } -> std::convertible_to<typename R::acc>;
  { r.step(a, x) } -> std::convertible_to<typename R::acc>;
  { r.step(b, b) } -> std::same_as<batch_of<In>>;
  { R::order_free } -> std::convertible_to<bool>;
};

#if NNHAL_HAVE_X86_KERNELS
/// A float32 batch reducer that also steps 16 AVX-512 lanes, with the same per-lane
/// arithmetic (step512 carries NNHAL_TARGET_AVX512); it may also finish 16 float32
/// outputs at once (finish512, again the scalar finish per lane).
template <class R>
concept avx512_reducer = batch_reducer<R, float> && requires(const R& r, __m512 v) {
  r.step512(v, v);
};
#endif

namespace detail {

#if NNHAL_HAVE_X86_KERNELS
/// One position of the reduced walk for up to 64 x 16 outputs side by side (a callable,
/// not a lambda, so that it keeps the AVX-512 target).
template <class R>
struct columns_step512 {
  const float* x;
  const R& r;
  __m512* acc;
  std::size_t vectors;
  NNHAL_TARGET_AVX512 void operator()(std::size_t off) const {
    // Locals: the stores to acc could otherwise alias the members, reloaded every step.
    const float* in = x + off;
    __m512* a = acc;
    const std::size_t m = vectors;
#pragma GCC unroll 4
    for (std::size_t j = 0; j < m; ++j) a[j] = r.step512(a[j], _mm512_loadu_ps(in + 16 * j));
  }
};

/// reduce_columns_batch on AVX-512: `t` (a multiple of 16) outputs, 16 per vector, each
/// lane folding its output in the scalar order. A pass takes up to 1024 outputs, whose
/// accumulators stay in L1 while each position of the walk reads 4 KiB of contiguous
/// input (a few register accumulators and 512-byte reads measured 2x slower).
template <class Out, class R>
NNHAL_TARGET_AVX512 void reduce_columns_avx512(const reduce_plan& p, const float* x, Out* y, const R& r, std::size_t t) {
  constexpr std::size_t tile = 64;  // vectors per pass
  alignas(64) __m512 acc[tile];
  alignas(64) float lanes[16];
  for (std::size_t i0 = 0; i0 < t; i0 += 16 * tile) {
    const std::size_t m = std::min(tile, (t - i0) / 16);
    for (std::size_t j = 0; j < m; ++j) acc[j] = _mm512_set1_ps(r.init());
    for_each_offset(p.reduced_walk(), columns_step512<R>{x + i0, r, acc, m});
    for (std::size_t j = 0; j < m; ++j) {
      if constexpr (requires { r.finish512(acc[j]); }) {
        _mm512_storeu_ps(y + i0 + 16 * j, r.finish512(acc[j]));
      } else {
        _mm512_store_ps(lanes, acc[j]);
        for (std::size_t l = 0; l < 16; ++l) y[i0 + 16 * j + l] = r.finish(lanes[l]);
      }
    }
  }
}
#endif

/// Folds `t` neighbouring outputs (scalar accumulators) over the reduced walk.
template <class In, class Out, class R>
void reduce_columns(const reduce_plan& p, const In* x, Out* y, const R& r, std::size_t t) {
  constexpr std::size_t tile = 32;
  std::array<typename R::acc, tile> a;
  for (std::size_t i0 = 0; i0 < t; i0 += tile) {
    const std::size_t m = std::min(tile, t - i0);
    for (std::size_t j = 0; j < m; ++j) a[j] = r.init();
    for_each_offset(p.reduced_walk(), [&](std::size_t off) {
      const In* px = x + off + i0;
      for (std::size_t j = 0; j < m; ++j) a[j] = r.step(a[j], px[j]);
    });
    for (std::size_t j = 0; j < m; ++j) y[i0 + j] = r.finish(a[j]);
  }
}

/// The same with one batch accumulator per `batch_of<In>::size` outputs; `t` is a
/// multiple of the batch size. Each lane folds its output in the scalar order.
template <class In, class Out, class R>
void reduce_columns_batch(const reduce_plan& p, const In* x, Out* y, const R& r, std::size_t t) {
  using batch = batch_of<In>;
  constexpr std::size_t lanes = batch::size;
  constexpr std::size_t tile = 8;  // batches per pass
  std::array<batch, tile> a;
  alignas(64) std::array<In, lanes> out{};
  for (std::size_t i0 = 0; i0 < t; i0 += tile * lanes) {
    const std::size_t m = std::min(tile, (t - i0) / lanes);
    for (std::size_t j = 0; j < m; ++j) a[j] = batch(r.init());
    for_each_offset(p.reduced_walk(), [&](std::size_t off) {
      const In* px = x + off + i0;
      for (std::size_t j = 0; j < m; ++j) a[j] = r.step(a[j], batch::load_unaligned(px + j * lanes));
    });
    for (std::size_t j = 0; j < m; ++j) {
      a[j].store_aligned(out.data());
      for (std::size_t l = 0; l < lanes; ++l) y[i0 + j * lanes + l] = r.finish(out[l]);
    }
  }
}

/// One output folding `run`-long contiguous stretches. An order-free reducer folds
/// them lane-wise and combines the lanes at the end.
template <bool Vectorized, class In, class Out, class R>
Out reduce_row(const reduce_plan& p, const In* x, const R& r) {
  typename R::acc a = r.init();
  if constexpr (Vectorized) {
    using batch = batch_of<In>;
    constexpr std::size_t lanes = batch::size;
    if (R::order_free && p.run >= 2 * lanes) {
      // Four independent chains hide the compare-select latency.
      const batch start(r.init());
      std::array<batch, 4> b{start, start, start, start};
      for_each_offset(p.reduced_walk(), [&](std::size_t off) {
        const In* px = x + off;
        std::size_t i = 0;
        for (; i + 4 * lanes <= p.run; i += 4 * lanes)
          for (std::size_t c = 0; c < 4; ++c) b[c] = r.step(b[c], batch::load_unaligned(px + i + c * lanes));
        for (; i + lanes <= p.run; i += lanes) b[0] = r.step(b[0], batch::load_unaligned(px + i));
        for (; i < p.run; ++i) a = r.step(a, px[i]);
      });
      alignas(64) std::array<In, lanes> l{};
      for (const auto& chain : b) {
        chain.store_aligned(l.data());
        for (float v : l) a = r.step(a, v);
      }
      return r.finish(a);
    }
  }
  for_each_offset(p.reduced_walk(), [&](std::size_t off) {
    const In* px = x + off;
    for (std::size_t i = 0; i < p.run; ++i) a = r.step(a, px[i]);
  });
  return r.finish(a);
}

template <bool Vectorized, class In, class Out, class R>
void reduce_loop(const reduce_plan& p, const In* x, Out* y, const R& r) {
  std::size_t out = 0;
  for_each_offset(p.outer_walk(), [&](std::size_t base) {
    if (p.inner == 1) {
      y[out++] = reduce_row<Vectorized, In, Out>(p, x + base, r);
      return;
    }
    // `inner` neighbouring outputs, each with its own accumulator, advance together.
    std::size_t done = 0;
    if constexpr (Vectorized) {
#if NNHAL_HAVE_X86_KERNELS
      if constexpr (avx512_reducer<R>)
        if (simd::cpu().avx512) {
          done = p.inner / 16 * 16;
          reduce_columns_avx512(p, x + base, y + out, r, done);
        }
#endif
      const std::size_t batched = (p.inner - done) / batch_of<In>::size * batch_of<In>::size;
      reduce_columns_batch(p, x + base + done, y + out + done, r, batched);
      done += batched;
    }
    reduce_columns(p, x + base + done, y + out + done, r, p.inner - done);
    out += p.inner;
  });
}

}  // namespace detail

/// out[o] = finish(fold(step, init, inputs of o)) for every output element o, with the
/// output stored row-major over the kept axes. Plain scalar loops: the reference path
/// and the oracle of the vectorized one. Reads each input element once; never touches
/// memory outside [x, x + input size) and [y, y + output size).
template <class In, class Out, class R>
  requires reducer<R, In, Out>
void reduce(const reduce_plan& p, const In* x, Out* y, const R& r) {
  detail::reduce_loop<false>(p, x, y, r);
}

/// The same with xsimd batches of the input (xsimd::default_arch, chosen at compile
/// time): outputs side by side fold one batch lane each, and order-free reducers also
/// split contiguous runs across lanes; tails use the scalar loop. Results equal
/// reduce()'s (tests assert it): bit for bit where every lane performs the scalar step
/// sequence of its output; order-free float row folds may only differ in the sign of a
/// zero when +0 and -0 tie for the extreme.
template <class In, class Out, class R>
  requires batch_reducer<R, In>
void reduce_vectorized(const reduce_plan& p, const In* x, Out* y, const R& r) {
  detail::reduce_loop<true>(p, x, y, r);
}

/// REDUCE_MAX (`Max`) or REDUCE_MIN fold. Floats fold with a < x ? x : a (MIN: x < a),
/// which skips NaN inputs, starting from -infinity (MIN: +infinity); quantized values
/// compare as stored, starting from the storage type's lowest (MIN: highest) value.
template <types::element E, bool Max>
struct extremum {
  using storage = typename E::storage;
  using acc = std::conditional_t<types::float_element<E>, float, std::int32_t>;
  acc init() const noexcept {
    if constexpr (types::float_element<E>) return Max ? -std::numeric_limits<float>::infinity()
                                                       : std::numeric_limits<float>::infinity();
    else return Max ? std::numeric_limits<storage>::lowest() : std::numeric_limits<storage>::max();
  }
  acc step(acc a, storage x) const noexcept {
    acc v;
    if constexpr (types::float_element<E>) v = load_float(x);
    else v = x;
    if constexpr (Max) return a < v ? v : a;
    else return v < a ? v : a;
  }
  static constexpr bool order_free = true;  // same value in any order; NaN skipped either way
  f32_batch step(f32_batch a, f32_batch x) const noexcept {
    if constexpr (Max) return xsimd::select(a < x, x, a);
    else return xsimd::select(x < a, x, a);
  }
  storage finish(acc a) const noexcept {
    if constexpr (types::float_element<E>) return store_float<storage>(a);
    else return static_cast<storage>(a);
  }
};

/// REDUCE_ALL (`All`) or REDUCE_ANY fold over TENSOR_BOOL8: any non-zero byte reads as
/// true, the output is 0 or 1; an empty reduction gives true (ANY: false). As bytes: ALL
/// is "the smallest byte is non-zero" (starting from 255), ANY "the largest is" (from
/// 0), so batches of bytes fold with min / max.
template <bool All>
struct logical_fold {
  using acc = types::bool8;
  acc init() const noexcept { return All ? 0xFF : 0; }
  acc step(acc a, types::bool8 x) const noexcept { return All ? std::min(a, x) : std::max(a, x); }
  static constexpr bool order_free = true;
  batch_of<acc> step(batch_of<acc> a, batch_of<acc> x) const noexcept { return All ? xsimd::min(a, x) : xsimd::max(a, x); }
  types::bool8 finish(acc a) const noexcept { return a != 0 ? 1 : 0; }
};

/// reference(), vectorized_f32() and bind() of MEAN and the REDUCE_* operations, written
/// once: input 0 folded along the axes list in input 1 by the reducer `Fold<E>{}`, or
/// `Fold<E>::of(plan)` when the fold needs the plan (MEAN divides by the reduced count).
template <template <class> class Fold>
struct axes_reduction {
  template <types::element E>
  static auto make(const reduce_plan& p) {
    if constexpr (requires { Fold<E>::of(p); }) return Fold<E>::of(p);
    else return Fold<E>{};
  }

  template <types::element E>
  static void reference(const kernel_io& io) {
    const auto plan = reduce_plan_from_axes(io);
    reduce(plan, io.input<E>(0).data, io.output<E>(0).data, make<E>(plan));
  }

  /// With xsimd batches (reduce_vectorized): the values of reference(). For the tags
  /// whose fold is a batch_reducer (float32, and TENSOR_BOOL8's ANY / ALL).
  template <types::element E>
  static void vectorized(const kernel_io& io) {
    const auto plan = reduce_plan_from_axes(io);
    reduce_vectorized(plan, io.input<E>(0).data, io.output<E>(0).data, make<E>(plan));
  }
  template <types::element E>
  static constexpr bool has_vectorized = batch_reducer<decltype(make<E>(std::declval<const reduce_plan&>())), typename E::storage>;

  /// Through vectorized() where the fold has batches, every other tag of `Es` through
  /// reference().
  template <types::element... Es>
  static types::result<kernel> bind(const bind_context& c) {
    return bind_for<Es...>(c, c.in[0].type, []<class E>(E) {
      if constexpr (has_vectorized<E>) return kernel{vectorized<E>};
      else return kernel{reference<E>};
    });
  }
};

}  // namespace nnhal::ops::kernels
