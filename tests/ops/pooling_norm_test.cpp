// The pooling and normalization family: AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D,
// SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION and
// INSTANCE_NORMALIZATION.
//  - oracle tests: random shapes, layouts, paddings and values; expected results from
//    the real-number definitions in double, compared within the CTS tolerances;
//  - quantized rounding: average pooling's integer rounding exactly, the fixed-point
//    primitives against their real values;
//  - qu8/qs8 parity: the same data shifted by -128 gives results shifted by -128, exactly;
//  - shape inference, version rules and bad input (INVALID_ARGUMENT naming the operand);
//  - hand-worked goldens end to end through exec::prepare/execute.
// Random cases draw from fixed seeds and print the case on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nnhal/ops/average_pool_2d.hpp"
#include "nnhal/ops/instance_normalization.hpp"
#include "nnhal/ops/kernels/pooling_norm_fixed_point.hpp"
#include "nnhal/ops/l2_normalization.hpp"
#include "nnhal/ops/l2_pool_2d.hpp"
#include "nnhal/ops/local_response_normalization.hpp"
#include "nnhal/ops/log_softmax.hpp"
#include "nnhal/ops/max_pool_2d.hpp"
#include "nnhal/ops/softmax.hpp"
#include "nnhal/types/validate.hpp"
#include "support/op_runner.hpp"
#include "support/random_cases.hpp"

using namespace nnhal::test::op;
using namespace nnhal::test::op::cases;

namespace {

namespace fx = nnhal::ops::kernels::pool_norm::fixed;

/// Inference of a one-output operation.
ty::result<sig::shapes> infer1(OpT op, const std::vector<tensor>& ins, const tensor& out, bool executing,
                               ty::HalVersion* version = nullptr) {
  return infer(op, ins, {out}, executing, version);
}

/// The inference error message (empty when inference succeeds).
std::string infer_error(OpT op, const std::vector<tensor>& ins, const tensor& out, bool executing = true) {
  auto r = infer1(op, ins, out, executing);
  if (r) return {};
  CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  return r.err().message;
}

std::string describe(const std::vector<tensor>& ins) {
  std::ostringstream os;
  for (const auto& t : ins) {
    os << " " << to_string(t.type) << ty::format_dims(t.dims);
    if (is_quant8(t.type)) os << "(s=" << t.scale << ",zp=" << t.zp << ")";
    if (t.type == OT::INT32) os << "=" << t.raw(0);
    if (t.type == OT::BOOL) os << "=" << t.get<std::uint8_t>(0);
    if (t.type == OT::FLOAT32) os << "=" << t.get<float>(0);
    if (t.type == OT::FLOAT16) os << "=" << ty::to_float(t.get<ty::float16>(0));
  }
  return os.str();
}

// ---------------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------------

// uni, unif, log_uniform, random_zp, random_dims, fill_random and apply_activation:
// support/random_cases.hpp.

constexpr std::array<OT, 4> all_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM,
                                      OT::TENSOR_QUANT8_ASYMM_SIGNED};
constexpr std::array<OT, 2> float_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16};

// ---------------------------------------------------------------------------------
// Pooling oracle
// ---------------------------------------------------------------------------------

enum class pool_kind { average, max, l2 };
OpT pool_op(pool_kind k) {
  return k == pool_kind::average ? OpT::AVERAGE_POOL_2D : (k == pool_kind::max ? OpT::MAX_POOL_2D : OpT::L2_POOL_2D);
}

/// Offset of logical (n, h, w, c) in a tensor of logical extents (N, H, W, C).
std::size_t at4(const std::array<std::size_t, 4>& e, bool nchw, std::size_t n, std::size_t h, std::size_t w,
                std::size_t c) {
  return nchw ? ((n * e[3] + c) * e[1] + h) * e[2] + w : ((n * e[1] + h) * e[2] + w) * e[3] + c;
}
dims_t stored_dims(const std::array<std::size_t, 4>& e, bool nchw) {
  auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  return nchw ? dims_t{u(e[0]), u(e[3]), u(e[1]), u(e[2])} : dims_t{u(e[0]), u(e[1]), u(e[2]), u(e[3])};
}

struct pool_case {
  pool_kind kind = pool_kind::average;
  OT type = OT::TENSOR_FLOAT32;
  std::array<std::size_t, 4> in_ext{};  // N H W C
  bool nchw = false;
  bool implicit = false;
  int scheme = 0;
  int pad_l = 0, pad_r = 0, pad_t = 0, pad_b = 0;  // explicit; recomputed for implicit
  int stride_w = 1, stride_h = 1, filter_w = 1, filter_h = 1, act = 0;
  bool layout_input = true;
  tensor input;

  std::vector<tensor> inputs() const {
    std::vector<tensor> v{input};
    if (implicit) {
      v.push_back(scalar_i32(scheme));
    } else {
      for (int p : {pad_l, pad_r, pad_t, pad_b}) v.push_back(scalar_i32(p));
    }
    for (int s : {stride_w, stride_h, filter_w, filter_h, act}) v.push_back(scalar_i32(s));
    if (layout_input) v.push_back(scalar_bool(nchw));
    return v;
  }
};

/// Implicit padding as the HAL defines it, written out independently.
void same_padding(std::size_t in, int stride, int filter, int& head, int& tail) {
  const std::size_t out = (in + static_cast<std::size_t>(stride) - 1) / static_cast<std::size_t>(stride);
  const long needed = static_cast<long>((out - 1) * static_cast<std::size_t>(stride)) + filter - static_cast<long>(in);
  head = needed > 0 ? static_cast<int>(needed / 2) : 0;
  tail = needed > 0 ? static_cast<int>(needed - needed / 2) : 0;
}

pool_case gen_pool(pool_kind kind, OT type, std::mt19937& rng) {
  pool_case c;
  c.kind = kind;
  c.type = type;
  c.nchw = uni(rng, 0, 1) != 0;
  c.layout_input = c.nchw || uni(rng, 0, 1) != 0;
  c.in_ext = {static_cast<std::size_t>(uni(rng, 1, 2)), static_cast<std::size_t>(uni(rng, 1, 7)),
              static_cast<std::size_t>(uni(rng, 1, 7)), static_cast<std::size_t>(uni(rng, 1, 5))};
  c.filter_w = uni(rng, 1, 4);
  c.filter_h = uni(rng, 1, 4);
  c.stride_w = uni(rng, 1, 3);
  c.stride_h = uni(rng, 1, 3);
  c.act = uni(rng, 0, 3);
  c.implicit = uni(rng, 0, 1) != 0;
  if (c.implicit) {
    c.scheme = uni(rng, 0, 2);
    if (c.scheme == 1) {
      same_padding(c.in_ext[2], c.stride_w, c.filter_w, c.pad_l, c.pad_r);
      same_padding(c.in_ext[1], c.stride_h, c.filter_h, c.pad_t, c.pad_b);
    }
  } else {
    c.pad_l = uni(rng, 0, c.filter_w - 1);
    c.pad_r = uni(rng, 0, c.filter_w - 1);
    c.pad_t = uni(rng, 0, c.filter_h - 1);
    c.pad_b = uni(rng, 0, c.filter_h - 1);
  }
  // Keep the filter within the padded input.
  c.filter_w = std::min<int>(c.filter_w, static_cast<int>(c.in_ext[2]) + c.pad_l + c.pad_r);
  c.filter_h = std::min<int>(c.filter_h, static_cast<int>(c.in_ext[1]) + c.pad_t + c.pad_b);
  if (c.implicit && c.scheme == 1) {
    same_padding(c.in_ext[2], c.stride_w, c.filter_w, c.pad_l, c.pad_r);
    same_padding(c.in_ext[1], c.stride_h, c.filter_h, c.pad_t, c.pad_b);
  }
  c.pad_l = std::min(c.pad_l, c.filter_w - 1), c.pad_r = std::min(c.pad_r, c.filter_w - 1);
  c.pad_t = std::min(c.pad_t, c.filter_h - 1), c.pad_b = std::min(c.pad_b, c.filter_h - 1);
  float scale = 0.0f;
  std::int32_t zp = 0;
  if (is_quant8(type)) {
    scale = log_uniform(rng, 0.01, 0.5);
    zp = random_zp(rng, type);
  }
  c.input = make_tensor(type, stored_dims(c.in_ext, c.nchw), scale, zp);
  fill_random(c.input, rng, type == OT::TENSOR_FLOAT16 ? 4.0 : 10.0);
  return c;
}

/// The expected output (stored in the case's layout) in real numbers.
std::vector<double> expect_pool(const pool_case& c, std::array<std::size_t, 4>& out_ext) {
  const auto [n_, h_, w_, ch] = c.in_ext;
  const std::size_t oh = (h_ + static_cast<std::size_t>(c.pad_t + c.pad_b) - static_cast<std::size_t>(c.filter_h)) /
                             static_cast<std::size_t>(c.stride_h) + 1;
  const std::size_t ow = (w_ + static_cast<std::size_t>(c.pad_l + c.pad_r) - static_cast<std::size_t>(c.filter_w)) /
                             static_cast<std::size_t>(c.stride_w) + 1;
  out_ext = {n_, oh, ow, ch};
  std::vector<double> e(n_ * oh * ow * ch);
  for (std::size_t n = 0; n < n_; ++n)
    for (std::size_t y = 0; y < oh; ++y)
      for (std::size_t x = 0; x < ow; ++x)
        for (std::size_t k = 0; k < ch; ++k) {
          double sum = 0, sq = 0, mx = -INFINITY;
          int count = 0;
          for (int fy = 0; fy < c.filter_h; ++fy)
            for (int fx2 = 0; fx2 < c.filter_w; ++fx2) {
              const long iy = static_cast<long>(y) * c.stride_h - c.pad_t + fy;
              const long ix = static_cast<long>(x) * c.stride_w - c.pad_l + fx2;
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(h_) || ix >= static_cast<long>(w_)) continue;
              const double v =
                  c.input.real(at4(c.in_ext, c.nchw, n, static_cast<std::size_t>(iy), static_cast<std::size_t>(ix), k));
              sum += v, sq += v * v, mx = std::max(mx, v), ++count;
            }
          REQUIRE(count > 0);
          double r = c.kind == pool_kind::average ? sum / count : (c.kind == pool_kind::max ? mx : std::sqrt(sq / count));
          e[at4(out_ext, c.nchw, n, y, x, k)] = apply_activation(r, c.act);
        }
  return e;
}

