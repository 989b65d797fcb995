// MEAN, REDUCE_SUM/PROD/MAX/MIN/ANY/ALL, ARGMAX, ARGMIN and TOPK_V2:
//  - oracle tests: random shapes, axes (negative, repeated), keep_dims and values; the
//    expected results come from the real-number definitions in double and are compared
//    within the CTS tolerances;
//  - qu8/qs8 parity: the same data shifted by -128 gives results shifted by -128, bit for bit;
//  - tie rules (ARGMAX/ARGMIN smallest index, TOPK_V2 larger index first), NaN/inf edges,
//    float16 accumulating in float32, float32 sums in the reference's order;
//  - shape inference at validation and execution, bad operands rejected with a message
//    naming the operand, zero-sized tensors, one-operation models through prepare/execute.
// Random cases draw a per-case seed from a fixed seed and print it on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "nnhal/ops/argmax.hpp"
#include "nnhal/ops/kernels/reduce.hpp"
#include "nnhal/ops/mean.hpp"
#include "nnhal/ops/reduce_all.hpp"
#include "nnhal/ops/reduce_any.hpp"
#include "nnhal/ops/reduce_max.hpp"
#include "nnhal/ops/reduce_min.hpp"
#include "nnhal/ops/reduce_prod.hpp"
#include "nnhal/ops/reduce_sum.hpp"
#include "nnhal/ops/topk_v2.hpp"
#include "nnhal/types/signatures/argmax.hpp"
#include "nnhal/types/signatures/argmin.hpp"
#include "nnhal/types/signatures/mean.hpp"
#include "nnhal/types/signatures/reduce_all.hpp"
#include "nnhal/types/signatures/reduce_any.hpp"
#include "nnhal/types/signatures/reduce_max.hpp"
#include "nnhal/types/signatures/reduce_min.hpp"
#include "nnhal/types/signatures/reduce_prod.hpp"
#include "nnhal/types/signatures/reduce_sum.hpp"
#include "nnhal/types/signatures/topk_v2.hpp"
#include "support/op_runner.hpp"

namespace {

using namespace nnhal::test::op;
namespace kn = nnhal::ops::kernels;

tensor axes_of(const std::vector<std::int32_t>& a) { return i32_tensor(a); }

/// Reduced-axis mask of `axes` (negative entries count from the end; repeats allowed).
std::vector<bool> mask_of(std::size_t rank, const std::vector<std::int32_t>& axes) {
  std::vector<bool> m(rank, false);
  for (auto a : axes) m[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int32_t>(rank) : a)] = true;
  return m;
}

/// The HAL's output shape of a reduction.
dims_t reduced_dims(const dims_t& in, const std::vector<bool>& mask, bool keep) {
  dims_t out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (!mask[d]) out.push_back(in[d]);
    else if (keep) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return out;
}

/// For each output element (row-major over the kept axes), the flat indices of the
/// input elements it reduces, in increasing order. Written from coordinates, not strides.
std::vector<std::vector<std::size_t>> reduction_groups(const dims_t& in, const std::vector<bool>& mask) {
  std::size_t outputs = 1;
  for (std::size_t d = 0; d < in.size(); ++d)
    if (!mask[d]) outputs *= in[d];
  std::vector<std::vector<std::size_t>> groups(outputs);
  const std::size_t n = count_of(in);
  std::vector<std::size_t> coord(in.size());
  for (std::size_t flat = 0; flat < n; ++flat) {
    std::size_t rem = flat;
    for (std::size_t d = in.size(); d-- > 0;) {
      coord[d] = rem % in[d];
      rem /= in[d];
    }
    std::size_t o = 0;
    for (std::size_t d = 0; d < in.size(); ++d)
      if (!mask[d]) o = o * in[d] + coord[d];
    groups[o].push_back(flat);
  }
  return groups;
}

/// Expected real results of a reduction operation.
std::vector<double> expect_reduce(OpT op, const tensor& x, const std::vector<bool>& mask) {
  std::vector<double> out;
  for (const auto& g : reduction_groups(x.dims, mask)) {
    double acc = 0;
    switch (op) {
      case OpT::REDUCE_SUM:
      case OpT::MEAN:
        for (auto i : g) acc += x.real(i);
        if (op == OpT::MEAN) acc /= static_cast<double>(g.size());
        break;
      case OpT::REDUCE_PROD:
        acc = 1;
        for (auto i : g) acc *= x.real(i);
        break;
      case OpT::REDUCE_MAX:
        acc = -std::numeric_limits<double>::infinity();
        for (auto i : g) acc = std::max(acc, x.real(i));
        break;
      case OpT::REDUCE_MIN:
        acc = std::numeric_limits<double>::infinity();
        for (auto i : g) acc = std::min(acc, x.real(i));
        break;
      case OpT::REDUCE_ANY:
        acc = 0;
        for (auto i : g) acc = (acc != 0 || x.raw(i) != 0) ? 1 : 0;
        break;
      case OpT::REDUCE_ALL:
        acc = 1;
        for (auto i : g) acc = (acc != 0 && x.raw(i) != 0) ? 1 : 0;
        break;
      default: FAIL("expect_reduce: not a reduction");
    }
    out.push_back(acc);
  }
  return out;
}

/// The output shape expected of ARGMAX/ARGMIN.
dims_t arg_dims(const dims_t& in, std::size_t axis) {
  if (in.size() == 1) return {1};
  dims_t out;
  for (std::size_t d = 0; d < in.size(); ++d)
    if (d != axis) out.push_back(in[d]);
  return out;
}

/// ARGMAX/ARGMIN oracle: first index of the extreme value (ties: smallest index).
std::vector<double> expect_arg(const tensor& x, std::size_t axis, bool is_min) {
  std::vector<bool> mask(x.dims.size(), false);
  mask[axis] = true;
  std::vector<double> out;
  for (const auto& g : reduction_groups(x.dims, mask)) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < g.size(); ++j) {
      const double v = x.real(g[j]), b = x.real(g[best]);
      if (is_min ? v < b : v > b) best = j;
    }
    out.push_back(static_cast<double>(best));
  }
  return out;
}

/// TOPK_V2 oracle by counting: element i of a row lands at position
/// #{j : v_j > v_i} + #{j : v_j == v_i, j > i} (ties: larger index first).
void expect_topk(const tensor& x, std::size_t k, std::vector<double>& vals, std::vector<double>& idx) {
  const std::size_t n = x.dims.back();
  const std::size_t rows = x.count() / n;
  vals.assign(rows * k, 0);
  idx.assign(rows * k, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t pos = 0;
      const double vi = x.real(r * n + i);
      for (std::size_t j = 0; j < n; ++j) {
        const double vj = x.real(r * n + j);
        if (vj > vi || (vj == vi && j > i)) ++pos;
      }
      if (pos < k) {
        vals[r * k + pos] = vi;
        idx[r * k + pos] = static_cast<double>(i);
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Random cases
// ---------------------------------------------------------------------------------

int uni(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

dims_t random_dims(std::mt19937& rng, int min_rank, int max_rank, int max_ext) {
  dims_t d(static_cast<std::size_t>(uni(rng, min_rank, max_rank)));
  for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, 1, max_ext));
  return d;
}

/// A random axes list for `rank`: a random subset (maybe empty), entries sometimes
/// negative and sometimes repeated, in random order.
std::vector<std::int32_t> random_axes(std::mt19937& rng, std::size_t rank) {
  std::vector<std::int32_t> a;
  for (std::size_t d = 0; d < rank; ++d)
    if (uni(rng, 0, 2) != 0) a.push_back(static_cast<std::int32_t>(d));
  if (a.empty() && uni(rng, 0, 5) != 0) a.push_back(uni(rng, 0, static_cast<int>(rank) - 1));
  for (auto& v : a)
    if (uni(rng, 0, 2) == 0) v -= static_cast<std::int32_t>(rank);
  if (!a.empty() && uni(rng, 0, 3) == 0)
    a.push_back(a[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(a.size()) - 1))]);
  std::shuffle(a.begin(), a.end(), rng);
  return a;
}

