// The optimized conv-family kernels (AVX-512 float32 GEMM, VNNI quant8 GEMM, AVX-512
// depthwise; the portable xsimd GEMM and depthwise, float32 and quant8, with AVX-512
// turned off) against reference() on random shapes: odd channel counts and panel tails,
// kernel sizes 1..7, strides 1..3, dilation 1..3, explicit padding, every activation, NHWC
// and NCHW, constant filters packed at bind and filters read at execution. Quant8 results
// must equal reference() bit for bit; float32 within float rounding; float16 (the float32
// kernels on widened operands) at most one half step apart. reference() itself
// is checked against the real-number definitions in conv_test.cpp. Also the per-lane
// AVX-512 and xsimd requantizations against the scalar one.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "nnhal/ops/batch_matmul.hpp"
#include "nnhal/ops/conv_2d.hpp"
#include "nnhal/ops/depthwise_conv_2d.hpp"
#include "nnhal/ops/fully_connected.hpp"
#include "nnhal/ops/grouped_conv_2d.hpp"
#include "nnhal/ops/transpose_conv_2d.hpp"
#include "nnhal/ops/simd/fixed_point_avx2.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"
#include "nnhal/ops/simd/fixed_point_xsimd.hpp"
#include "support/op_runner.hpp"

using namespace nnhal::test::op;

namespace {

namespace ops = nnhal::ops;

struct rng {
  std::mt19937 gen;
  explicit rng(std::uint32_t seed) : gen(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen); }
  bool coin() { return uniform(0, 1) == 1; }
};

void fill(tensor& o, rng& r) {
  for (std::size_t i = 0; i < o.count(); ++i) {
    switch (o.type) {
      case OT::TENSOR_FLOAT32: o.set(i, r.real(-1.0f, 1.0f)); break;
      case OT::TENSOR_FLOAT16: o.set(i, ty::to_float16(r.real(-1.0f, 1.0f))); break;
      case OT::TENSOR_INT32: o.set(i, static_cast<std::int32_t>(r.uniform(-20000, 20000))); break;
      case OT::TENSOR_QUANT8_SYMM_PER_CHANNEL: o.set(i, static_cast<std::uint8_t>(r.uniform(-127, 127))); break;
      default: o.set(i, static_cast<std::uint8_t>(r.uniform(0, 255))); break;
    }
  }
}

/// A zero point for `t`, the ends of the range now and then.
std::int32_t zero_point(OT t, rng& r) {
  const bool u = t == OT::TENSOR_QUANT8_ASYMM;
  switch (r.uniform(0, 5)) {
    case 0: return u ? 0 : -128;
    case 1: return u ? 255 : 127;
    case 2: return u ? 128 : 0;
    default: return u ? r.uniform(0, 255) : r.uniform(-128, 127);
  }
}

/// The bound kernel (filter visible at bind or not) and reference() on the same operands.
/// Every other call runs the bound kernel on a two-thread context whose halves run in
/// reverse order (the GEMM shares out row blocks, or panels when there are few blocks).
struct outputs {
  tensor fast, ref;
};
template <class Ref>
outputs run_both(OpT op, std::vector<tensor> ins, const tensor& out, bool constant_filter, Ref ref) {
  static int calls = 0;
  reversed_context two_threads;
  outputs o;
  o.ref = run_entry1(op, ref, ins, out);
  ins[1].bind_sees_value = constant_filter;
  kernel_result r = run_kernel(op, ins, {out}, ++calls % 2 == 0 ? &two_threads : nullptr);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.guards_intact, "the kernel wrote outside its output");
  o.fast = r.outs[0];
  REQUIRE_MESSAGE(o.fast.dims == out.dims, "inferred ", str(o.fast.dims), ", geometry ", str(out.dims));
  return o;
}

/// Float16 results: the float32 sums of the two kernels, added in different orders, may
/// round to neighbouring halves, never further apart; or, for sums that cancel to near
/// zero (where a half step is below float32's rounding of the terms), differ as little as
/// float32 results may (check_same's absolute 1e-5).
bool within_one_half_step(ty::float16 a, ty::float16 b) {
  const float x = ty::to_float(a), y = ty::to_float(b);
  if (x == y) return true;
  const float step = std::ldexp(1.0f, std::max(std::ilogb(std::max(std::abs(x), std::abs(y))), -14) - 10);
  return std::abs(x - y) <= step || std::abs(x - y) <= 1e-5f;
}

void check_same(OT t, const outputs& o, const std::string& what) {
  INFO(what);
  if (t == OT::TENSOR_FLOAT16) {
    // A sum lands that close to a rounding boundary rarely: at most 1% of the elements
    // (or one) may differ, by one step.
    std::size_t differ = 0;
    for (std::size_t i = 0; i < o.ref.count(); ++i) {
      const auto a = o.fast.get<ty::float16>(i), b = o.ref.get<ty::float16>(i);
      differ += a == b ? 0 : 1;
      if (!within_one_half_step(a, b)) {
        FAIL_CHECK("element ", i, ": ", ty::to_float(a), " vs reference ", ty::to_float(b));
        return;
      }
    }
    CHECK_MESSAGE(differ <= std::max<std::size_t>(1, o.ref.count() / 100), differ, " of ", o.ref.count(), " differ");
    return;
  }
  if (t != OT::TENSOR_FLOAT32) {
    const auto& fast = o.fast.bytes;
    const auto& ref = o.ref.bytes;
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
      if (fast[i] != ref[i] && bad++ == 0) first = i;
    CHECK_MESSAGE(bad == 0, bad, " of ", ref.size(), " differ, first at ", first, ": ",
                  std::to_integer<int>(fast[first]), " vs ", std::to_integer<int>(ref[first]));
    return;
  }
  for (std::size_t i = 0; i < o.ref.count(); ++i) {
    const float a = o.fast.get<float>(i), b = o.ref.get<float>(i);
    if (!(std::abs(a - b) <= 1e-5f + 1e-5f * std::abs(b))) {
      FAIL_CHECK("element ", i, ": ", a, " vs reference ", b);
      return;
    }
  }
}

/// Input type and filter type of a case.
struct types_case {
  OT in, filter;
  const char* name;
};
constexpr types_case all_types[] = {{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT32, "f32"},
                                    {OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT16, "f16"},
                                    {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM, "qu8"},
                                    {OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_ASYMM_SIGNED, "qs8"},
                                    {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, "qu8/qc8"},
                                    {OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, "qs8/qc8"}};

struct geometry_case {
  std::uint32_t batches, in_h, in_w, in_c, out_c, fh, fw;
  std::int32_t sw, sh, dw, dh, pad[4], act;
  bool nchw;
  std::uint32_t out_h() const { return (in_h + pad[2] + pad[3] - ((fh - 1) * dh + 1)) / sh + 1; }
  std::uint32_t out_w() const { return (in_w + pad[0] + pad[1] - ((fw - 1) * dw + 1)) / sw + 1; }
  std::string describe() const {
    return ty::str_cat("b", batches, " in ", in_h, "x", in_w, "x", in_c, " out_c ", out_c, " f ", fh, "x", fw, " s ",
                       sh, ",", sw, " d ", dh, ",", dw, " pad ", pad[0], ",", pad[1], ",", pad[2], ",", pad[3], " act ",
                       act, nchw ? " NCHW" : " NHWC");
  }
};

/// A random geometry whose dilated filter fits the padded input.
geometry_case random_geometry(rng& r, bool depthwise) {
  geometry_case g{};
  g.batches = static_cast<std::uint32_t>(r.uniform(1, 2));
  g.fh = static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 3 : 7));
  g.fw = r.coin() ? g.fh : static_cast<std::uint32_t>(r.uniform(1, 7));
  g.sh = r.uniform(1, 3);
  g.sw = r.uniform(1, 3);
  g.dh = r.uniform(1, 3) == 3 ? r.uniform(2, 3) : 1;
  g.dw = r.uniform(1, 3) == 3 ? r.uniform(2, 3) : 1;
  // Explicit padding: left, right, top, bottom; each below the effective (dilated) filter
  // extent, as AOSP requires.
  const int eff_w = static_cast<int>((g.fw - 1) * static_cast<std::uint32_t>(g.dw) + 1);
  const int eff_h = static_cast<int>((g.fh - 1) * static_cast<std::uint32_t>(g.dh) + 1);
  for (int i = 0; i < 4; ++i) g.pad[i] = r.uniform(0, std::min(2, (i < 2 ? eff_w : eff_h) - 1));
  g.in_h = static_cast<std::uint32_t>((g.fh - 1) * g.dh + 1 + r.uniform(0, 9));
  g.in_w = static_cast<std::uint32_t>((g.fw - 1) * g.dw + 1 + r.uniform(0, 9));
  g.in_c = static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 9 : 70));
  g.out_c = depthwise ? g.in_c : static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 20 : 150));
  g.act = r.uniform(0, 3);
  g.nchw = r.uniform(0, 4) == 0;
  return g;
}

