// The convolution and matrix-multiply family: CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D,
// TRANSPOSE_CONV_2D, FULLY_CONNECTED, BATCH_MATMUL.
//  - oracle tests: random geometries (both padding forms, strides, dilation, NHWC/NCHW,
//    activations) for every type; expected values from the real-number definitions in
//    double, compared within the CTS tolerances;
//  - qu8/qs8 parity: the same data shifted by -128 gives outputs shifted by -128, exactly;
//  - the float32 xsimd path against reference() (tails, NCHW, dilation, constant and
//    non-constant filters);
//  - shape inference (validation-time unknowns, zero batches), bad operands rejected with
//    a message naming the operand, minimum-version rules, and a few end-to-end models.
// Random cases draw a per-case seed from a fixed seed and print it on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/conv_2d.hpp"
#include "nnhal/ops/depthwise_conv_2d.hpp"
#include "nnhal/ops/fully_connected.hpp"
#include "nnhal/types/validate.hpp"
#include "support/model_builder.hpp"
#include "support/op_runner.hpp"
#include "support/random_cases.hpp"

using namespace nnhal::test::op;

namespace {

namespace kc = nnhal::ops::kernels::conv;

// ---------------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------------

struct rng {
  std::mt19937 gen;
  explicit rng(std::uint32_t seed) : gen(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
  bool coin() { return uniform(0, 1) == 1; }
};

/// Random values for a tensor of `t`: floats in [-1, 1], quant8 over the whole range,
/// per-channel int8 in [-127, 127], int32 in [-bound, bound].
void fill(tensor& x, rng& r, std::int32_t int_bound = 1000) {
  for (std::size_t i = 0; i < x.count(); ++i) {
    switch (x.type) {
      case OT::TENSOR_FLOAT32: x.set(i, static_cast<float>(r.real(-1, 1))); break;
      case OT::TENSOR_FLOAT16: x.set(i, ty::to_float16(static_cast<float>(r.real(-1, 1)))); break;
      case OT::TENSOR_QUANT8_ASYMM: x.set(i, static_cast<std::uint8_t>(r.uniform(0, 255))); break;
      case OT::TENSOR_QUANT8_ASYMM_SIGNED: x.set(i, static_cast<std::int8_t>(r.uniform(-128, 127))); break;
      case OT::TENSOR_QUANT8_SYMM_PER_CHANNEL: x.set(i, static_cast<std::int8_t>(r.uniform(-127, 127))); break;
      case OT::TENSOR_INT32: x.set(i, static_cast<std::int32_t>(r.uniform(-int_bound, int_bound))); break;
      default: break;
    }
  }
}

// ---------------------------------------------------------------------------------
// Running a kernel directly (op_runner's run_ok1) and shape inference
// ---------------------------------------------------------------------------------

/// run_ok1 for one output; `constants` false hides the tensor inputs' values from bind,
/// which exercises the paths that pack or read the filter at execution.
tensor run_op(OpT op, std::vector<tensor> ins, const tensor& out_decl, bool constants = true) {
  for (auto& t : ins) t.bind_sees_value = constants || !ty::is_tensor(t.type);
  return run_ok1(op, ins, out_decl);
}

/// Shape inference alone; `executing` false is validation (no value for non-constants).
ty::result<sig::shapes> infer(OpT op, const std::vector<tensor>& ins, const tensor& out_decl, bool executing = true) {
  return nnhal::test::op::infer(op, ins, {out_decl}, executing);
}

/// float32 results of two paths agree within float rounding, element by element.
void require_near(const tensor& got, const tensor& ref) {
  REQUIRE(got.count() == ref.count());
  for (std::size_t i = 0; i < ref.count(); ++i) {
    const double a = got.get<float>(i), b = ref.get<float>(i);
    REQUIRE(std::abs(a - b) <= 1e-5 + 1e-5 * std::abs(b));
  }
}

/// The error message of a rejected inference (REQUIREs that it was rejected).
std::string infer_error(OpT op, const std::vector<tensor>& ins, const tensor& out_decl, bool executing = true) {
  auto r = infer(op, ins, out_decl, executing);
  REQUIRE_MESSAGE(!r.ok(), "inference accepted what it should reject");
  CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  return r.err().message;
}

// ---------------------------------------------------------------------------------
// Oracle: the real-number definitions
// ---------------------------------------------------------------------------------

/// Compares `got` with expected reals within the CTS tolerance of its type.
void check_close(const tensor& got, const std::vector<double>& want, const std::string& what) {
  const std::string m = compare(got, want);
  CHECK_MESSAGE(m.empty(), what, ": ", m);
}

/// A conv-like case: every parameter the four conv ops take.
struct conv_case {
  OpT op = OpT::CONV_2D;
  std::uint32_t batches = 1, in_h = 1, in_w = 1, in_c = 1, out_c = 1, fh = 1, fw = 1;
  std::int32_t stride_w = 1, stride_h = 1, dil_w = 1, dil_h = 1;
  std::int32_t extra = 1;  // depth_multiplier / num_groups
  bool explicit_padding = true;
  std::int32_t pad[4] = {0, 0, 0, 0};  // left, right, top, bottom
  std::int32_t scheme = 1;
  std::uint32_t want_h = 0, want_w = 0;  // TRANSPOSE_CONV_2D implicit: requested output extents
  bool nchw = false;
  std::int32_t act = 0;
  bool with_layout = true, with_dilation = true;  // trailing optional inputs present