/// The AOSP integer rounding of quantized average pooling, from the stored values:
/// (sum + count / 2) / count in the unsigned domain, clamped to the activation range.
std::vector<std::int64_t> expect_avg_quant(const pool_case& c, const std::array<std::size_t, 4>& out_ext) {
  const std::int64_t shift = c.type == OT::TENSOR_QUANT8_ASYMM_SIGNED ? 128 : 0;
  const auto range = nnhal::ops::quant::activation_range(c.act, c.input.scale, c.input.zp, static_cast<std::int32_t>(qmin(c.type)),
                                                         static_cast<std::int32_t>(qmax(c.type)));
  std::vector<std::int64_t> e(out_ext[0] * out_ext[1] * out_ext[2] * out_ext[3]);
  for (std::size_t n = 0; n < out_ext[0]; ++n)
    for (std::size_t y = 0; y < out_ext[1]; ++y)
      for (std::size_t x = 0; x < out_ext[2]; ++x)
        for (std::size_t k = 0; k < out_ext[3]; ++k) {
          std::int64_t sum = 0, count = 0;
          for (int fy = 0; fy < c.filter_h; ++fy)
            for (int fx2 = 0; fx2 < c.filter_w; ++fx2) {
              const long iy = static_cast<long>(y) * c.stride_h - c.pad_t + fy;
              const long ix = static_cast<long>(x) * c.stride_w - c.pad_l + fx2;
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(c.in_ext[1]) || ix >= static_cast<long>(c.in_ext[2])) continue;
              sum += c.input.raw(at4(c.in_ext, c.nchw, n, static_cast<std::size_t>(iy), static_cast<std::size_t>(ix), k)) + shift;
              ++count;
            }
          const std::int64_t q = (sum + count / 2) / count - shift;
          e[at4(out_ext, c.nchw, n, y, x, k)] = std::clamp<std::int64_t>(q, range.lo, range.hi);
        }
  return e;
}

// ---------------------------------------------------------------------------------
// Axis-op oracles (SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LRN)
// ---------------------------------------------------------------------------------

/// Calls f(indices of one slice along `axis`) for every slice.
template <class F>
void for_slices(const dims_t& d, int axis, F f) {
  const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<int>(d.size()) : axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < a; ++k) outer *= d[k];
  for (std::size_t k = a + 1; k < d.size(); ++k) inner *= d[k];
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < inner; ++i) {
      std::vector<std::size_t> idx(d[a]);
      for (std::size_t k = 0; k < d[a]; ++k) idx[k] = (o * d[a] + k) * inner + i;
      f(idx);
    }
}

std::vector<double> expect_softmax(const tensor& x, double beta, int axis, bool log) {
  std::vector<double> e(x.count());
  for_slices(x.dims, axis, [&](const std::vector<std::size_t>& idx) {
    double mx = -INFINITY;
    for (auto i : idx) mx = std::max(mx, x.real(i));
    double sum = 0;
    for (auto i : idx) sum += std::exp(beta * (x.real(i) - mx));
    for (auto i : idx) e[i] = log ? beta * (x.real(i) - mx) - std::log(sum) : std::exp(beta * (x.real(i) - mx)) / sum;
  });
  return e;
}
std::vector<double> expect_l2norm(const tensor& x, int axis) {
  std::vector<double> e(x.count());
  for_slices(x.dims, axis, [&](const std::vector<std::size_t>& idx) {
    double sq = 0;
    for (auto i : idx) sq += x.real(i) * x.real(i);
    for (auto i : idx) e[i] = sq > 0 ? x.real(i) / std::sqrt(sq) : 0.0;
  });
  return e;
}
std::vector<double> expect_lrn(const tensor& x, int radius, double bias, double alpha, double beta, int axis) {
  std::vector<double> e(x.count());
  for_slices(x.dims, axis, [&](const std::vector<std::size_t>& idx) {
    const long n = static_cast<long>(idx.size());
    for (long d = 0; d < n; ++d) {
      double sq = 0;
      for (long k = d - radius; k <= d + radius; ++k)
        if (k >= 0 && k < n) sq += x.real(idx[static_cast<std::size_t>(k)]) * x.real(idx[static_cast<std::size_t>(k)]);
      e[idx[static_cast<std::size_t>(d)]] = x.real(idx[static_cast<std::size_t>(d)]) / std::pow(bias + alpha * sq, beta);
    }
  });
  return e;
}

}  // namespace

// =================================================================================
// Pooling
// =================================================================================

TEST_CASE("oracle: AVERAGE/MAX/L2_POOL_2D over random shapes, paddings, strides, layouts and activations") {
  std::mt19937 rng(1234);
  for (auto kind : {pool_kind::average, pool_kind::max, pool_kind::l2}) {
    for (OT type : all_types) {
      if (kind == pool_kind::l2 && is_quant8(type)) continue;
      for (int iter = 0; iter < 120; ++iter) {
        const pool_case c = gen_pool(kind, type, rng);
        const auto ins = c.inputs();
        INFO(to_string(pool_op(kind)), describe(ins));
        const tensor got = run_ok1(pool_op(kind), ins, decl(type, {}, c.input.scale, c.input.zp));
        std::array<std::size_t, 4> out_ext{};
        const auto expected = expect_pool(c, out_ext);
        CHECK(got.dims == stored_dims(out_ext, c.nchw));
        const std::string diff = compare(got, expected);
        CHECK_MESSAGE(diff.empty(), diff);
        if (kind != pool_kind::l2 && is_quant8(type)) {
          // Bit-exact against the integer definition (max: the window's largest stored value).
          if (kind == pool_kind::average) {
            const auto exact = expect_avg_quant(c, out_ext);
            for (std::size_t i = 0; i < exact.size(); ++i) REQUIRE_MESSAGE(got.raw(i) == exact[i], "element " << i);
          }
        }
      }
    }
  }
}

TEST_CASE("AVERAGE_POOL_2D quantized rounding is (sum + count/2) / count, exactly") {
  // A 1x1x4x1 input, filter 2 wide, stride 1, no padding: windows {a, b}.
  auto run = [](OT t, std::vector<double> raw_values) {
    tensor x = make_tensor(t, {1, 1, 4, 1}, 1.0f, t == OT::TENSOR_QUANT8_ASYMM ? 0 : -128);
    for (std::size_t i = 0; i < raw_values.size(); ++i) {
      if (t == OT::TENSOR_QUANT8_ASYMM) x.set(i, static_cast<std::uint8_t>(raw_values[i]));
      else x.set(i, static_cast<std::int8_t>(raw_values[i] - 128));
    }
    std::vector<tensor> ins{x, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(1), scalar_i32(0)};
    return run_ok1(OpT::AVERAGE_POOL_2D, ins, decl(t, {}, 1.0f, x.zp));
  };
  // (1 + 2) / 2 = 1.5 -> 2; (2 + 2) / 2 = 2; (2 + 5) / 2 = 3.5 -> 4 (half up).
  const tensor u = run(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 5});
  CHECK(u.raw(0) == 2);
  CHECK(u.raw(1) == 2);
  CHECK(u.raw(2) == 4);
  const tensor s = run(OT::TENSOR_QUANT8_ASYMM_SIGNED, {1, 2, 2, 5});
  CHECK(s.raw(0) == 2 - 128);
  CHECK(s.raw(1) == 2 - 128);
  CHECK(s.raw(2) == 4 - 128);
}

TEST_CASE("parity: qs8 pooling equals qu8 pooling - 128, bit for bit") {
  std::mt19937 rng(77);
  for (auto kind : {pool_kind::average, pool_kind::max}) {
    for (int iter = 0; iter < 150; ++iter) {
      const pool_case c = gen_pool(kind, OT::TENSOR_QUANT8_ASYMM, rng);
      auto ins = c.inputs();
      INFO(to_string(pool_op(kind)), describe(ins));
      const tensor u = run_ok1(pool_op(kind), ins, decl(c.type, {}, c.input.scale, c.input.zp));
      ins[0] = to_signed(ins[0]);
      const tensor s = run_ok1(pool_op(kind), ins, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, c.input.scale, c.input.zp - 128));
      REQUIRE(u.dims == s.dims);
      for (std::size_t i = 0; i < u.count(); ++i) REQUIRE_MESSAGE(s.raw(i) == u.raw(i) - 128, "element " << i);
    }
  }
}