/// Quant params for a conv-like case with `k` products per output that keep outputs mostly in range.
struct quant_choice {
  float in_scale, w_scale, out_scale;
  std::int32_t in_zp, w_zp, out_zp;
  std::vector<float> channel_scales;
};
quant_choice choose_quant(const types_case& t, std::size_t k, std::size_t channels, rng& r) {
  quant_choice q{};
  q.in_scale = r.real(0.005f, 0.05f);
  q.w_scale = r.real(0.005f, 0.05f);
  q.in_zp = zero_point(t.in, r);
  q.w_zp = t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL ? 0 : zero_point(t.filter, r);
  if (t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL)
    for (std::size_t c = 0; c < channels; ++c) q.channel_scales.push_back(q.w_scale * r.real(0.25f, 4.0f));
  // |x - zx| * |w - zw| is ~5000 on average: outputs spread over tens of steps, some saturate.
  q.out_scale = q.in_scale * q.w_scale * std::sqrt(static_cast<float>(k)) * r.real(50.0f, 400.0f);
  // Now and then a multiplier above 1 (the saturating left shift), most outputs at the ends.
  if (r.uniform(0, 7) == 0) q.out_scale = q.in_scale * q.w_scale * r.real(0.25f, 0.9f);
  q.out_zp = zero_point(t.in, r);
  return q;
}

/// Filter (or weights) and bias operands of a case; `bias_scales` per channel.
void make_filter_bias(const types_case& t, const quant_choice& q, ty::dims_t filter_dims, std::uint32_t channels,
                      std::uint32_t channel_dim, rng& r, tensor& filter, tensor& bias) {
  const bool quant = !is_float(t.in);
  filter = make_tensor(t.filter, std::move(filter_dims), quant ? q.w_scale : 0.0f, q.w_zp);
  if (t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    filter.scale = 0.0f;
    filter.channel_scales = q.channel_scales;
    filter.channel_dim = channel_dim;
  }
  fill(filter, r);
  bias = make_tensor(quant ? OT::TENSOR_INT32 : t.in, {channels}, quant ? q.in_scale * q.w_scale : 0.0f);
  if (t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) bias.scale = 0.0f;
  fill(bias, r);
}

/// Operands of a CONV_2D or DEPTHWISE_CONV_2D (multiplier 1) case in HAL order (explicit
/// padding, layout and dilation given) and the output declaration.
struct case_operands {
  std::vector<tensor> ins;
  tensor out;
};
/// The random input of a conv-like case (NHWC or NCHW as `g` says).
tensor make_input(const geometry_case& g, const types_case& t, const quant_choice& q, rng& r) {
  tensor input = make_tensor(t.in,
                             g.nchw ? ty::dims_t{g.batches, g.in_c, g.in_h, g.in_w}
                                    : ty::dims_t{g.batches, g.in_h, g.in_w, g.in_c},
                             is_float(t.in) ? 0.0f : q.in_scale, q.in_zp);
  fill(input, r);
  return input;
}

case_operands make_operands(const geometry_case& g, const types_case& t, const quant_choice& q, bool depthwise,
                            rng& r) {
  const bool quant = !is_float(t.in);
  const tensor input = make_input(g, t, q, r);
  tensor filter, bias;
  make_filter_bias(t, q, depthwise ? ty::dims_t{1, g.fh, g.fw, g.out_c} : ty::dims_t{g.out_c, g.fh, g.fw, g.in_c},
                   g.out_c, depthwise ? 3 : 0, r, filter, bias);
  case_operands c;
  c.ins = {input, filter, bias};
  for (auto p : g.pad) c.ins.push_back(scalar_i32(p));
  c.ins.push_back(scalar_i32(g.sw));
  c.ins.push_back(scalar_i32(g.sh));
  if (depthwise) c.ins.push_back(scalar_i32(1));
  c.ins.push_back(scalar_i32(g.act));
  c.ins.push_back(scalar_bool(g.nchw));
  c.ins.push_back(scalar_i32(g.dw));
  c.ins.push_back(scalar_i32(g.dh));
  c.out = decl(t.in,
               g.nchw ? ty::dims_t{g.batches, g.out_c, g.out_h(), g.out_w()}
                      : ty::dims_t{g.batches, g.out_h(), g.out_w(), g.out_c},
               quant ? q.out_scale : 0.0f, q.out_zp);
  return c;
}

/// Calls `ref(In{}, Filter{})` with the element tags of the case's input and filter types.
template <class Ref>
void with_tags(const types_case& t, Ref&& ref) {
  if (t.in == OT::TENSOR_FLOAT32) ref(ty::f32{}, ty::f32{});
  else if (t.in == OT::TENSOR_FLOAT16) ref(ty::f16{}, ty::f16{});
  else if (t.in == OT::TENSOR_QUANT8_ASYMM && t.filter == t.in) ref(ty::qu8{}, ty::qu8{});
  else if (t.in == OT::TENSOR_QUANT8_ASYMM) ref(ty::qu8{}, ty::qc8{});
  else if (t.filter == t.in) ref(ty::qs8{}, ty::qs8{});
  else ref(ty::qs8{}, ty::qc8{});
}

/// The requantization reference() takes (none for float32).
nnhal::ops::kernels::conv::requant requant_of(const ops::kernel_io& io, bool quant) {
  return quant ? nnhal::ops::kernels::conv::make_requant(io.in[0], io.in[1], io.out[0])
               : nnhal::ops::kernels::conv::requant{};
}

bool have_kernels() {
  if (nnhal::simd::cpu().avx512) return true;
  MESSAGE("this CPU has no AVX-512: the AVX-512 conv kernels are not bound (the portable ones are tested below)");
  return false;
}

/// A per-tensor quant8 filter (channels last) reshaped as trained ones are: every weight
/// within 60 steps of the zero point but, in one random channel, one tap at the end of the
/// type's range farther from it (so w - zw may leave int8 in that channel only).
void concentrate_filter(tensor& f, rng& r) {
  if (f.type != OT::TENSOR_QUANT8_ASYMM && f.type != OT::TENSOR_QUANT8_ASYMM_SIGNED) return;
  const bool is_signed = f.type == OT::TENSOR_QUANT8_ASYMM_SIGNED;
  const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const std::size_t n = f.count(), ch = f.dims.back();
  for (std::size_t i = 0; i < n; ++i)
    f.bytes[i] = static_cast<std::byte>(std::clamp(f.zp + r.uniform(-60, 60), lo, hi) & 0xFF);
  const auto far = f.zp - lo > hi - f.zp ? lo : hi;
  const auto i = static_cast<std::size_t>(r.uniform(0, static_cast<int>(n / ch) - 1)) * ch +
                 static_cast<std::size_t>(r.uniform(0, static_cast<int>(ch) - 1));
  f.bytes[i] = static_cast<std::byte>(far & 0xFF);
}

/// Runs one random-geometry CONV_2D or DEPTHWISE_CONV_2D (multiplier 1) case through the
/// bound kernel and through reference(), and checks they agree; `trained`: the filter as
/// concentrate_filter makes it.
void check_case(bool depthwise, const types_case& t, const geometry_case& g, std::uint32_t seed, rng& r,
                bool trained = false) {
  const std::size_t k = std::size_t{g.fh} * g.fw * (depthwise ? 1 : g.in_c);
  const quant_choice q = choose_quant(t, k, g.out_c, r);
  case_operands c = make_operands(g, t, q, depthwise, r);
  if (trained) concentrate_filter(c.ins[1], r);
  const outputs o = run_both(depthwise ? OpT::DEPTHWISE_CONV_2D : OpT::CONV_2D, c.ins, c.out, r.coin(),
                             [&](const ops::kernel_io& io) {
                               with_tags(t, [&]<class In, class F>(In, F) {
                                 const auto rq = requant_of(io, !is_float(t.in));
                                 if (depthwise) ops::depthwise_conv_2d::reference<In, F>(io, rq);
                                 else ops::conv_2d::reference<In, F>(io, rq);
                               });
                             });
  check_same(t.in, o, ty::str_cat(t.name, " ", g.describe(), " seed ", seed));
}