  bool transpose() const { return op == OpT::TRANSPOSE_CONV_2D; }
  std::int64_t eff_h() const { return (std::int64_t{fh} - 1) * dil_h + 1; }
  std::int64_t eff_w() const { return (std::int64_t{fw} - 1) * dil_w + 1; }
  std::string describe() const {
    return ty::str_cat(to_string(op), " b", batches, " in ", in_h, "x", in_w, "x", in_c, " out_c ", out_c, " f ", fh,
                       "x", fw, " s ", stride_h, ",", stride_w, " d ", dil_h, ",", dil_w, " extra ", extra,
                       explicit_padding ? " pad " : " scheme ", explicit_padding ? pad[0] : scheme, ",", pad[1], ",",
                       pad[2], ",", pad[3], nchw ? " NCHW" : " NHWC", " act ", act);
  }
  dims_t input_dims() const { return nchw ? dims_t{batches, in_c, in_h, in_w} : dims_t{batches, in_h, in_w, in_c}; }
  dims_t filter_dims() const {
    switch (op) {
      case OpT::DEPTHWISE_CONV_2D: return {1, fh, fw, out_c};
      case OpT::GROUPED_CONV_2D: return {out_c, fh, fw, in_c / static_cast<std::uint32_t>(extra)};
      default: return {out_c, fh, fw, in_c};
    }
  }
  /// (head, tail) padding per axis, computed from the spec's definitions.
  std::array<std::int64_t, 4> pads() const {
    if (explicit_padding) return {pad[0], pad[1], pad[2], pad[3]};
    std::array<std::int64_t, 4> p{0, 0, 0, 0};
    if (scheme != 1) return p;
    auto same = [&](std::int64_t in, std::int64_t stride, std::int64_t eff, std::int64_t* head, std::int64_t* tail) {
      const std::int64_t out = (in + stride - 1) / stride;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + eff - in, 0);
      *head = total / 2;
      *tail = total - *head;
    };
    if (transpose()) {  // the tail fits the requested output exactly (it may go negative)
      auto tsame = [&](std::int64_t want, std::int64_t in, std::int64_t stride, std::int64_t f, std::int64_t* head,
                       std::int64_t* tail) {
        const std::int64_t total = (in - 1) * stride + f - want;
        *head = std::max<std::int64_t>(total, 0) / 2;
        *tail = total - *head;
      };
      tsame(want_w, in_w, stride_w, fw, &p[0], &p[1]);
      tsame(want_h, in_h, stride_h, fh, &p[2], &p[3]);
      return p;
    }
    same(in_w, stride_w, eff_w(), &p[0], &p[1]);
    same(in_h, stride_h, eff_h(), &p[2], &p[3]);
    return p;
  }
  std::pair<std::uint32_t, std::uint32_t> out_hw() const {
    const auto p = pads();
    if (transpose())
      return {static_cast<std::uint32_t>(std::int64_t{stride_h} * (in_h - 1) + fh - p[2] - p[3]),
              static_cast<std::uint32_t>(std::int64_t{stride_w} * (in_w - 1) + fw - p[0] - p[1])};
    return {static_cast<std::uint32_t>((in_h + p[2] + p[3] - eff_h()) / stride_h + 1),
            static_cast<std::uint32_t>((in_w + p[0] + p[1] - eff_w()) / stride_w + 1)};
  }
  dims_t output_dims() const {
    const auto [oh, ow] = out_hw();
    return nchw ? dims_t{batches, out_c, oh, ow} : dims_t{batches, oh, ow, out_c};
  }
  /// The operation's inputs after input, filter and bias, in HAL order.
  std::vector<tensor> scalars() const {
    std::vector<tensor> s;
    const bool has_extra = op == OpT::DEPTHWISE_CONV_2D || op == OpT::GROUPED_CONV_2D;
    const bool dilation_form = op == OpT::CONV_2D || op == OpT::DEPTHWISE_CONV_2D;
    if (explicit_padding) {
      for (int k = 0; k < 4; ++k) s.push_back(scalar_i32(pad[k]));
    } else {
      if (transpose()) {
        s.push_back(i32_tensor(nchw ? std::vector<std::int32_t>{std::int32_t(batches), std::int32_t(out_c),
                                                                std::int32_t(want_h), std::int32_t(want_w)}
                                    : std::vector<std::int32_t>{std::int32_t(batches), std::int32_t(want_h),
                                                                std::int32_t(want_w), std::int32_t(out_c)}));
      }
      s.push_back(scalar_i32(scheme));
    }
    s.push_back(scalar_i32(stride_w));
    s.push_back(scalar_i32(stride_h));
    if (has_extra) s.push_back(scalar_i32(extra));
    s.push_back(scalar_i32(act));
    if (!dilation_form || with_layout || with_dilation) s.push_back(scalar_bool(nchw));
    if (dilation_form && with_dilation) {
      s.push_back(scalar_i32(dil_w));
      s.push_back(scalar_i32(dil_h));
    }
    return s;
  }
};

/// The real-number result of a conv-like case (output layout), from the spec formulas:
/// forward ops gather input[b, oy*s - pad + ky*d, ...] * filter; TRANSPOSE_CONV_2D
/// scatters input[b, iy, ix, k] * filter[oc, ky, kx, k] to output (iy*s - pad + ky, ...).
std::vector<double> conv_oracle(const conv_case& cc, const tensor& input, const tensor& filter,
                                const std::vector<double>& bias) {
  const auto [oh, ow] = cc.out_hw();
  const auto p = cc.pads();
  const kc::layout4 il = kc::make_layout4(cc.nchw, cc.in_h, cc.in_w, cc.in_c);
  const kc::layout4 ol = kc::make_layout4(cc.nchw, oh, ow, cc.out_c);
  std::vector<double> out(std::size_t{cc.batches} * oh * ow * cc.out_c, 0.0);
  const auto fd = cc.filter_dims();
  auto f_at = [&](std::size_t a, std::size_t y, std::size_t x, std::size_t k) {
    return filter.real(((a * fd[1] + y) * fd[2] + x) * fd[3] + k);
  };
  if (cc.transpose()) {
    for (std::size_t b = 0; b < cc.batches; ++b)
      for (std::size_t iy = 0; iy < cc.in_h; ++iy)
        for (std::size_t ix = 0; ix < cc.in_w; ++ix)
          for (std::size_t ky = 0; ky < cc.fh; ++ky)
            for (std::size_t kx = 0; kx < cc.fw; ++kx) {
              const std::int64_t y = std::int64_t(iy) * cc.stride_h - p[2] + std::int64_t(ky);
              const std::int64_t x = std::int64_t(ix) * cc.stride_w - p[0] + std::int64_t(kx);
              if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
              for (std::size_t oc = 0; oc < cc.out_c; ++oc)
                for (std::size_t k = 0; k < cc.in_c; ++k)
                  out[ol.at(b, std::size_t(y), std::size_t(x), oc)] +=
                      input.real(il.at(b, iy, ix, k)) * f_at(oc, ky, kx, k);
            }
  } else {
    const std::uint32_t groups = cc.op == OpT::GROUPED_CONV_2D ? std::uint32_t(cc.extra) : 1;
    const std::uint32_t cin_g = cc.in_c / groups, cout_g = cc.out_c / groups;
    for (std::size_t b = 0; b < cc.batches; ++b)
      for (std::size_t oy = 0; oy < oh; ++oy)
        for (std::size_t ox = 0; ox < ow; ++ox)
          for (std::size_t oc = 0; oc < cc.out_c; ++oc) {
            double sum = 0;
            for (std::size_t ky = 0; ky < cc.fh; ++ky)
              for (std::size_t kx = 0; kx < cc.fw; ++kx) {
                const std::int64_t y = std::int64_t(oy) * cc.stride_h - p[2] + std::int64_t(ky) * cc.dil_h;
                const std::int64_t x = std::int64_t(ox) * cc.stride_w - p[0] + std::int64_t(kx) * cc.dil_w;
                if (y < 0 || y >= cc.in_h || x < 0 || x >= cc.in_w) continue;
                if (cc.op == OpT::DEPTHWISE_CONV_2D) {
                  const std::size_t ic = oc / static_cast<std::size_t>(cc.extra);
                  sum += input.real(il.at(b, std::size_t(y), std::size_t(x), ic)) * f_at(0, ky, kx, oc);
                } else {
                  const std::size_t g = oc / cout_g;
                  for (std::size_t k = 0; k < cin_g; ++k)
                    sum += input.real(il.at(b, std::size_t(y), std::size_t(x), g * cin_g + k)) * f_at(oc, ky, kx, k);
                }
              }
            out[ol.at(b, oy, ox, oc)] = sum;
          }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t oc = cc.nchw ? (i / (std::size_t{oh} * ow)) % cc.out_c : i % cc.out_c;
    out[i] = cases::apply_activation(out[i] + bias[oc], cc.act);
  }
  return out;
}

/// Tensor types of one conv configuration.
struct conv_types {
  OT input = OT::TENSOR_FLOAT32;
  bool per_channel = false;
  OT filter() const { return per_channel ? OT::TENSOR_QUANT8_SYMM_PER_CHANNEL : input; }
  OT bias() const { return is_quant8(input) ? OT::TENSOR_INT32 : input; }
};

/// Operands of a conv-like case with random data; the output scale is picked from the
/// oracle's range so results spread over the quantized range.
struct conv_operands {
  std::vector<tensor> ins;
  tensor out;
  std::vector<double> want;
};
conv_operands make_conv_operands(const conv_case& cc, const conv_types& t, rng& r) {
  conv_operands o;
  const bool q = is_quant8(t.input);
  tensor input = make_tensor(t.input, cc.input_dims(), q ? static_cast<float>(r.real(0.01, 0.1)) : 0.0f,
                             q ? (t.input == OT::TENSOR_QUANT8_ASYMM ? r.uniform(0, 255) : r.uniform(-128, 127)) : 0);
  fill(input, r);
  const dims_t fd = cc.filter_dims();
  tensor filter = make_tensor(t.filter(), fd);
  if (t.per_channel) {
    filter.channel_dim = cc.op == OpT::DEPTHWISE_CONV_2D ? 3 : 0;
    for (std::uint32_t c = 0; c < cc.out_c; ++c)
      filter.channel_scales.push_back(static_cast<float>(r.real(0.005, 0.05)));
  } else if (q) {
    filter.scale = static_cast<float>(r.real(0.01, 0.1));
    filter.zp = t.input == OT::TENSOR_QUANT8_ASYMM ? r.uniform(0, 255) : r.uniform(-128, 127);
  }
  fill(filter, r);
  tensor bias = make_tensor(t.bias(), {cc.out_c});
  if (q && !t.per_channel) bias.scale = input.scale * filter.scale;
  fill(bias, r, 2000);
  std::vector<double> bias_real(cc.out_c);
  for (std::uint32_t c = 0; c < cc.out_c; ++c) {
    if (!q) bias_real[c] = bias.real(c);
    else if (t.per_channel) bias_real[c] = bias.raw(c) * (double(input.scale) * filter.channel_scales[c]);
    else bias_real[c] = bias.raw(c) * double(bias.scale);
  }
  o.want = conv_oracle(cc, input, filter, bias_real);
  float out_scale = 0.0f;
  std::int32_t out_zp = 0;
  if (q) {
    double m = 1e-3;
    for (double v : o.want) m = std::max(m, std::abs(v));
    out_scale = static_cast<float>(m / r.real(60, 140));
    out_zp = t.input == OT::TENSOR_QUANT8_ASYMM ? r.uniform(60, 200) : r.uniform(-70, 70);
  }
  o.out = decl(t.input, cc.output_dims(), out_scale, out_zp);
  o.ins = {input, filter, bias};
  for (auto& s : cc.scalars()) o.ins.push_back(s);
  return o;
}

/// A random valid case of `op`; `big` allows wider channels (float32 panel tails).
conv_case random_case(OpT op, rng& r, bool big = false) {
  conv_case c;
  c.op = op;
  c.batches = static_cast<std::uint32_t>(r.uniform(1, 2));
  c.fh = static_cast<std::uint32_t>(r.uniform(1, 3));
  c.fw = static_cast<std::uint32_t>(r.uniform(1, 3));
  c.stride_h = r.uniform(1, 3);
  c.stride_w = r.uniform(1, 3);
  c.nchw = r.coin();
  c.act = r.uniform(0, 3);
  const int max_c = big ? 21 : 5;
  switch (op) {
    case OpT::DEPTHWISE_CONV_2D:
      c.in_c = static_cast<std::uint32_t>(r.uniform(1, 4));
      c.extra = r.uniform(1, 3);
      c.out_c = c.in_c * static_cast<std::uint32_t>(c.extra);
      break;
    case OpT::GROUPED_CONV_2D: {
      c.extra = r.uniform(1, 3);
      c.in_c = static_cast<std::uint32_t>(c.extra * r.uniform(1, 3));
      c.out_c = static_cast<std::uint32_t>(c.extra * r.uniform(1, 3));
      break;
    }
    default:
      c.in_c = static_cast<std::uint32_t>(r.uniform(1, max_c));
      c.out_c = static_cast<std::uint32_t>(r.uniform(1, max_c));
      break;
  }
  const bool dilation = op == OpT::CONV_2D || op == OpT::DEPTHWISE_CONV_2D;
  if (dilation && r.uniform(0, 2) == 0) {
    c.dil_h = r.uniform(1, 3);
    c.dil_w = r.uniform(1, 3);
  }
  c.with_dilation = dilation && (c.dil_h != 1 || c.dil_w != 1 || r.coin());
  c.with_layout = c.with_dilation || c.nchw || r.coin();
  c.explicit_padding = r.coin();
  if (op == OpT::TRANSPOSE_CONV_2D) {
    c.in_h = static_cast<std::uint32_t>(r.uniform(1, 4));
    c.in_w = static_cast<std::uint32_t>(r.uniform(1, 4));
    if (c.explicit_padding) {
      c.pad[0] = r.uniform(0, int(c.fw) - 1);
      c.pad[1] = r.uniform(0, int(c.fw) - 1);
      c.pad[2] = r.uniform(0, int(c.fh) - 1);
      c.pad[3] = r.uniform(0, int(c.fh) - 1);
      const auto [oh, ow] = c.out_hw();
      if (static_cast<std::int32_t>(oh) <= 0) c.pad[2] = c.pad[3] = 0;
      if (static_cast<std::int32_t>(ow) <= 0) c.pad[0] = c.pad[1] = 0;
    } else {
      c.scheme = r.uniform(1, 2);
      // A requested extent with ceil(want / stride) == in, as SAME pads for.
      c.want_h = static_cast<std::uint32_t>(std::int64_t(c.in_h) * c.stride_h - r.uniform(0, c.stride_h - 1));
      c.want_w = static_cast<std::uint32_t>(std::int64_t(c.in_w) * c.stride_w - r.uniform(0, c.stride_w - 1));
    }
    return c;
  }
  if (c.explicit_padding) {
    c.pad[0] = r.uniform(0, int(c.eff_w()) - 1);
    c.pad[1] = r.uniform(0, int(c.eff_w()) - 1);
    c.pad[2] = r.uniform(0, int(c.eff_h()) - 1);
    c.pad[3] = r.uniform(0, int(c.eff_h()) - 1);
  } else {
    c.scheme = r.uniform(0, 2);
  }
  const auto p = c.pads();
  // The padded input must hold the (dilated) filter.
  c.in_h = static_cast<std::uint32_t>(std::max<std::int64_t>(c.eff_h() - p[2] - p[3], 1) + r.uniform(0, 5));
  c.in_w = static_cast<std::uint32_t>(std::max<std::int64_t>(c.eff_w() - p[0] - p[1], 1) + r.uniform(0, 5));
  if (!c.explicit_padding && c.scheme != 1) {
    c.in_h = std::max<std::uint32_t>(c.in_h, static_cast<std::uint32_t>(c.eff_h()));
    c.in_w = std::max<std::uint32_t>(c.in_w, static_cast<std::uint32_t>(c.eff_w()));
  }
  return c;
}

std::string type_name(const conv_types& t) {
  return std::string(to_string(t.input)) + (t.per_channel ? " + per-channel filter" : "");
}

const conv_types all_conv_types[] = {{OT::TENSOR_FLOAT32, false},
                                     {OT::TENSOR_FLOAT16, false},
                                     {OT::TENSOR_QUANT8_ASYMM, false},
                                     {OT::TENSOR_QUANT8_ASYMM, true},
                                     {OT::TENSOR_QUANT8_ASYMM_SIGNED, false},
                                     {OT::TENSOR_QUANT8_ASYMM_SIGNED, true}};

/// Random cases of a conv-like op for every type, against the oracle; for qu8, the
/// signed twin's output must be exactly the unsigned output - 128.
void oracle_sweep(OpT op, int cases_per_type, std::uint32_t seed) {
  std::mt19937 seeds(seed);
  for (const auto& t : all_conv_types) {
    for (int n = 0; n < cases_per_type; ++n) {
      const std::uint32_t case_seed = seeds();
      rng r(case_seed);
      const conv_case cc = random_case(op, r);
      const conv_operands o = make_conv_operands(cc, t, r);
      const std::string what = ty::str_cat(type_name(t), " ", cc.describe(), " seed ", case_seed);
      INFO(what);
      const tensor got = run_op(op, o.ins, o.out, r.coin());
      REQUIRE_MESSAGE(got.dims == cc.output_dims(), "dims ", str(got.dims), " want ", str(cc.output_dims()));
      check_close(got, o.want, what);
      if (t.input == OT::TENSOR_QUANT8_ASYMM) {
        std::vector<tensor> signed_ins;
        for (const auto& x : o.ins) signed_ins.push_back(to_signed(x));
        const tensor s = run_op(op, signed_ins, to_signed(o.out));
        bool same = true;
        for (std::size_t i = 0; i < got.count(); ++i) same = same && s.raw(i) == got.raw(i) - 128;
        CHECK_MESSAGE(same, "signed output differs from unsigned - 128: ", what);
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Oracle sweeps
// ---------------------------------------------------------------------------------

TEST_CASE("CONV_2D: random geometries and types against the real-number definition") {
  oracle_sweep(OpT::CONV_2D, 40, 0xC0417u);
}
TEST_CASE("DEPTHWISE_CONV_2D: random geometries and types against the real-number definition") {
  oracle_sweep(OpT::DEPTHWISE_CONV_2D, 40, 0xDE97u);
}
TEST_CASE("GROUPED_CONV_2D: random geometries and types against the real-number definition") {
  oracle_sweep(OpT::GROUPED_CONV_2D, 30, 0x6A0Fu);
}
TEST_CASE("TRANSPOSE_CONV_2D: random geometries and types against the real-number definition") {
  oracle_sweep(OpT::TRANSPOSE_CONV_2D, 40, 0x7C0Du);
}

TEST_CASE("CONV_2D float32: the packed xsimd path equals reference() within float rounding") {
  std::mt19937 seeds(0xF32u);
  for (int n = 0; n < 60; ++n) {
    const std::uint32_t case_seed = seeds();
    rng r(case_seed);
    conv_case cc = random_case(OpT::CONV_2D, r, /*big=*/true);
    if (n % 5 == 0) {  // a 1x1 "GEMM" convolution with a wide output
      cc.fh = cc.fw = 1;
      cc.stride_h = cc.stride_w = cc.dil_h = cc.dil_w = 1;
      cc.explicit_padding = true;
      std::fill(std::begin(cc.pad), std::end(cc.pad), 0);
      cc.in_w = static_cast<std::uint32_t>(r.uniform(1, 13));
      cc.out_c = static_cast<std::uint32_t>(r.uniform(1, 40));
    }
    const conv_operands o = make_conv_operands(cc, {OT::TENSOR_FLOAT32, false}, r);
    INFO(cc.describe(), " seed ", case_seed);
    const bool constant_filter = r.coin();
    const tensor fast = run_op(OpT::CONV_2D, o.ins, o.out, constant_filter);
    check_close(fast, o.want, "xsimd vs oracle");
    // reference() on the same operands.
    require_near(fast, run_entry1(
                           OpT::CONV_2D,
                           [](const nnhal::ops::kernel_io& io) { nnhal::ops::conv_2d::reference<ty::f32, ty::f32>(io, {}); },
                           o.ins, o.out));
  }
}

TEST_CASE("DEPTHWISE_CONV_2D float32, multiplier 1: the xsimd channel loop equals reference()") {
  std::mt19937 seeds(0xD3F);
  for (int n = 0; n < 40; ++n) {
    const std::uint32_t case_seed = seeds();
    rng r(case_seed);
    conv_case cc = random_case(OpT::DEPTHWISE_CONV_2D, r);
    cc.extra = 1;
    cc.in_c = cc.out_c = static_cast<std::uint32_t>(r.uniform(1, 19));  // full vectors and tails
    const conv_operands o = make_conv_operands(cc, {OT::TENSOR_FLOAT32, false}, r);
    INFO(cc.describe(), " seed ", case_seed);
    const tensor fast = run_op(OpT::DEPTHWISE_CONV_2D, o.ins, o.out, r.coin());
    check_close(fast, o.want, "xsimd vs oracle");
    require_near(fast, run_entry1(
                           OpT::DEPTHWISE_CONV_2D,
                           [](const nnhal::ops::kernel_io& io) {
                             nnhal::ops::depthwise_conv_2d::reference<ty::f32, ty::f32>(io, {});
                           },
                           o.ins, o.out));
  }
}

TEST_CASE("GROUPED_CONV_2D float32 with one group takes the CONV_2D path") {
  rng r(77);
  conv_case cc = random_case(OpT::GROUPED_CONV_2D, r);
  cc.extra = 1;
  cc.in_c = 7;
  cc.out_c = 11;
  const conv_operands o = make_conv_operands(cc, {OT::TENSOR_FLOAT32, false}, r);
  check_close(run_op(OpT::GROUPED_CONV_2D, o.ins, o.out), o.want, cc.describe());
}

// ---------------------------------------------------------------------------------
// FULLY_CONNECTED
// ---------------------------------------------------------------------------------

struct fc_operands {
  std::vector<tensor> ins;
  tensor out;
  std::vector<double> want;
};

fc_operands make_fc(OT type, const dims_t& in_dims, std::uint32_t units, std::int32_t act, rng& r) {
  const bool q = is_quant8(type);
  const std::uint32_t depth = in_dims.back() * (in_dims.size() > 2 ? in_dims[in_dims.size() - 2] : 1);
  const std::uint32_t batch = static_cast<std::uint32_t>(count_of(in_dims) / depth);
  fc_operands o;
  tensor input = make_tensor(type, in_dims, q ? float(r.real(0.01, 0.1)) : 0.0f,
                             q ? (type == OT::TENSOR_QUANT8_ASYMM ? r.uniform(0, 255) : r.uniform(-128, 127)) : 0);
  fill(input, r);
  tensor w = make_tensor(type, {units, depth}, q ? float(r.real(0.01, 0.1)) : 0.0f,
                         q ? (type == OT::TENSOR_QUANT8_ASYMM ? r.uniform(0, 255) : r.uniform(-128, 127)) : 0);
  fill(w, r);
  tensor bias = make_tensor(q ? OT::TENSOR_INT32 : type, {units}, q ? input.scale * w.scale : 0.0f);
  fill(bias, r, 3000);
  o.want.assign(std::size_t{batch} * units, 0.0);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t u = 0; u < units; ++u) {
      double s = q ? bias.raw(u) * double(bias.scale) : bias.real(u);
      for (std::size_t k = 0; k < depth; ++k) s += input.real(b * depth + k) * w.real(u * depth + k);
      o.want[b * units + u] = cases::apply_activation(s, act);
    }
  float out_scale = 0.0f;
  std::int32_t out_zp = 0;
  if (q) {
    double m = 1e-3;
    for (double v : o.want) m = std::max(m, std::abs(v));
    out_scale = float(m / r.real(60, 140));
    out_zp = type == OT::TENSOR_QUANT8_ASYMM ? r.uniform(60, 200) : r.uniform(-70, 70);
  }
  o.ins = {input, w, bias, scalar_i32(act)};
  o.out = decl(type, {batch, units}, out_scale, out_zp);
  return o;
}

TEST_CASE("FULLY_CONNECTED: inputs of rank 2..4 flattened to [batch, input_size], every type") {
  std::mt19937 seeds(0xFC);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (int n = 0; n < 40; ++n) {
      const std::uint32_t case_seed = seeds();
      rng r(case_seed);
      dims_t in_dims;
      const int rank = r.uniform(2, 4);
      for (int d = 0; d < rank; ++d)
        in_dims.push_back(static_cast<std::uint32_t>(r.uniform(1, d == rank - 1 ? 20 : 4)));
      const auto units = static_cast<std::uint32_t>(r.uniform(1, 37));
      const fc_operands o = make_fc(type, in_dims, units, r.uniform(0, 3), r);
      const std::string what =
          ty::str_cat(to_string(type), " input ", str(in_dims), " units ", units, " seed ", case_seed);
      INFO(what);
      const tensor got = run_op(OpT::FULLY_CONNECTED, o.ins, o.out, r.coin());
      REQUIRE(got.dims == o.out.dims);
      check_close(got, o.want, what);
      if (type == OT::TENSOR_QUANT8_ASYMM) {
        std::vector<tensor> s_ins;
        for (const auto& x : o.ins) s_ins.push_back(to_signed(x));
        const tensor s = run_op(OpT::FULLY_CONNECTED, s_ins, to_signed(o.out));
        for (std::size_t i = 0; i < got.count(); ++i) REQUIRE(s.raw(i) == got.raw(i) - 128);
      }
    }
  }
}

TEST_CASE("FULLY_CONNECTED float32: xsimd GEMM equals reference() on batch and unit tails") {
  rng r(0x6E);
  for (std::uint32_t batch : {1u, 3u, 4u, 5u, 9u})
    for (std::uint32_t units : {1u, 7u, 8u, 9u, 16u, 17u, 33u}) {
      const fc_operands o = make_fc(OT::TENSOR_FLOAT32, {batch, 13}, units, 0, r);
      const tensor fast = run_op(OpT::FULLY_CONNECTED, o.ins, o.out);
      require_near(fast, run_entry1(
                             OpT::FULLY_CONNECTED,
                             [](const nnhal::ops::kernel_io& io) { nnhal::ops::fully_connected::reference<ty::f32>(io, {}); },
                             o.ins, o.out));
    }
}

// ---------------------------------------------------------------------------------
// BATCH_MATMUL
// ---------------------------------------------------------------------------------

TEST_CASE("BATCH_MATMUL: adj_x / adj_y, ranks 2..4, every type") {
  std::mt19937 seeds(0xBA7);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (int n = 0; n < 24; ++n) {
      const std::uint32_t case_seed = seeds();
      rng r(case_seed);
      const bool q = type == OT::TENSOR_QUANT8_ASYMM_SIGNED;
      const int rank = r.uniform(2, 4);
      dims_t batch_dims;
      for (int d = 0; d + 2 < rank; ++d) batch_dims.push_back(static_cast<std::uint32_t>(r.uniform(1, 3)));
      // Every third case large enough for several GEMM panels, row tiles and a long depth.
      const bool large = n % 3 == 0;
      const auto m = static_cast<std::uint32_t>(r.uniform(1, large ? 40 : 5)),
                 k = static_cast<std::uint32_t>(r.uniform(1, large ? 90 : 6)),
                 nn = static_cast<std::uint32_t>(r.uniform(1, large ? 150 : 5));
      const bool adj_x = r.coin(), adj_y = r.coin();
      dims_t xd = batch_dims, yd = batch_dims, od = batch_dims;
      xd.push_back(adj_x ? k : m);
      xd.push_back(adj_x ? m : k);
      yd.push_back(adj_y ? nn : k);
      yd.push_back(adj_y ? k : nn);
      od.push_back(m);
      od.push_back(nn);
      tensor x = make_tensor(type, xd, q ? float(r.real(0.05, 0.2)) : 0.0f, q ? r.uniform(-128, 127) : 0);
      tensor y = make_tensor(type, yd, q ? float(r.real(0.05, 0.2)) : 0.0f, q ? r.uniform(-128, 127) : 0);
      fill(x, r, 50000);
      fill(y, r, 50000);
      const std::size_t slices = count_of(batch_dims);
      std::vector<double> want(slices * m * nn, 0.0);
      for (std::size_t s = 0; s < slices; ++s)
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < nn; ++j) {
            double acc = 0;
            std::int64_t iacc = 0;
            for (std::size_t p = 0; p < k; ++p) {
              const std::size_t xi = s * m * k + (adj_x ? p * m + i : i * k + p);
              const std::size_t yi = s * k * nn + (adj_y ? j * k + p : p * nn + j);
              acc += x.real(xi) * y.real(yi);
              iacc += x.raw(xi) * y.raw(yi);
            }
            // TENSOR_INT32 wraps like int32 hardware.
            want[s * m * nn + i * nn + j] =
                type == OT::TENSOR_INT32 ? double(static_cast<std::int32_t>(static_cast<std::uint32_t>(iacc))) : acc;
          }
      float out_scale = 0.0f;
      std::int32_t out_zp = 0;
      if (q) {
        double mx = 1e-3;
        for (double v : want) mx = std::max(mx, std::abs(v));
        out_scale = float(mx / r.real(60, 140));
        out_zp = r.uniform(-50, 50);
      }
      const std::string what =
          ty::str_cat(to_string(type), " x ", str(xd), " y ", str(yd), " adj ", adj_x, ",", adj_y, " seed ", case_seed);
      INFO(what);
      const tensor got =
          run_op(OpT::BATCH_MATMUL, {x, y, scalar_bool(adj_x), scalar_bool(adj_y)}, decl(type, od, out_scale, out_zp));
      REQUIRE(got.dims == od);
      check_close(got, want, what);
    }
  }
}

TEST_CASE("BATCH_MATMUL: the spec's example and shape rules") {
  tensor x = make_tensor(OT::TENSOR_FLOAT32, {1, 2, 3});
  tensor y = make_tensor(OT::TENSOR_FLOAT32, {1, 3, 4});
  for (int i = 0; i < 6; ++i) x.set(i, float(i + 1));
  for (int i = 0; i < 12; ++i) y.set(i, float(i + 7));
  const auto got =
      run_op(OpT::BATCH_MATMUL, {x, y, scalar_bool(false), scalar_bool(false)}, decl(OT::TENSOR_FLOAT32, {}));
  const std::vector<double> want{74, 80, 86, 92, 173, 188, 203, 218};
  check_close(got, want, "spec example");
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  CHECK(infer_error(OpT::BATCH_MATMUL,
                    {x, make_tensor(OT::TENSOR_FLOAT32, {3, 4}), scalar_bool(false), scalar_bool(false)}, out)
            .find("input1: rank") != std::string::npos);
  CHECK(infer_error(OpT::BATCH_MATMUL,
                    {x, make_tensor(OT::TENSOR_FLOAT32, {1, 4, 4}), scalar_bool(false), scalar_bool(false)}, out)
            .find("inner extent") != std::string::npos);
  CHECK(infer_error(OpT::BATCH_MATMUL,
                    {x, make_tensor(OT::TENSOR_FLOAT32, {2, 3, 4}), scalar_bool(false), scalar_bool(false)}, out)
            .find("batch dimension") != std::string::npos);
  CHECK(infer_error(OpT::BATCH_MATMUL,
                    {make_tensor(OT::TENSOR_FLOAT32, {6}), y, scalar_bool(false), scalar_bool(false)}, out)
            .find("input0: rank") != std::string::npos);
  CHECK(infer_error(OpT::BATCH_MATMUL,
                    {make_tensor(OT::TENSOR_FLOAT32, {1, 2, 3, 1, 1}), y, scalar_bool(false), scalar_bool(false)}, out)
            .find("input0: rank") != std::string::npos);
  // adj_x makes input0 [1, 3, 2] -> [1, 2, 3]: inner 2 != 3.
  CHECK(infer_error(OpT::BATCH_MATMUL, {x, y, scalar_bool(true), scalar_bool(false)}, out).find("inner extent") !=
        std::string::npos);
  // Validation: unknown adj values leave the matrix extents unknown.
  tensor adj_unknown = decl(OT::BOOL, {});
  auto v = infer(OpT::BATCH_MATMUL, {x, y, adj_unknown, adj_unknown}, out, false);
  REQUIRE(v.ok());
  CHECK((*v)[0] == dims_t{1, 0, 0});
}

// ---------------------------------------------------------------------------------
// Hand-worked cases
// ---------------------------------------------------------------------------------

tensor f32(dims_t d, const std::vector<float>& v) {
  tensor x = make_tensor(OT::TENSOR_FLOAT32, std::move(d));
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.set(i, v[i]);
  return x;
}

TEST_CASE("CONV_2D: AOSP conv_float golden case, explicit and implicit padding, NCHW") {
  // conv_float.mod.py: 1x3x3x1 input, 2x2 filter of 0.25, bias -0.5, VALID, stride 1.
  const tensor input = f32({1, 3, 3, 1}, {1, 1, 1, 1, 0.5f, 1, 1, 1, 1});
  const tensor filter = f32({1, 2, 2, 1}, {0.25f, 0.25f, 0.25f, 0.25f});
  const tensor bias = f32({1}, {-0.5f});
  const std::vector<double> want{0.375, 0.375, 0.375, 0.375};
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  // Implicit VALID (7 inputs), explicit zero padding (10 inputs), NCHW (same data: one channel).
  check_close(
      run_op(OpT::CONV_2D, {input, filter, bias, scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(0)}, out),
      want, "implicit");
  check_close(run_op(OpT::CONV_2D,
                     {input, filter, bias, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1),
                      scalar_i32(1), scalar_i32(0)},
                     out),
              want, "explicit");
  tensor in_nchw = input;
  in_nchw.dims = {1, 1, 3, 3};
  const auto nchw = run_op(
      OpT::CONV_2D,
      {in_nchw, filter, bias, scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(0), scalar_bool(true)}, out);
  CHECK(nchw.dims == dims_t{1, 1, 2, 2});
  check_close(nchw, want, "nchw");
}