TEST_CASE("infer: pooling output shapes") {
  const tensor x = decl(OT::TENSOR_FLOAT32, {2, 5, 7, 3});
  const tensor out = decl(OT::TENSOR_FLOAT32);
  auto explicit_ins = [&](const tensor& in, std::vector<int> s, bool nchw = false) {
    std::vector<tensor> v{in};
    for (int k : s) v.push_back(scalar_i32(k));
    v.push_back(scalar_bool(nchw));
    return v;
  };
  for (OpT op : {OpT::AVERAGE_POOL_2D, OpT::MAX_POOL_2D, OpT::L2_POOL_2D}) {
    CAPTURE(to_string(op));
    // Explicit: pads (l, r, t, b) = (1, 1, 0, 1), stride (2, 1), filter (3, 2).
    auto r = infer1(op, explicit_ins(x, {1, 1, 0, 1, 2, 1, 3, 2, 0}), out, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 5, 4, 3});  // h: (5 + 1 - 2) / 1 + 1; w: (7 + 2 - 3) / 2 + 1
    // The same in NCHW: input [2, 3, 5, 7].
    r = infer1(op, explicit_ins(decl(OT::TENSOR_FLOAT32, {2, 3, 5, 7}), {1, 1, 0, 1, 2, 1, 3, 2, 0}, true), out, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 3, 5, 4});
    // Implicit SAME: ceil(in / stride); VALID: (in - filter) / stride + 1.
    std::vector<tensor> same{x, scalar_i32(1), scalar_i32(2), scalar_i32(3), scalar_i32(3), scalar_i32(2), scalar_i32(0)};
    r = infer1(op, same, out, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 2, 4, 3});
    std::vector<tensor> valid{x, scalar_i32(2), scalar_i32(2), scalar_i32(3), scalar_i32(3), scalar_i32(2), scalar_i32(0)};
    r = infer1(op, valid, out, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 2, 3, 3});
    // Zero batches (execution): a zero-sized output of the right shape.
    r = infer1(op, explicit_ins(decl(OT::TENSOR_FLOAT32, {0, 5, 7, 3}), {0, 0, 0, 0, 1, 1, 1, 1, 0}), out, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 5, 7, 3});
    // Validation with unknown extents and scalars.
    r = infer1(op, explicit_ins(decl(OT::TENSOR_FLOAT32, {2, 0, 7, 3}), {0, 0, 0, 0, 1, 1, 2, 2, 0}), out, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 0, 6, 3});
    auto unknown_stride = explicit_ins(x, {0, 0, 0, 0, 1, 1, 2, 2, 0});
    unknown_stride[5] = decl(OT::INT32);
    r = infer1(op, unknown_stride, out, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 0, 0, 3});
    auto unknown_layout = explicit_ins(x, {0, 0, 0, 0, 1, 1, 2, 2, 0});
    unknown_layout[10] = decl(OT::BOOL);
    r = infer1(op, unknown_layout, out, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{2, 0, 0, 0});
    r = infer1(op, explicit_ins(decl(OT::TENSOR_FLOAT32), {0, 0, 0, 0, 1, 1, 2, 2, 0}), out, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 0, 0, 0});
  }
}

TEST_CASE("infer: pooling rejects invalid arguments, naming the operand") {
  const tensor x = decl(OT::TENSOR_FLOAT32, {1, 4, 4, 2});
  const tensor out = decl(OT::TENSOR_FLOAT32);
  auto ins = [&](std::vector<int> s, const tensor& in) {
    std::vector<tensor> v{in};
    for (int k : s) v.push_back(scalar_i32(k));
    return v;
  };
  const tensor& in = x;
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({-1, 0, 0, 0, 1, 1, 2, 2, 0}, in), out).find("padding_left") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({0, 0, 0, -2, 1, 1, 2, 2, 0}, in), out).find("padding_bottom") != std::string::npos);
  CHECK(infer_error(OpT::MAX_POOL_2D, ins({0, 0, 0, 0, 0, 1, 2, 2, 0}, in), out).find("stride_width") != std::string::npos);
  CHECK(infer_error(OpT::MAX_POOL_2D, ins({0, 0, 0, 0, 1, -1, 2, 2, 0}, in), out).find("stride_height") != std::string::npos);
  CHECK(infer_error(OpT::L2_POOL_2D, ins({0, 0, 0, 0, 1, 1, 0, 2, 0}, in), out).find("filter_width") != std::string::npos);
  CHECK(infer_error(OpT::L2_POOL_2D, ins({0, 0, 0, 0, 1, 1, 2, 0, 0}, in), out).find("filter_height") != std::string::npos);
  CHECK(infer_error(OpT::L2_POOL_2D, ins({0, 0, 0, 0, 1, 1, 2, 2, 4}, in), out).find("activation") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({2, 0, 0, 0, 1, 1, 2, 2, 0}, in), out).find("padding") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({0, 0, 0, 0, 1, 1, 6, 2, 0}, in), out).find("filter_width") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({3, 1, 1, 2, 2, 0}, in), out).find("padding_scheme") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({0, 0, 0, 0, 1, 1, 2, 2, 0}, decl(OT::TENSOR_FLOAT32, {4, 4, 2})), out)
            .find("input: rank 3") != std::string::npos);
  CHECK(infer_error(OpT::MAX_POOL_2D, ins({0, 0, 0, 0, 1, 1, 1, 1, 0}, decl(OT::TENSOR_FLOAT32, {1, 0, 4, 2})), out)
            .find("input") != std::string::npos);
  // Quantized output must keep the input's scale and zero point.
  const tensor q = decl(OT::TENSOR_QUANT8_ASYMM, {1, 4, 4, 2}, 0.5f, 3);
  CHECK(infer_error(OpT::MAX_POOL_2D, ins({0, 0, 0, 0, 1, 1, 2, 2, 0}, q), decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 3))
            .find("output") != std::string::npos);
  CHECK(infer_error(OpT::AVERAGE_POOL_2D, ins({0, 0, 0, 0, 1, 1, 2, 2, 0}, q), decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 4))
            .find("output") != std::string::npos);
}

TEST_CASE("infer: pooling layout true needs HAL 1.2") {
  const tensor x = decl(OT::TENSOR_FLOAT32, {1, 2, 4, 4});
  std::vector<tensor> ins{x, scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(2), scalar_i32(0), scalar_bool(true)};
  ty::HalVersion v = ty::HalVersion::V1_0;
  REQUIRE(infer1(OpT::AVERAGE_POOL_2D, ins, decl(OT::TENSOR_FLOAT32), false, &v).ok());
  CHECK(v == ty::HalVersion::V1_2);
  ins.back() = scalar_bool(false);
  v = ty::HalVersion::V1_0;
  REQUIRE(infer1(OpT::AVERAGE_POOL_2D, ins, decl(OT::TENSOR_FLOAT32), false, &v).ok());
  CHECK(v == ty::HalVersion::V1_0);
}

TEST_CASE("pooling: zero batches produce a zero-sized output without writes") {
  for (OpT op : {OpT::AVERAGE_POOL_2D, OpT::MAX_POOL_2D, OpT::L2_POOL_2D}) {
    std::vector<tensor> ins{make_tensor(OT::TENSOR_FLOAT32, {0, 3, 3, 2}), scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(2), scalar_i32(0)};
    const tensor got = run_ok1(op, ins, decl(OT::TENSOR_FLOAT32));
    CHECK(got.dims == dims_t{0, 2, 2, 2});
  }
}

// =================================================================================
// SOFTMAX and LOG_SOFTMAX
// =================================================================================