/// `count` random CONV_2D cases per type through the bound kernel and reference().
void conv_cases(std::uint32_t seed0, int count) {
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g = random_geometry(r, false);
      if (n % 4 == 0) {  // pointwise: the dense path, with enough rows for several blocks
        g.fh = g.fw = 1;
        g.sh = g.sw = g.dh = g.dw = 1;
        for (auto& p : g.pad) p = 0;
        g.in_h = static_cast<std::uint32_t>(r.uniform(1, 40));
        g.in_w = static_cast<std::uint32_t>(r.uniform(1, 40));
        g.in_c = static_cast<std::uint32_t>(r.uniform(1, n % 8 == 0 ? 300 : 40));
      }
      check_case(false, t, g, seed, r);
    }
  }
}

/// `count` random DEPTHWISE_CONV_2D (multiplier 1) cases per type.
void depthwise_cases(std::uint32_t seed0, int count) {
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      check_case(true, t, random_geometry(r, true), seed, r);
    }
  }
}

/// `count` random GROUPED_CONV_2D cases per type, 1 to 5 groups of 1 to 40 channels in
/// and out (every fifth case one input channel per group, every fourth several panels of
/// outputs per group; the op has no dilation; explicit padding below the filter size).
/// `pointwise`: 1x1 filters at stride 1 in NHWC, which float32 runs as GEMMs reading and
/// writing each group's channels in place. `small`: NHWC with 2, 4, 8 or 16 channels per
/// group in and out, a multiple of 16 in all, which float32 runs 16 channels per vector.
void grouped_cases(std::uint32_t seed0, int count, bool pointwise = false, bool small = false) {
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g = random_geometry(r, false);
      g.dh = g.dw = 1;
      if (pointwise) {
        g.fh = g.fw = 1;
        g.sh = g.sw = 1;
        g.nchw = false;
        g.in_h = static_cast<std::uint32_t>(r.uniform(1, 9));
        g.in_w = static_cast<std::uint32_t>(r.uniform(1, 12));
      }
      for (int i = 0; i < 4; ++i) g.pad[i] = std::min(g.pad[i], static_cast<std::int32_t>(i < 2 ? g.fw : g.fh) - 1);
      auto groups = static_cast<std::uint32_t>(r.uniform(1, 5));
      g.in_c = groups * static_cast<std::uint32_t>(n % 5 == 0 ? 1 : r.uniform(1, n % 2 == 0 ? 9 : 24));
      g.out_c = groups * static_cast<std::uint32_t>(n % 4 == 1 ? r.uniform(33, 90) : r.uniform(1, n % 3 == 0 ? 40 : 12));
      if (small) {
        const auto per_group = std::uint32_t{2} << r.uniform(0, 3);
        groups = 16 / per_group * static_cast<std::uint32_t>(r.uniform(1, 3));
        g.in_c = g.out_c = groups * per_group;
        g.nchw = false;
      }
      const bool quant = !is_float(t.in);
      const quant_choice q = choose_quant(t, std::size_t{g.fh} * g.fw * g.in_c / groups, g.out_c, r);
      const tensor input = make_input(g, t, q, r);
      tensor filter, bias;
      make_filter_bias(t, q, {g.out_c, g.fh, g.fw, g.in_c / groups}, g.out_c, 0, r, filter, bias);
      std::vector<tensor> ins{input, filter, bias};
      for (auto p : g.pad) ins.push_back(scalar_i32(p));
      ins.push_back(scalar_i32(g.sw));
      ins.push_back(scalar_i32(g.sh));
      ins.push_back(scalar_i32(static_cast<std::int32_t>(groups)));
      ins.push_back(scalar_i32(g.act));
      ins.push_back(scalar_bool(g.nchw));
      const tensor out = decl(t.in,
                              g.nchw ? ty::dims_t{g.batches, g.out_c, g.out_h(), g.out_w()}
                                     : ty::dims_t{g.batches, g.out_h(), g.out_w(), g.out_c},
                              quant ? q.out_scale : 0.0f, q.out_zp);
      const outputs o = run_both(OpT::GROUPED_CONV_2D, ins, out, r.coin(), [&](const ops::kernel_io& io) {
        with_tags(t, [&]<class In, class F>(In, F) { ops::grouped_conv_2d::reference<In, F>(io, requant_of(io, quant)); });
      });
      check_same(t.in, o, ty::str_cat(t.name, " groups ", groups, " ", g.describe(), " seed ", seed));
    }
  }
}

TEST_CASE("GROUPED_CONV_2D: the packed kernels equal reference() on 1 to 5 groups") {
  // More than one group binds one CONV_2D per group on AVX-512 CPUs (VNNI for quant8),
  // the xsimd kernels of this build's architecture elsewhere (and in the portable case
  // below).
  grouped_cases(0x6C0Au, 30);
}

TEST_CASE("GROUPED_CONV_2D 1x1, stride 1, NHWC: the groups' GEMMs in place equal reference()") {
  grouped_cases(0x6C0Bu, 30, true);
}

TEST_CASE("GROUPED_CONV_2D NHWC, 2 to 16 channels per group: 16 channels per vector equal reference()") {
  grouped_cases(0x6C0Cu, 40, false, true);
}

TEST_CASE("CONV_2D: AVX-512 / VNNI kernels equal reference() on random geometries") {
  if (have_kernels()) conv_cases(0xC0A5u, 60);
}

TEST_CASE("DEPTHWISE_CONV_2D multiplier 1: AVX-512 kernels equal reference() on random geometries") {
  if (have_kernels()) depthwise_cases(0xD3A5u, 50);
}

TEST_CASE("DEPTHWISE_CONV_2D 3x3, horizontal stride 1 or 2: the register-blocked kernels equal reference()") {
  // Widths from 1 to past two passes of eight pixels, every padding, vertical stride and
  // dilation: passes that are interior, cut by the row's end, or touch padding rows.
  if (!have_kernels()) return;
  std::mt19937 seeds(0xD3C3u);
  for (const auto& t : all_types) {
    for (int n = 0; n < 60; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g = random_geometry(r, true);
      g.fh = g.fw = 3;
      g.dw = 1;
      g.sw = r.uniform(1, 2);
      for (int i = 0; i < 4; ++i) g.pad[i] = r.uniform(0, 2);
      // At least one output pixel: the padded input covers the (dilated) filter.
      g.in_w = static_cast<std::uint32_t>(std::max(r.uniform(1, 40), 3 - g.pad[0] - g.pad[1]));
      g.in_h = static_cast<std::uint32_t>(std::max(r.uniform(1, 6), 2 * g.dh + 1 - g.pad[2] - g.pad[3]));
      // Every seventh case vertical stride 2 over taller inputs: several pairs of output
      // rows, with and without vertical dilation (the quant8 quad kernel's stride 2 takes
      // only the former).
      if (n % 7 == 3) {
        g.sh = 2;
        g.dh = r.uniform(1, 2);
        g.in_h = static_cast<std::uint32_t>(r.uniform(2 * g.dh + 1, 14));
      }
      // Every third case a multiple of 32 channels, which float32 takes 32 at a time; every
      // fifth (not third) more than the quant8 quad kernel's 128 per quad, with a tail.
      if (n % 3 == 0) g.in_c = g.out_c = static_cast<std::uint32_t>(32 * r.uniform(1, 2));
      else if (n % 5 == 1) g.in_c = g.out_c = static_cast<std::uint32_t>(r.uniform(129, 260));
      // Every other case a trained-like filter: the quant8 quad kernel takes two int8 parts
      // only in the 16-channel block whose weights need them.
      check_case(true, t, g, seed, r, n % 2 == 1);
    }
  }
}