TEST_CASE("CONV_2D quant8: AOSP conv_quant8 golden case (bias scale = input x filter)") {
  // conv_quant8.mod.py: input scale 0.5 zp 0, filter scale 0.5 zp 0, bias scale 0.25,
  // output scale 1.0 zp 0; input [2 2 2 2 1 2 2 2 2] filter [1 1 1 1] bias [-4].
  tensor input = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 3, 3, 1}, 0.5f, 0);
  const int iv[] = {2, 2, 2, 2, 1, 2, 2, 2, 2};
  for (int i = 0; i < 9; ++i) input.set(i, static_cast<std::uint8_t>(iv[i]));
  tensor filter = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.5f, 0);
  for (int i = 0; i < 4; ++i) filter.set(i, std::uint8_t{1});
  tensor bias = make_tensor(OT::TENSOR_INT32, {1}, 0.25f);
  bias.set(0, std::int32_t{-4});
  const auto got =
      run_op(OpT::CONV_2D, {input, filter, bias, scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(0)},
             decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0));
  // Each 2x2 window covers the centre: acc = 3 * 2 + 1 = 7, + bias -4 = 3, x 0.25 = 0.75 -> 1.
  for (std::size_t i = 0; i < 4; ++i) CHECK(got.raw(i) == 1);
}

