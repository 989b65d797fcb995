// GROUPED_CONV_2D kernels; contract in types/signatures/grouped_conv_2d.hpp. The reference
// is the shared direct loop of kernels/conv_common.hpp, each group of depth_out /
// num_groups filters reading its depth_in / num_groups input channels (quantized:
// bit-exact with AOSP). A constant num_groups of 1 is a CONV_2D and binds its packed
// paths (AVX-512 or AVX2, float32 and quant8, else xsimd float32 and quant8). A constant
// num_groups above 1 (and a constant layout), on a CPU whose CONV_2D binds the x86
// kernels for the type: one CONV_2D kernel per group (bind_per_group), run on the
// group's channels regrouped into dense tensors (a copy of the input and of the output
// in NHWC; none in NCHW with one batch), except a float32 NHWC 1x1 conv that is
// pointwise, whose groups' GEMMs read and write their channels in place
// (bind_grouped_pointwise_f32), and a float32 NHWC conv of 2 to 16 channels per group,
// which runs 16 channels per vector (kernels/grouped_avx512.hpp, AVX-512 only). Elsewhere the xsimd kernels of
// kernels/conv_gemm.hpp, which read each group's input channels in place (each group's
// filters packed as their own panels). A num_groups known only at execution runs the
// reference.
#pragma once

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "nnhal/ops/conv_2d.hpp"
#include "nnhal/ops/kernels/conv_common.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/ops/kernels/float16_via_float32.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/ops/kernels/grouped_avx512.hpp"
#include "nnhal/ops/simd/aligned.hpp"
#include "nnhal/types/signatures/grouped_conv_2d.hpp"