TEST_CASE("DEPTHWISE_CONV_2D 3x3 stride 2, quant8: both kernels a filter's split blocks choose equal reference()") {
  // 80 channels (5 blocks of 16) at stride 2: a trained-like filter (one block whose
  // w - zw leaves int8) takes the quad kernel, that block in two parts; a uniformly random
  // one (most blocks split) keeps the pairs kernel.
  if (!have_kernels()) return;
  std::mt19937 seeds(0xD325u);
  for (const auto& t : all_types) {
    if (is_float(t.in)) continue;
    for (int n = 0; n < 4; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g{};
      g.batches = 1;
      g.in_h = static_cast<std::uint32_t>(r.uniform(5, 12));
      g.in_w = static_cast<std::uint32_t>(r.uniform(5, 30));
      g.in_c = g.out_c = 80;
      g.fh = g.fw = 3;
      g.sw = g.sh = 2;
      g.dw = g.dh = 1;
      for (int i = 0; i < 4; ++i) g.pad[i] = r.uniform(0, 1);
      g.act = r.uniform(0, 3);
      check_case(true, t, g, seed, r, n % 2 == 0);
    }
  }
}

/// `count` random FULLY_CONNECTED cases per type: batch, depth and unit tails.
void fully_connected_cases(std::uint32_t seed0, int count) {
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    if (t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) continue;  // FULLY_CONNECTED has no per-channel weights
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      const auto batch = static_cast<std::uint32_t>(r.uniform(1, 20));
      const auto depth = static_cast<std::uint32_t>(r.uniform(1, n % 5 == 0 ? 1100 : 70));
      const auto units = static_cast<std::uint32_t>(r.uniform(1, n % 3 == 0 ? 1001 : 150));
      const std::int32_t act = r.uniform(0, 3);
      const quant_choice q = choose_quant(t, depth, units, r);
      const bool quant = !is_float(t.in);
      tensor input = make_tensor(t.in, {batch, depth}, quant ? q.in_scale : 0.0f, q.in_zp);
      fill(input, r);
      tensor weights, bias;
      make_filter_bias(t, q, {units, depth}, units, 0, r, weights, bias);
      const std::vector<tensor> ins{input, weights, bias, scalar_i32(act)};
      const tensor out = decl(t.in, {batch, units}, quant ? q.out_scale : 0.0f, q.out_zp);
      const outputs o = run_both(OpT::FULLY_CONNECTED, ins, out, r.coin(), [&](const ops::kernel_io& io) {
        const auto rq = requant_of(io, quant);
        if (t.in == OT::TENSOR_FLOAT32) ops::fully_connected::reference<ty::f32>(io, rq);
        else if (t.in == OT::TENSOR_FLOAT16) ops::fully_connected::reference<ty::f16>(io, rq);
        else if (t.in == OT::TENSOR_QUANT8_ASYMM) ops::fully_connected::reference<ty::qu8>(io, rq);
        else ops::fully_connected::reference<ty::qs8>(io, rq);
      });
      check_same(t.in, o, ty::str_cat(t.name, " batch ", batch, " depth ", depth, " units ", units, " act ", act, " seed ", seed));
    }
  }
}

TEST_CASE("for_tiles: every (row, panel) of a GEMM exactly once, shared by two threads when large enough") {
  // Serial, and two threads (reversed_context) below and above the split threshold: row
  // counts from 1 to several blocks, one to many panels.
  reversed_context two;
  const std::size_t split = 1000;
  for (const std::size_t rows : {1, 7, 16, 49, 196, 784, 3136, 12544})
    for (const std::size_t block : {6, 126, 512, 8192})
      for (const std::size_t panels : {1, 2, 3, 8, 16})
        for (const std::size_t macs : {split - 1, split})
          for (const bool threads : {false, true}) {
            INFO("rows ", rows, " block ", block, " panels ", panels, " macs ", macs, " threads ", threads ? 2 : 1);
            std::vector<int> seen(rows * panels, 0);
            std::size_t calls = 0;
            std::mutex m;
            nnhal::ops::kernels::conv::avx512::for_tiles(
                rows, block, panels, macs, split, threads ? &two : nullptr,
                [&](std::size_t r0, std::size_t r1, std::size_t p0, std::size_t p1) {
                  const std::lock_guard<std::mutex> lock(m);
                  ++calls;
                  for (std::size_t r = r0; r < r1; ++r)
                    for (std::size_t pn = p0; pn < p1; ++pn) ++seen[r * panels + pn];
                });
            CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(seen.size()));
            // Above the threshold two threads both get work (unless there is one row and
            // one panel); below it, only a GEMM of several row blocks is split.
            if (threads && (macs >= split ? rows * panels > 1 : rows > block)) CHECK(calls >= 2);
            if (!threads || (macs < split && rows <= block)) CHECK(calls == 1);
          }
}

TEST_CASE("FULLY_CONNECTED: AVX-512 / VNNI GEMM equals reference() on batch, depth and unit tails") {
  if (have_kernels()) fully_connected_cases(0xFCA5u, 40);
}

/// `count` random TRANSPOSE_CONV_2D cases per type through the bound kernel and
/// reference(): filters 1..5, strides 1..3 (taps that overlap, meet or leave gaps),
/// explicit padding, channel counts across panel tails, both layouts, every activation.
void transpose_cases(std::uint32_t seed0, int count) {
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g{};
      g.batches = static_cast<std::uint32_t>(r.uniform(1, 2));
      g.fh = static_cast<std::uint32_t>(r.uniform(1, 5));
      g.fw = r.coin() ? g.fh : static_cast<std::uint32_t>(r.uniform(1, 5));
      g.sh = r.uniform(1, 3);
      g.sw = r.uniform(1, 3);
      g.in_h = static_cast<std::uint32_t>(r.uniform(1, 12));
      g.in_w = static_cast<std::uint32_t>(r.uniform(1, 12));
      g.in_c = static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 9 : 70));
      g.out_c = static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 20 : 70));
      g.act = r.uniform(0, 3);
      g.nchw = r.uniform(0, 3) == 0;
      for (int i = 0; i < 4; ++i) g.pad[i] = r.uniform(0, static_cast<int>(i < 2 ? g.fw : g.fh) - 1);
      const auto out_h = static_cast<std::uint32_t>((g.in_h - 1) * g.sh + g.fh - g.pad[2] - g.pad[3]);
      const auto out_w = static_cast<std::uint32_t>((g.in_w - 1) * g.sw + g.fw - g.pad[0] - g.pad[1]);
      if (static_cast<std::int32_t>(out_h) <= 0 || static_cast<std::int32_t>(out_w) <= 0) continue;
      const std::size_t overlap = std::max<std::size_t>(1, g.fh * g.fw / static_cast<std::size_t>(g.sh * g.sw));
      const quant_choice q = choose_quant(t, g.in_c * overlap, g.out_c, r);
      const bool quant = !is_float(t.in);
      const tensor input = make_input(g, t, q, r);
      tensor filter, bias;
      make_filter_bias(t, q, {g.out_c, g.fh, g.fw, g.in_c}, g.out_c, 0, r, filter, bias);
      std::vector<tensor> ins{input, filter, bias};
      for (auto p : g.pad) ins.push_back(scalar_i32(p));
      ins.push_back(scalar_i32(g.sw));
      ins.push_back(scalar_i32(g.sh));
      ins.push_back(scalar_i32(g.act));
      ins.push_back(scalar_bool(g.nchw));
      const tensor out = decl(t.in, g.nchw ? ty::dims_t{g.batches, g.out_c, out_h, out_w} : ty::dims_t{g.batches, out_h, out_w, g.out_c},
                              quant ? q.out_scale : 0.0f, q.out_zp);
      const outputs o = run_both(OpT::TRANSPOSE_CONV_2D, ins, out, r.coin(), [&](const ops::kernel_io& io) {
        with_tags(t, [&]<class In, class F>(In, F) { ops::transpose_conv_2d::reference<In, F>(io, requant_of(io, quant)); });
      });
      check_same(t.in, o, ty::str_cat(t.name, " ", g.describe(), " seed ", seed));
    }
  }
}

TEST_CASE("TRANSPOSE_CONV_2D: the AVX-512 / VNNI scatter of GEMM products equals reference()") {
  if (have_kernels()) transpose_cases(0x7CA5u, 30);
}