TEST_CASE("DEPTHWISE_CONV_2D: depth multiplier maps output channel k*m + q to input channel k") {
  // 1x1 input with channels [1, 2], multiplier 2, 1x1 filter [1, 10, 100, 1000].
  const tensor input = f32({1, 1, 1, 2}, {1, 2});
  const tensor filter = f32({1, 1, 1, 4}, {1, 10, 100, 1000});
  const tensor bias = f32({4}, {0, 0, 0, 0});
  const auto got =
      run_op(OpT::DEPTHWISE_CONV_2D,
             {input, filter, bias, scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(0)},
             decl(OT::TENSOR_FLOAT32, {}));
  check_close(got, {1, 10, 200, 2000}, "multiplier");
}

TEST_CASE("TRANSPOSE_CONV_2D: implicit SAME honours the requested output shape") {
  // 1x2x2x1 input, 3x3 filter of ones, stride 2, requested 4x4: every output sums the
  // inputs whose 3x3 footprint (placed at iy*2 - 1) covers it.
  const tensor input = f32({1, 2, 2, 1}, {1, 2, 3, 4});
  tensor filter = f32({1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const tensor bias = f32({1}, {0});
  const auto got = run_op(OpT::TRANSPOSE_CONV_2D,
                          {input, filter, bias, i32_tensor({1, 4, 4, 1}), scalar_i32(1), scalar_i32(2), scalar_i32(2),
                           scalar_i32(0), scalar_bool(false)},
                          decl(OT::TENSOR_FLOAT32, {}));
  REQUIRE(got.dims == dims_t{1, 4, 4, 1});
  // head pad = ((2-1)*2 + 3 - 4) / 2 = 0: rows 0..2 get input row 0, rows 2..4 input row 1.
  const std::vector<double> want{1, 1, 3, 2, 1, 1, 3, 2, 4, 4, 10, 6, 3, 3, 7, 4};
  check_close(got, want, "transpose same");
}

// ---------------------------------------------------------------------------------
// Shape inference
// ---------------------------------------------------------------------------------

std::vector<tensor> conv_inputs(const dims_t& in, const dims_t& f, std::uint32_t bias_n, std::vector<tensor> scalars,
                                OT type = OT::TENSOR_FLOAT32) {
  std::vector<tensor> v{make_tensor(type, in), make_tensor(type, f), make_tensor(type, {bias_n})};
  for (auto& s : scalars) v.push_back(std::move(s));
  return v;
}
std::vector<tensor> implicit_scalars(int scheme, int sw, int sh, int act = 0) {
  return {scalar_i32(scheme), scalar_i32(sw), scalar_i32(sh), scalar_i32(act)};
}
std::vector<tensor> explicit_scalars(int l, int r, int t, int b, int sw, int sh, int act = 0) {
  return {scalar_i32(l), scalar_i32(r), scalar_i32(t), scalar_i32(b), scalar_i32(sw), scalar_i32(sh), scalar_i32(act)};
}

TEST_CASE("CONV_2D shape inference: SAME / VALID, strides, dilation, NCHW") {
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  auto shape = [&](std::vector<tensor> ins) {
    auto r = infer(OpT::CONV_2D, ins, out);
    REQUIRE_MESSAGE(r.ok(), r.err().message);
    return (*r)[0];
  };
  CHECK(shape(conv_inputs({1, 7, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 2, 2))) == dims_t{1, 4, 3, 4});
  CHECK(shape(conv_inputs({1, 7, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(2, 2, 2))) == dims_t{1, 3, 2, 4});
  CHECK(shape(conv_inputs({2, 7, 5, 3}, {4, 3, 3, 3}, 4, explicit_scalars(1, 1, 0, 0, 1, 1))) == dims_t{2, 5, 5, 4});
  auto with_dilation = implicit_scalars(2, 1, 1);
  with_dilation.push_back(scalar_bool(false));
  with_dilation.push_back(scalar_i32(2));
  with_dilation.push_back(scalar_i32(3));
  // effective filter 3x3 dilated: width 5, height 7.
  CHECK(shape(conv_inputs({1, 9, 9, 1}, {1, 3, 3, 1}, 1, with_dilation)) == dims_t{1, 3, 5, 1});
  auto nchw = implicit_scalars(1, 1, 1);
  nchw.push_back(scalar_bool(true));
  CHECK(shape(conv_inputs({1, 3, 6, 4}, {8, 2, 2, 3}, 8, nchw)) == dims_t{1, 8, 6, 4});
  // Zero batches at execution give a zero-sized output, and the kernel runs on it.
  CHECK(shape(conv_inputs({0, 4, 4, 2}, {3, 2, 2, 2}, 3, implicit_scalars(2, 1, 1))) == dims_t{0, 3, 3, 3});
  for (const auto& t : all_conv_types) {
    conv_case cc;
    cc.batches = 0;
    cc.in_h = cc.in_w = 4;
    cc.in_c = 2;
    cc.out_c = 3;
    cc.fh = cc.fw = 2;
    rng r(3);
    conv_operands o = make_conv_operands(cc, t, r);
    const auto got = run_op(OpT::CONV_2D, o.ins, o.out);
    CHECK(got.dims == dims_t{0, 3, 3, 3});
  }
}

TEST_CASE("conv shape inference at validation: unknown extents and values stay unknown") {
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  auto ins = conv_inputs({0, 7, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 2, 2));
  auto r = infer(OpT::CONV_2D, ins, out, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 4, 3, 4});
  ins[0].dims = {1, 0, 5, 3};  // unknown height
  r = infer(OpT::CONV_2D, ins, out, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{1, 0, 3, 4});
  ins[0].dims = {};  // unknown rank
  r = infer(OpT::CONV_2D, ins, out, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 0, 0, 4});
  auto unknown_stride = conv_inputs({1, 7, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 2, 2));
  unknown_stride[4] = decl(OT::INT32, {});
  r = infer(OpT::CONV_2D, unknown_stride, out, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{1, 4, 0, 4});
  auto unknown_layout = conv_inputs({1, 7, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 2, 2));
  unknown_layout.push_back(decl(OT::BOOL, {}));
  r = infer(OpT::CONV_2D, unknown_layout, out, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{1, 0, 0, 0});
}

TEST_CASE("FULLY_CONNECTED shape inference") {
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  auto fc = [&](const dims_t& in, const dims_t& w, std::uint32_t bias_n) {
    return std::vector<tensor>{make_tensor(OT::TENSOR_FLOAT32, in), make_tensor(OT::TENSOR_FLOAT32, w),
                               make_tensor(OT::TENSOR_FLOAT32, {bias_n}), scalar_i32(0)};
  };
  auto r = infer(OpT::FULLY_CONNECTED, fc({2, 3, 4}, {5, 12}, 5), out);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{2, 5});
  r = infer(OpT::FULLY_CONNECTED, fc({4, 1, 1, 6}, {3, 6}, 3), out);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{4, 3});
  r = infer(OpT::FULLY_CONNECTED, fc({0, 6}, {3, 6}, 3), out);  // zero batch
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 3});
  r = infer(OpT::FULLY_CONNECTED, fc({0, 6}, {3, 6}, 3), out, false);  // unknown batch at validation
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 3});
  CHECK(infer_error(OpT::FULLY_CONNECTED, fc({2, 7}, {3, 6}, 3), out).find("input:") != std::string::npos);
  CHECK(infer_error(OpT::FULLY_CONNECTED, fc({2, 6}, {3, 6}, 4), out).find("bias:") != std::string::npos);
  CHECK(infer_error(OpT::FULLY_CONNECTED, fc({12}, {3, 6}, 3), out).find("input: rank") != std::string::npos);
  CHECK(infer_error(OpT::FULLY_CONNECTED, fc({2, 6}, {3, 6, 1}, 3), out).find("weights: rank") != std::string::npos);
  auto bad_act = fc({2, 6}, {3, 6}, 3);
  bad_act[3] = scalar_i32(4);
  CHECK(infer_error(OpT::FULLY_CONNECTED, bad_act, out).find("activation") != std::string::npos);
  auto q = fc({2, 6}, {3, 6}, 3);
  q[0] = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 6}, 0.5f, 1);
  q[1] = make_tensor(OT::TENSOR_QUANT8_ASYMM, {3, 6}, 0.25f, 2);
  q[2] = make_tensor(OT::TENSOR_INT32, {3}, 0.126f);
  CHECK(infer_error(OpT::FULLY_CONNECTED, q, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f)).find("bias: scale") !=
        std::string::npos);
  q[2].scale = 0.125f;
  CHECK(infer(OpT::FULLY_CONNECTED, q, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f)).ok());
}