namespace nnhal::ops::grouped_conv_2d {

using kernels::conv::conv_kind;
using kernels::conv::requant;
using contract = types::sig::grouped_conv_2d;

template <types::element E, types::element F>
void reference(const kernel_io& io, const requant& q) {
  kernels::conv::conv_reference<E, F>(io, conv_kind::grouped, contract::slots(io.in), q);
}

namespace detail {

/// dims with the channel axis (1 in NCHW, 3 in NHWC; a tensor of rank 4) set to `c`.
inline std::array<std::uint32_t, 4> with_channels(std::span<const std::uint32_t> dims, bool nchw, std::uint32_t c) {
  std::array<std::uint32_t, 4> d{dims[0], dims[1], dims[2], dims[3]};
  d[nchw ? 1 : 3] = c;
  return d;
}

/// One group of a GROUPED_CONV_2D as a CONV_2D: its kernel, bound on the group's operands
/// (the filter, bias and per-channel scales its slices), and the scales its executions
/// pass on (the operand descriptions point at them).
struct group_part {
  types::SymmPerChannelQuantParams scales;
  kernel run;
};

/// The operands of group gi's CONV_2D from the GROUPED_CONV_2D operands `in` (num_groups
/// at slot `groups_slot` left out): the input and output narrowed to cin / cout channels
/// (dims `xd`, `od`), the filter and bias to the group's rows (dims `fd`, `bd`; values
/// offset when present), the per-channel scales `scales` (the group's, or null).
inline void group_operands(std::span<const operand_desc> in, std::size_t groups_slot, std::size_t gi,
                           std::span<const std::uint32_t> xd, std::span<const std::uint32_t> fd,
                           std::span<const std::uint32_t> bd, const types::SymmPerChannelQuantParams* scales,
                           std::vector<operand_desc>& sub) {
  sub.clear();
  for (std::size_t i = 0; i < in.size(); ++i)
    if (i != groups_slot) sub.push_back(in[i]);
  sub[0].dims = xd;
  const std::size_t cout = fd[0], filter_elems = cout * fd[1] * fd[2] * fd[3];
  operand_desc& f = sub[1];
  f.dims = fd;
  if (f.has_value()) {
    const std::size_t bytes = filter_elems * types::type_info(f.type).element_size;
    f.value += gi * bytes;
    f.value_size = bytes;
  }
  if (scales) f.channel_quant = scales;
  operand_desc& b = sub[2];
  b.dims = bd;
  if (b.has_value()) {
    const std::size_t bytes = cout * types::type_info(b.type).element_size;
    b.value += gi * bytes;
    b.value_size = bytes;
  }
}

/// The groups' CONV_2D kernels (bind_per_group); null when one's bind fails.
inline std::shared_ptr<std::vector<group_part>> bind_parts(const bind_context& c, std::size_t groups, bool nchw,
                                                           std::size_t gslot) {
  const operand_desc& x = c.in[0];
  const operand_desc& w = c.in[1];
  if (x.dims.size() != 4 || w.dims.size() != 4 || c.out[0].dims.size() != 4 || !w.dims_known()) return nullptr;
  const std::uint32_t cout_g = w.dims[0] / static_cast<std::uint32_t>(groups), cin_g = w.dims[3];
  auto parts = std::make_shared<std::vector<group_part>>(groups);
  types::Operation op;
  op.type = types::OperationType::CONV_2D;
  for (std::size_t i = 0; i < c.op.inputs.size(); ++i)
    if (i != gslot) op.inputs.push_back(c.op.inputs[i]);
  op.outputs = c.op.outputs;
  const std::array<std::uint32_t, 4> xd = with_channels(x.dims, nchw, cin_g);
  const std::array<std::uint32_t, 4> od = with_channels(c.out[0].dims, nchw, cout_g);
  const std::array<std::uint32_t, 4> fd{cout_g, w.dims[1], w.dims[2], cin_g};
  const std::array<std::uint32_t, 1> bd{cout_g};
  std::vector<operand_desc> sub;
  for (std::size_t gi = 0; gi < groups; ++gi) {
    group_part& part = (*parts)[gi];
    if (w.channel_quant) {
      const auto& all = w.channel_quant->scales;
      if (all.size() != w.dims[0]) return nullptr;
      part.scales.scales.assign(all.begin() + static_cast<std::ptrdiff_t>(gi * cout_g),
                                all.begin() + static_cast<std::ptrdiff_t>((gi + 1) * cout_g));
      part.scales.channelDim = 0;
    }
    group_operands(c.in, gslot, gi, xd, fd, bd, w.channel_quant ? &part.scales : nullptr, sub);
    sub[0].value = nullptr;  // the input is gathered at execution
    operand_desc out = c.out[0];
    out.dims = od;
    const std::string site = types::str_cat(c.site, "/group", gi);
    auto k = conv_2d::bind(bind_context{op, sub, std::span(&out, 1), c.relaxed, c.packs, site});
    if (!k) return nullptr;
    part.run = std::move(*k);
  }
  return parts;
}

/// Whether the strides (constant 1) and padding (constant 0, or implicit, which is 0 for
/// a 1x1 filter at stride 1) make a 1x1 GROUPED_CONV_2D pointwise at every execution.
inline bool pointwise_at_bind(const bind_context& c) {
  const types::sig::detail::conv_values v = types::sig::detail::conv_values_of(contract::slots(c.in), c.in);
  const bool no_pad = v.scheme.has_value() || (v.pad[0] == 0 && v.pad[1] == 0 && v.pad[2] == 0 && v.pad[3] == 0);
  return no_pad && v.stride_w == 1 && v.stride_h == 1 && v.dilation_w == 1 && v.dilation_h == 1;
}

/// GROUPED_CONV_2D with a constant num_groups above 1 and a constant layout as one
/// CONV_2D per group, each bound here by conv_2d::bind (the CPU's fastest: on AVX-512 the
/// packed GEMM, filters packed once per group), each run on its group's channels made a
/// dense tensor. nullopt when a group's bind fails.
inline std::optional<kernel> bind_per_group(const bind_context& c, std::size_t groups, bool nchw) {
  const auto gslot = static_cast<std::size_t>(contract::slots(c.in).extra);
  auto parts = bind_parts(c, groups, nchw, gslot);
  if (!parts) return std::nullopt;
  return kernel{[parts, groups, gslot, nchw](const kernel_io& io) {
    if (kernels::conv::element_count(io.out[0].dims) == 0) return;
    const std::size_t es = types::type_info(io.in[0].type).element_size;
    const auto& xdims = io.in[0].dims;
    const auto& odims = io.out[0].dims;
    const std::size_t batches = xdims[0], cin = xdims[nchw ? 1 : 3], cout = odims[nchw ? 1 : 3];
    const std::size_t cin_g = cin / groups, cout_g = cout / groups;
    const std::size_t in_px = nchw ? std::size_t{xdims[2]} * xdims[3] : std::size_t{xdims[1]} * xdims[2];  // per batch
    const std::size_t out_px = nchw ? std::size_t{odims[2]} * odims[3] : std::size_t{odims[1]} * odims[2];
    const std::array<std::uint32_t, 4> xd = with_channels(xdims, nchw, static_cast<std::uint32_t>(cin_g));
    const std::array<std::uint32_t, 4> od = with_channels(odims, nchw, static_cast<std::uint32_t>(cout_g));
    const auto& w = io.in[1].dims;
    const std::array<std::uint32_t, 4> fd{static_cast<std::uint32_t>(cout_g), w[1], w[2], w[3]};
    const std::array<std::uint32_t, 1> bd{static_cast<std::uint32_t>(cout_g)};
    // NHWC: the input regrouped once, [pixel][group][cin_g] to [group][pixel][cin_g], and
    // the outputs back the same way (each pass reads its source once in order); NCHW: a
    // group's planes are contiguous in each batch, read and written in place for one batch.
    // Buffers per thread, kept: no allocation once a thread has run the largest tensors.
    thread_local simd::aligned_vector<std::byte> xbuf, ybuf;
    thread_local std::vector<operand_desc> sub;
    const bool in_place = nchw && batches == 1;
    const std::size_t xg = batches * in_px * cin_g * es, yg = batches * out_px * cout_g * es;  // bytes per group
    if (!in_place) {
      xbuf.resize(groups * xg);
      ybuf.resize(groups * yg);
    }
    const std::byte* x = io.in[0].value;
    std::byte* y = io.out_data[0];
    if (!in_place) {
      // [batch][group][cin_g planes] to [group][batch][cin_g planes], or [pixel][group][cin_g]
      // to [group][pixel][cin_g]: a transpose of blocks.
      const std::size_t rows = nchw ? batches : batches * in_px, n = nchw ? cin_g * in_px * es : cin_g * es;
      kernels::transpose_plane(xbuf.data(), rows * n, x, groups * n, rows, groups, n);
    }
    for (std::size_t gi = 0; gi < groups; ++gi) {
      const group_part& part = (*parts)[gi];
      group_operands(io.in, gslot, gi, xd, fd, bd, io.in[1].channel_quant ? &part.scales : nullptr, sub);
      sub[0].value = in_place ? x + gi * xg : xbuf.data() + gi * xg;
      sub[0].value_size = xg;
      operand_desc out = io.out[0];
      out.dims = od;
      std::byte* const data[1] = {in_place ? y + gi * yg : ybuf.data() + gi * yg};
      part.run(kernel_io{sub, std::span(&out, 1), data, io.par, nullptr});
    }
    if (!in_place) {
      const std::size_t cols = nchw ? batches : batches * out_px, n = nchw ? cout_g * out_px * es : cout_g * es;
      kernels::transpose_plane(y, groups * n, ybuf.data(), cols * n, groups, cols, n);
    }
  }};
}

}  // namespace detail

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == OperandType::TENSOR_FLOAT16) return kernels::f16_via_f32::bind(c, bind);
  const std::optional<std::int32_t> groups = types::sig::detail::conv_int(c.in, contract::slots(c.in).extra, 1);