/// `count` random BATCH_MATMUL cases per type through the bound kernel and reference():
/// depths that are and are not multiples of 4 (input1's packing takes other paths), row,
/// column and panel tails, several slices (each repacked), both adjoints. Int32 (the
/// xsimd kernel): elements up to +-20000, so sums of a few products already wrap.
void batch_matmul_cases(std::uint32_t seed0, int count) {
  std::mt19937 seeds(seed0);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_INT32}) {
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      const auto slices = static_cast<std::uint32_t>(r.uniform(1, 3));
      const auto m = static_cast<std::uint32_t>(r.uniform(1, n % 4 == 0 ? 70 : 20));
      // Every eighth case has input1 slices of 2^16 elements or more, packed by two threads.
      const bool big = n % 8 == 7;
      const auto k = static_cast<std::uint32_t>(big ? r.uniform(256, 300) : r.uniform(1, n % 3 == 0 ? 300 : 40));
      const auto nn = static_cast<std::uint32_t>(big ? r.uniform(256, 300) : r.uniform(1, n % 4 == 1 ? 150 : 40));
      const bool adj_x = r.coin(), adj_y = r.coin();
      const types_case t{type, type, ""};
      const quant_choice q = choose_quant(t, k, 1, r);
      const bool quant = type == OT::TENSOR_QUANT8_ASYMM_SIGNED;
      tensor x = make_tensor(type, {slices, adj_x ? k : m, adj_x ? m : k}, quant ? q.in_scale : 0.0f, q.in_zp);
      tensor y = make_tensor(type, {slices, adj_y ? nn : k, adj_y ? k : nn}, quant ? q.w_scale : 0.0f, q.w_zp);
      fill(x, r);
      fill(y, r);
      const std::vector<tensor> ins{x, y, scalar_bool(adj_x), scalar_bool(adj_y)};
      const tensor out = decl(type, {slices, m, nn}, quant ? q.out_scale : 0.0f, q.out_zp);
      const outputs o = run_both(OpT::BATCH_MATMUL, ins, out, r.coin(), [&](const ops::kernel_io& io) {
        if (type == OT::TENSOR_FLOAT32) ops::batch_matmul::reference<ty::f32>(io, {});
        else if (type == OT::TENSOR_FLOAT16) ops::batch_matmul::reference<ty::f16>(io, {});
        else if (type == OT::TENSOR_INT32) ops::batch_matmul::reference<ty::i32>(io, {});
        else ops::batch_matmul::reference<ty::qs8>(io, requant_of(io, true));
      });
      check_same(type, o, ty::str_cat(to_string(type), " ", slices, "x", m, "x", k, "x", nn, " adj ", adj_x, ",", adj_y,
                                      " seed ", seed));
    }
  }
}

TEST_CASE("BATCH_MATMUL: the AVX-512 / VNNI GEMM and the int32 kernel equal reference() on slices, adjoints and tails") {
  if (have_kernels()) batch_matmul_cases(0xBAA5u, 40);
}

/// `count` random quant8 CONV_2D, FULLY_CONNECTED and BATCH_MATMUL cases per quant8 type
/// whose GEMMs AMX takes (gemm_avx512.hpp, amx_takes): 1x1 convs and FULLY_CONNECTED with
/// depths that are multiples of 4 (k up to 64 in one chunk, chunks of 64, of a smaller
/// divisor from 32), convs with few input channels (their im2col rows, k padded to 4),
/// 32 to about 1500 rows (so row tails of 1 to 31: one or two input tiles), and channel
/// counts across 16-channel, 32-channel pair and panel tails (a last panel of 32 channels
/// in every fourth case). Bit-exact with reference().
void amx_cases(std::uint32_t seed0, int count) {
  namespace av = ops::kernels::conv::avx512;
  static constexpr std::uint32_t depths[] = {4, 8, 28, 32, 36, 60, 64, 96, 128, 160, 192, 256, 320, 1024};
  std::mt19937 seeds(seed0);
  for (const auto& t : all_types) {
    if (is_float(t.in)) continue;
    for (int n = 0; n < count; ++n) {
      const std::uint32_t seed = seeds();
      rng r(seed);
      geometry_case g{};
      g.batches = static_cast<std::uint32_t>(r.uniform(1, 2));
      g.sh = g.sw = g.dh = g.dw = 1;
      // Every fourth case a panel of 32 channels last (32 or 96 channels): its rows are
      // stored two at a time.
      g.out_c = n % 4 == 0 ? (r.coin() ? 32u : 96u) : static_cast<std::uint32_t>(r.uniform(1, r.coin() ? 40 : 150));
      g.act = r.uniform(0, 3);
      g.nchw = r.uniform(0, 4) == 0;
      if (n % 3 != 2) {  // pointwise
        g.fh = g.fw = 1;
        g.in_c = depths[static_cast<std::size_t>(r.uniform(0, std::size(depths) - 1))];
        g.in_h = static_cast<std::uint32_t>(r.uniform(4, 30));
        g.in_w = static_cast<std::uint32_t>(r.uniform(8, 30));
      } else {  // few input channels: im2col rows
        g.fh = static_cast<std::uint32_t>(r.uniform(2, 4));
        g.fw = r.coin() ? g.fh : static_cast<std::uint32_t>(r.uniform(2, 4));
        g.in_c = static_cast<std::uint32_t>(r.uniform(1, 7));
        g.sh = g.sw = r.uniform(1, 2);
        for (int i = 0; i < 4; ++i) g.pad[i] = r.uniform(0, static_cast<int>(i < 2 ? g.fw : g.fh) - 1);
        g.in_h = static_cast<std::uint32_t>(r.uniform(12, 40));
        g.in_w = static_cast<std::uint32_t>(r.uniform(12, 40));
      }
      const std::size_t rows = std::size_t{g.batches} * g.out_h() * g.out_w();
      const std::size_t k4 = (std::size_t{g.fh} * g.fw * g.in_c + 3) / 4 * 4;
      REQUIRE(rows >= 32);
      REQUIRE(av::amx_chunk(k4) != 0);
      check_case(false, t, g, seed, r);
    }
    if (t.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) continue;
    for (int n = 0; n < count / 2; ++n) {  // FULLY_CONNECTED with 32 or more rows
      const std::uint32_t seed = seeds();
      rng r(seed);
      const auto batch = static_cast<std::uint32_t>(r.uniform(32, 100));
      const std::uint32_t depth = depths[static_cast<std::size_t>(r.uniform(0, std::size(depths) - 1))];
      const auto units = static_cast<std::uint32_t>(r.uniform(1, 200));
      const std::int32_t act = r.uniform(0, 3);
      const quant_choice q = choose_quant(t, depth, units, r);
      tensor input = make_tensor(t.in, {batch, depth}, q.in_scale, q.in_zp);
      fill(input, r);
      tensor weights, bias;
      make_filter_bias(t, q, {units, depth}, units, 0, r, weights, bias);
      const outputs o = run_both(OpT::FULLY_CONNECTED, {input, weights, bias, scalar_i32(act)},
                                 decl(t.in, {batch, units}, q.out_scale, q.out_zp), r.coin(), [&](const ops::kernel_io& io) {
        if (t.in == OT::TENSOR_QUANT8_ASYMM) ops::fully_connected::reference<ty::qu8>(io, requant_of(io, true));
        else ops::fully_connected::reference<ty::qs8>(io, requant_of(io, true));
      });
      check_same(t.in, o, ty::str_cat(t.name, " batch ", batch, " depth ", depth, " units ", units, " seed ", seed));
    }
  }
}

TEST_CASE("AMX: the quant8 GEMM on tiles equals reference() (CONV_2D 1x1 and im2col rows, FULLY_CONNECTED)") {
  namespace av = ops::kernels::conv::avx512;
  if (!nnhal::simd::cpu().amx_int8) {
    MESSAGE("this CPU (or OS) gives no AMX tiles: the AMX GEMM is not bound");
    return;
  }
  REQUIRE(av::q8_gemm_isa() == av::gemm_isa::amx);
  amx_cases(0xA3A1u, 24);
  batch_matmul_cases(0xA3BAu, 16);  // its quant8 slices with 32 or more rows, depth a multiple of 4, run AMX
  transpose_cases(0xA37Cu, 8);
}