/// Values whose float sums and products are exact: multiples of 1/64 in [-2, 2]
/// (sums), powers of two and 0 (products); quant8 and bool8 use their whole range.
void fill_for(OpT op, tensor& t, std::mt19937& rng) {
  for (std::size_t i = 0; i < t.count(); ++i) {
    switch (t.type) {
      case OT::TENSOR_FLOAT32:
      case OT::TENSOR_FLOAT16:
        if (op == OpT::REDUCE_PROD) {
          static constexpr double f[] = {0.5, 1.0, 2.0, -0.5, -1.0, -2.0, 0.0};
          t.put(i, f[uni(rng, 0, uni(rng, 0, 9) == 0 ? 6 : 5)]);
        } else {
          t.put(i, uni(rng, -128, 128) / 64.0);
        }
        break;
      case OT::TENSOR_INT32: t.put(i, uni(rng, -1000, 1000)); break;
      case OT::TENSOR_QUANT8_ASYMM: t.put(i, uni(rng, 0, 255)); break;
      case OT::TENSOR_QUANT8_ASYMM_SIGNED: t.put(i, uni(rng, -128, 127)); break;
      case OT::TENSOR_BOOL8: t.put(i, uni(rng, 0, 3) == 0 ? 0 : uni(rng, 1, 255)); break;
      default: FAIL("fill_for: unexpected type");
    }
  }
}

std::vector<OT> reduce_types(OpT op) {
  switch (op) {
    case OpT::MEAN:
    case OpT::REDUCE_MAX:
    case OpT::REDUCE_MIN:
      return {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED};
    case OpT::REDUCE_SUM:
    case OpT::REDUCE_PROD: return {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16};
    default: return {OT::TENSOR_BOOL8};
  }
}

/// keep_dims operand of `op`: INT32 for MEAN (any positive value keeps), BOOL otherwise.
tensor keep_operand(OpT op, bool keep, std::mt19937* rng = nullptr) {
  if (op == OpT::MEAN) return scalar_i32(keep ? (rng ? uni(*rng, 1, 3) : 1) : (rng ? -uni(*rng, 0, 2) : 0));
  return scalar_bool(keep);
}

constexpr std::array reduce_ops{OpT::MEAN,       OpT::REDUCE_SUM, OpT::REDUCE_PROD, OpT::REDUCE_MAX,
                                OpT::REDUCE_MIN, OpT::REDUCE_ANY, OpT::REDUCE_ALL};

// =================================================================================
// Tests
// =================================================================================

TEST_CASE("reduce plan: extents of 1 dropped, same-kind neighbours merged") {
  const dims_t d{2, 1, 3, 4};
  // Axes 1 and 2 reduced: [2] kept, [1*3] reduced, [4] kept inner.
  auto p = kn::make_reduce_plan(d, [](std::size_t a) { return a == 1 || a == 2; });
  CHECK(p.inner == 4);
  CHECK(p.run == 1);
  CHECK(p.reduced_count == 3);
  REQUIRE(p.outer_levels == 1);
  CHECK(p.outer[0].extent == 2);
  CHECK(p.outer[0].stride == 12);
  REQUIRE(p.reduced_levels == 1);
  CHECK(p.reduced[0].stride == 4);
  // Axes 0 and 3 reduced: reduced [2] outer, kept [3], trailing reduced run [4].
  p = kn::make_reduce_plan(d, [](std::size_t a) { return a == 0 || a == 3; });
  CHECK(p.inner == 1);
  CHECK(p.run == 4);
  CHECK(p.reduced_count == 8);
  CHECK(p.outer_levels == 1);
  CHECK(p.reduced_levels == 1);
  // Nothing reduced: one inner group of 24.
  p = kn::make_reduce_plan(d, [](std::size_t) { return false; });
  CHECK(p.inner == 24);
  CHECK(p.reduced_count == 1);
}

TEST_CASE("reductions: random shapes, axes and keep_dims against the real-number oracle") {
  std::mt19937 seeds(20240611);
  int cases = 0;
  for (OpT op : reduce_ops) {
    for (OT type : reduce_types(op)) {
      for (int n = 0; n < 40; ++n) {
        const unsigned seed = seeds();
        std::mt19937 rng(seed);
        const dims_t dims = random_dims(rng, 1, 4, op == OpT::REDUCE_PROD ? 3 : 5);
        const auto axes = random_axes(rng, dims.size());
        const bool keep = uni(rng, 0, 1) == 1;
        const float scale = is_quant8(type) ? 0.05f * static_cast<float>(uni(rng, 1, 40)) : 0.0f;
        const std::int32_t zp = is_quant8(type) ? static_cast<std::int32_t>(uni(rng, static_cast<int>(qmin(type)),
                                                                               static_cast<int>(qmax(type))))
                                                : 0;
        tensor x = make_tensor(type, dims, scale, zp);
        fill_for(op, x, rng);
        const auto mask = mask_of(dims.size(), axes);
        CAPTURE(seed);
        INFO(str(op), " ", str(type), " dims ", str(dims), " keep ", keep);
        const tensor y = run_ok1(op, {x, axes_of(axes), keep_operand(op, keep, &rng)}, decl(type, {}, scale, zp));
        CHECK(y.dims == reduced_dims(dims, mask, keep));
        const bool exact = op == OpT::REDUCE_MAX || op == OpT::REDUCE_MIN;
        const std::string err = compare(y, expect_reduce(op, x, mask), exact);
        CHECK_MESSAGE(err.empty(), err);
        ++cases;
      }
    }
  }
  CHECK(cases == 40 * 18);
}

