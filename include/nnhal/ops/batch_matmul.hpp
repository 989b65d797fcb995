// BATCH_MATMUL kernels; contract in types/signatures/batch_matmul.hpp. A GEMM per batch
// slice with the slices of input0 / input1 read transposed when adj_x / adj_y is set.
// TENSOR_QUANT8_ASYMM_SIGNED follows the AOSP reference (int32 sums of zero-point-corrected
// values, requantized by input0_scale * input1_scale / output_scale, clamped to int8);
// TENSOR_INT32 wraps on overflow. Float32 on AVX-512 or AVX2 + FMA CPUs: each slice through the packed
// GEMM of kernels/gemm_avx512.hpp (input1's slice packed as its weights, input0's rows read
// in place, or transposed first when adj_x); float16: that kernel on widened operands
// (kernels/float16_via_float32.hpp); quant8 on AVX-512 VNNI CPUs: the quant8 GEMM of
// that header, bit-exact with reference(); other CPUs: float32 and quant8 through the xsimd
// GEMM of kernels/conv_gemm.hpp (slices_portable). TENSOR_INT32: slices_i32 (xsimd, any
// CPU with vector registers), bit-exact with reference().
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/ops/simd/aligned.hpp"

namespace nnhal::ops::batch_matmul {

using kernels::conv::requant;

/// The operands' extents: slices of input0 [xr, xc] and input1 [yr, yc], giving [m, n]
/// outputs of `depth` products each.
struct gemm_shape {
  bool adj_x, adj_y;
  std::size_t xr, xc, yr, yc, m, depth, n, slices;
};
inline gemm_shape shape_of(const kernel_io& io) {
  const auto& xd = io.in[0].dims;
  const auto& yd = io.in[1].dims;
  const std::size_t rank = xd.size();
  gemm_shape g{io.scalar<std::uint8_t>(2) != 0, io.scalar<std::uint8_t>(3) != 0, xd[rank - 2], xd[rank - 1],
               yd[rank - 2], yd[rank - 1], 0, 0, 0, 0};
  g.m = g.adj_x ? g.xc : g.xr;
  g.depth = g.adj_x ? g.xr : g.xc;
  g.n = g.adj_y ? g.yr : g.yc;
  g.slices = kernels::conv::element_count(io.out[0].dims) / (g.m * g.n);
  return g;
}

/// out[..., i, j] = sum_p x(i, p) * y(p, j), x(i, p) = adj_x ? input0[..., p, i] :
/// input0[..., i, p], y(p, j) = adj_y ? input1[..., j, p] : input1[..., p, j].
template <types::element E>
void reference(const kernel_io& io, const requant& q) {
  namespace kc = kernels::conv;
  if (kc::element_count(io.out[0].dims) == 0) return;
  const gemm_shape g = shape_of(io);
  const auto x = kc::read_input<E>(io, 0);
  const auto y = kc::read_input<E>(io, 1);
  const auto store = kc::make_writer<E>(io, -1, 0, &q);
  for (std::size_t s = 0; s < g.slices; ++s) {
    const std::size_t x0 = s * g.xr * g.xc, y0 = s * g.yr * g.yc, o0 = s * g.m * g.n;
    kc::gemm_loops<kc::acc_t<E>>(
        g.m, g.n, g.depth,
        [&](std::size_t i, std::size_t p) { return x(x0 + (g.adj_x ? p * g.xc + i : i * g.xc + p)); },
        [&](std::size_t p, std::size_t j) { return y(y0 + (g.adj_y ? j * g.yc + p : p * g.yc + j)); },
        [&](std::size_t i, std::size_t j, kc::acc_t<E> acc) { store(o0 + i * g.n + j, j, acc); });
  }
}

/// TENSOR_INT32 with xsimd (the compile-time architecture), bit-exact with reference():
/// input1's slice as [depth][n] rows (transposed first when adj_y), input0's rows in place
/// (transposed first when adj_x). Four output rows of one vector of columns add up
/// broadcast x(i, p) times y's row p; the lanes are unsigned, so the sums wrap exactly as
/// reference()'s do, in whatever order. Columns past the last full vector run scalar.
/// Blocks of four rows are shared between threads when the slice has 2^16 products or more.
template <class Arch>
void slices_i32(const kernel_io& io) {
  using B = xsimd::batch<std::uint32_t, Arch>;
  constexpr std::size_t lanes = B::size;
  if (kernels::conv::element_count(io.out[0].dims) == 0) return;
  const gemm_shape g = shape_of(io);
  thread_local std::vector<std::uint32_t> xt, yt;
  if (g.adj_x) xt.resize(g.m * g.depth);
  if (g.adj_y) yt.resize(g.depth * g.n);
  const auto* x = reinterpret_cast<const std::uint32_t*>(io.in[0].value);
  const auto* y = reinterpret_cast<const std::uint32_t*>(io.in[1].value);
  auto* out = reinterpret_cast<std::uint32_t*>(io.out_data[0]);
  const std::size_t full = g.n / lanes * lanes;
  for (std::size_t s = 0; s < g.slices; ++s) {
    const std::uint32_t* xs = x + s * g.xr * g.xc;
    const std::uint32_t* ys = y + s * g.yr * g.yc;
    if (g.adj_x) {  // [depth][m] to [m][depth]
      kernels::transpose_plane(reinterpret_cast<std::byte*>(xt.data()), g.depth * 4,
                               reinterpret_cast<const std::byte*>(xs), g.xc * 4, g.xr, g.xc, 4);
      xs = xt.data();
    }
    if (g.adj_y) {  // [n][depth] to [depth][n]
      kernels::transpose_plane(reinterpret_cast<std::byte*>(yt.data()), g.n * 4,
                               reinterpret_cast<const std::byte*>(ys), g.yc * 4, g.yr, g.yc, 4);
      ys = yt.data();
    }
    std::uint32_t* os = out + s * g.m * g.n;
    auto rows = [&](std::size_t b0, std::size_t b1) {
      for (std::size_t i0 = b0 * 4; i0 < std::min(g.m, b1 * 4); i0 += 4) {
        const std::size_t nr = std::min<std::size_t>(4, g.m - i0);
        // Rows past m repeat the last one; only the valid rows are stored.
        const std::uint32_t* xi[4];
        for (std::size_t r = 0; r < 4; ++r) xi[r] = xs + (i0 + std::min(r, nr - 1)) * g.depth;
        for (std::size_t j = 0; j < full; j += lanes) {
          B c0(0u), c1(0u), c2(0u), c3(0u);
          for (std::size_t p = 0; p < g.depth; ++p) {
            const B w = B::load_unaligned(ys + p * g.n + j);
            c0 += B(xi[0][p]) * w;
            c1 += B(xi[1][p]) * w;
            c2 += B(xi[2][p]) * w;
            c3 += B(xi[3][p]) * w;
          }
          const B c[4] = {c0, c1, c2, c3};
          for (std::size_t r = 0; r < nr; ++r) c[r].store_unaligned(os + (i0 + r) * g.n + j);
        }
        for (std::size_t r = 0; r < nr; ++r)
          for (std::size_t j = full; j < g.n; ++j) {
            std::uint32_t acc = 0;
            for (std::size_t p = 0; p < g.depth; ++p) acc += xi[r][p] * ys[p * g.n + j];
            os[(i0 + r) * g.n + j] = acc;
          }
      }
    };
    const std::size_t blocks = (g.m + 3) / 4;
    if (io.par && io.par->concurrency() > 1 && blocks > 1 && g.m * g.n * g.depth >= (std::size_t{1} << 16))
      io.par->parallel_for(blocks, 1, rows);
    else
      rows(0, blocks);
  }
}

/// Float32 (S float) and TENSOR_QUANT8_ASYMM_SIGNED (S int8) through the xsimd GEMM of
/// kernels/conv_gemm.hpp (this build's architecture: the path of CPUs without AVX-512),
/// slice by slice: input1's slice packed as the weights (quant8: as w - input1's zero
/// point), input0's rows read in place (transposed first when adj_x). Quant8 is bit-exact
/// with reference(): the same int32 sums (wrapping alike), the same requantization `q`.
/// The packing and transpose buffers are kept per thread (the bias and requantization
/// vectors, a few per output column, are made per execution).
template <class S, class Arch>
void slices_portable(const kernel_io& io, const requant& q) {
  namespace kc = kernels::conv;
  constexpr bool quant = !std::is_same_v<S, float>;
  using T = std::conditional_t<quant, std::uint32_t, float>;  // the GEMM's lanes
  using tile = kc::gemm_tile<T, Arch>;
  if (kc::element_count(io.out[0].dims) == 0) return;
  const gemm_shape g = shape_of(io);
  kc::packed_panels<T> p = kc::packed_panels<T>::shape(g.n, 1, g.depth, tile::nr);
  thread_local simd::aligned_vector<T> packed;
  thread_local simd::aligned_vector<S> rows;
  packed.resize(p.size());
  p.w = std::shared_ptr<const T>(std::shared_ptr<const T>{}, packed.data());  // not owning
  if (g.adj_x) rows.resize(g.m * g.depth);
  const auto* x = reinterpret_cast<const S*>(io.in[0].value);
  const auto* y = reinterpret_cast<const S*>(io.in[1].value);
  auto* out = reinterpret_cast<S*>(io.out_data[0]);
  exec::parallel_context* par = g.m * g.n * g.depth >= (std::size_t{1} << 16) ? io.par : nullptr;
  const std::vector<float> zero_bias(quant ? 0 : p.padded_channels(), 0.0f);
  std::optional<kc::q8_requant_lanes> rq;
  if constexpr (quant) {
    const auto o = io.output<types::qs8>(0);
    rq.emplace(q, nullptr, g.n, p.padded_channels(), quant::activation_range(0, o.scale, o.zero_point, -128, 127));
  }
  for (std::size_t s = 0; s < g.slices; ++s) {
    const S* xs = x + s * g.xr * g.xc;
    const S* ys = y + s * g.yr * g.yc;
    // Weights (n outputs of depth inputs): input1's slice is [n][depth] when adj_y, else [depth][n].
    if constexpr (quant)
      kc::pack_panels_into(packed.data(), p, ys, g.adj_y ? g.yc : 1, g.adj_y ? 1 : g.yc,
                           kc::minus_zero_point<S>{io.in[1].zero_point});
    else
      kc::pack_f32_into(packed.data(), p, ys, g.adj_y ? g.yc : 1, g.adj_y ? 1 : g.yc);
    if (g.adj_x) {  // [depth][m] to the GEMM's rows [m][depth]
      kernels::transpose_plane(reinterpret_cast<std::byte*>(rows.data()), g.depth * sizeof(S),
                               reinterpret_cast<const std::byte*>(xs), g.xc * sizeof(S), g.xr, g.xc, sizeof(S));
      xs = rows.data();
    }
    S* os = out + s * g.m * g.n;
    if constexpr (quant)
      kc::gemm_tiles<tile::mr, tile::nr>(g.m, g.depth, xs, p.panels,
                                         kc::q8_tile<Arch, S>{p, io.in[0].zero_point, *rq, os, g.n}, par);
    else
      kc::gemm_f32<Arch>(g.m, xs, p, zero_bias.data(), -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::infinity(), os, par);
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// Runs pack(p0, p1) over input1's panels, shared between threads when the slice has at
/// least 2^16 elements (below that, waking a worker costs more than the copy).
template <class Pack>
void pack_panels(std::size_t panels, std::size_t elements, exec::parallel_context* par, Pack&& pack) {
  kernels::conv::avx512::for_blocks(panels, 1, elements >= (std::size_t{1} << 16) ? par : nullptr, pack);
}

/// Float32 through the x86 GEMM (micro-kernels in `isa`), slice by slice. Packing and
/// transposes go to buffers kept per thread (no allocation once a thread has run the largest slice).
inline void slices_f32_x86(const kernel_io& io, kernels::conv::avx512::gemm_isa isa) {
  namespace av = kernels::conv::avx512;
  if (kernels::conv::element_count(io.out[0].dims) == 0) return;
  const gemm_shape g = shape_of(io);
  kernels::conv::packed_f32 p = kernels::conv::packed_f32::shape(g.n, 1, g.depth, av::panel_width(g.n));
  thread_local simd::aligned_vector<float> packed, rows, zero_bias;
  packed.resize(p.size());
  zero_bias.assign(p.panels * p.nr, 0.0f);
  float* const panels = packed.data();  // the caller's buffer (a worker's thread_local is another)
  p.w = std::shared_ptr<const float>(std::shared_ptr<const float>{}, panels);  // not owning
  if (g.adj_x) rows.resize(g.m * g.depth);
  const auto* x = reinterpret_cast<const float*>(io.in[0].value);
  const auto* y = reinterpret_cast<const float*>(io.in[1].value);
  auto* out = reinterpret_cast<float*>(io.out_data[0]);
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (std::size_t s = 0; s < g.slices; ++s) {
    const float* xs = x + s * g.xr * g.xc;
    const float* ys = y + s * g.yr * g.yc;
    // Weights (n outputs of depth inputs): input1's slice is [n][depth] when adj_y, else [depth][n].
    pack_panels(p.panels, g.yr * g.yc, io.par, [&](std::size_t p0, std::size_t p1) {
      kernels::conv::pack_f32_into(panels, p, ys, g.adj_y ? g.yc : 1, g.adj_y ? 1 : g.yc, p0, p1);
    });
    if (g.adj_x) {  // [depth][m] to the GEMM's rows [m][depth]
      kernels::transpose_plane(reinterpret_cast<std::byte*>(rows.data()), g.depth * sizeof(float),
                               reinterpret_cast<const std::byte*>(xs), g.xc * sizeof(float), g.xr, g.xc, sizeof(float));
      xs = rows.data();
    }
    av::gemm_f32(av::dense_rows<float>{xs, g.depth}, g.m, p, zero_bias.data(), -inf, inf, out + s * g.m * g.n,
                 io.par, 0, isa);
  }
}

/// TENSOR_QUANT8_ASYMM_SIGNED through the quant8 GEMM (AMX or AVX-512 VNNI), slice by slice: input1's slice packed
/// as the weights (zero point zw = input1's), input0's rows read in place (transposed
/// first when adj_x). Bit-exact with reference(): the same wrapped int32 sums, the same
/// requantization (`q`, per tensor).
inline void slices_q8_avx512(const kernel_io& io, const requant& q, kernels::conv::avx512::gemm_isa isa) {
  namespace av = kernels::conv::avx512;
  if (kernels::conv::element_count(io.out[0].dims) == 0) return;
  const gemm_shape g = shape_of(io);
  av::packed_q8 p = av::packed_q8::shape(g.n, 1, g.depth, io.in[1].zero_point);
  thread_local simd::aligned_vector<std::int32_t> packed;  // the channel sums, then the panels
  thread_local simd::aligned_vector<std::uint8_t> rows;
  packed.resize((p.bytes() + 3) / 4);
  p.attach(std::shared_ptr<const std::byte>(std::shared_ptr<const std::byte>{},  // not owning
                                            reinterpret_cast<const std::byte*>(packed.data())));
  auto* sums = packed.data();
  auto* panels = reinterpret_cast<std::int8_t*>(packed.data() + p.panels * p.nr);
  if (g.adj_x) rows.resize(g.m * g.depth);
  const auto* x = reinterpret_cast<const std::uint8_t*>(io.in[0].value);
  const auto* y = reinterpret_cast<const std::uint8_t*>(io.in[1].value);
  auto* out = reinterpret_cast<std::int8_t*>(io.out_data[0]);
  const auto o = io.output<types::qs8>(0);
  av::q8_epilogue e;
  av::set_lanes(e, q, g.n, p.panels * p.nr);
  const quant::quant_range r = quant::activation_range(0, o.scale, o.zero_point, -128, 127);
  e.lo = r.lo;
  e.hi = r.hi;
  const std::int32_t zx = io.in[0].zero_point + 128;  // the GEMM reads input0 flipped to u8
  for (std::size_t s = 0; s < g.slices; ++s) {
    const std::uint8_t* xs = x + s * g.xr * g.xc;
    // Weights (n outputs of depth inputs): input1's slice is [n][depth] when adj_y, else [depth][n].
    pack_panels(p.panels, g.yr * g.yc, io.par, [&](std::size_t p0, std::size_t p1) {
      av::pack_q8_into(panels, sums, p, y + s * g.yr * g.yc, g.adj_y ? g.yc : 1, g.adj_y ? 1 : g.yc, false, p0, p1);
    });
    av::set_offsets(e, p, nullptr, zx);
    if (g.adj_x) {  // [depth][m] to the GEMM's rows [m][depth]
      kernels::transpose_plane(reinterpret_cast<std::byte*>(rows.data()), g.depth,
                               reinterpret_cast<const std::byte*>(xs), g.xc, g.xr, g.xc, 1);
      xs = rows.data();
    }
    av::gemm_q8(av::dense_rows<std::uint8_t>{xs, g.depth}, g.m, p, e, out + s * g.m * g.n, io.par, isa);
  }
}
#endif

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32:
#if NNHAL_HAVE_X86_KERNELS
      if (const auto isa = kernels::conv::avx512::f32_gemm_isa())
        return kernel{[isa = *isa](const kernel_io& io) { slices_f32_x86(io, isa); }};
#endif
      if constexpr (!std::is_same_v<xsimd::default_arch, xsimd::unavailable>)
        return kernel{[](const kernel_io& io) { slices_portable<float, xsimd::default_arch>(io, {}); }};
      return kernel{[](const kernel_io& io) { reference<types::f32>(io, {}); }};
    case OperandType::TENSOR_INT32:
      if constexpr (!std::is_same_v<xsimd::default_arch, xsimd::unavailable>)
        return kernel{slices_i32<xsimd::default_arch>};
      return kernel{[](const kernel_io& io) { reference<types::i32>(io, {}); }};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
      const requant q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
#if NNHAL_HAVE_X86_KERNELS
      if (simd::cpu().avx512_vnni)  // AMX where the CPU has it, else AVX-512 VNNI
        return kernel{[q, isa = *kernels::conv::avx512::q8_gemm_isa()](const kernel_io& io) { slices_q8_avx512(io, q, isa); }};
#endif
      if constexpr (!std::is_same_v<xsimd::default_arch, xsimd::unavailable>)
        return kernel{[q](const kernel_io& io) { slices_portable<std::int8_t, xsimd::default_arch>(io, q); }};
      return kernel{[q](const kernel_io& io) { reference<types::qs8>(io, q); }};
    }
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::batch_matmul