TEST_CASE("AMX turned off: the AVX-512 VNNI GEMM takes every quant8 GEMM and equals reference()") {
  // On a CPU with AMX the cases above and the random ones before them send every GEMM
  // AMX takes to the tiles; these send them all to VNNI, as a CPU without AMX does.
  namespace av = ops::kernels::conv::avx512;
  if (!nnhal::simd::detected_cpu().amx_int8) return;  // (without AMX, the cases above ran VNNI)
  nnhal::simd::cpu_features no_amx = nnhal::simd::detected_cpu();
  no_amx.amx_int8 = false;
  const cpu_limit limit{no_amx};
  REQUIRE(av::q8_gemm_isa() == av::gemm_isa::avx512);
  amx_cases(0xA3A2u, 12);
  conv_cases(0xA3C0u, 16);
  fully_connected_cases(0xA3FCu, 12);
  batch_matmul_cases(0xA3BBu, 8);
}

TEST_CASE("the portable xsimd kernels (AVX-512 turned off) equal reference(): CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, GROUPED_CONV_2D, BATCH_MATMUL, TRANSPOSE_CONV_2D") {
  // What CPUs without AVX-512 bind: the packed xsimd GEMM for float32 (float16 widened to
  // it) and quant8, bit-exact for quant8; the xsimd depthwise kernels, float32 and quant8.
  const cpu_limit portable{nnhal::simd::cpu_features{}};
  REQUIRE_FALSE(nnhal::simd::cpu().avx512);
  conv_cases(0x9C0Au, 40);
  depthwise_cases(0x9D3Au, 20);
  fully_connected_cases(0x9FCAu, 30);
  grouped_cases(0x96C0u, 10);
  batch_matmul_cases(0xBA9Cu, 24);
  transpose_cases(0x7C9Au, 16);
}

TEST_CASE("the AVX2 kernels (AVX-512 turned off) equal reference(): CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, GROUPED_CONV_2D, BATCH_MATMUL, TRANSPOSE_CONV_2D") {
  // What CPUs with AVX2 and FMA but no AVX-512 bind: gemm_avx512.hpp's ymm micro-kernels
  // over the same packings, float32 and quant8 (vpmaddwd; then AVX-VNNI where this CPU has
  // it), and dwconv_avx512.hpp's 8-channel depthwise kernels, bit-exact for quant8;
  // BATCH_MATMUL and TRANSPOSE_CONV_2D quant8 stay portable.
  namespace av = ops::kernels::conv::avx512;
  // The ctest conv_simd_test_avx2_cpu runs this on an emulated CPU without AVX-512, where
  // an AVX-512 instruction left on these paths is SIGILL; it sets this variable so that
  // the run fails unless the emulated CPU is such a CPU.
  if (const char* v = std::getenv("NNHAL_EXPECT_AVX2_ONLY"); v && std::string_view(v) == "1") {
    REQUIRE(nnhal::simd::detected_cpu().avx2);
    REQUIRE(nnhal::simd::detected_cpu().fma);
    REQUIRE_FALSE(nnhal::simd::detected_cpu().avx512);
  }
  if (!nnhal::simd::detected_cpu().avx2 || !nnhal::simd::detected_cpu().fma) {
    MESSAGE("this CPU has no AVX2 + FMA: the AVX2 kernels are not bound");
    return;
  }
  nnhal::simd::cpu_features with_vnni = nnhal::simd::avx2_only();
  with_vnni.avx_vnni = true;
  for (const bool vnni : {false, true}) {
    if (vnni && !nnhal::simd::detected_cpu().avx_vnni) {
      MESSAGE("this CPU has no AVX-VNNI: that quant8 GEMM is not bound");
      break;
    }
    CAPTURE(vnni);
    const cpu_limit limit{vnni ? with_vnni : nnhal::simd::avx2_only()};
    REQUIRE(av::f32_gemm_isa() == av::gemm_isa::avx2);
    REQUIRE(av::q8_gemm_isa() == (vnni ? av::gemm_isa::avx_vnni : av::gemm_isa::avx2));
    conv_cases(vnni ? 0xA2C1u : 0xA2C0u, 20);
    fully_connected_cases(vnni ? 0xA2FDu : 0xA2FCu, 12);
    grouped_cases(vnni ? 0xA2612u : 0xA2610u, 6);
    if (vnni) continue;  // the rest binds no quant8 kernel of its own
    depthwise_cases(0xA2D3u, 16);
    grouped_cases(0xA2611u, 6, true);
    batch_matmul_cases(0xA2BAu, 8);
    transpose_cases(0xA27Cu, 6);
  }
}

/// One lane of a random apply_multiplier case: a multiplier of 2^[-34, max_exp] times a
/// fraction in [0.5, 1) (a third of them at its ends; a third of the mantissas then moved
/// to a rounding boundary or a few units off it), and an input small, at the int32 ends,
/// a small value shifted left, or anywhere.
std::pair<nnhal::ops::quant::fixed_multiplier, std::int32_t> random_multiplier_lane(rng& r, int max_exp) {
  namespace q = nnhal::ops::quant;
  const double frac = r.uniform(0, 3) == 0 ? (r.coin() ? 0.5 : 1.0 - 1e-12) : r.real(0.5f, 1.0f);
  q::fixed_multiplier fm = q::quantize_output_multiplier(std::ldexp(frac, r.uniform(-34, max_exp)));
  if (r.uniform(0, 3) == 0) {
    const std::int32_t near[] = {1 << 30, (1 << 30) + 1, (1 << 30) + (1 << 15), std::numeric_limits<std::int32_t>::max(),
                                 std::numeric_limits<std::int32_t>::max() - (1 << 16)};
    fm.mantissa_q31 = near[r.uniform(0, 4)];
  }
  std::int32_t x = 0;
  switch (r.uniform(0, 4)) {
    case 0: x = r.uniform(-300, 300); break;
    case 4: x = static_cast<std::int32_t>(static_cast<std::uint32_t>(r.uniform(-3, 3)) << r.uniform(0, 30)); break;
    case 1: x = r.coin() ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min(); break;
    default: x = static_cast<std::int32_t>(r.gen()); break;
  }
  return {fm, x};
}

#if NNHAL_HAVE_X86_KERNELS
NNHAL_TARGET_AVX2_FMA void apply_lanes_avx2(bool left, const std::int32_t* x, const std::int32_t* m, const std::int32_t* l,
                                            const std::int32_t* rr, const std::int32_t* mask, const std::int32_t* half,
                                            std::int32_t* out) {
  const __m256i a[] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)),
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m)),
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(l)),
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rr)),
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask)),
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(half))};
  const __m256i v = left ? nnhal::simd::avx2::apply_multiplier_lanes<true>(a[0], a[1], a[2], a[3], a[4], a[5])
                         : nnhal::simd::avx2::apply_multiplier_lanes<false>(a[0], a[1], a[2], a[3], a[4], a[5]);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
}

TEST_CASE("AVX2 apply_multiplier_lanes equals the scalar apply_multiplier in every lane") {
  if (!nnhal::simd::detected_cpu().avx2) return;
  namespace q = nnhal::ops::quant;
  rng r(0xA2A);
  for (int n = 0; n < 20000; ++n) {
    std::array<std::int32_t, 8> x{}, m{}, l{}, rr{}, mask{}, half{}, got{};
    std::array<q::fixed_multiplier, 8> fm{};
    const bool any_left = n % 2 == 0;  // else every multiplier below 1
    for (std::size_t i = 0; i < 8; ++i) {
      std::tie(fm[i], x[i]) = random_multiplier_lane(r, any_left ? 30 : -1);
      m[i] = fm[i].mantissa_q31;
      l[i] = fm[i].shift > 0 ? fm[i].shift : 0;
      rr[i] = fm[i].shift > 0 ? 0 : -fm[i].shift;
      REQUIRE(l[i] <= 30);
      REQUIRE(rr[i] <= 31);
      REQUIRE((any_left || l[i] == 0));
      mask[i] = static_cast<std::int32_t>((std::int64_t{1} << rr[i]) - 1);
      half[i] = mask[i] >> 1;
    }
    apply_lanes_avx2(any_left, x.data(), m.data(), l.data(), rr.data(), mask.data(), half.data(), got.data());
    for (std::size_t i = 0; i < 8; ++i)
      REQUIRE_MESSAGE(got[i] == q::apply_multiplier(x[i], fm[i]), "x ", x[i], " mantissa ", m[i], " shift ", fm[i].shift);
  }
}
#endif