// ---------------------------------------------------------------------------------
// Bad operands: INVALID_ARGUMENT naming the operand
// ---------------------------------------------------------------------------------

TEST_CASE("conv family: invalid operands are rejected with the operand's role") {
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  auto expect = [&](OpT op, const std::vector<tensor>& ins, const char* role, bool executing = true,
                    const tensor& o = decl(OT::TENSOR_FLOAT32, {})) {
    const std::string msg = infer_error(op, ins, o, executing);
    CHECK_MESSAGE(msg.find(role) != std::string::npos, "message '", msg, "' does not name ", role);
  };
  // Channel mismatches.
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 2}, 4, implicit_scalars(1, 1, 1)), "filter: depth_in");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 5, implicit_scalars(1, 1, 1)), "bias:");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 5, implicit_scalars(1, 1, 1)), "bias:", false);
  // Strides, padding, activation, scheme.
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 0, 1)), "stride_width");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 1, -2)), "stride_height", false);
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(7, 1, 1)), "padding_scheme");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 1, 1, 9)), "activation");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, explicit_scalars(-1, 0, 0, 0, 1, 1)), "padding_left");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, explicit_scalars(0, 3, 0, 0, 1, 1)), "padding_right");
  // A filter larger than the padded input.
  expect(OpT::CONV_2D, conv_inputs({1, 2, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(2, 1, 1)),
         "filter: effective height");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 1, 3}, {4, 3, 3, 3}, 4, explicit_scalars(0, 1, 0, 0, 1, 1)),
         "filter: effective width");
  auto dilated = implicit_scalars(2, 1, 1);
  dilated.push_back(scalar_bool(false));
  dilated.push_back(scalar_i32(0));
  dilated.push_back(scalar_i32(1));
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, dilated), "dilation_width");
  dilated[5] = scalar_i32(3);  // effective width 7 > 5
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3, 3}, 4, dilated), "filter: effective width");
  // Ranks; only batches may be zero.
  expect(OpT::CONV_2D, conv_inputs({5, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 1, 1)), "input: rank");
  expect(OpT::CONV_2D, conv_inputs({1, 5, 5, 3}, {4, 3, 3}, 4, implicit_scalars(1, 1, 1)), "filter: rank", false);
  expect(OpT::CONV_2D, conv_inputs({1, 0, 5, 3}, {4, 3, 3, 3}, 4, implicit_scalars(1, 1, 1)), "input:");
  // DEPTHWISE_CONV_2D: filter [1, h, w, out_c]; out_c = in_c * multiplier.
  auto dw = [](const dims_t& in, const dims_t& f, int mult) {
    return conv_inputs(in, f, f[3], {scalar_i32(1), scalar_i32(1), scalar_i32(1), scalar_i32(mult), scalar_i32(0)});
  };
  expect(OpT::DEPTHWISE_CONV_2D, dw({1, 5, 5, 2}, {2, 3, 3, 4}, 2), "filter: dimension 0");
  expect(OpT::DEPTHWISE_CONV_2D, dw({1, 5, 5, 2}, {1, 3, 3, 4}, 3), "depth_multiplier");
  expect(OpT::DEPTHWISE_CONV_2D, dw({1, 5, 5, 2}, {1, 3, 3, 4}, 0), "depth_multiplier");
  // GROUPED_CONV_2D: filter depth x groups = in_c; out_c divisible by groups.
  auto grouped = [](const dims_t& in, const dims_t& f, int groups) {
    return conv_inputs(
        in, f, f[0],
        {scalar_i32(1), scalar_i32(1), scalar_i32(1), scalar_i32(groups), scalar_i32(0), scalar_bool(false)});
  };
  expect(OpT::GROUPED_CONV_2D, grouped({1, 5, 5, 6}, {4, 3, 3, 2}, 2), "num_groups");
  expect(OpT::GROUPED_CONV_2D, grouped({1, 5, 5, 6}, {5, 3, 3, 2}, 3), "num_groups");
  expect(OpT::GROUPED_CONV_2D, grouped({1, 5, 5, 6}, {6, 3, 3, 2}, 0), "num_groups");
  // TRANSPOSE_CONV_2D: output shape operand, non-positive output extent.
  auto tc = [](const dims_t& in, const dims_t& f, tensor shape, int scheme) {
    return conv_inputs(
        in, f, f[0],
        {std::move(shape), scalar_i32(scheme), scalar_i32(1), scalar_i32(1), scalar_i32(0), scalar_bool(false)});
  };
  expect(OpT::TRANSPOSE_CONV_2D, tc({1, 2, 2, 1}, {1, 3, 3, 1}, i32_tensor({1, 2, 2}), 1), "output_shape");
  expect(OpT::TRANSPOSE_CONV_2D, tc({1, 2, 2, 2}, {1, 3, 3, 1}, i32_tensor({1, 4, 4, 1}), 1), "filter: depth_in");
  auto tc_explicit = conv_inputs({1, 1, 1, 1}, {1, 2, 2, 1}, 1,
                                 {scalar_i32(1), scalar_i32(1), scalar_i32(0), scalar_i32(0), scalar_i32(1),
                                  scalar_i32(1), scalar_i32(0), scalar_bool(false)});
  expect(OpT::TRANSPOSE_CONV_2D, tc_explicit, "output: width");
  tc_explicit[3] = scalar_i32(-1);
  expect(OpT::TRANSPOSE_CONV_2D, tc_explicit, "padding_left");
}