TEST_CASE("reductions: quant8 signed results are the unsigned ones minus 128, bit for bit") {
  std::mt19937 seeds(77);
  for (OpT op : {OpT::MEAN, OpT::REDUCE_MAX, OpT::REDUCE_MIN}) {
    for (int n = 0; n < 60; ++n) {
      const unsigned seed = seeds();
      std::mt19937 rng(seed);
      const dims_t dims = random_dims(rng, 1, 4, 6);
      const auto axes = random_axes(rng, dims.size());
      const bool keep = uni(rng, 0, 1) == 1;
      const float scale = 0.1f * static_cast<float>(uni(rng, 1, 20));
      const std::int32_t zp = uni(rng, 0, 255);
      tensor x = make_tensor(OT::TENSOR_QUANT8_ASYMM, dims, scale, zp);
      fill_for(op, x, rng);
      CAPTURE(seed);
      INFO(str(op), " dims ", str(dims));
      const std::vector<tensor> ins{x, axes_of(axes), keep_operand(op, keep)};
      const tensor u = run_ok1(op, ins, decl(OT::TENSOR_QUANT8_ASYMM, {}, scale, zp));
      const tensor s =
          run_ok1(op, {to_signed(x), ins[1], ins[2]}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, scale, zp - 128));
      REQUIRE(u.dims == s.dims);
      for (std::size_t i = 0; i < u.count(); ++i) REQUIRE(s.raw(i) == u.raw(i) - 128);
    }
  }
}

TEST_CASE("MEAN quantized: floor of the exact mean of the stored values (AOSP for unsigned)") {
  // Rows [1, 2] (mean 1.5 -> 1) and [255, 254, 254] (mean 254.33 -> 254).
  const tensor x = values(OT::TENSOR_QUANT8_ASYMM, {2, 2}, {1, 2, 254, 255}, 0.5f, 3);
  const tensor y = run_ok1(OpT::MEAN, {x, axes_of({1}), scalar_i32(0)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 3));
  CHECK(y.dims == dims_t{2});
  CHECK(y.raw(0) == 1);
  CHECK(y.raw(1) == 254);
  // Signed: [-1, 0] has mean -0.5: floor gives -1 (AOSP's truncation would give 0).
  const tensor s = values(OT::TENSOR_QUANT8_ASYMM_SIGNED, {1, 2}, {-1, 0}, 0.5f, 0);
  const tensor m =
      run_ok1(OpT::MEAN, {s, axes_of({-1}), scalar_i32(1)}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.5f, 0));
  CHECK(m.dims == dims_t{1, 1});
  CHECK(m.raw(0) == -1);
  // Large reductions accumulate exactly: 4096 elements of 255.
  tensor big = make_tensor(OT::TENSOR_QUANT8_ASYMM, {4096}, 1.0f, 0);
  for (std::size_t i = 0; i < big.count(); ++i) big.put(i, 255);
  CHECK(run_ok1(OpT::MEAN, {big, axes_of({0}), scalar_i32(0)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0)).raw(0) ==
        255);
}

TEST_CASE("float32 sums fold in increasing input order, bit-exact with a sequential float sum") {
  std::mt19937 rng(5);
  const dims_t dims{3, 5, 4, 6};
  tensor x = make_tensor(OT::TENSOR_FLOAT32, dims);
  std::uniform_real_distribution<float> u(-1000.0f, 1000.0f);
  for (std::size_t i = 0; i < x.count(); ++i) x.put(i, u(rng));
  for (const std::vector<std::int32_t>& axes : std::vector<std::vector<std::int32_t>>{
           {0}, {1}, {3}, {0, 2}, {1, 3}, {0, 1, 2, 3}, {-1, 0}, {2, 1}}) {
    const auto mask = mask_of(dims.size(), axes);
    INFO("axes mask ", mask[0], mask[1], mask[2], mask[3]);
    const tensor y = run_ok1(OpT::REDUCE_SUM, {x, axes_of(axes), scalar_bool(false)}, decl(OT::TENSOR_FLOAT32));
    const tensor m = run_ok1(OpT::MEAN, {x, axes_of(axes), scalar_i32(0)}, decl(OT::TENSOR_FLOAT32));
    const auto groups = reduction_groups(dims, mask);
    REQUIRE(y.count() == groups.size());
    for (std::size_t o = 0; o < groups.size(); ++o) {
      float s = 0.0f;
      for (auto i : groups[o]) s += x.get<float>(i);
      CHECK(y.get<float>(o) == s);
      CHECK(m.get<float>(o) == s / static_cast<float>(groups[o].size()));
    }
  }
}

/// Runs kernel `k` on (x, axes, keep) into a buffer between guards; the output bytes.
std::vector<std::byte> run_direct(void (*k)(const nnhal::ops::kernel_io&), OpT op, const tensor& x,
                                  const std::vector<std::int32_t>& axes, bool& guards_ok) {
  const std::vector<tensor> ins{x, axes_of(axes), keep_operand(op, false)};
  auto shapes = infer(op, ins, {decl(x.type)}, true);
  REQUIRE(shapes.ok());
  const auto in = descs_of(ins);
  tensor y = make_tensor(x.type, (*shapes)[0]);
  operand_desc od = desc_of(y);
  od.value = nullptr;
  od.value_size = 0;
  const std::vector<operand_desc> outs{od};
  constexpr std::size_t guard = 64 + 4;  // + 4: the output starts misaligned for any batch
  std::vector<std::byte> buf(guard + y.bytes.size() + guard, guard_byte);
  std::byte* data[1] = {buf.data() + guard};
  nnhal::exec::serial_context serial;
  k(nnhal::ops::kernel_io{in, outs, data, &serial});
  for (std::size_t i = 0; i < guard; ++i)
    if (buf[i] != guard_byte || buf[buf.size() - 1 - i] != guard_byte) guards_ok = false;
  return {buf.begin() + guard, buf.end() - guard};
}

TEST_CASE("float32 vectorized reductions equal the scalar reference (tails, rows, columns)") {
  namespace ops = nnhal::ops;
  struct variant {
    OpT op;
    void (*ref)(const ops::kernel_io&);
    void (*vec)(const ops::kernel_io&);
    bool order_free;
  };
  const variant variants[] = {
      {OpT::REDUCE_SUM, ops::reduce_sum::reference<ty::f32>, ops::reduce_sum::vectorized_f32, false},
      {OpT::REDUCE_PROD, ops::reduce_prod::reference<ty::f32>, ops::reduce_prod::vectorized_f32, false},
      {OpT::REDUCE_MAX, ops::reduce_max::reference<ty::f32>, ops::reduce_max::vectorized_f32, true},
      {OpT::REDUCE_MIN, ops::reduce_min::reference<ty::f32>, ops::reduce_min::vectorized_f32, true},
      {OpT::MEAN, ops::mean::reference<ty::f32>, ops::mean::vectorized_f32, false},
  };
  const std::uint32_t lanes = static_cast<std::uint32_t>(kn::f32_batch::size);
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t n = 1; n <= 2 * lanes + 1; ++n) sizes.push_back(n);
  for (std::uint32_t n : {15u, 16u, 17u, 31u, 32u, 33u, 257u}) sizes.push_back(n);
  std::mt19937 rng(99);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  int compared = 0;
  for (const auto& v : variants) {
    for (std::uint32_t n : sizes) {
      // Columns ([outer, reduced, n] over axis 1), rows ([outer, n] over the last axis),
      // and a reduced axis between two kept ones wider than a tile.
      const std::vector<std::pair<dims_t, std::vector<std::int32_t>>> shapes{
          {{2, 3, n}, {1}}, {{3, n}, {-1}}, {{2, n, 5}, {0, 2}}, {{n, 2, 3}, {0}}};
      for (const auto& shape : shapes) {
        const dims_t& dims = shape.first;  // doctest's macros capture them
        const auto& axes = shape.second;
        tensor x = make_tensor(OT::TENSOR_FLOAT32, dims);
        for (std::size_t i = 0; i < x.count(); ++i) {
          const int r = uni(rng, 0, 40);
          double val = std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
          if (v.op == OpT::REDUCE_PROD) val = std::uniform_real_distribution<double>(0.5, 1.5)(rng) * (r % 2 ? 1 : -1);
          if (v.order_free && r == 0) val = nan;
          if (v.order_free && r == 1) val = r % 2 ? inf : -inf;
          if (r == 2) val = 0.0;
          x.put(i, val);
        }
        INFO(str(v.op), " dims ", str(dims));
        bool guards_ok = true;
        const auto want = run_direct(v.ref, v.op, x, axes, guards_ok);
        const auto got = run_direct(v.vec, v.op, x, axes, guards_ok);
        CHECK(guards_ok);
        REQUIRE(want.size() == got.size());
        for (std::size_t i = 0; i < want.size() / 4; ++i) {
          float a, b;
          std::memcpy(&a, want.data() + 4 * i, 4);
          std::memcpy(&b, got.data() + 4 * i, 4);
          if (v.order_free) CHECK((a == b || (std::isnan(a) && std::isnan(b))));  // +0/-0 ties may differ
          else CHECK(std::memcmp(&a, &b, 4) == 0);
        }
        ++compared;
      }
    }
  }
  CHECK(compared == 5 * 4 * static_cast<int>(sizes.size()));
}