TEST_CASE("oracle: SOFTMAX over random ranks, axes, betas and quantizations") {
  std::mt19937 rng(4321);
  for (OT type : all_types) {
    for (int iter = 0; iter < 200; ++iter) {
      const dims_t d = random_dims(rng, 1, 4, 6);
      const int rank = static_cast<int>(d.size());
      const int axis = uni(rng, -rank, rank - 1);
      const float beta = log_uniform(rng, 0.05, 5.0);
      float scale = 0.0f;
      std::int32_t zp = 0;
      if (is_quant8(type)) {
        scale = log_uniform(rng, 0.005, 0.5);
        zp = random_zp(rng, type);
      }
      tensor x = make_tensor(type, d, scale, zp);
      fill_random(x, rng, type == OT::TENSOR_FLOAT16 ? 5.0 : 8.0);
      std::vector<tensor> ins{x, scalar_float_for(type, beta)};
      if (axis != -1 || uni(rng, 0, 1)) ins.push_back(scalar_i32(axis));
      INFO("SOFTMAX", describe(ins));
      const tensor out = decl(type, {}, 1.0f / 256, type == OT::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0);
      const tensor got = run_ok1(OpT::SOFTMAX, ins, out);
      CHECK(got.dims == d);
      const double b = type == OT::TENSOR_FLOAT16 ? ty::to_float(ty::to_float16(beta)) : beta;
      const std::string diff = compare(got, expect_softmax(x, b, axis, false));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

TEST_CASE("SOFTMAX quantized: long slices, large and small beta * scale") {
  std::mt19937 rng(99);
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (float beta_scale : {1e-5f, 0.001f, 0.05f, 1.0f, 20.0f, 1000.0f}) {
      for (std::uint32_t n : {1u, 2u, 17u, 255u, 1000u}) {
        tensor x = make_tensor(type, {2, n}, 0.5f, random_zp(rng, type));
        fill_random(x, rng, 0);
        std::vector<tensor> ins{x, scalar_f32(beta_scale / 0.5f)};
        INFO(describe(ins));
        const tensor got = run_ok1(OpT::SOFTMAX, ins, decl(type, {}, 1.0f / 256, type == OT::TENSOR_QUANT8_ASYMM ? 0 : -128));
        const std::string diff = compare(got, expect_softmax(x, beta_scale / 0.5, -1, false));
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

TEST_CASE("SOFTMAX quantized: the bound table kernel equals the per-element reference, bit for bit") {
  std::mt19937 rng(256);
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (int iter = 0; iter < 150; ++iter) {
      // Short and long slices (the long ones go through the per-slice output table), any
      // axis, beta * scale from far below 2^-26 to far above 32, and narrow input ranges
      // that keep the maximum near the type's minimum.
      dims_t d = random_dims(rng, 1, 4, 5);
      int axis = uni(rng, 0, static_cast<int>(d.size()) - 1);
      if (iter % 3 == 0) d[static_cast<std::size_t>(axis)] = static_cast<std::uint32_t>(uni(rng, 200, 1100));
      if (iter % 6 == 1) {  // enough slices that the parallel split below happens
        const auto n = static_cast<std::uint32_t>(uni(rng, 50, 300));
        d = {2 * (16384 / n) + 3, n};
        axis = 1;
      }
      if (iter % 25 == 2) {  // values near the maximum: sums past 2^31, wrapping past 2^32
        const std::uint32_t lens[] = {8192, 8193, static_cast<std::uint32_t>(uni(rng, 4000, 9000))};
        d = {2, lens[iter % 3]};
        axis = 1;
      }
      const float scale = log_uniform(rng, 0.001, 1.0);
      const float beta = static_cast<float>(log_uniform(rng, 1e-6, 2000.0) / scale);
      tensor x = make_tensor(type, d, scale, random_zp(rng, type));
      const int span = iter % 25 == 2 ? iter % 2 : iter % 4 == 1 ? uni(rng, 0, 20) : 255;
      for (std::size_t i = 0; i < x.count(); ++i) {
        const int v = uni(rng, 0, span);
        if (type == OT::TENSOR_QUANT8_ASYMM) x.set(i, static_cast<std::uint8_t>(v));
        else x.set(i, static_cast<std::int8_t>(v - 128));
      }
      tensor b = scalar_f32(beta);
      b.bind_sees_value = iter % 5 != 0;  // beta as a model input: the table is made per execution
      const std::vector<tensor> ins{x, b, scalar_i32(axis)};
      INFO(describe(ins));
      const tensor out = decl(type, {}, 1.0f / 256, type == OT::TENSOR_QUANT8_ASYMM ? 0 : -128);
      reversed_context reversed;  // every other case in two chunks of slices
      const kernel_result k = run_kernel(OpT::SOFTMAX, ins, {out}, iter % 2 ? &reversed : nullptr);
      REQUIRE_MESSAGE(k.ok, k.error);
      CHECK(k.guards_intact);
      const tensor& got = k.outs[0];
      const tensor ref = type == OT::TENSOR_QUANT8_ASYMM
                             ? run_entry1(OpT::SOFTMAX, nnhal::ops::softmax::reference<ty::qu8>, ins, out)
                             : run_entry1(OpT::SOFTMAX, nnhal::ops::softmax::reference<ty::qs8>, ins, out);
      REQUIRE(got.dims == ref.dims);
      CHECK(got.bytes == ref.bytes);
    }
  }
}

TEST_CASE("parity: qs8 SOFTMAX equals qu8 SOFTMAX - 128, bit for bit") {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    const dims_t d = random_dims(rng, 1, 4, 7);
    const int axis = uni(rng, 0, static_cast<int>(d.size()) - 1);
    tensor x = make_tensor(OT::TENSOR_QUANT8_ASYMM, d, log_uniform(rng, 0.001, 1.0), random_zp(rng, OT::TENSOR_QUANT8_ASYMM));
    fill_random(x, rng, 0);
    std::vector<tensor> ins{x, scalar_f32(log_uniform(rng, 0.01, 10.0)), scalar_i32(axis)};
    INFO(describe(ins));
    const tensor u = run_ok1(OpT::SOFTMAX, ins, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0));
    ins[0] = to_signed(ins[0]);
    const tensor s = run_ok1(OpT::SOFTMAX, ins, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, -128));
    for (std::size_t i = 0; i < u.count(); ++i) REQUIRE_MESSAGE(s.raw(i) == u.raw(i) - 128, "element " << i);
  }
}

TEST_CASE("oracle: LOG_SOFTMAX over random ranks (up to 5), axes and betas") {
  std::mt19937 rng(31);
  for (OT type : float_types) {
    for (int iter = 0; iter < 150; ++iter) {
      const dims_t d = random_dims(rng, 1, 5, 5);
      const int rank = static_cast<int>(d.size());
      const int axis = uni(rng, -rank, rank - 1);
      const float beta = log_uniform(rng, 0.1, 4.0);
      tensor x = make_tensor(type, d);
      fill_random(x, rng, type == OT::TENSOR_FLOAT16 ? 3.0 : 10.0);
      std::vector<tensor> ins{x, scalar_float_for(type, beta), scalar_i32(axis)};
      INFO("LOG_SOFTMAX", describe(ins));
      const tensor got = run_ok1(OpT::LOG_SOFTMAX, ins, decl(type));
      const double b = type == OT::TENSOR_FLOAT16 ? ty::to_float(ty::to_float16(beta)) : beta;
      const std::string diff = compare(got, expect_softmax(x, b, axis, true));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

TEST_CASE("SOFTMAX/LOG_SOFTMAX: extreme inputs stay finite (max subtraction)") {
  const tensor x = reals(OT::TENSOR_FLOAT32, {1, 3}, {1000.0, 999.0, -1000.0});
  const tensor s = run_ok1(OpT::SOFTMAX, {x, scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32));
  CHECK(compare(s, expect_softmax(x, 1.0, -1, false)).empty());
  const tensor l = run_ok1(OpT::LOG_SOFTMAX, {x, scalar_f32(1.0f), scalar_i32(-1)}, decl(OT::TENSOR_FLOAT32));
  CHECK(compare(l, expect_softmax(x, 1.0, -1, true)).empty());
  const tensor h = reals(OT::TENSOR_FLOAT16, {4}, {60000.0, 60000.0, -60000.0, 0.0});
  const tensor sh = run_ok1(OpT::SOFTMAX, {h, scalar_f16(1.0f)}, decl(OT::TENSOR_FLOAT16));
  CHECK(compare(sh, {0.5, 0.5, 0.0, 0.0}).empty());
}

TEST_CASE("infer: SOFTMAX and LOG_SOFTMAX") {
  const tensor f = decl(OT::TENSOR_FLOAT32, {2, 3, 4, 5});
  auto r = infer1(OpT::SOFTMAX, {f, scalar_f32(1.0f), scalar_i32(-4)}, decl(OT::TENSOR_FLOAT32), true);
  REQUIRE(r.ok());
  CHECK((*r)[0] == f.dims);
  CHECK(infer_error(OpT::SOFTMAX, {f, scalar_f32(1.0f), scalar_i32(4)}, decl(OT::TENSOR_FLOAT32)) == "axis: 4 outside [-4, 4)");
  CHECK(infer_error(OpT::SOFTMAX, {f, scalar_f32(1.0f), scalar_i32(-5)}, decl(OT::TENSOR_FLOAT32)).find("axis: -5") != std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {f, scalar_f32(0.0f)}, decl(OT::TENSOR_FLOAT32)).find("beta") != std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {f, scalar_f32(-1.0f)}, decl(OT::TENSOR_FLOAT32)).find("beta") != std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {f, scalar_f32(NAN)}, decl(OT::TENSOR_FLOAT32)).find("beta") != std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {decl(OT::TENSOR_FLOAT16, {2, 3}), scalar_f16(-2.0f)}, decl(OT::TENSOR_FLOAT16)).find("beta") !=
        std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {decl(OT::TENSOR_FLOAT32, {1, 2, 3, 4, 5}), scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32))
            .find("input: rank 5") != std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {decl(OT::TENSOR_FLOAT32, {}), scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32)).find("input") !=
        std::string::npos);
  // Fixed output quantization.
  const tensor q = decl(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.1f, 10);
  CHECK(infer_error(OpT::SOFTMAX, {q, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 0)).find("output") !=
        std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {q, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 1)).find("output") !=
        std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {q, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0)).empty());
  const tensor qs = to_signed(q);
  CHECK(infer_error(OpT::SOFTMAX, {qs, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, 0)).find("output") !=
        std::string::npos);
  CHECK(infer_error(OpT::SOFTMAX, {qs, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, -128)).empty());
  // Ranks other than 2 and 4 need HAL 1.2.
  for (std::size_t rank = 1; rank <= 4; ++rank) {
    ty::HalVersion v = ty::HalVersion::V1_0;
    REQUIRE(infer1(OpT::SOFTMAX, {decl(OT::TENSOR_FLOAT32, dims_t(rank, 2)), scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32), false, &v).ok());
    CHECK(v == ((rank == 2 || rank == 4) ? ty::HalVersion::V1_0 : ty::HalVersion::V1_2));
  }
  // Unknown rank at validation: nothing to check yet.
  r = infer1(OpT::SOFTMAX, {decl(OT::TENSOR_FLOAT32), scalar_f32(1.0f), scalar_i32(7)}, decl(OT::TENSOR_FLOAT32), false);
  REQUIRE(r.ok());
  CHECK((*r)[0].empty());
  // Zero-sized input (since 1.2): zero-sized output.
  const tensor z = run_ok1(OpT::SOFTMAX, {make_tensor(OT::TENSOR_FLOAT32, {0, 3}), scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32));
  CHECK(z.dims == dims_t{0, 3});
  // LOG_SOFTMAX: any rank from 1.
  r = infer1(OpT::LOG_SOFTMAX, {decl(OT::TENSOR_FLOAT32, {1, 1, 1, 2, 4}), scalar_f32(1.0f), scalar_i32(4)}, decl(OT::TENSOR_FLOAT32), true);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{1, 1, 1, 2, 4});
  CHECK(infer_error(OpT::LOG_SOFTMAX, {f, scalar_f32(1.0f), scalar_i32(9)}, decl(OT::TENSOR_FLOAT32)) == "axis: 9 outside [-4, 4)");
  CHECK(infer_error(OpT::LOG_SOFTMAX, {f, scalar_f32(0.0f), scalar_i32(0)}, decl(OT::TENSOR_FLOAT32)).find("beta") != std::string::npos);
}

// =================================================================================
// L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, INSTANCE_NORMALIZATION
// =================================================================================