TEST_CASE("conv quantization rules: per-channel scales, channelDim, bias scale") {
  auto q = [](OT filter_type, std::uint32_t channel_dim, std::size_t scales, float bias_scale) {
    std::vector<tensor> v{make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 0.5f, 10),
                          make_tensor(filter_type, {3, 2, 2, 2}, filter_type == OT::TENSOR_QUANT8_ASYMM ? 0.25f : 0.0f),
                          make_tensor(OT::TENSOR_INT32, {3}, bias_scale)};
    if (filter_type == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      v[1].channel_dim = channel_dim;
      v[1].channel_scales.assign(scales, 0.1f);
    }
    for (auto& s : implicit_scalars(1, 1, 1)) v.push_back(s);
    return v;
  };
  const tensor out = decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0);
  CHECK(infer(OpT::CONV_2D, q(OT::TENSOR_QUANT8_ASYMM, 0, 0, 0.125f), out).ok());
  CHECK(infer(OpT::CONV_2D, q(OT::TENSOR_QUANT8_ASYMM, 0, 0, 0.125f * (1 + 5e-7f)), out).ok());  // within 1e-6
  CHECK(infer_error(OpT::CONV_2D, q(OT::TENSOR_QUANT8_ASYMM, 0, 0, 0.13f), out).find("bias: scale") !=
        std::string::npos);
  CHECK(infer(OpT::CONV_2D, q(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, 0, 3, 0.0f), out).ok());
  CHECK(infer_error(OpT::CONV_2D, q(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, 3, 3, 0.0f), out).find("filter: channelDim") !=
        std::string::npos);
  CHECK(infer_error(OpT::CONV_2D, q(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, 0, 2, 0.0f), out).find("per-channel scales") !=
        std::string::npos);
}