#if NNHAL_HAVE_X86_KERNELS
  if (groups == 1)
    if (auto k = kernels::conv::avx512::bind_conv(c, conv_kind::grouped, &contract::slots)) return std::move(*k);
#endif
#if NNHAL_HAVE_X86_KERNELS
  // More groups: one x86 CONV_2D per group when this CPU binds those for the type.
  const bool q8 = c.in[0].type != OperandType::TENSOR_FLOAT32;
  const std::optional<bool> nchw = types::sig::detail::conv_values_of(contract::slots(c.in), c.in).nchw;
  if (groups && *groups > 1 && nchw && !*nchw && !q8 && detail::pointwise_at_bind(c))
    if (auto k = kernels::conv::avx512::bind_grouped_pointwise_f32(
            c, &contract::slots, static_cast<std::size_t>(*groups),
            [](const kernel_io& io) { reference<types::f32, types::f32>(io, {}); }))
      return std::move(*k);
  if (groups && *groups > 1 && nchw && !*nchw && !q8)
    if (auto k = kernels::conv::avx512::bind_grouped_small_f32(
            c, &contract::slots, static_cast<std::size_t>(*groups),
            [](const kernel_io& io) { reference<types::f32, types::f32>(io, {}); }))
      return std::move(*k);
  if (groups && *groups > 1 && nchw &&
      (q8 ? kernels::conv::avx512::q8_gemm_isa() : kernels::conv::avx512::f32_gemm_isa()).has_value())
    if (auto k = detail::bind_per_group(c, static_cast<std::size_t>(*groups), *nchw)) return std::move(*k);
#endif
  if (groups && *groups >= 1)
    if (auto k = kernels::conv::bind_conv_portable(c, conv_kind::grouped, &contract::slots,
                                                   static_cast<std::size_t>(*groups)))
      return std::move(*k);
  return kernels::conv::bind_by_type(c, [&c]<class E, class F>() -> types::result<kernel> {
    requant q;
    if constexpr (types::quantized_element<E>) q = kernels::conv::make_requant(c.in[0], c.in[1], c.out[0]);
    return kernel{[q](const kernel_io& io) { reference<E, F>(io, q); }};
  });
}

}  // namespace nnhal::ops::grouped_conv_2d