TEST_CASE("oracle: L2_NORMALIZATION over random ranks, axes and quantizations") {
  std::mt19937 rng(2024);
  for (OT type : all_types) {
    for (int iter = 0; iter < 200; ++iter) {
      const dims_t d = random_dims(rng, 1, 4, 6);
      const int rank = static_cast<int>(d.size());
      const int axis = uni(rng, -rank, rank - 1);
      float scale = 0.0f;
      std::int32_t zp = 0;
      if (is_quant8(type)) {
        scale = log_uniform(rng, 0.001, 1.0);
        zp = random_zp(rng, type);
      }
      tensor x = make_tensor(type, d, scale, zp);
      fill_random(x, rng, type == OT::TENSOR_FLOAT16 ? 5.0 : 50.0);
      std::vector<tensor> ins{x};
      if (axis != -1 || uni(rng, 0, 1)) ins.push_back(scalar_i32(axis));
      INFO("L2_NORMALIZATION", describe(ins));
      const tensor out = decl(type, {}, 1.0f / 128, type == OT::TENSOR_QUANT8_ASYMM ? 128 : 0);
      const tensor got = run_ok1(OpT::L2_NORMALIZATION, ins, out);
      const std::string diff = compare(got, expect_l2norm(x, axis));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

TEST_CASE("L2_NORMALIZATION: an all-zero slice gives logical zeros; long slices") {
  for (OT type : all_types) {
    CAPTURE(to_string(type));
    const std::int32_t zp = type == OT::TENSOR_QUANT8_ASYMM ? 100 : (type == OT::TENSOR_QUANT8_ASYMM_SIGNED ? -28 : 0);
    const tensor x = reals(type, {2, 3}, {0, 0, 0, 3, -4, 0}, is_quant8(type) ? 0.5f : 0.0f, zp);
    const tensor got = run_ok1(OpT::L2_NORMALIZATION, {x}, decl(type, {}, 1.0f / 128, type == OT::TENSOR_QUANT8_ASYMM ? 128 : 0));
    CHECK(compare(got, {0, 0, 0, 0.6, -0.8, 0}).empty());
    if (is_quant8(type)) CHECK(got.raw(0) == (type == OT::TENSOR_QUANT8_ASYMM ? 128 : 0));
  }
  std::mt19937 rng(8);
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    tensor x = make_tensor(type, {3, 5000}, 0.1f, random_zp(rng, type));
    fill_random(x, rng, 0);
    const tensor got = run_ok1(OpT::L2_NORMALIZATION, {x}, decl(type, {}, 1.0f / 128, type == OT::TENSOR_QUANT8_ASYMM ? 128 : 0));
    CHECK(compare(got, expect_l2norm(x, -1)).empty());
  }
}

TEST_CASE("parity: qs8 L2_NORMALIZATION equals qu8 L2_NORMALIZATION - 128, bit for bit") {
  std::mt19937 rng(6);
  for (int iter = 0; iter < 300; ++iter) {
    const dims_t d = random_dims(rng, 1, 4, 7);
    const int axis = uni(rng, 0, static_cast<int>(d.size()) - 1);
    tensor x = make_tensor(OT::TENSOR_QUANT8_ASYMM, d, log_uniform(rng, 0.001, 1.0), random_zp(rng, OT::TENSOR_QUANT8_ASYMM));
    fill_random(x, rng, 0);
    std::vector<tensor> ins{x, scalar_i32(axis)};
    INFO(describe(ins));
    const tensor u = run_ok1(OpT::L2_NORMALIZATION, ins, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 128));
    ins[0] = to_signed(ins[0]);
    const tensor s = run_ok1(OpT::L2_NORMALIZATION, ins, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 128, 0));
    for (std::size_t i = 0; i < u.count(); ++i) REQUIRE_MESSAGE(s.raw(i) == u.raw(i) - 128, "element " << i);
  }
}

TEST_CASE("infer: L2_NORMALIZATION") {
  const tensor q = decl(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.1f, 10);
  CHECK(infer_error(OpT::L2_NORMALIZATION, {q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 0)).find("output") !=
        std::string::npos);
  CHECK(infer_error(OpT::L2_NORMALIZATION, {q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 128)).find("output") !=
        std::string::npos);
  CHECK(infer_error(OpT::L2_NORMALIZATION, {q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 128)).empty());
  CHECK(infer_error(OpT::L2_NORMALIZATION, {to_signed(q)}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 128, -128))
            .find("output") != std::string::npos);
  CHECK(infer_error(OpT::L2_NORMALIZATION, {to_signed(q)}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 128, 0)).empty());
  const tensor f = decl(OT::TENSOR_FLOAT32, {2, 3});
  CHECK(infer_error(OpT::L2_NORMALIZATION, {f, scalar_i32(2)}, decl(OT::TENSOR_FLOAT32)) == "axis: 2 outside [-2, 2)");
  CHECK(infer_error(OpT::L2_NORMALIZATION, {decl(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 1})}, decl(OT::TENSOR_FLOAT32))
            .find("input: rank 5") != std::string::npos);
  for (std::size_t rank = 1; rank <= 4; ++rank) {
    ty::HalVersion v = ty::HalVersion::V1_0;
    REQUIRE(infer1(OpT::L2_NORMALIZATION, {decl(OT::TENSOR_FLOAT32, dims_t(rank, 3))}, decl(OT::TENSOR_FLOAT32), false, &v).ok());
    CHECK(v == (rank == 4 ? ty::HalVersion::V1_0 : ty::HalVersion::V1_2));
  }
}