TEST_CASE("portable apply_multiplier_lanes equals the scalar apply_multiplier in every lane") {
  // Any CPU (this build's xsimd architecture): every shift the multipliers can have, inputs
  // small, at the int32 ends and anywhere, mantissas at both ends of [2^30, 2^31).
  namespace q = nnhal::ops::quant;
  using I = xsimd::batch<std::int32_t>;
  constexpr std::size_t L = I::size;
  rng r(0xB22);
  for (int n = 0; n < 20000; ++n) {
    alignas(64) std::array<std::int32_t, L> x{}, m{}, l{}, rr{}, got{};
    std::array<q::fixed_multiplier, L> fm{};
    bool any_left = false;
    for (std::size_t i = 0; i < L; ++i) {
      std::tie(fm[i], x[i]) = random_multiplier_lane(r, 34);
      m[i] = fm[i].mantissa_q31;
      l[i] = fm[i].shift > 0 ? fm[i].shift : 0;
      rr[i] = fm[i].shift > 0 ? 0 : -fm[i].shift;
      REQUIRE(l[i] <= 30);
      REQUIRE(rr[i] <= 31);
      any_left = any_left || l[i] > 0;
    }
    const I args[] = {I::load_aligned(x.data()), I::load_aligned(m.data()), I::load_aligned(l.data()),
                      I::load_aligned(rr.data())};
    const I v = any_left ? nnhal::simd::portable::apply_multiplier_lanes<true>(args[0], args[1], args[2], args[3])
                         : nnhal::simd::portable::apply_multiplier_lanes<false>(args[0], args[1], args[2], args[3]);
    v.store_aligned(got.data());
    for (std::size_t i = 0; i < L; ++i)
      REQUIRE_MESSAGE(got[i] == q::apply_multiplier(x[i], fm[i]), "x ", x[i], " mantissa ", m[i], " shift ", fm[i].shift);
  }
}

TEST_CASE("CONV_2D quant8 with a multiplier of 2^40: every non-zero sum saturates, in every kernel") {
  // Output scale 2^-40 of the input and filter scales: far beyond int32 shifts, it must
  // neither shift out of range (undefined behaviour) nor wrap. Sums worked out here.
  rng r(0x2A40);
  tensor input = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 3, 5, 4}, 1.0f, 128);
  fill(input, r);
  for (std::size_t i = 0; i < 4; ++i) input.set(i, std::uint8_t{128});  // pixel 0: every sum 0
  tensor filter = make_tensor(OT::TENSOR_QUANT8_ASYMM, {6, 1, 1, 4}, 1.0f, 128);
  fill(filter, r);
  tensor bias = make_tensor(OT::TENSOR_INT32, {6}, 1.0f);
  const std::vector<tensor> ins{input, filter, bias, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0),
                                scalar_i32(1), scalar_i32(1), scalar_i32(0)};
  const tensor out = decl(OT::TENSOR_QUANT8_ASYMM, {1, 3, 5, 6}, std::ldexp(1.0f, -40), 100);
  for (bool portable : {false, true}) {
    const cpu_limit limit{portable ? nnhal::simd::cpu_features{} : nnhal::simd::detected_cpu()};
    const kernel_result k = run_kernel(OpT::CONV_2D, ins, {out});
    REQUIRE_MESSAGE(k.ok, k.error);
    for (std::size_t px = 0; px < 15; ++px)
      for (std::size_t oc = 0; oc < 6; ++oc) {
        std::int32_t sum = 0;
        for (std::size_t c = 0; c < 4; ++c)
          sum += (std::to_integer<std::int32_t>(input.bytes[px * 4 + c]) - 128) *
                 (std::to_integer<std::int32_t>(filter.bytes[oc * 4 + c]) - 128);
        const int want = sum > 0 ? 255 : (sum < 0 ? 0 : 100);
        CHECK_MESSAGE(std::to_integer<int>(k.outs[0].bytes[px * 6 + oc]) == want, "pixel ", px, " channel ", oc,
                      " sum ", sum, portable ? " portable" : "");
      }
  }
}

#if NNHAL_HAVE_X86_KERNELS
NNHAL_TARGET_AVX512 void apply_lanes(const std::int32_t* x, const std::int32_t* m, const std::int32_t* l,
                                     const std::int32_t* rr, std::int32_t* out) {
  const __m512i v = nnhal::simd::avx512::apply_multiplier_lanes(_mm512_loadu_si512(x), _mm512_loadu_si512(m),
                                                                _mm512_loadu_si512(l), _mm512_loadu_si512(rr));
  _mm512_storeu_si512(out, v);
}

TEST_CASE("apply_multiplier_lanes equals the scalar apply_multiplier in every lane") {
  if (!have_kernels()) return;
  namespace q = nnhal::ops::quant;
  rng r(0xA11);
  for (int n = 0; n < 4000; ++n) {
    std::array<std::int32_t, 16> x{}, m{}, l{}, rr{}, got{};
    std::array<q::fixed_multiplier, 16> fm{};
    for (std::size_t i = 0; i < 16; ++i) {
      const double real = std::ldexp(static_cast<double>(r.real(0.5f, 1.0f)), r.uniform(-34, 8));
      fm[i] = q::quantize_multiplier(real);
      switch (r.uniform(0, 3)) {
        case 0: x[i] = r.uniform(-300, 300); break;
        case 1: x[i] = r.coin() ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min(); break;
        default: x[i] = static_cast<std::int32_t>(r.gen()); break;
      }
      m[i] = fm[i].mantissa_q31;
      l[i] = fm[i].shift > 0 ? fm[i].shift : 0;
      rr[i] = fm[i].shift > 0 ? 0 : -fm[i].shift;
    }
    apply_lanes(x.data(), m.data(), l.data(), rr.data(), got.data());
    for (std::size_t i = 0; i < 16; ++i)
      REQUIRE_MESSAGE(got[i] == q::apply_multiplier(x[i], fm[i]), "x ", x[i], " mantissa ", m[i], " shift ", fm[i].shift);
  }
}

template <class S>
NNHAL_TARGET_AVX512 void store_lanes(const ops::kernels::conv::avx512::q8_epilogue& e, std::size_t c,
                                     const std::int32_t* acc, S* out, std::int32_t* scaled) {
  const ops::kernels::conv::avx512::q8_lanes lanes(e, c);
  lanes.store(out, 0xFFFF, _mm512_loadu_si512(acc));
  if (!e.scaling->any_left) _mm512_storeu_si512(scaled, lanes.scaled(_mm512_loadu_si512(acc)));
}

template <class S>
void check_q8_lanes(rng& r, int n) {
  namespace q = nnhal::ops::quant;
  namespace av = ops::kernels::conv::avx512;
  constexpr std::int32_t tmin = std::numeric_limits<S>::min(), tmax = std::numeric_limits<S>::max();
  constexpr std::size_t channels = 48;
  ops::kernels::conv::requant rq;
  const bool small_only = n % 2 == 0;  // every multiplier below 1: one rounding of the product
  for (std::size_t c = 0; c < channels; ++c)
    rq.multipliers.push_back(q::quantize_multiplier(
        std::ldexp(static_cast<double>(r.real(0.5f, 1.0f)), r.uniform(-34, small_only ? 0 : 8))));
  rq.out_zp = r.uniform(tmin, tmax);
  av::q8_epilogue e;
  av::set_lanes(e, rq, channels, channels);
  // The type's whole range, or an activation's narrower one.
  e.lo = r.coin() ? tmin : r.uniform(tmin, tmax);
  e.hi = r.coin() ? tmax : r.uniform(e.lo, tmax);
  std::array<std::int32_t, channels> acc{};
  for (auto& a : acc) {
    switch (r.uniform(0, 3)) {
      case 0: a = r.uniform(-300, 300); break;
      case 1: a = r.coin() ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min(); break;
      default: a = static_cast<std::int32_t>(r.gen()); break;
    }
  }
  for (std::size_t c = 0; c < channels; c += 16) {
    std::array<S, 16> got{};
    std::array<std::int32_t, 16> scaled{};
    store_lanes<S>(e, c, acc.data() + c, got.data(), scaled.data());
    for (std::size_t i = 0; i < 16; ++i) {
      const std::int32_t m = q::apply_multiplier(acc[c + i], rq.at(c + i));
      INFO("acc ", acc[c + i], " channel ", c + i, " shift ", rq.at(c + i).shift, " range ", e.lo, "..", e.hi);
      // The stored values are mostly clamped; the unclamped products are compared too.
      if (small_only) REQUIRE(scaled[i] == m);
      REQUIRE(int{got[i]} == std::clamp<std::int64_t>(std::int64_t{m} + rq.out_zp, e.lo, e.hi));
    }
  }
}