TEST_CASE("REDUCE_ANY / REDUCE_ALL: the byte-batch kernels equal the scalar reference") {
  namespace ops = nnhal::ops;
  using any_op = kn::axes_reduction<ops::reduce_any::any_of>;
  using all_op = kn::axes_reduction<ops::reduce_all::all_of>;
  static_assert(any_op::has_vectorized<ty::b8> && all_op::has_vectorized<ty::b8>);
  std::mt19937 rng(77);
  int compared = 0;
  for (std::uint32_t n : {1u, 2u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 129u, 200u, 1000u}) {
    const std::vector<std::pair<dims_t, std::vector<std::int32_t>>> shapes{
        {{2, 3, n}, {1}}, {{3, n}, {-1}}, {{2, n, 5}, {0, 2}}, {{n, 2, 3}, {0}}, {{2, n}, {0, 1}}};
    for (const auto& shape : shapes) {
      const dims_t& dims = shape.first;  // doctest's macros capture them
      const auto& axes = shape.second;
      // Mostly false with a few true bytes (ANY's hard case), mostly true with a few
      // zeros (ALL's), and bytes other than 1 reading as true.
      for (int density : {2, 50, 98}) {
        tensor x = make_tensor(OT::TENSOR_BOOL8, dims);
        for (std::size_t i = 0; i < x.count(); ++i) x.put(i, uni(rng, 0, 99) < density ? uni(rng, 1, 255) : 0);
        INFO("dims ", str(dims), " density ", density);
        using kernel_fn = void (*)(const ops::kernel_io&);
        for (const auto& [op, ref, vec] : {std::tuple<OpT, kernel_fn, kernel_fn>{OpT::REDUCE_ANY, any_op::reference<ty::b8>, any_op::vectorized<ty::b8>},
                                           std::tuple<OpT, kernel_fn, kernel_fn>{OpT::REDUCE_ALL, all_op::reference<ty::b8>, all_op::vectorized<ty::b8>}}) {
          bool guards_ok = true;
          const auto want = run_direct(ref, op, x, axes, guards_ok);
          const auto got = run_direct(vec, op, x, axes, guards_ok);
          CHECK(guards_ok);
          CHECK(want == got);
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 14 * 5 * 3 * 2);
}

TEST_CASE("float16 reductions accumulate in float32") {
  // 4096 ones: a half-precision accumulator stops at 2048.
  tensor x = make_tensor(OT::TENSOR_FLOAT16, {4096});
  for (std::size_t i = 0; i < x.count(); ++i) x.put(i, 1.0);
  const tensor s = run_ok1(OpT::REDUCE_SUM, {x, axes_of({0}), scalar_bool(false)}, decl(OT::TENSOR_FLOAT16));
  CHECK(s.real(0) == 4096.0);
  // 2048 and 0 alternating: a half-precision sum would overflow to infinity.
  for (std::size_t i = 0; i < x.count(); ++i) x.put(i, i % 2 ? 0.0 : 2048.0);
  const tensor m = run_ok1(OpT::MEAN, {x, axes_of({0}), scalar_i32(0)}, decl(OT::TENSOR_FLOAT16));
  CHECK(m.real(0) == 1024.0);
}

TEST_CASE("float edges: zero times infinity, infinities and NaN in MAX/MIN") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
    INFO(str(t));
    // REDUCE_PROD: a zero factor wins over infinity (AOSP), otherwise IEEE.
    const tensor p = values(t, {2, 3}, {inf, 0.0, 3.0, -2.0, inf, 0.5});
    const tensor py = run_ok1(OpT::REDUCE_PROD, {p, axes_of({1}), scalar_bool(false)}, decl(t));
    CHECK(py.real(0) == 0.0);
    CHECK(py.real(1) == -inf);
    // MAX/MIN: NaN inputs are skipped; infinities are results like any other value.
    const tensor m = values(t, {3, 2}, {nan, 1.0, -inf, -inf, inf, nan});
    const tensor mx = run_ok1(OpT::REDUCE_MAX, {m, axes_of({1}), scalar_bool(true)}, decl(t));
    CHECK(mx.dims == dims_t{3, 1});
    CHECK(mx.real(0) == 1.0);
    CHECK(mx.real(1) == -inf);
    CHECK(mx.real(2) == inf);
    const tensor mn = run_ok1(OpT::REDUCE_MIN, {m, axes_of({-1}), scalar_bool(false)}, decl(t));
    CHECK(mn.real(0) == 1.0);
    CHECK(mn.real(1) == -inf);
    CHECK(mn.real(2) == inf);
  }
}

TEST_CASE("REDUCE_ANY / REDUCE_ALL read any non-zero byte as true and write 0 or 1") {
  const tensor x = values(OT::TENSOR_BOOL8, {3, 2}, {0, 0, 0, 7, 200, 1});
  const tensor any = run_ok1(OpT::REDUCE_ANY, {x, axes_of({1}), scalar_bool(false)}, decl(OT::TENSOR_BOOL8));
  const tensor all = run_ok1(OpT::REDUCE_ALL, {x, axes_of({1}), scalar_bool(false)}, decl(OT::TENSOR_BOOL8));
  CHECK(any.raw(0) == 0);
  CHECK(any.raw(1) == 1);
  CHECK(any.raw(2) == 1);
  CHECK(all.raw(0) == 0);
  CHECK(all.raw(1) == 0);
  CHECK(all.raw(2) == 1);
}

TEST_CASE("reductions: output shapes (repeated and negative axes, keep_dims, everything reduced)") {
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {4, 3, 2});
  auto shape = [&](OpT op, std::vector<std::int32_t> axes, bool keep) {
    auto r = infer(op, {x, axes_of(axes), keep_operand(op, keep)}, {decl(OT::TENSOR_FLOAT32)}, true);
    REQUIRE_MESSAGE(r.ok(), r.err().message);
    return (*r)[0];
  };
  for (OpT op : {OpT::MEAN, OpT::REDUCE_SUM}) {
    CHECK(shape(op, {1, 0, -3, -3}, false) == dims_t{2});
    CHECK(shape(op, {0, 2}, true) == dims_t{1, 3, 1});
    CHECK(shape(op, {0, 1, 2}, false) == dims_t{1});
    CHECK(shape(op, {-1, -2, -3}, true) == dims_t{1, 1, 1});
    CHECK(shape(op, {}, false) == dims_t{4, 3, 2});
  }
  // MEAN's keep_dims is an INT32: positive keeps, zero and negative do not.
  auto mean_shape = [&](std::int32_t keep) {
    auto r = infer(OpT::MEAN, {x, axes_of({1}), scalar_i32(keep)}, {decl(OT::TENSOR_FLOAT32)}, true);
    REQUIRE(r.ok());
    return (*r)[0];
  };
  CHECK(mean_shape(5) == dims_t{4, 1, 2});
  CHECK(mean_shape(0) == dims_t{4, 2});
  CHECK(mean_shape(-1) == dims_t{4, 2});
  // An empty axes list reduces nothing: the values pass through.
  const tensor v = values(OT::TENSOR_FLOAT32, {2, 2}, {1, -2, 3, -4});
  const tensor y = run_ok1(OpT::REDUCE_MAX, {v, axes_of({}), scalar_bool(false)}, decl(OT::TENSOR_FLOAT32));
  CHECK(y.dims == dims_t{2, 2});
  CHECK(compare(y, {1, -2, 3, -4}, true).empty());
}