TEST_CASE("oracle: LOCAL_RESPONSE_NORMALIZATION over random ranks, axes, radii and parameters") {
  std::mt19937 rng(11);
  for (OT type : float_types) {
    for (int iter = 0; iter < 150; ++iter) {
      const dims_t d = random_dims(rng, 1, 4, 7);
      const int rank = static_cast<int>(d.size());
      const int axis = uni(rng, -rank, rank - 1);
      const int radius = uni(rng, 0, 6);
      const float bias = static_cast<float>(unif(rng, 0.5, 3.0));
      const float alpha = static_cast<float>(unif(rng, 0.0, 2.0));
      const float beta = static_cast<float>(unif(rng, 0.1, 1.0));
      tensor x = make_tensor(type, d);
      fill_random(x, rng, 3.0);
      std::vector<tensor> ins{x, scalar_i32(radius), scalar_float_for(type, bias), scalar_float_for(type, alpha), scalar_float_for(type, beta)};
      if (axis != -1 || uni(rng, 0, 1)) ins.push_back(scalar_i32(axis));
      INFO("LRN", describe(ins));
      const tensor got = run_ok1(OpT::LOCAL_RESPONSE_NORMALIZATION, ins, decl(type));
      auto as_type = [&](float v) { return type == OT::TENSOR_FLOAT16 ? double(ty::to_float(ty::to_float16(v))) : double(v); };
      const std::string diff = compare(got, expect_lrn(x, radius, as_type(bias), as_type(alpha), as_type(beta), axis));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

TEST_CASE("LOCAL_RESPONSE_NORMALIZATION: the CTS example with bias 0 and a radius beyond the depth") {
  const tensor x = reals(OT::TENSOR_FLOAT32, {1, 1, 1, 6}, {-1.1, .6, .7, 1.2, -.7, .1});
  const tensor got = run_ok1(OpT::LOCAL_RESPONSE_NORMALIZATION, {x, scalar_i32(20), scalar_f32(0.0f), scalar_f32(1.0f), scalar_f32(0.5f)},
                            decl(OT::TENSOR_FLOAT32));
  CHECK(compare(got, {-.55, .3, .35, .6, -.35, .05}).empty());
  CHECK(infer_error(OpT::LOCAL_RESPONSE_NORMALIZATION, {x, scalar_i32(1), scalar_f32(1), scalar_f32(1), scalar_f32(1), scalar_i32(4)},
                    decl(OT::TENSOR_FLOAT32)) == "axis: 4 outside [-4, 4)");
  ty::HalVersion v = ty::HalVersion::V1_0;
  REQUIRE(infer1(OpT::LOCAL_RESPONSE_NORMALIZATION, {decl(OT::TENSOR_FLOAT32, {2, 6}), scalar_i32(1), scalar_f32(1), scalar_f32(1), scalar_f32(1)},
                decl(OT::TENSOR_FLOAT32), false, &v)
              .ok());
  CHECK(v == ty::HalVersion::V1_2);
}

TEST_CASE("oracle: INSTANCE_NORMALIZATION, NHWC and NCHW") {
  std::mt19937 rng(12);
  for (OT type : float_types) {
    for (int iter = 0; iter < 100; ++iter) {
      const bool nchw = uni(rng, 0, 1) != 0;
      const std::array<std::size_t, 4> e{static_cast<std::size_t>(uni(rng, 1, 3)), static_cast<std::size_t>(uni(rng, 1, 6)),
                                         static_cast<std::size_t>(uni(rng, 1, 6)), static_cast<std::size_t>(uni(rng, 1, 4))};
      const float gamma = static_cast<float>(unif(rng, -2.0, 2.0));
      const float beta = static_cast<float>(unif(rng, -2.0, 2.0));
      const float eps = log_uniform(rng, 1e-4, 1e-1);
      tensor x = make_tensor(type, stored_dims(e, nchw));
      fill_random(x, rng, 5.0);
      std::vector<tensor> ins{x, scalar_float_for(type, gamma), scalar_float_for(type, beta), scalar_float_for(type, eps), scalar_bool(nchw)};
      INFO("INSTANCE_NORMALIZATION", describe(ins));
      const tensor got = run_ok1(OpT::INSTANCE_NORMALIZATION, ins, decl(type));
      auto as_type = [&](float v) { return type == OT::TENSOR_FLOAT16 ? double(ty::to_float(ty::to_float16(v))) : double(v); };
      std::vector<double> expected(x.count());
      for (std::size_t n = 0; n < e[0]; ++n)
        for (std::size_t c = 0; c < e[3]; ++c) {
          double mean = 0, var = 0;
          const double hw = static_cast<double>(e[1] * e[2]);
          for (std::size_t h = 0; h < e[1]; ++h)
            for (std::size_t w = 0; w < e[2]; ++w) mean += x.real(at4(e, nchw, n, h, w, c)) / hw;
          for (std::size_t h = 0; h < e[1]; ++h)
            for (std::size_t w = 0; w < e[2]; ++w) var += std::pow(x.real(at4(e, nchw, n, h, w, c)) - mean, 2) / hw;
          for (std::size_t h = 0; h < e[1]; ++h)
            for (std::size_t w = 0; w < e[2]; ++w) {
              const std::size_t i = at4(e, nchw, n, h, w, c);
              expected[i] = (x.real(i) - mean) * as_type(gamma) / std::sqrt(var + as_type(eps)) + as_type(beta);
            }
        }
      const std::string diff = compare(got, expected);
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
  CHECK(infer_error(OpT::INSTANCE_NORMALIZATION,
                    {decl(OT::TENSOR_FLOAT32, {2, 3, 4}), scalar_f32(1), scalar_f32(0), scalar_f32(1e-3f), scalar_bool(false)},
                    decl(OT::TENSOR_FLOAT32))
            .find("input: rank 3") != std::string::npos);
}

// =================================================================================
// Vectorized float32 paths against the reference kernels
// =================================================================================

TEST_CASE("vectorized: float32 NHWC pooling and last-axis SOFTMAX match the reference") {
  namespace pn = nnhal::ops::kernels::pool_norm;
  if constexpr (!pn::has_simd) return;
  using arch = pn::simd_arch;
  constexpr int lanes = static_cast<int>(xsimd::batch<float, arch>::size);
  std::vector<int> sizes;
  for (int k = 1; k <= 2 * lanes + 1; ++k) sizes.push_back(k);
  for (int k : {15, 16, 17, 31, 32, 33, 100}) sizes.push_back(k);
  std::mt19937 rng(404);
  for (int channels : sizes) {
    for (auto kind : {pool_kind::average, pool_kind::max, pool_kind::l2}) {
      pool_case c = gen_pool(kind, OT::TENSOR_FLOAT32, rng);
      c.nchw = false;
      c.in_ext[3] = static_cast<std::size_t>(channels);
      c.input = make_tensor(OT::TENSOR_FLOAT32, stored_dims(c.in_ext, false));
      fill_random(c.input, rng, 10.0);
      const auto ins = c.inputs();
      INFO(to_string(pool_op(kind)), describe(ins));
      const tensor out = decl(OT::TENSOR_FLOAT32);
      tensor ref, vec;
      switch (kind) {
        case pool_kind::average:
          ref = run_entry1(OpT::AVERAGE_POOL_2D, nnhal::ops::average_pool_2d::reference<ty::f32>, ins, out);
          vec = run_entry1(OpT::AVERAGE_POOL_2D, nnhal::ops::average_pool_2d::vectorized<arch>, ins, out);
          break;
        case pool_kind::max:
          ref = run_entry1(OpT::MAX_POOL_2D, nnhal::ops::max_pool_2d::reference<ty::f32>, ins, out);
          vec = run_entry1(OpT::MAX_POOL_2D, nnhal::ops::max_pool_2d::vectorized<arch>, ins, out);
          break;
        case pool_kind::l2:
          ref = run_entry1(OpT::L2_POOL_2D, nnhal::ops::l2_pool_2d::reference<ty::f32>, ins, out);
          vec = run_entry1(OpT::L2_POOL_2D, nnhal::ops::l2_pool_2d::vectorized<arch>, ins, out);
          break;
      }
      REQUIRE(ref.dims == vec.dims);
      if (kind == pool_kind::max) {
        CHECK(ref.bytes == vec.bytes);
      } else {
        std::vector<double> expected(ref.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = ref.real(i);
        const std::string diff = compare(vec, expected);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
  sizes.push_back(1000);
  for (int n : sizes) {
    tensor x = make_tensor(OT::TENSOR_FLOAT32, {3, static_cast<std::uint32_t>(n)});
    fill_random(x, rng, 20.0);
    const std::vector<tensor> ins{x, scalar_f32(log_uniform(rng, 0.1, 3.0))};
    INFO("SOFTMAX", describe(ins));
    const tensor ref = run_entry1(
        OpT::SOFTMAX, [](const nnhal::ops::kernel_io& io) { nnhal::ops::softmax::reference<ty::f32>(io); }, ins,
        decl(OT::TENSOR_FLOAT32));
    const tensor vec = run_entry1(OpT::SOFTMAX, nnhal::ops::softmax::vectorized<arch>, ins, decl(OT::TENSOR_FLOAT32));
    std::vector<double> expected(ref.count());
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = ref.real(i);
    const std::string diff = compare(vec, expected);
    CHECK_MESSAGE(diff.empty(), diff);
  }
}

#if NNHAL_HAVE_X86_KERNELS
TEST_CASE("AVX512-VBMI SOFTMAX: the vector output table equals the scalar one for every sum") {
  if (!nnhal::simd::cpu().avx512_vbmi) return;
  namespace sm = nnhal::ops::softmax;
  std::mt19937 rng(1713);
  std::uniform_int_distribution<std::uint32_t> any_sum;
  for (int iter = 0; iter < 100; ++iter) {
    const sm::quant_table t = sm::quant_table::of(sm::make_quant_params(
        static_cast<float>(log_uniform(rng, 1e-6, 2000.0)), static_cast<float>(log_uniform(rng, 0.001, 1.0))));
    for (int k = 0; k < 200; ++k) {
      // Small (wrapped) sums give the small output shifts, where every rounding bit shows.
      const std::uint32_t sum = k < 100 ? std::uniform_int_distribution<std::uint32_t>(1, 2u << (k % 31))(rng) : any_sum(rng);
      if (sum == 0) continue;
      const auto r = sm::sum_reciprocal::of(sum);
      REQUIRE(r.mantissa >= 0);  // out_table's precondition, for every sum but 0
      alignas(64) std::uint8_t got[256];
      sm::vbmi::out_table<std::uint8_t>(t, r, 256, got);
      std::size_t bad = 0;  // one assertion per table, not per entry: fast under ASan
      for (std::size_t j = 0; j < 256; ++j) bad += got[j] != t.output<std::uint8_t>(r, j);
      sm::vbmi::out_table<std::int8_t>(t, r, 256, got);
      for (std::size_t j = 0; j < 256; ++j) bad += static_cast<std::int8_t>(got[j]) != t.output<std::int8_t>(r, j);
      REQUIRE_MESSAGE(bad == 0, "sum " << sum);
    }
  }
  // Rounding ties, which random tables almost never reach: with mantissa 2^30 an odd exp
  // sits exactly on SRDHM's half, and exp = 2^shift - 1 (plus multiples of 2^(shift+1))
  // then lands on the output shift's half as well.
  std::uniform_int_distribution<std::int32_t> any_exp(0, std::numeric_limits<std::int32_t>::max());
  for (int shift = 3; shift <= 35; ++shift) {
    for (const std::int32_t mantissa : {std::int32_t{1} << 30, any_exp(rng)}) {
      sm::quant_table t;
      t.live = 256;
      for (std::size_t j = 0; j < 256; ++j) {
        const std::int64_t tie = ((std::int64_t{1} << shift) - 1) + static_cast<std::int64_t>(j % 8) * (std::int64_t{2} << shift);
        t.exp[j] = j % 2 || tie > std::numeric_limits<std::int32_t>::max() ? any_exp(rng) : static_cast<std::int32_t>(tie);
      }
      const sm::sum_reciprocal r{mantissa, shift};
      alignas(64) std::uint8_t got[256];
      sm::vbmi::out_table<std::uint8_t>(t, r, 256, got);
      std::size_t bad = 0;
      for (std::size_t j = 0; j < 256; ++j) bad += got[j] != t.output<std::uint8_t>(r, j);
      REQUIRE_MESSAGE(bad == 0, "shift " << shift << " mantissa " << mantissa);
    }
  }
}

TEST_CASE("AVX-512 SOFTMAX, LOG_SOFTMAX and L2_NORMALIZATION (float32, last axis) match the reference") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(16);
  for (const OpT op : {OpT::SOFTMAX, OpT::LOG_SOFTMAX, OpT::L2_NORMALIZATION}) {
    for (int n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 1001, 20000}) {
      for (double range : {1.0, 20.0, 200.0}) {
        // Odd n run split in two chunks of slices (below): enough slices for the split.
        const auto rows = static_cast<std::uint32_t>(n % 2 ? 2 * (16384 / n) + 2 : 3);
        tensor x = make_tensor(OT::TENSOR_FLOAT32, {rows, static_cast<std::uint32_t>(n)});
        fill_random(x, rng, range);
        std::vector<tensor> ins{x, scalar_f32(log_uniform(rng, 0.1, 3.0))};
        if (op == OpT::LOG_SOFTMAX) ins.push_back(scalar_i32(-1));
        if (op == OpT::L2_NORMALIZATION) ins = {x, scalar_i32(-1)};
        INFO(to_string(op), " ", describe(ins));
        nnhal::ops::kernel reference = nnhal::ops::l2_normalization::reference<ty::f32>;
        if (op == OpT::SOFTMAX) reference = nnhal::ops::softmax::reference<ty::f32>;
        if (op == OpT::LOG_SOFTMAX) reference = nnhal::ops::log_softmax::reference<ty::f32>;
        const tensor ref = run_entry1(op, reference, ins, decl(OT::TENSOR_FLOAT32));
        reversed_context reversed;  // bound: AVX-512 here, every other case in two chunks of slices
        const kernel_result k = run_kernel(op, ins, {decl(OT::TENSOR_FLOAT32)}, n % 2 ? &reversed : nullptr);
        REQUIRE_MESSAGE(k.ok, k.error);
        const tensor& got = k.outs[0];
        std::vector<double> expected(ref.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = ref.real(i);
        const std::string diff = compare(got, expected);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

/// How many float32 steps apart a and b are (0 for two NaNs, a large number for one NaN).
std::int64_t ulps_apart(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<std::int64_t>::max();
  auto ordered = [](float v) {
    std::int32_t i;
    std::memcpy(&i, &v, 4);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7FFFFFFF) : static_cast<std::int64_t>(i);
  };
  return std::abs(ordered(a) - ordered(b));
}

TEST_CASE("AVX-512 LOCAL_RESPONSE_NORMALIZATION (float32, last axis) is within one ulp of the reference") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(17);
  const float inf = std::numeric_limits<float>::infinity();
  struct setting {
    float bias, alpha, beta;
  };
  // Ordinary parameters, beta 0 / 0.5 / 1 / negative, a zero bias (0^-beta on zero windows),
  // a negative alpha (negative bases: NaN, or finite for beta 1), and bases that overflow.
  const std::vector<setting> settings{{1.0f, 1e-4f, 0.75f}, {2.0f, 0.5f, 0.5f}, {0.5f, 1.5f, 0.0f},   {1.0f, 1.0f, 1.0f},
                                      {0.0f, 1.0f, 0.5f},   {1.0f, -2.0f, 1.0f}, {1.0f, -2.0f, 0.5f}, {1.0f, 1e30f, 0.6f},
                                      {3.0f, 0.2f, -0.5f},  {1e-3f, 7.0f, 0.37f}};
  for (int n : {1, 2, 7, 8, 9, 17, 64, 100, 1000}) {
    for (int radius : {-1, 0, 1, 2, 5, n - 1, n, 100000}) {
      const setting st = settings[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(settings.size()) - 1))];
      const auto rows = static_cast<std::uint32_t>(n % 2 ? 2 * (16384 / n) + 2 : 3);  // odd n: two chunks below
      tensor x = make_tensor(OT::TENSOR_FLOAT32, {rows, static_cast<std::uint32_t>(n)});
      fill_random(x, rng, uni(rng, 0, 1) ? 3.0 : 1e20);
      x.put(0, 0.0);
      if (x.count() > 5) x.put(5, inf);
      if (n > 8) for (int i = 0; i < n; ++i) x.put(static_cast<std::size_t>(n + i), 0.0);  // a zero row
      std::vector<tensor> ins{x, scalar_i32(radius), scalar_f32(st.bias), scalar_f32(st.alpha), scalar_f32(st.beta)};
      if (uni(rng, 0, 1)) ins.push_back(scalar_i32(-1));
      INFO("n ", n, " radius ", radius, " bias ", st.bias, " alpha ", st.alpha, " beta ", st.beta);
      const tensor ref = run_entry1(OpT::LOCAL_RESPONSE_NORMALIZATION, nnhal::ops::local_response_normalization::reference<ty::f32>,
                                    ins, decl(OT::TENSOR_FLOAT32));
      reversed_context reversed;
      const kernel_result k = run_kernel(OpT::LOCAL_RESPONSE_NORMALIZATION, ins, {decl(OT::TENSOR_FLOAT32)}, n % 2 ? &reversed : nullptr);
      REQUIRE_MESSAGE(k.ok, k.error);
      CHECK(k.guards_intact);
      std::int64_t worst = 0;
      std::size_t at = 0;
      for (std::size_t i = 0; i < ref.count(); ++i) {
        const std::int64_t d = ulps_apart(static_cast<float>(k.outs[0].real(i)), static_cast<float>(ref.real(i)));
        if (d > worst) worst = d, at = i;
      }
      CHECK_MESSAGE(worst <= 1, "element " << at << ": " << k.outs[0].real(at) << " vs " << ref.real(at));
    }
  }
}

TEST_CASE("AVX-512 INSTANCE_NORMALIZATION (float32, NHWC and NCHW) matches the reference") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(18);
  for (const bool nchw : {false, true}) {
    for (std::size_t c : {1, 7, 8, 9, 63, 64, 65, 130}) {
      for (const std::array<std::size_t, 2> hw : {std::array<std::size_t, 2>{1, 1}, {3, 5}, {7, 7}, {16, 33}}) {
        const std::array<std::size_t, 4> e{static_cast<std::size_t>(uni(rng, 1, 3)), hw[0], hw[1], c};
        tensor x = make_tensor(OT::TENSOR_FLOAT32, stored_dims(e, nchw));
        fill_random(x, rng, 4.0);
        const double offset = uni(rng, 0, 1) ? 0.0 : 1000.0;  // a mean far from zero
        for (std::size_t i = 0; i < x.count(); ++i) x.put(i, x.real(i) + offset);
        const std::vector<tensor> ins{x, scalar_f32(static_cast<float>(unif(rng, -2, 2))), scalar_f32(static_cast<float>(unif(rng, -2, 2))),
                                      scalar_f32(log_uniform(rng, 1e-5, 1e-1)), scalar_bool(nchw)};
        INFO(describe(ins));
        const tensor ref = run_entry1(OpT::INSTANCE_NORMALIZATION, nnhal::ops::instance_normalization::reference<ty::f32>, ins,
                                      decl(OT::TENSOR_FLOAT32));
        reversed_context reversed;  // units split in two chunks when there are two or more
        const kernel_result k = run_kernel(OpT::INSTANCE_NORMALIZATION, ins, {decl(OT::TENSOR_FLOAT32)}, &reversed);
        REQUIRE_MESSAGE(k.ok, k.error);
        CHECK(k.guards_intact);
        std::vector<double> expected(ref.count());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = ref.real(i);
        const std::string diff = compare(k.outs[0], expected);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

TEST_CASE("AVX-512 pooling (float32 and 8-bit, NHWC) matches the reference over channel counts") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(512);
  std::vector<int> sizes;
  for (int k = 1; k <= 17; ++k) sizes.push_back(k);
  for (int k : {31, 32, 33, 63, 64, 65, 100, 128, 130, 200, 256, 257, 300, 448, 520, 1000}) sizes.push_back(k);
  for (int channels : sizes) {
    for (auto kind : {pool_kind::average, pool_kind::max}) {
      for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
        pool_case c = gen_pool(kind, type, rng);
        c.nchw = false;
        c.in_ext[3] = static_cast<std::size_t>(channels);
        // A few channel counts run split into chunks of output rows (below): three images
        // tall enough for at least two chunks of 8K output elements, so that the split
        // happens, in the middle of an image, and a chunk spans two images.
        const bool split = channels == 1 || channels == 17 || channels == 65;
        if (split) {
          c.in_ext[0] = 3;
          c.in_ext[1] = static_cast<std::size_t>(c.stride_h) * (8192 / static_cast<std::size_t>(channels) + 1) +
                        static_cast<std::size_t>(c.filter_h);
          c.in_ext[2] = 9;
        }
        c.input = make_tensor(type, stored_dims(c.in_ext, false), c.input.scale, c.input.zp);
        fill_random(c.input, rng, 10.0);
        const auto ins = c.inputs();
        INFO(to_string(pool_op(kind)), " ", describe(ins));
        const tensor out = decl(type, {}, c.input.scale, c.input.zp);
        auto ref_fn = [&](const nnhal::ops::kernel_io& io) {
          if (kind == pool_kind::max) {
            if (type == OT::TENSOR_FLOAT32) nnhal::ops::max_pool_2d::reference<ty::f32>(io);
            else if (type == OT::TENSOR_QUANT8_ASYMM) nnhal::ops::max_pool_2d::reference<ty::qu8>(io);
            else nnhal::ops::max_pool_2d::reference<ty::qs8>(io);
          } else {
            if (type == OT::TENSOR_FLOAT32) nnhal::ops::average_pool_2d::reference<ty::f32>(io);
            else if (type == OT::TENSOR_QUANT8_ASYMM) nnhal::ops::average_pool_2d::reference<ty::qu8>(io);
            else nnhal::ops::average_pool_2d::reference<ty::qs8>(io);
          }
        };
        const tensor ref = run_entry1(pool_op(kind), ref_fn, ins, out);
        // Bound: the AVX-512 kernel on this CPU; the split cases in two chunks of output
        // rows, run in reverse order.
        reversed_context reversed;
        const kernel_result k = run_kernel(pool_op(kind), ins, {out}, split ? &reversed : nullptr);
        REQUIRE_MESSAGE(k.ok, k.error);
        CHECK(k.guards_intact);
        const tensor& got = k.outs[0];
        REQUIRE(ref.dims == got.dims);
        if (kind == pool_kind::max || type != OT::TENSOR_FLOAT32) {
          CHECK(ref.bytes == got.bytes);  // max, and the integer mean, are exact
        } else {
          std::vector<double> expected(ref.count());
          for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = ref.real(i);
          const std::string diff = compare(got, expected);
          CHECK_MESSAGE(diff.empty(), diff);
        }
      }
    }
  }
}
#endif

// =================================================================================
// Fixed-point primitives against their real values
// =================================================================================

TEST_CASE("fixed point: exp, reciprocal and inverse square root") {
  constexpr double q31 = 2147483648.0;
  CHECK(fx::exp_on_negative_values<5>(0) == fx::raw_max);
  for (double a : {-0.001, -0.1, -0.25, -0.5, -1.0, -2.7, -7.0, -15.9, -31.0}) {
    const auto raw = static_cast<std::int32_t>(std::llround(a * (1 << 26)));
    const double got = fx::exp_on_negative_values<5>(raw) / q31;
    CHECK_MESSAGE(std::abs(got - std::exp(a)) < 2e-8 + 1e-6 * std::exp(a), "exp(" << a << ") = " << got);
  }
  for (double x : {0.0, 0.1, 0.5, 0.75, 0.999}) {
    const auto raw = static_cast<std::int32_t>(std::min(std::llround(x * q31), 2147483647LL));
    const double got = fx::one_over_one_plus_x_for_x_in_0_1(raw) / q31;
    CHECK_MESSAGE(std::abs(got - 1.0 / (1.0 + x)) < 1e-8, "1/(1+" << x << ") = " << got);
  }
  for (std::int32_t v : {2, 3, 10, 100, 12345, 65025, 1 << 20, 1 << 29, 2000000000}) {
    const auto m = fx::inv_sqrt(v);
    CHECK(m.shift <= 0);
    const double got = m.multiplier / q31 * std::ldexp(1.0, m.shift);
    // The multiplier is scaled by 2^-? so that (x * 128) * it stays in range: it stands for 1/sqrt(v).
    CHECK_MESSAGE(std::abs(got * std::sqrt(static_cast<double>(v)) - 1.0) < 3e-6, "1/sqrt(" << v << ") = " << got);
  }
  CHECK(fx::inv_sqrt(0).multiplier == fx::raw_max);
  CHECK(fx::inv_sqrt(1).multiplier == fx::raw_max);
}

// =================================================================================
// End to end: hand-worked goldens through exec::prepare / exec::execute
// =================================================================================

// run_golden: support/random_cases.hpp.

TEST_CASE("golden: pooling a 3x3 image with a 2x2 window, padding right/bottom, both layouts") {
  // 1 2 3 / 4 5 6 / 7 8 9; pads (l, r, t, b) = (0, 1, 0, 1); edge windows are clipped.
  const std::vector<double> img{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> avg{3, 4, 4.5, 6, 7, 7.5, 7.5, 8.5, 9};
  const std::vector<double> mx{5, 6, 6, 8, 9, 9, 8, 9, 9};
  std::vector<double> l2(9);
  const std::vector<std::vector<double>> windows{{1, 2, 4, 5}, {2, 3, 5, 6}, {3, 6}, {4, 5, 7, 8}, {5, 6, 8, 9},
                                                 {6, 9},       {7, 8},       {8, 9}, {9}};
  for (std::size_t i = 0; i < 9; ++i) {
    double s = 0;
    for (double v : windows[i]) s += v * v;
    l2[i] = std::sqrt(s / static_cast<double>(windows[i].size()));
  }
  for (bool nchw : {false, true}) {
    for (OT type : all_types) {
      CAPTURE(nchw);
      CAPTURE(to_string(type));
      const float scale = is_quant8(type) ? 0.5f : 0.0f;
      const std::int32_t zp = type == OT::TENSOR_QUANT8_ASYMM ? 10 : (type == OT::TENSOR_QUANT8_ASYMM_SIGNED ? -20 : 0);
      const tensor x = reals(type, {1, nchw ? 1u : 3u, 3, nchw ? 3u : 1u}, img, scale, zp);
      const std::vector<tensor> ins{x, scalar_i32(0), scalar_i32(1), scalar_i32(0), scalar_i32(1), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(2), scalar_i32(0), scalar_bool(nchw)};
      const tensor a = run_golden(OpT::AVERAGE_POOL_2D, ins, decl(type, {}, scale, zp));
      CHECK(a.dims == (nchw ? dims_t{1, 1, 3, 3} : dims_t{1, 3, 3, 1}));
      CHECK(compare(a, avg).empty());
      CHECK(compare(run_golden(OpT::MAX_POOL_2D, ins, decl(type, {}, scale, zp)), mx).empty());
      if (!is_quant8(type)) CHECK(compare(run_golden(OpT::L2_POOL_2D, ins, decl(type, {}, scale, zp)), l2).empty());
    }
  }
}

TEST_CASE("golden: SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, LRN, INSTANCE_NORMALIZATION end to end") {
  const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), s = 1 + e1 + e2;
  const tensor x = reals(OT::TENSOR_FLOAT32, {1, 3}, {1, 2, 3});
  CHECK(compare(run_golden(OpT::SOFTMAX, {x, scalar_f32(1.0f)}, decl(OT::TENSOR_FLOAT32)), {e2 / s, e1 / s, 1 / s}).empty());
  CHECK(compare(run_golden(OpT::LOG_SOFTMAX, {x, scalar_f32(1.0f), scalar_i32(1)}, decl(OT::TENSOR_FLOAT32)),
                {-2 - std::log(s), -1 - std::log(s), -std::log(s)})
            .empty());
  // Quantized softmax: 1/256 steps.
  const tensor q = reals(OT::TENSOR_QUANT8_ASYMM, {1, 3}, {1, 2, 3}, 0.25f, 0);
  const tensor qs = run_golden(OpT::SOFTMAX, {q, scalar_f32(1.0f)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0));
  CHECK_MESSAGE(compare(qs, {e2 / s, e1 / s, 1 / s}).empty(), compare(qs, {e2 / s, e1 / s, 1 / s}));
  const tensor v = reals(OT::TENSOR_FLOAT32, {1, 1, 2, 2}, {3, 4, 0, -2});
  CHECK(compare(run_golden(OpT::L2_NORMALIZATION, {v}, decl(OT::TENSOR_FLOAT32)), {0.6, 0.8, 0, -1}).empty());
  const tensor l = reals(OT::TENSOR_FLOAT32, {1, 1, 1, 3}, {1, 2, 3});
  // radius 1, bias 1, alpha 1, beta 1: x / (1 + sum of squares of the neighbourhood).
  CHECK(compare(run_golden(OpT::LOCAL_RESPONSE_NORMALIZATION, {l, scalar_i32(1), scalar_f32(1), scalar_f32(1), scalar_f32(1)}, decl(OT::TENSOR_FLOAT32)),
                {1.0 / 6, 2.0 / 15, 3.0 / 14})
            .empty());
  // Instance norm of [1, 3] per channel: mean 2, var 1 -> -1, 1 (epsilon 0).
  const tensor in = reals(OT::TENSOR_FLOAT32, {1, 2, 1, 1}, {1, 3});
  CHECK(compare(run_golden(OpT::INSTANCE_NORMALIZATION, {in, scalar_f32(2), scalar_f32(0.5f), scalar_f32(0), scalar_bool(false)}, decl(OT::TENSOR_FLOAT32)),
                {-1.5, 2.5})
            .empty());
}

TEST_CASE("models: versions and invalid arguments through validation, prepare and execute") {
  auto version = [](const one_op_model& m) {
    auto v = ty::validate_model(m.model);
    REQUIRE_MESSAGE(v.ok(), (v.ok() ? std::string() : v.err().message));
    return *v;
  };
  std::vector<tensor> pool{make_tensor(OT::TENSOR_FLOAT32, {1, 1, 4, 4}), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(0), scalar_i32(1), scalar_i32(1), scalar_i32(2), scalar_i32(2), scalar_i32(0), scalar_bool(true)};
  CHECK(version(single(OpT::MAX_POOL_2D, pool, {decl(OT::TENSOR_FLOAT32, {1, 1, 3, 3})})) == ty::HalVersion::V1_2);
  pool.back() = scalar_bool(false);
  pool[0] = make_tensor(OT::TENSOR_FLOAT32, {1, 4, 4, 1});
  CHECK(version(single(OpT::MAX_POOL_2D, pool, {decl(OT::TENSOR_FLOAT32, {1, 3, 3, 1})})) == ty::HalVersion::V1_0);
  CHECK(version(single(OpT::SOFTMAX, {make_tensor(OT::TENSOR_FLOAT32, {2, 3, 4}), scalar_f32(1)}, {decl(OT::TENSOR_FLOAT32, {2, 3, 4})})) ==
        ty::HalVersion::V1_2);
  CHECK(version(single(OpT::SOFTMAX, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), scalar_f32(1), scalar_i32(-1)}, {decl(OT::TENSOR_FLOAT32, {2, 3})})) ==
        ty::HalVersion::V1_0);
  CHECK(version(single(OpT::L2_NORMALIZATION, {make_tensor(OT::TENSOR_FLOAT32, {2, 3})}, {decl(OT::TENSOR_FLOAT32, {2, 3})})) ==
        ty::HalVersion::V1_2);

  // Invalid constants are rejected at prepare, the message naming the operand.
  auto bad = run_model(single(OpT::SOFTMAX, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), scalar_f32(1), scalar_i32(3)}, {decl(OT::TENSOR_FLOAT32)}));
  CHECK(bad.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(bad.message.find("axis: 3 outside [-2, 2)") != std::string::npos);
  pool[7] = scalar_i32(9);  // filter_width wider than the input
  bad = run_model(single(OpT::AVERAGE_POOL_2D, pool, {decl(OT::TENSOR_FLOAT32)}));
  CHECK(bad.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(bad.message.find("filter_width") != std::string::npos);

  // An input whose shape arrives only at execution: the window check runs then.
  one_op_model m = single(OpT::AVERAGE_POOL_2D,
                          {make_tensor(OT::TENSOR_FLOAT32, {1, 2, 2, 1}), scalar_i32(2), scalar_i32(1), scalar_i32(1), scalar_i32(3), scalar_i32(3), scalar_i32(0)},
                          {decl(OT::TENSOR_FLOAT32)});
  m.model.main.operands[0].dimensions = {1, 0, 0, 1};
  bad = run_model(m);
  CHECK(bad.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(bad.message.find("filter_width") != std::string::npos);
  m.inputs[0] = make_tensor(OT::TENSOR_FLOAT32, {1, 3, 4, 1});
  const auto ok = run_model(m);
  REQUIRE_MESSAGE(ok.status == ty::ErrorStatus::NONE, ok.message);
  CHECK(ok.outs[0].dims == dims_t{1, 1, 2, 1});
}