// ---------------------------------------------------------------------------------
// Whole models: validation versions and execution through the driver
// ---------------------------------------------------------------------------------

using nnhal::test::model_builder;

/// A CONV_2D model: input a model input, filter and bias constants, trailing scalars given.
ty::Model conv_model(OT type, float in_scale, float f_scale, float out_scale, const std::vector<std::int32_t>& scalars,
                     std::optional<bool> layout, std::optional<std::pair<int, int>> dilation,
                     const dims_t& in_dims = {1, 4, 4, 2}, const dims_t& out_dims = {1, 4, 4, 3}) {
  model_builder b;
  auto g = b.main();
  const bool q = is_quant8(type);
  const auto in = g.input(type, in_dims, in_scale);
  const std::size_t nf = 3 * 2 * 2 * 2;
  std::uint32_t f, bias;
  if (q) {
    f = g.constant(type, {3, 2, 2, 2}, std::vector<std::uint8_t>(nf, 1), f_scale);
    bias = g.constant(OT::TENSOR_INT32, {3}, std::vector<std::int32_t>(3, 0), in_scale * f_scale);
  } else {
    f = g.constant(type, {3, 2, 2, 2}, std::vector<float>(nf, 0.5f));
    bias = g.constant(type, {3}, std::vector<float>(3, 1.0f));
  }
  std::vector<std::uint32_t> ins{in, f, bias};
  for (auto s : scalars) ins.push_back(g.i32(s));
  if (layout) ins.push_back(g.boolean(*layout));
  if (dilation) {
    ins.push_back(g.i32(dilation->first));
    ins.push_back(g.i32(dilation->second));
  }
  const auto out = g.output(type, out_dims, out_scale);
  g.op(OpT::CONV_2D, ins, {out});
  return b.build();
}