TEST_CASE("reductions: shape inference at validation time (unknown extents, axes, rank)") {
  const tensor unknown_ext = decl(OT::TENSOR_FLOAT32, {0, 3, 0});
  auto validate = [&](const tensor& in, const tensor& axes, const tensor& keep) {
    return infer(OpT::REDUCE_SUM, {in, axes, keep}, {decl(OT::TENSOR_FLOAT32)}, false);
  };
  auto r = validate(unknown_ext, axes_of({1}), scalar_bool(true));
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 1, 0});
  r = validate(unknown_ext, axes_of({-1}), scalar_bool(false));
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 3});
  // Axes not constant: the rank is known only with keep_dims = true.
  r = validate(unknown_ext, decl(OT::TENSOR_INT32, {2}), scalar_bool(true));
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 0, 0});
  r = validate(unknown_ext, decl(OT::TENSOR_INT32, {2}), scalar_bool(false));
  REQUIRE(r.ok());
  CHECK((*r)[0].empty());
  // keep_dims not constant: rank unknown.
  r = validate(unknown_ext, axes_of({0}), decl(OT::BOOL));
  REQUIRE(r.ok());
  CHECK((*r)[0].empty());
  // Unknown input rank: nothing known, nothing rejected.
  r = validate(decl(OT::TENSOR_FLOAT32, {}), axes_of({7}), scalar_bool(true));
  REQUIRE(r.ok());
  CHECK((*r)[0].empty());
  // Axes are range-checked as soon as the rank is known.
  r = validate(unknown_ext, axes_of({0, 3}), scalar_bool(true));
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message.find("axes[1]: 3 outside [-3, 3)") != std::string::npos);
}

TEST_CASE("reductions: bad operands are rejected with the operand named") {
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {2, 3});
  auto err = [&](OpT op, const std::vector<tensor>& ins, const tensor& out) {
    auto r = infer(op, ins, {out}, true);
    return r.ok() ? std::string() : r.err().message;
  };
  for (OpT op : {OpT::MEAN, OpT::REDUCE_SUM, OpT::REDUCE_MAX}) {
    INFO(str(op));
    CHECK(err(op, {x, axes_of({2}), keep_operand(op, false)}, decl(OT::TENSOR_FLOAT32)).find("axes[0]: 2 outside") !=
          std::string::npos);
    CHECK(err(op, {x, axes_of({0, -3}), keep_operand(op, false)}, decl(OT::TENSOR_FLOAT32)).find("axes[1]: -3") !=
          std::string::npos);
    tensor axes2d = axes_of({0, 1});
    axes2d.dims = {1, 2};
    CHECK(err(op, {x, axes2d, keep_operand(op, false)}, decl(OT::TENSOR_FLOAT32)).find("axes: must be a 1-D") !=
          std::string::npos);
    const tensor rank5 = make_tensor(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 2});
    CHECK(err(op, {rank5, axes_of({0}), keep_operand(op, false)}, decl(OT::TENSOR_FLOAT32)).find("input: rank 5") !=
          std::string::npos);
  }
  // Quantized MEAN / MAX / MIN outputs must keep the input's scale and zero point.
  const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f, 10);
  for (OpT op : {OpT::MEAN, OpT::REDUCE_MAX, OpT::REDUCE_MIN}) {
    INFO(str(op));
    CHECK(err(op, {q, axes_of({0}), keep_operand(op, false)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 10))
              .find("output: scale") != std::string::npos);
    CHECK(err(op, {q, axes_of({0}), keep_operand(op, false)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 11))
              .find("output: scale") != std::string::npos);
    CHECK(err(op, {q, axes_of({0}), keep_operand(op, false)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 10)).empty());
  }
}

TEST_CASE("reductions: zero-sized inputs") {
  // A zero extent that is kept gives a zero-sized output for every reduction.
  for (OpT op : reduce_ops) {
    const OT t = reduce_types(op)[0];
    INFO(str(op));
    const tensor x = make_tensor(t, {0, 3});
    const tensor y = run_ok1(op, {x, axes_of({1}), keep_operand(op, true)}, decl(t));
    CHECK(y.dims == dims_t{0, 1});
  }
  // Reducing a zero extent: identities where they exist, an error otherwise.
  const tensor e32 = make_tensor(OT::TENSOR_FLOAT32, {2, 0});
  const tensor eb = make_tensor(OT::TENSOR_BOOL8, {2, 0});
  auto reduce_empty = [](OpT op, const tensor& x) {
    return run_ok1(op, {x, axes_of({1}), scalar_bool(false)}, decl(x.type));
  };
  CHECK(compare(reduce_empty(OpT::REDUCE_SUM, e32), {0, 0}, true).empty());
  CHECK(compare(reduce_empty(OpT::REDUCE_PROD, e32), {1, 1}, true).empty());
  CHECK(compare(reduce_empty(OpT::REDUCE_ANY, eb), {0, 0}).empty());
  CHECK(compare(reduce_empty(OpT::REDUCE_ALL, eb), {1, 1}).empty());
  for (OpT op : {OpT::MEAN, OpT::REDUCE_MAX, OpT::REDUCE_MIN}) {
    INFO(str(op));
    const std::string e = run_error(op, {e32, axes_of({-1}), keep_operand(op, false)}, {decl(OT::TENSOR_FLOAT32)});
    CHECK(e.find("input: dimension 1 of [2, 0] is reduced but has extent 0") != std::string::npos);
  }
}