/// q8_lanes' store() of each of `n` rows of 16 accumulators, and store_rows() of them
/// together (rows of 16 S apart).
template <class S>
NNHAL_TARGET_AVX512 void store_both(const ops::kernels::conv::avx512::q8_epilogue& e, const std::int32_t* acc,
                                    std::size_t n, S* one, S* rows) {
  const ops::kernels::conv::avx512::q8_lanes lanes(e, 0);
  __m512i v[8];
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = _mm512_loadu_si512(acc + 16 * i);
    lanes.store(one + 16 * i, 0xFFFF, v[i]);
  }
  lanes.store_rows<S, 8>(rows, 16, 0xFFFF, v, n);
}

/// Rows of 16 channels, each with one lane `near` holding an accumulator next to a
/// rounding boundary of the exact requantization (where q = floor((v m + A) / 2^(31+r))
/// steps, A the rounding term of v's sign), 0 to about 3 float-path windows away on
/// either side; the other lanes hold small accumulators. Checks every lane, stored one row
/// at a time and as a block of rows, against the scalar path.
template <class S>
void check_q8_boundary(rng& r) {
  namespace q = nnhal::ops::quant;
  namespace av = ops::kernels::conv::avx512;
  constexpr std::int32_t tmin = std::numeric_limits<S>::min(), tmax = std::numeric_limits<S>::max();
  ops::kernels::conv::requant rq;
  for (std::size_t c = 0; c < 16; ++c) {
    // Mantissas anywhere in [2^30, 2^31), or at either end; right shifts 0 to 31 (and a
    // multiplier too small to represent: mantissa 0).
    const int pick = r.uniform(0, 9);
    const double frac = pick == 0 ? 0.5 : pick == 1 ? 1.0 - 0x1p-31 : static_cast<double>(r.real(0.5f, 1.0f));
    rq.multipliers.push_back(q::quantize_multiplier(std::ldexp(frac, -r.uniform(0, 32))));
  }
  rq.out_zp = r.uniform(tmin, tmax);
  av::q8_epilogue e;
  av::set_lanes(e, rq, 16, 16);
  e.lo = r.coin() ? tmin : r.uniform(tmin, tmax);
  e.hi = r.coin() ? tmax : r.uniform(e.lo, tmax);
  const auto rows = static_cast<std::size_t>(r.uniform(1, 8));
  std::array<std::int32_t, 16 * 8> acc{};
  for (auto& a : acc) a = r.uniform(-300, 300);
  for (std::size_t row = 0; row < rows; ++row) {
    const std::size_t near = static_cast<std::size_t>(r.uniform(0, 15));
    const q::fixed_multiplier m = rq.at(near);
    if (m.mantissa_q31 != 0) {
      const int right = -m.shift;
      // The output step q (before the zero point) to land next to: in or near [lo, hi].
      const std::int64_t target = r.uniform(e.lo - rq.out_zp - 3, e.hi - rq.out_zp + 3);
      const long double unit = std::ldexp(1.0L, 31 + right);
      long double a = std::ldexp(1.0L, 30) + (right > 0 ? std::ldexp(1.0L, 30 + right) : 0.0L);
      if (target <= 0 && right > 0) a -= std::ldexp(1.0L, 31);  // the boundary of a negative product
      const long double boundary = (static_cast<long double>(target) * unit - a) / m.mantissa_q31;
      // One float-path window is fast_window / 2^16 of a step: about `per_window`
      // accumulator units.
      const long double per_window = static_cast<long double>(av::fast_window) * std::ldexp(1.0L, 15 + right) / m.mantissa_q31;
      const long double reach = 3.0L * per_window + 3.0L;
      const long double offset = r.coin() ? static_cast<long double>(r.uniform(-3, 3))
                                          : static_cast<long double>(r.real(-1.0f, 1.0f)) * reach;
      const long double v = std::clamp(std::roundl(boundary + offset), -2147483648.0L, 2147483647.0L);
      acc[16 * row + near] = static_cast<std::int32_t>(v);
    }
  }
  std::array<S, 16 * 8> one{}, block{};
  store_both<S>(e, acc.data(), rows, one.data(), block.data());
  for (std::size_t i = 0; i < 16 * rows; ++i) {
    const std::int32_t want = q::apply_multiplier(acc[i], rq.at(i % 16));
    INFO("acc ", acc[i], " row ", i / 16, " lane ", i % 16, " mantissa ", rq.at(i % 16).mantissa_q31, " shift ",
         rq.at(i % 16).shift, " zp ", rq.out_zp, " range ", e.lo, "..", e.hi);
    const auto expected = std::clamp<std::int64_t>(std::int64_t{want} + rq.out_zp, e.lo, e.hi);
    REQUIRE(int{one[i]} == expected);
    REQUIRE(int{block[i]} == expected);
  }
}

/// Both pairings of two rows of 16 bytes (dw3_pair, and dw3_pair_vbmi when the CPU has
/// VBMI) into `plain` and `vbmi`.
NNHAL_TARGET_AVX512 void pair_rows(const std::uint8_t* row0, const std::uint8_t* row1, std::int32_t* plain) {
  namespace av = ops::kernels::conv::avx512;
  _mm512_storeu_si512(plain, av::dw3_pair(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row0)),
                                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(row1))));
}
NNHAL_TARGET_AVX512_VBMI void pair_rows_vbmi(const std::uint8_t* row0, const std::uint8_t* row1, std::int32_t* vbmi) {
  namespace av = ops::kernels::conv::avx512;
  _mm512_storeu_si512(vbmi, av::dw3_pair_vbmi(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row0)),
                                              _mm_loadu_si128(reinterpret_cast<const __m128i*>(row1))));
}

TEST_CASE("q8_lanes: the float path equals the fixed-point requantization next to every rounding boundary") {
  // Accumulators on, next to and a few windows from the points where the exact result
  // steps, for multipliers of every right shift and both signs; the other lanes of each
  // vector are small, so that a lane inside the window (sent to the exact path with its
  // vector) does not hide the float path from its neighbours too often.
  if (!have_kernels()) return;
  rng r(0xB0DA);
  for (int n = 0; n < 20000; ++n) {
    check_q8_boundary<std::int8_t>(r);
    check_q8_boundary<std::uint8_t>(r);
  }
}

TEST_CASE("quant8 3x3 depthwise: both row pairings put row 0 in the low and row 1 in the high half of each lane") {
  // The kernel takes one pairing or the other by the CPU: the one this CPU does not run
  // end to end is checked here against the definition and the other.
  if (!have_kernels()) return;
  rng r(0x9A125);
  for (int n = 0; n < 200; ++n) {
    std::array<std::uint8_t, 16> row0{}, row1{};
    for (std::size_t i = 0; i < 16; ++i) {
      row0[i] = static_cast<std::uint8_t>(n < 2 ? 255 * n : r.uniform(0, 255));
      row1[i] = static_cast<std::uint8_t>(n < 2 ? 255 - 255 * n : r.uniform(0, 255));
    }
    std::array<std::int32_t, 16> plain{}, vbmi{};
    pair_rows(row0.data(), row1.data(), plain.data());
    for (std::size_t i = 0; i < 16; ++i)
      REQUIRE(plain[i] == static_cast<std::int32_t>(std::uint32_t{row0[i]} | std::uint32_t{row1[i]} << 16));
    if (!nnhal::simd::cpu().avx512_vbmi) continue;
    pair_rows_vbmi(row0.data(), row1.data(), vbmi.data());
    REQUIRE(vbmi == plain);
  }
}

TEST_CASE("q8_lanes (the quant8 GEMM and depthwise epilogue) equals the scalar requantization in every lane") {
  // Per-channel multipliers from 2^-34 to 2^8 (right shifts 0..31, and left shifts, which
  // take the other path), accumulators at the int32 extremes, near zero and anywhere, 48
  // channels (three blocks of 16: the even / odd lane layout of each block), both 8-bit
  // types, whole and narrower activation ranges.
  if (!have_kernels()) return;
  rng r(0x1A7E5);
  for (int n = 0; n < 3000; ++n) {
    check_q8_lanes<std::int8_t>(r, n);
    check_q8_lanes<std::uint8_t>(r, n);
  }
}
#endif

}  // namespace