TEST_CASE("CONV_2D minimum HAL version: layout, dilation, quantized output scale") {
  const std::vector<std::int32_t> implicit{1, 1, 1, 0};
  auto version = [](const ty::Model& m) {
    auto v = ty::validate_model(m);
    REQUIRE_MESSAGE(v.ok(), v.err().message);
    return *v;
  };
  const auto V1_0 = ty::HalVersion::V1_0, V1_2 = ty::HalVersion::V1_2;
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, std::nullopt, std::nullopt)) == V1_0);
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, false, std::nullopt)) == V1_0);
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, false, std::pair{1, 1})) == V1_0);
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, true, std::nullopt, {1, 2, 4, 4}, {1, 3, 4, 4})) ==
        V1_2);
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, false, std::pair{2, 1})) == V1_2);
  // An output of unknown shape needs 1.2 in any case (dynamic output shapes).
  CHECK(version(conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, implicit, false, std::nullopt, {1, 4, 4, 2}, {0, 0, 0, 0})) ==
        V1_2);
  // TENSOR_QUANT8_ASYMM: output_scale > input_scale * filter_scale before 1.2.
  CHECK(version(conv_model(OT::TENSOR_QUANT8_ASYMM, 0.5f, 0.5f, 0.3f, implicit, std::nullopt, std::nullopt)) == V1_0);
  CHECK(version(conv_model(OT::TENSOR_QUANT8_ASYMM, 0.5f, 0.5f, 0.25f, implicit, std::nullopt, std::nullopt)) == V1_2);
  // A bad bias scale or a zero stride fails validation, naming the operation.
  auto bad = conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, {1, 0, 1, 0}, std::nullopt, std::nullopt);
  auto v = ty::validate_model(bad);
  REQUIRE(!v.ok());
  CHECK(v.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(v.err().message.find("CONV_2D") != std::string::npos);
  CHECK(v.err().message.find("stride_width") != std::string::npos);
}

TEST_CASE("CONV_2D through prepare/execute: constant filter packed at bind, NHWC and NCHW") {
  for (bool nchw : {false, true}) {
    const dims_t in_dims = nchw ? dims_t{1, 2, 4, 4} : dims_t{1, 4, 4, 2};
    const ty::Model m =
        conv_model(OT::TENSOR_FLOAT32, 0, 0, 0, {2, 1, 1, 1}, nchw, std::nullopt, in_dims, {1, 3, 3, 3});
    // Input all ones: each output = 8 taps x 0.5 + bias 1 = 5 (VALID, RELU).
    const tensor ones = values(OT::TENSOR_FLOAT32, in_dims, std::vector<double>(count_of(in_dims), 1.0));
    const model_result r = run_any_model(m, {ones});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(r.outs[0].dims == dims_t{1, 3, 3, 3});
    for (std::size_t i = 0; i < 27; ++i) CHECK(r.outs[0].get<float>(i) == 5.0f);
  }
}

TEST_CASE("every conv-family operation binds for each type row") {
  // The support query answers true for each operation with each of its type rows.
  struct row {
    OpT op;
    OT in, filter;
  };
  const row rows[] = {{OpT::CONV_2D, OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT32},
                      {OpT::CONV_2D, OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT16},
                      {OpT::CONV_2D, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_SYMM_PER_CHANNEL},
                      {OpT::DEPTHWISE_CONV_2D, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_SYMM_PER_CHANNEL},
                      {OpT::GROUPED_CONV_2D, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_ASYMM_SIGNED},
                      {OpT::TRANSPOSE_CONV_2D, OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT16},
                      {OpT::FULLY_CONNECTED, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_ASYMM_SIGNED},
                      {OpT::BATCH_MATMUL, OT::TENSOR_INT32, OT::TENSOR_INT32}};
  for (const auto& r : rows) {
    INFO(to_string(r.op));
    std::vector<tensor> in{decl(r.in, {}, 0.5f), decl(r.filter, {}, 0.5f),
                           decl(is_quant8(r.in) ? OT::TENSOR_INT32 : r.in)};
    if (r.filter == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) in[1].channel_scales = {0.5f};
    CHECK(bind_error(r.op, in, {decl(r.in, {}, 0.5f)}) == "");
  }
}

}  // namespace