TEST_CASE("ARGMAX / ARGMIN: random inputs with many ties against the oracle") {
  std::mt19937 seeds(31337);
  for (bool is_min : {false, true}) {
    const OpT op = is_min ? OpT::ARGMIN : OpT::ARGMAX;
    for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                    OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
      for (int n = 0; n < 30; ++n) {
        const unsigned seed = seeds();
        std::mt19937 rng(seed);
        const dims_t dims = random_dims(rng, 1, 5, 5);
        const int rank = static_cast<int>(dims.size());
        const std::int32_t axis = uni(rng, -rank, rank - 1);
        tensor x = make_tensor(type, dims, is_quant8(type) ? 0.5f : 0.0f, is_quant8(type) ? 3 : 0);
        for (std::size_t i = 0; i < x.count(); ++i) {
          const int v = uni(rng, -3, 3);  // few distinct values: ties everywhere
          x.put(i, type == OT::TENSOR_QUANT8_ASYMM ? v + 100 : v);
        }
        CAPTURE(seed);
        INFO(str(op), " ", str(type), " dims ", str(dims), " axis ", axis);
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
        const tensor y = run_ok1(op, {x, scalar_i32(axis)}, decl(OT::TENSOR_INT32));
        CHECK(y.dims == arg_dims(dims, a));
        const std::string err = compare(y, expect_arg(x, a, is_min));
        CHECK_MESSAGE(err.empty(), err);
        if (type == OT::TENSOR_QUANT8_ASYMM) {
          const tensor s = run_ok1(op, {to_signed(x), scalar_i32(axis)}, decl(OT::TENSOR_INT32));
          CHECK(s.bytes == y.bytes);
        }
      }
    }
  }
}

TEST_CASE("ARGMAX / ARGMIN: ties go to the smallest index; NaN never wins after the first element") {
  const tensor x = values(OT::TENSOR_FLOAT32, {2, 4}, {1, 5, 5, 2, 7, 7, 7, 7});
  CHECK(compare(run_ok1(OpT::ARGMAX, {x, scalar_i32(1)}, decl(OT::TENSOR_INT32)), {1, 0}).empty());
  CHECK(compare(run_ok1(OpT::ARGMIN, {x, scalar_i32(-1)}, decl(OT::TENSOR_INT32)), {0, 0}).empty());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const tensor n = values(OT::TENSOR_FLOAT32, {2, 3}, {1, nan, 3, nan, 5, 6});
  const tensor mx = run_ok1(OpT::ARGMAX, {n, scalar_i32(1)}, decl(OT::TENSOR_INT32));
  CHECK(compare(mx, {2, 0}).empty());  // the AOSP reference's strict comparisons behave alike
  // Rank 1: the output is [1] (AOSP, b/155660285), not a rank 0 tensor.
  const tensor r1 = values(OT::TENSOR_FLOAT32, {3}, {1, 2, 4});
  const tensor y = run_ok1(OpT::ARGMAX, {r1, scalar_i32(0)}, decl(OT::TENSOR_INT32));
  CHECK(y.dims == dims_t{1});
  CHECK(y.raw(0) == 2);
}

/// ARGMAX (ARGMIN when `is_min`) through the reference fold for `type`.
nnhal::ops::kernel arg_reference(OT type, bool is_min) {
  namespace am = nnhal::ops::argmax;
  auto pick = [is_min]<class E>(E) {
    return is_min ? nnhal::ops::kernel{am::arg_min_max<E, true>} : nnhal::ops::kernel{am::arg_min_max<E, false>};
  };
  switch (type) {
    case OT::TENSOR_FLOAT32: return pick(ty::f32{});
    case OT::TENSOR_FLOAT16: return pick(ty::f16{});
    case OT::TENSOR_INT32: return pick(ty::i32{});
    case OT::TENSOR_QUANT8_ASYMM: return pick(ty::qu8{});
    default: return pick(ty::qs8{});
  }
}

TEST_CASE("ARGMAX / ARGMIN last axis (AVX-512 here) equal the reference fold: every type; ties, NaN, signed zeros, extremes") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::mt19937 rng(4242);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                  OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const bool is_float = type == OT::TENSOR_FLOAT32 || type == OT::TENSOR_FLOAT16;
    // The type's extremes stand in for the infinities; NaN and -0 are float-only.
    const double hi = is_float ? inf : type == OT::TENSOR_INT32 ? 2147483647.0 : type == OT::TENSOR_QUANT8_ASYMM ? 255.0 : 127.0;
    const double lo = is_float ? -inf : type == OT::TENSOR_INT32 ? -2147483648.0 : type == OT::TENSOR_QUANT8_ASYMM ? 0.0 : -128.0;
    const double mid = type == OT::TENSOR_QUANT8_ASYMM ? 100.0 : 0.0;
    for (bool is_min : {false, true}) {
      const OpT op = is_min ? OpT::ARGMIN : OpT::ARGMAX;
      for (std::uint32_t n : {1u, 2u, 15u, 16u, 17u, 31u, 33u, 64u, 100u, 1001u}) {
        for (int pattern = 0; pattern < 6; ++pattern) {
          // Enough rows for a parallel split with the reversed context below.
          const std::uint32_t rows = 2 * (16384 / n) + 3;
          tensor x = make_tensor(type, {rows, n}, is_quant8(type) ? 0.5f : 0.0f, is_quant8(type) ? 3 : 0);
          for (std::size_t i = 0; i < x.count(); ++i) {
            double v = mid + uni(rng, -3, 3);  // few distinct values: ties everywhere
            const int r = uni(rng, 0, 99);
            if (pattern >= 1 && r < 5) v = is_float ? nan : hi;                              // NaN anywhere, also first
            if (pattern >= 2 && r >= 5 && r < 10) v = is_float ? (r % 2 ? 0.0 : -0.0) : lo;  // signed zeros tie
            if (pattern >= 3 && r >= 10 && r < 12) v = r % 2 ? hi : lo;
            if (pattern == 4) v = lo;  // every value equal
            if (pattern == 5 && i % n == 0) v = is_float ? nan : hi;  // a NaN (or maximal) first element decides
            x.put(i, v);
          }
          INFO(str(op), " ", str(type), " n ", n, " pattern ", pattern);
          const std::vector<tensor> ins{x, scalar_i32(-1)};
          const tensor ref = run_entry1(op, arg_reference(type, is_min), ins, decl(OT::TENSOR_INT32));
          reversed_context reversed;
          const kernel_result k = run_kernel(op, ins, {decl(OT::TENSOR_INT32)}, pattern % 2 ? &reversed : nullptr);
          REQUIRE_MESSAGE(k.ok, k.error);
          CHECK(k.guards_intact);
          CHECK(k.outs[0].bytes == ref.bytes);
        }
      }
    }
  }
}

TEST_CASE("ARGMAX / ARGMIN: shape inference and bad operands") {
  auto err = [](OpT op, const tensor& x, const tensor& axis, bool executing) {
    auto r = infer(op, {x, axis}, {decl(OT::TENSOR_INT32)}, executing);
    return r.ok() ? std::string() : r.err().message;
  };
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {2, 3, 4});
  for (OpT op : {OpT::ARGMAX, OpT::ARGMIN}) {
    INFO(str(op));
    CHECK(err(op, x, scalar_i32(3), true).find("axis: 3 outside [-3, 3)") != std::string::npos);
    CHECK(err(op, x, scalar_i32(-4), false).find("axis: -4 outside") != std::string::npos);
    CHECK(err(op, make_tensor(OT::TENSOR_FLOAT32, {2, 0}), scalar_i32(0), true).find("input: must be non-empty") !=
          std::string::npos);
    CHECK(err(op, make_tensor(OT::TENSOR_FLOAT32, {3}), scalar_i32(1), true).find("axis: 1 outside [-1, 1)") !=
          std::string::npos);
    auto r = infer(op, {decl(OT::TENSOR_FLOAT32, {0, 3, 0}), decl(OT::INT32)}, {decl(OT::TENSOR_INT32)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 0});
    r = infer(op, {decl(OT::TENSOR_FLOAT32, {0, 3, 0}), scalar_i32(-3)}, {decl(OT::TENSOR_INT32)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{3, 0});
    r = infer(op, {decl(OT::TENSOR_FLOAT32, {}), scalar_i32(9)}, {decl(OT::TENSOR_INT32)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0].empty());
  }
}

TEST_CASE("TOPK_V2: random rows with ties against the counting oracle, qu8/qs8 parity") {
  std::mt19937 seeds(4242);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                  OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (int n = 0; n < 40; ++n) {
      const unsigned seed = seeds();
      std::mt19937 rng(seed);
      const dims_t dims = random_dims(rng, 1, 4, 9);
      const auto k = static_cast<std::int32_t>(uni(rng, 1, static_cast<int>(dims.back())));
      tensor x = make_tensor(type, dims, is_quant8(type) ? 2.0f : 0.0f, is_quant8(type) ? 7 : 0);
      const int spread = uni(rng, 0, 1) ? 4 : 100;
      for (std::size_t i = 0; i < x.count(); ++i) {
        const int v = uni(rng, -spread, spread);
        x.put(i, type == OT::TENSOR_QUANT8_ASYMM ? v + 128 : (is_quant8(type) ? std::clamp(v, -128, 127) : v / 4.0));
      }
      CAPTURE(seed);
      INFO(str(type), " dims ", str(dims), " k ", k);
      const auto outs =
          run_ok(OpT::TOPK_V2, {x, scalar_i32(k)}, {decl(type, {}, x.scale, x.zp), decl(OT::TENSOR_INT32)});
      dims_t want = dims;
      want.back() = static_cast<std::uint32_t>(k);
      CHECK(outs[0].dims == want);
      CHECK(outs[1].dims == want);
      std::vector<double> vals, idx;
      expect_topk(x, static_cast<std::size_t>(k), vals, idx);
      const std::string ev = compare(outs[0], vals, true);
      CHECK_MESSAGE(ev.empty(), ev);
      const std::string ei = compare(outs[1], idx);
      CHECK_MESSAGE(ei.empty(), ei);
      if (type == OT::TENSOR_QUANT8_ASYMM) {
        const auto s = run_ok(OpT::TOPK_V2, {to_signed(x), scalar_i32(k)},
                              {decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, x.scale, x.zp - 128), decl(OT::TENSOR_INT32)});
        for (std::size_t i = 0; i < outs[0].count(); ++i) REQUIRE(s[0].raw(i) == outs[0].raw(i) - 128);
        CHECK(s[1].bytes == outs[1].bytes);
      }
    }
  }
}

TEST_CASE("TOPK_V2: the bound kernel equals the reference bit for bit on long rows, ties, NaN and sorted data") {
  std::mt19937 rng(4343);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                  OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    for (int n : {1, 15, 16, 17, 33, 100, 1000, 3001}) {
      for (int k : {1, 2, 5, n / 3, n - 1, n}) {
        if (k < 1 || k > n) continue;
        for (const char* pattern : {"random", "ties", "ascending", "descending", "specials"}) {
          const std::string pat = pattern;
          if (pat == "specials" && type != OT::TENSOR_FLOAT32 && type != OT::TENSOR_FLOAT16) continue;
          const std::uint32_t rows = n > 500 ? 3 : 5;
          tensor x = make_tensor(type, {rows, static_cast<std::uint32_t>(n)}, is_quant8(type) ? 0.5f : 0.0f, is_quant8(type) ? 3 : 0);
          for (std::size_t i = 0; i < x.count(); ++i) {
            const auto j = static_cast<int>(i % static_cast<std::size_t>(n));
            int v = uni(rng, -100, 100);
            if (pat == "ties") v = uni(rng, -2, 2);
            if (pat == "ascending") v = j % 200 - 100;
            if (pat == "descending") v = 100 - j % 200;
            double real = type == OT::TENSOR_QUANT8_ASYMM ? v + 128 : (is_quant8(type) ? v : v / 4.0);
            if (pat == "specials") {
              const int r = uni(rng, 0, 9);
              real = r == 0 ? nan : r == 1 ? 0.0 : r == 2 ? -0.0 : r == 3 ? std::numeric_limits<double>::infinity() : v / 4.0;
            }
            x.put(i, real);
          }
          INFO(str(type), " n ", n, " k ", k, " ", pat);
          const std::vector<tensor> ins{x, scalar_i32(k)};
          const std::vector<tensor> decls{decl(type, {}, x.scale, x.zp), decl(OT::TENSOR_INT32)};
          const auto ref = run_entry(OpT::TOPK_V2,
                                     [type](const nnhal::ops::kernel_io& io) {
                                       namespace tk = nnhal::ops::topk_v2;
                                       switch (type) {
                                         case OT::TENSOR_FLOAT32: return tk::reference<ty::f32>(io);
                                         case OT::TENSOR_FLOAT16: return tk::reference<ty::f16>(io);
                                         case OT::TENSOR_INT32: return tk::reference<ty::i32>(io);
                                         case OT::TENSOR_QUANT8_ASYMM: return tk::reference<ty::qu8>(io);
                                         default: return tk::reference<ty::qs8>(io);
                                       }
                                     },
                                     ins, decls);
          reversed_context reversed;  // rows in two chunks when long enough
          const kernel_result got = run_kernel(OpT::TOPK_V2, ins, decls, &reversed);
          REQUIRE_MESSAGE(got.ok, got.error);
          CHECK(got.guards_intact);
          CHECK(got.outs[0].bytes == ref[0].bytes);
          CHECK(got.outs[1].bytes == ref[1].bytes);
        }
      }
    }
  }
}

TEST_CASE("TOPK_V2: equal values list the larger index first; NaN ranks highest; -0 ties +0") {
  const tensor x = values(OT::TENSOR_FLOAT32, {1, 6}, {3, 1, 3, 2, 3, 1});
  auto outs = run_ok(OpT::TOPK_V2, {x, scalar_i32(6)}, {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)});
  CHECK(compare(outs[0], {3, 3, 3, 2, 1, 1}, true).empty());
  CHECK(compare(outs[1], {4, 2, 0, 3, 5, 1}).empty());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const tensor n = values(OT::TENSOR_FLOAT32, {5}, {-0.0, nan, 0.0, std::numeric_limits<double>::infinity(), nan});
  outs = run_ok(OpT::TOPK_V2, {n, scalar_i32(5)}, {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)});
  CHECK(compare(outs[1], {4, 1, 3, 2, 0}).empty());
  CHECK(std::isnan(outs[0].real(0)));
  CHECK(std::signbit(outs[0].real(4)));  // values are copied, -0 stays -0
}

TEST_CASE("TOPK_V2: shape inference and bad operands") {
  auto err = [](const tensor& x, const tensor& k, const tensor& values_decl, bool executing) {
    auto r = infer(OpT::TOPK_V2, {x, k}, {values_decl, decl(OT::TENSOR_INT32)}, executing);
    return r.ok() ? std::string() : r.err().message;
  };
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {2, 3});
  CHECK(err(x, scalar_i32(4), decl(OT::TENSOR_FLOAT32), true).find("k: 4 exceeds the last dimension's extent 3") !=
        std::string::npos);
  CHECK(err(x, scalar_i32(0), decl(OT::TENSOR_FLOAT32), true).find("k: 0 must be >= 1") != std::string::npos);
  CHECK(err(x, scalar_i32(-2), decl(OT::TENSOR_FLOAT32), false).find("k: -2") != std::string::npos);
  const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f, 1);
  CHECK(err(q, scalar_i32(1), decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 2), true).find("values: scale") !=
        std::string::npos);
  // Validation: an unknown last extent cannot be checked against k yet.
  auto r = infer(OpT::TOPK_V2, {decl(OT::TENSOR_FLOAT32, {5, 0}), scalar_i32(9)},
                 {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)}, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{5, 9});
  r = infer(OpT::TOPK_V2, {decl(OT::TENSOR_FLOAT32, {5, 4}), decl(OT::INT32)},
            {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)}, false);
  REQUIRE(r.ok());
  CHECK((*r)[1] == dims_t{5, 0});
  // Zero rows: zero-sized outputs; a zero last extent leaves no valid k.
  const auto outs =
      run_ok(OpT::TOPK_V2, {make_tensor(OT::TENSOR_FLOAT32, {0, 4}), scalar_i32(2)},
             {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)});
  CHECK(outs[0].dims == dims_t{0, 2});
  CHECK(err(make_tensor(OT::TENSOR_FLOAT32, {3, 0}), scalar_i32(1), decl(OT::TENSOR_FLOAT32), true).find("k: 1") !=
        std::string::npos);
}

TEST_CASE("unsupported type combinations do not bind") {
  // REDUCE_SUM has no quant8 row; bind refuses rather than guessing.
  const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2}, 1.0f, 0);
  CHECK(bind_error(OpT::REDUCE_SUM, {q, axes_of({0}), scalar_bool(false)},
                   {decl(OT::TENSOR_QUANT8_ASYMM, {1}, 1.0f, 0)}) != "");
}

// ---------------------------------------------------------------------------------
// End to end: one-operation models through prepare / execute
// ---------------------------------------------------------------------------------

TEST_CASE("models: golden cases through prepare and execute, with dynamic output shapes") {
  // The spec's mean_quant8_2 example: [4, 3, 2] over axes {0, 2}, keep_dims.
  std::vector<double> data(24);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i + 1);
  const tensor x = values(OT::TENSOR_QUANT8_ASYMM, {4, 3, 2}, data, 0.8f, 5);
  for (bool dynamic : {false, true}) {
    INFO("dynamic output ", dynamic);
    const dims_t declared = dynamic ? dims_t{0, 0, 0} : dims_t{1, 3, 1};
    auto m = single(OpT::MEAN, {x, axes_of({0, 2}), scalar_i32(1)}, {decl(OT::TENSOR_QUANT8_ASYMM, declared, 0.8f, 5)});
    const auto r = run_model(m);
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(r.outs[0].dims == dims_t{1, 3, 1});
    CHECK(r.outs[0].raw(0) == 10);
    CHECK(r.outs[0].raw(1) == 12);
    CHECK(r.outs[0].raw(2) == 14);
  }
  // Axes as a model input (the CTS "all_tensors_as_inputs" variant).
  {
    auto m = single(OpT::REDUCE_MAX, {values(OT::TENSOR_FLOAT32, {3, 2}, {-1, -2, 3, 4, 5, -6}), axes_of({-1}),
                                      scalar_bool(false)},
                    {decl(OT::TENSOR_FLOAT32, {3})}, 2);
    const auto r = run_model(m);
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(compare(r.outs[0], {-1, 4, 5}, true).empty());
  }
  // TOPK_V2 with its two outputs.
  {
    auto m = single(OpT::TOPK_V2, {values(OT::TENSOR_QUANT8_ASYMM, {2, 3}, {1, 2, 3, 251, 250, 249}, 2.0f, 128),
                                   scalar_i32(2)},
                    {decl(OT::TENSOR_QUANT8_ASYMM, {2, 2}, 2.0f, 128), decl(OT::TENSOR_INT32, {2, 2})});
    const auto r = run_model(m);
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(compare(r.outs[1], {2, 1, 0, 1}).empty());
    CHECK(r.outs[0].raw(0) == 3);
    CHECK(r.outs[0].raw(3) == 250);
  }
  // ARGMIN on a rank 1 input reports [1].
  {
    auto m = single(OpT::ARGMIN, {values(OT::TENSOR_FLOAT32, {3}, {4, 1, 1}), scalar_i32(-1)},
                    {decl(OT::TENSOR_INT32, {0})});
    const auto r = run_model(m);
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(r.outs[0].dims == dims_t{1});
    CHECK(r.outs[0].raw(0) == 1);
  }
}

TEST_CASE("models: invalid operations fail at prepare or execution with INVALID_ARGUMENT") {
  auto expect_fail = [](const one_op_model& m, const std::string& needle) {
    const auto r = run_model(m);
    CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK_MESSAGE(r.message.find(needle) != std::string::npos, r.message);
  };
  const tensor x = values(OT::TENSOR_FLOAT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_fail(single(OpT::MEAN, {x, axes_of({2}), scalar_i32(0)}, {decl(OT::TENSOR_FLOAT32)}), "axes[0]: 2 outside");
  expect_fail(single(OpT::TOPK_V2, {x, scalar_i32(4)}, {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_INT32)}),
              "k: 4 exceeds");
  expect_fail(single(OpT::ARGMAX, {x, scalar_i32(-3)}, {decl(OT::TENSOR_INT32)}), "axis: -3 outside");
  const tensor q = values(OT::TENSOR_QUANT8_ASYMM, {2}, {1, 2}, 1.0f, 0);
  expect_fail(
      single(OpT::REDUCE_MIN, {q, axes_of({0}), scalar_bool(false)}, {decl(OT::TENSOR_QUANT8_ASYMM, {}, 2.0f, 0)}),
      "output: scale");
  // Axes given at execution time are checked at execution time.
  expect_fail(single(OpT::REDUCE_SUM, {x, axes_of({0, 5}), scalar_bool(true)}, {decl(OT::TENSOR_FLOAT32)}, 2),
              "axes[1]: 5 outside");
}

}  // namespace
