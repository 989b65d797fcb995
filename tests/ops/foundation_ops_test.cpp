// ADD, MUL, RELU, RESHAPE and CONCATENATION:
//  - oracle tests: random shapes/values, expected results computed from the real-number
//    definition in double, compared within the CTS tolerances;
//  - qu8/qs8 parity: the same data shifted by -128 must give results shifted by -128;
//  - hand-worked golden cases, run end to end through exec::prepare/execute;
//  - shape inference, the broadcast walker, zero-sized tensors, misaligned request data.
// Random cases draw a per-case seed from a fixed seed and print it on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "nnhal/ops/kernels/broadcast.hpp"
#include "nnhal/types/signatures/add.hpp"
#include "nnhal/types/signatures/concatenation.hpp"
#include "nnhal/types/signatures/mul.hpp"
#include "nnhal/types/signatures/relu.hpp"
#include "nnhal/types/signatures/reshape.hpp"
#include "support/random_cases.hpp"


// Vectors print their elements in failure messages.
namespace doctest {
template <class T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& v) {
    std::ostringstream os;
    os << std::setprecision(17) << "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      os << (i ? ", " : "");
      if constexpr (std::is_same_v<T, std::byte>) os << std::to_integer<int>(v[i]);
      else os << v[i];
    }
    os << "]";
    return String(os.str().c_str());
  }
};
}  // namespace doctest

using namespace nnhal::test::op;
using namespace nnhal::test::op::typed;
using namespace nnhal::test::op::cases;

namespace {

/// compare(), with bit equality demanded of the elements where `exact[i]` is set (plain
/// copies: float, or quant8 with the output's own quantization).
std::string compare_where_exact(const tensor& got, const std::vector<double>& expected, const std::vector<char>& exact) {
  if (std::string m = compare(got, expected); !m.empty()) return m;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!exact[i]) continue;
    const bool same = is_quant8(got.type) ? got.raw(i) == quantize(expected[i], got.scale, got.zp, got.type)
                                          : got.real(i) == expected[i];
    if (!same) return "element " + std::to_string(i) + " is not an exact copy";
  }
  return {};
}

/// A CONSTANT_REFERENCE operand of `m` in a pool of its own, `offset` bytes into it.
std::uint32_t constant_ref(one_op_model& m, const tensor& t, std::uint32_t offset) {
  ty::Memory mem = ty::Memory::allocate(offset + t.bytes.size());
  if (!t.bytes.empty()) std::memcpy(mem.data + offset, t.bytes.data(), t.bytes.size());
  m.model.pools.push_back(mem);
  const auto i = m.operand(t, ty::OperandLifeTime::CONSTANT_REFERENCE);
  m.model.main.operands[i].location = {static_cast<std::uint32_t>(m.model.pools.size() - 1), offset,
                                       static_cast<std::uint32_t>(t.bytes.size())};
  return i;
}

/// ADD/MUL: random broadcast shapes, values and (for quant8) scales and zero points.
op_case gen_binary(OpT op, OT type, int act, std::mt19937& rng) {
  const auto sh = random_broadcast(rng, 4, 7);
  op_case c;
  c.op = op;
  float s0 = 0, s1 = 0, so = 0;
  std::int32_t z0 = 0, z1 = 0, zo = 0;
  if (is_quant8(type)) {
    s0 = log_uniform(rng, 0.01, 1.0);
    s1 = log_uniform(rng, 0.01, 1.0);
    // Output scales around the result's natural range, so both in-range results and
    // saturation at either end occur.
    so = op == OpT::ADD ? std::max(s0, s1) * log_uniform(rng, 0.3, 3.0) : s0 * s1 * log_uniform(rng, 0.5, 300.0);
    z0 = random_zp(rng, type);
    z1 = random_zp(rng, type);
    zo = random_zp(rng, type);
  }
  tensor a = make_tensor(type, sh.a, s0, z0), b = make_tensor(type, sh.b, s1, z1);
  const double ranges[] = {1.0, 10.0, 100.0};
  double range = ranges[uni(rng, 0, 2)];
  if (type == OT::TENSOR_FLOAT16) range = 8.0;
  if (type == OT::TENSOR_INT32) range = op == OpT::ADD ? 100000.0 : 1000.0;
  fill_random(a, rng, range);
  fill_random(b, rng, range);
  c.ins = {a, b, scalar_i32(act)};
  c.out = decl(type, {}, so, zo);
  return c;
}

std::vector<double> expect_binary(const op_case& c, const dims_t& out) {
  const tensor& a = c.ins[0];
  const tensor& b = c.ins[1];
  const int act = static_cast<int>(c.ins[2].raw(0));
  std::vector<double> e(count_of(out));
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double x = a.real(broadcast_index(out, a.dims, i));
    const double y = b.real(broadcast_index(out, b.dims, i));
    e[i] = apply_activation(c.op == OpT::ADD ? x + y : x * y, act);
  }
  return e;
}

op_case gen_relu(OT type, std::mt19937& rng) {
  op_case c;
  c.op = OpT::RELU;
  float s = 0;
  std::int32_t z = 0;
  if (is_quant8(type)) {
    s = log_uniform(rng, 0.001, 2.0);
    z = random_zp(rng, type);
  }
  tensor x = make_tensor(type, random_dims(rng, 1, 4, 7), s, z);
  fill_random(x, rng, type == OT::TENSOR_FLOAT16 ? 100.0 : 1000.0);
  c.ins = {x};
  c.out = decl(type, {}, s, z);
  return c;
}

/// A random factorization of `total` into `rank` extents.
dims_t random_factorization(std::mt19937& rng, std::size_t total, int rank) {
  dims_t d;
  std::size_t rem = total;
  for (int k = 0; k + 1 < rank; ++k) {
    std::vector<std::size_t> divisors;
    for (std::size_t v = 1; v <= rem; ++v)
      if (rem % v == 0) divisors.push_back(v);
    const std::size_t pick = divisors[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(divisors.size()) - 1))];
    d.push_back(static_cast<std::uint32_t>(pick));
    rem /= pick;
  }
  d.push_back(static_cast<std::uint32_t>(rem));
  std::shuffle(d.begin(), d.end(), rng);
  return d;
}

/// RESHAPE: random input and a random target shape of the same count, maybe with one -1.
/// `target` receives the expected output shape.
op_case gen_reshape(OT type, std::mt19937& rng, dims_t& target) {
  op_case c;
  c.op = OpT::RESHAPE;
  float s = 0;
  std::int32_t z = 0;
  if (is_quant8(type)) {
    s = log_uniform(rng, 0.001, 2.0);
    z = random_zp(rng, type);
  }
  tensor x = make_tensor(type, random_dims(rng, 1, 4, 7), s, z);
  fill_random(x, rng, 10.0);
  target = random_factorization(rng, x.count(), uni(rng, 1, 4));
  std::vector<std::int32_t> shape(target.begin(), target.end());
  if (uni(rng, 0, 1)) shape[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(shape.size()) - 1))] = -1;
  c.ins = {x, i32_tensor(shape)};
  c.out = decl(type, {}, s, z);
  return c;
}

/// CONCATENATION: 1..4 inputs of rank 1..4 differing along a random axis; quant8 inputs
/// carry their own scale/zero point or the output's.
op_case gen_concat(OT type, std::mt19937& rng, bool allow_empty_axis = false) {
  op_case c;
  c.op = OpT::CONCATENATION;
  const dims_t base = random_dims(rng, 1, 4, 6);
  const int axis = uni(rng, 0, static_cast<int>(base.size()) - 1);
  const int n = uni(rng, 1, 4);
  float so = 0;
  std::int32_t zo = 0;
  if (is_quant8(type)) {
    so = log_uniform(rng, 0.01, 1.0);
    zo = random_zp(rng, type);
  }
  for (int k = 0; k < n; ++k) {
    dims_t d = base;
    d[static_cast<std::size_t>(axis)] = static_cast<std::uint32_t>(uni(rng, allow_empty_axis ? 0 : 1, 6));
    float s = so;
    std::int32_t z = zo;
    if (is_quant8(type)) {
      switch (uni(rng, 0, 3)) {
        case 0: break;  // the output's quantization: a plain copy
        case 1:         // own scale and zero point
          s = so * log_uniform(rng, 0.1, 10.0);
          z = random_zp(rng, type);
          break;
        case 2: z = random_zp(rng, type); break;           // same scale, other zero point
        default: s = so * log_uniform(rng, 0.1, 10.0);  // same zero point, other scale
      }
    }
    tensor t = make_tensor(type, d, s, z);
    fill_random(t, rng, 100.0);
    c.ins.push_back(t);
  }
  c.ins.push_back(scalar_i32(axis));
  c.out = decl(type, {}, so, zo);
  return c;
}

/// Expected concatenation, by locating every output element in its input; `exact`
/// marks elements that are plain copies (float, or the same quantization as the output).
dims_t expect_concat(const op_case& c, std::vector<double>& e, std::vector<char>& exact) {
  const std::size_t n = c.ins.size() - 1;
  const auto axis = static_cast<std::size_t>(c.ins[n].raw(0));
  dims_t out = c.ins[0].dims;
  out[axis] = 0;
  for (std::size_t k = 0; k < n; ++k) out[axis] += c.ins[k].dims[axis];
  e.assign(count_of(out), 0.0);
  exact.assign(e.size(), 0);
  std::vector<std::size_t> coord(out.size());
  for (std::size_t f = 0; f < e.size(); ++f) {
    std::size_t rem = f;
    for (std::size_t d = out.size(); d-- > 0;) {
      coord[d] = rem % out[d];
      rem /= out[d];
    }
    std::size_t k = 0, along = coord[axis];
    while (along >= c.ins[k].dims[axis]) along -= c.ins[k++].dims[axis];
    const tensor& in = c.ins[k];
    std::size_t idx = 0;
    for (std::size_t d = 0; d < out.size(); ++d) idx = idx * in.dims[d] + (d == axis ? along : coord[d]);
    e[f] = in.real(idx);
    exact[f] = !is_quant8(in.type) || (in.scale == c.out.scale && in.zp == c.out.zp);
  }
  return out;
}

struct saturation {
  std::size_t lo = 0, hi = 0;
};

constexpr std::array<OT, 5> binary_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32,
                                         OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED};
constexpr std::array<OT, 4> unary_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM,
                                        OT::TENSOR_QUANT8_ASYMM_SIGNED};

}  // namespace

// =================================================================================
// 1. Oracle tests
// =================================================================================

TEST_CASE("oracle: ADD and MUL match the real-number definition over random broadcasts") {
  std::mt19937 seeds(0xADD0);
  for (OpT op : {OpT::ADD, OpT::MUL}) {
    for (OT type : binary_types) {
      saturation sat;
      for (int i = 0; i < 400; ++i) {
        const std::uint32_t seed = seeds();
        const int act = type == OT::TENSOR_INT32 ? 0 : i % 4;
        std::mt19937 rng(seed);
        const op_case c = gen_binary(op, type, act, rng);
        INFO("seed=" << seed << " case " << i << ": " << c.describe());
        const auto r = run_ok1(op, c.ins, c.out);
        const dims_t want = naive_broadcast(c.ins[0].dims, c.ins[1].dims);
        REQUIRE_MESSAGE(r.dims == want, "dims " << str(r.dims) << ", expected " << str(want));
        const auto e = expect_binary(c, want);
        const std::string m = compare(r, e);
        CHECK_MESSAGE(m.empty(), m);
        if (is_quant8(type) && act == 0)
          for (double v : e) {
            const auto q = quantize_unclamped(v, c.out.scale, c.out.zp);
            sat.lo += q < qmin(type);
            sat.hi += q > qmax(type);
          }
      }
      if (is_quant8(type)) {
        INFO(str(op) << " " << str(type) << ": saturation coverage");
        CHECK(sat.lo > 0);
        CHECK(sat.hi > 0);
      }
    }
  }
}

TEST_CASE("oracle: quant8 ADD/MUL at the zero-point extremes, every activation") {
  // Every combination of extreme zero points, each activation: exhaustive-ish grids
  // of all stored values against a few, for both quant8 types.
  std::mt19937 rng(0x2E20);
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const std::int32_t lo = static_cast<std::int32_t>(qmin(type)), hi = static_cast<std::int32_t>(qmax(type));
    for (OpT op : {OpT::ADD, OpT::MUL})
      for (std::int32_t z0 : {lo, hi})
        for (std::int32_t zo : {lo, hi, (lo + hi + 1) / 2})
          for (int act = 0; act < 4; ++act) {
            const float s0 = log_uniform(rng, 0.01, 0.5), s1 = log_uniform(rng, 0.01, 0.5);
            const float so = op == OpT::ADD ? std::max(s0, s1) * log_uniform(rng, 0.5, 2.0)
                                            : s0 * s1 * log_uniform(rng, 20.0, 200.0);
            // a: every stored value [256]; b: [1] one value, broadcast.
            tensor a = make_tensor(type, {256}, s0, z0);
            for (std::size_t i = 0; i < 256; ++i) {
              if (type == OT::TENSOR_QUANT8_ASYMM) a.set(i, static_cast<std::uint8_t>(i));
              else a.set(i, static_cast<std::int8_t>(static_cast<int>(i) - 128));
            }
            tensor b = make_tensor(type, {1}, s1, z0 == lo ? hi : lo);
            fill_random(b, rng, 0);
            const op_case c{op, {a, b, scalar_i32(act)}, decl(type, {}, so, zo)};
            INFO(c.describe() << " act=" << act);
            const auto r = run_ok1(op, c.ins, c.out);
            const std::string m = compare(r, expect_binary(c, r.dims));
            CHECK_MESSAGE(m.empty(), m);
          }
  }
}

TEST_CASE("oracle: quant8 ADD/MUL with tiny output scales saturate") {
  // Validation accepts any output scale > 0; when the requantization multiplier is large,
  // apply_multiplier's left shift must saturate (it once wrapped in 32 bits, so a result
  // that must saturate high came out as the minimum).
  SUBCASE("MUL: s 1 * s 1 -> s 2^-16 (multiplier 65536)") {
    // reals [1, 256, 65025] / 2^-16: all far above 255 -> [255, 255, 255]
    const tensor a = qu8({3}, 1.0f, 0, {1, 16, 255});
    const op_case c{OpT::MUL, {a, a, scalar_i32(0)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 65536, 0)};
    const auto r = run_ok1(c.op, c.ins, c.out);
    CHECK(raws_of(r) == std::vector<std::int64_t>{255, 255, 255});  // got [255, 255, 0]
  }
  SUBCASE("ADD: s 1 + s 1 -> s 2^-22 (multiplier 8 after the 2^20 headroom)") {
    // reals [510, 0, 128] / 2^-22 -> [255, 0, 255]
    const op_case c{OpT::ADD,
                    {qu8({3}, 1.0f, 0, {255, 0, 128}), qu8({3}, 1.0f, 0, {255, 0, 0}), scalar_i32(0)},
                    decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 4194304, 0)};
    const auto r = run_ok1(c.op, c.ins, c.out);
    CHECK(raws_of(r) == std::vector<std::int64_t>{255, 0, 255});  // got [0, 0, 255]
  }
}

TEST_CASE("oracle: RELU is max(0, x) in real numbers") {
  std::mt19937 seeds(0x4E10);
  for (OT type : unary_types) {
    for (int i = 0; i < 200; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const op_case c = gen_relu(type, rng);
      INFO("seed=" << seed << ": " << c.describe());
      const auto r = run_ok1(OpT::RELU, c.ins, c.out);
      REQUIRE(r.dims == c.ins[0].dims);
      std::vector<double> e = reals_of(c.ins[0]);
      for (auto& v : e) v = std::max(v, 0.0);
      // max() is exact: every element must be bit-exact (quant8: max(q, zp)).
      const std::string m = compare_where_exact(r, e, std::vector<char>(e.size(), 1));
      CHECK_MESSAGE(m.empty(), m);
    }
  }
}

TEST_CASE("oracle: RESHAPE keeps the bytes and takes the target shape") {
  std::mt19937 seeds(0x4E5A);
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED,
                  OT::TENSOR_INT32}) {
    for (int i = 0; i < 60; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      dims_t target;
      const op_case c = gen_reshape(type, rng, target);
      INFO("seed=" << seed << ": " << c.describe() << " target " << str(target));
      const auto r = run_ok1(OpT::RESHAPE, c.ins, c.out);
      CHECK(r.dims == target);
      CHECK(r.bytes == c.ins[0].bytes);
    }
  }
}

TEST_CASE("oracle: CONCATENATION places (and requantizes) every input") {
  std::mt19937 seeds(0xC0CA);
  for (OT type : unary_types) {
    for (int i = 0; i < 300; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const op_case c = gen_concat(type, rng);
      INFO("seed=" << seed << ": " << c.describe());
      const auto r = run_ok1(OpT::CONCATENATION, c.ins, c.out);
      std::vector<double> e;
      std::vector<char> exact;
      const dims_t want = expect_concat(c, e, exact);
      REQUIRE_MESSAGE(r.dims == want, "dims " << str(r.dims) << ", expected " << str(want));
      const std::string m = compare_where_exact(r, e, exact);
      CHECK_MESSAGE(m.empty(), m);
    }
  }
}

TEST_CASE("oracle: quant8 CONCATENATION requantization saturates at both ends") {
  // Inputs spanning the whole range with a larger scale than the output's: the
  // requantized values overflow the output's range on both sides.
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const int lo = static_cast<int>(qmin(type)), hi = static_cast<int>(qmax(type));
    const int mid = (lo + hi + 1) / 2;
    std::vector<int> all;
    for (int v = lo; v <= hi; ++v) all.push_back(v);
    const tensor a = q8(type, {256}, 0.75f, mid, all);
    const tensor b = q8(type, {2}, 0.25f, lo, {lo, hi});  // same params as the output: copied
    const op_case c{OpT::CONCATENATION, {a, b, scalar_i32(0)}, decl(type, {}, 0.25f, lo)};
    INFO(c.describe());
    const auto r = run_ok1(c.op, c.ins, c.out);
    std::vector<double> e;
    std::vector<char> exact;
    REQUIRE(expect_concat(c, e, exact) == r.dims);
    const std::string m = compare_where_exact(r, e, exact);
    CHECK_MESSAGE(m.empty(), m);
    CHECK(r.raw(0) == lo);    // (lo - mid) * 0.75 < 0: below the output's zero point (its minimum)
    CHECK(r.raw(255) == hi);  // (hi - mid) * 0.75 / 0.25 = 381 steps above the minimum: saturates
    CHECK(r.raw(256) == lo);
    CHECK(r.raw(257) == hi);
  }
}

TEST_CASE("oracle: quant8 CONCATENATION with extreme scale ratios saturates, never converts out of range") {
  // Scale ratios of 1e20 (finite: (x - zp) * ratio is far past int32) and 1e40 (inf in
  // float: x == zp gives inf - inf) must give the real-number answer: the far end of the
  // range on the side of x - zp, and the output's zero point where x == zp.
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const int lo = static_cast<int>(qmin(type)), hi = static_cast<int>(qmax(type));
    const int zp_in = lo + 100, zp_out = lo + 7;
    for (const float in_scale : {1e10f, 1e20f}) {
      const tensor a = q8(type, {5}, in_scale, zp_in, {lo, zp_in - 1, zp_in, zp_in + 1, hi});
      const op_case c{OpT::CONCATENATION, {a, scalar_i32(0)}, decl(type, {}, 1e-20f, zp_out)};
      INFO(c.describe());
      const auto r = run_ok1(c.op, c.ins, c.out);
      REQUIRE(r.dims == dims_t{5});
      CHECK(r.raw(0) == lo);
      CHECK(r.raw(1) == lo);
      CHECK(r.raw(2) == zp_out);
      CHECK(r.raw(3) == hi);
      CHECK(r.raw(4) == hi);
    }
  }
}

TEST_CASE("oracle: CONCATENATION split into parallel chunks of rows places every input") {
  // 4000 output rows of 700 bytes pass two chunk grains; the reversed context runs the
  // halves in reverse. One input is copied, the other requantized.
  std::mt19937 rng(0xC0C1);
  const OT type = OT::TENSOR_QUANT8_ASYMM;
  tensor a = make_tensor(type, {4000, 300}, 0.1f, 3), b = make_tensor(type, {4000, 400}, 0.3f, 140);
  fill_random(a, rng, 0);
  fill_random(b, rng, 0);
  const op_case c{OpT::CONCATENATION, {a, b, scalar_i32(1)}, decl(type, {}, 0.1f, 3)};
  reversed_context reversed;
  const kernel_result split = run_kernel(c.op, c.ins, {c.out}, &reversed);
  REQUIRE(split.ok);
  CHECK(split.guards_intact);
  std::vector<double> e;
  std::vector<char> exact;
  REQUIRE(expect_concat(c, e, exact) == split.outs[0].dims);
  const std::string m = compare_where_exact(split.outs[0], e, exact);
  CHECK_MESSAGE(m.empty(), m);
}

// =================================================================================
// 2. Signed/unsigned parity
// =================================================================================

TEST_CASE("parity: qs8 results equal qu8 results - 128 (ADD, MUL)") {
  std::mt19937 seeds(0x9A21);
  for (OpT op : {OpT::ADD, OpT::MUL})
    for (int i = 0; i < 500; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const op_case c = gen_binary(op, OT::TENSOR_QUANT8_ASYMM, i % 4, rng);
      INFO("seed=" << seed << ": " << c.describe());
      check_parity(c);
    }
}

TEST_CASE("parity: qs8 results equal qu8 results - 128 (RELU, RESHAPE)") {
  std::mt19937 seeds(0x9A22);
  for (int i = 0; i < 100; ++i) {
    const std::uint32_t seed = seeds();
    std::mt19937 rng(seed);
    const op_case relu = gen_relu(OT::TENSOR_QUANT8_ASYMM, rng);
    dims_t target;
    const op_case reshape = gen_reshape(OT::TENSOR_QUANT8_ASYMM, rng, target);
    INFO("seed=" << seed << ": " << relu.describe() << " / " << reshape.describe());
    check_parity(relu);
    check_parity(reshape);
  }
}

TEST_CASE("parity: qs8 results equal qu8 results - 128 (CONCATENATION, requantized inputs)") {
  std::mt19937 seeds(0x9A23);
  for (int i = 0; i < 1500; ++i) {
    const std::uint32_t seed = seeds();
    std::mt19937 rng(seed);
    const op_case c = gen_concat(OT::TENSOR_QUANT8_ASYMM, rng);
    INFO("seed=" << seed << ": " << c.describe());
    check_parity(c);
  }
}

TEST_CASE("parity: CONCATENATION requantization of a value next to a rounding tie") {
  // A regression case: in s_in = 0.612213254, zp_in = 187; out s_out = 0.156310022,
  // zp_out = 102; x = 193. Exact: (193 - 187) * s_in / s_out = 23.49996 -> 23 -> q 125.
  // The AOSP path forms x * scale + (-zp_in * scale) in float, with scale = s_in * (1 / s_out);
  // for these operands the cancellation lands on 23.5 and rounds up: q 126, which nnhal
  // matches (the CTS expectations come from that path; 126 is within its tolerance).
  // The signed twin (x = 65, zp_in = 59) once came out 23.49995 -> -3, breaking parity:
  // signed values are now moved to the unsigned domain before the same float expression.
  const tensor in = qu8({1}, 0.612213254f, 187, {193});
  const op_case c{OpT::CONCATENATION, {in, scalar_i32(0)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.156310022f, 102)};
  INFO(c.describe());
  check_parity(c);
  const auto ru = run_ok1(c.op, c.ins, c.out);
  CHECK(ru.raw(0) == 126);  // the AOSP float formula's result (see above)
}

// =================================================================================
// 3. Hand-computed golden cases (end to end through exec::prepare / execute)
// =================================================================================

TEST_CASE("golden: ADD") {
  SUBCASE("quant8: scales 0.5 / 0.25, output 1.0") {
    // a = [2, 4, 10, 255] * 0.5  = [1, 2, 5, 127.5]
    // b = [4, 8, 3, 255] * 0.25  = [1, 2, 0.75, 63.75]
    // a + b                      = [2, 4, 5.75, 191.25] -> / 1.0, rounded: [2, 4, 6, 191]
    const auto out = run_golden(OpT::ADD,
                                {qu8({4}, 0.5f, 0, {2, 4, 10, 255}), qu8({4}, 0.25f, 0, {4, 8, 3, 255}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM, {4}, 1.0f, 0));
    CHECK(raws_of(out) == std::vector<std::int64_t>{2, 4, 6, 191});
  }
  SUBCASE("quant8: zero points, RELU, output zero point 10") {
    // a: s 0.5, zp 128: [128, 130, 100, 255]  -> [0, 1, -14, 63.5]
    // b: s 0.25, zp 100: [100, 104, 96, 254]  -> [0, 1, -1, 38.5]
    // sum [0, 2, -15, 102]; RELU [0, 2, 0, 102]; / 0.5 + 10 = [10, 14, 10, 214]
    const auto out = run_golden(
        OpT::ADD, {qu8({4}, 0.5f, 128, {128, 130, 100, 255}), qu8({4}, 0.25f, 100, {100, 104, 96, 254}), scalar_i32(1)},
        decl(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 10));
    CHECK(raws_of(out) == std::vector<std::int64_t>{10, 14, 10, 214});
  }
  SUBCASE("quant8 signed: saturation at both ends") {
    // scale 1, zp 0 everywhere: sums [-256, 254, 15, -15] -> clamped [-128, 127, 15, -15]
    const auto out = run_golden(
        OpT::ADD, {qs8({4}, 1.0f, 0, {-128, 127, 10, -10}), qs8({4}, 1.0f, 0, {-128, 127, 5, -5}), scalar_i32(0)},
        decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {4}, 1.0f, 0));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-128, 127, 15, -15});
  }
  SUBCASE("quant8 signed: RELU6 with output scale 0.5, zp -128") {
    // a s 0.25 zp 0: [0, 8, 40, -40] -> [0, 2, 10, -10]; b [1] s 1 zp 1: [2] -> 1
    // sum [1, 3, 11, -9]; RELU6 [1, 3, 6, 0]; / 0.5 - 128 = [-126, -122, -116, -128]
    const auto out = run_golden(
        OpT::ADD, {qs8({4}, 0.25f, 0, {0, 8, 40, -40}), qs8({1}, 1.0f, 1, {2}), scalar_i32(3)},
        decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {4}, 0.5f, -128));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-126, -122, -116, -128});
  }
  SUBCASE("float32: broadcast [2,3] + [3], RELU1") {
    // row 0: [0.5, -2, 0.25] + [0.25, 1.5, -0.5] = [0.75, -0.5, -0.25]
    // row 1: [3, -0.5, 0]    + [0.25, 1.5, -0.5] = [3.25, 1, -0.5] -> RELU1 [1, 1, -0.5]
    const auto out = run_golden(OpT::ADD,
                                {f32({2, 3}, {0.5f, -2, 0.25f, 3, -0.5f, 0}), f32({3}, {0.25f, 1.5f, -0.5f}), scalar_i32(2)},
                                decl(OT::TENSOR_FLOAT32, {2, 3}));
    CHECK(out.dims == dims_t{2, 3});
    CHECK(reals_of(out) == std::vector<double>{0.75, -0.5, -0.25, 1, 1, -0.5});
  }
  SUBCASE("float16: RELU6, [4] + [1]") {
    // [1.5, 5, -3, 2.25] + 2 = [3.5, 7, -1, 4.25] -> RELU6 [3.5, 6, 0, 4.25]
    const auto out = run_golden(OpT::ADD, {f16({4}, {1.5f, 5, -3, 2.25f}), f16({1}, {2}), scalar_i32(3)},
                                decl(OT::TENSOR_FLOAT16, {4}));
    CHECK(reals_of(out) == std::vector<double>{3.5, 6, 0, 4.25});
  }
  SUBCASE("int32: [2,1] + [1,3], dynamic output shape") {
    // [[10], [-20]] + [[1, 2, 3]] = [[11, 12, 13], [-19, -18, -17]]
    const auto out = run_golden(OpT::ADD, {i32({2, 1}, {10, -20}), i32({1, 3}, {1, 2, 3}), scalar_i32(0)},
                                decl(OT::TENSOR_INT32, {0, 0}));
    CHECK(out.dims == dims_t{2, 3});
    CHECK(raws_of(out) == std::vector<std::int64_t>{11, 12, 13, -19, -18, -17});
  }
}

TEST_CASE("golden: MUL") {
  SUBCASE("quant8: scales 0.5 / 0.25, output 0.5 zp 10, saturation") {
    // a = [4, 6, 0, 255] * 0.5 = [2, 3, 0, 127.5]; b = [8, 12, 200, 4] * 0.25 = [2, 3, 50, 1]
    // a * b = [4, 9, 0, 127.5]; / 0.5 + 10 = [18, 28, 10, 265 -> 255]
    const auto out = run_golden(OpT::MUL,
                                {qu8({4}, 0.5f, 0, {4, 6, 0, 255}), qu8({4}, 0.25f, 0, {8, 12, 200, 4}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 10));
    CHECK(raws_of(out) == std::vector<std::int64_t>{18, 28, 10, 255});
  }
  SUBCASE("quant8 signed: zero points, RELU") {
    // a s 0.5 zp -10: [-10, -8, -14, 127] -> [0, 1, -2, 68.5]
    // b s 2 zp 3:     [3, 5, 4, -128]     -> [0, 4, 2, -262]
    // a * b = [0, 4, -4, -17947]; RELU [0, 4, 0, 0]; / 1 - 100 = [-100, -96, -100, -100]
    const auto out = run_golden(
        OpT::MUL, {qs8({4}, 0.5f, -10, {-10, -8, -14, 127}), qs8({4}, 2.0f, 3, {3, 5, 4, -128}), scalar_i32(1)},
        decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {4}, 1.0f, -100));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-100, -96, -100, -100});
  }
  SUBCASE("quant8 signed: negative saturation, RELU1") {
    // a s 0.5 zp 0: [-128, 4, 1]; b [1] s 0.5 zp 0: [100] -> 50
    // a * b = [-3200, 100, 25]; NONE would saturate; RELU1 [-1, 1, 1]; / 0.125 + 0 = [-8, 8, 8]
    const auto out = run_golden(OpT::MUL, {qs8({3}, 0.5f, 0, {-128, 4, 1}), qs8({1}, 0.5f, 0, {100}), scalar_i32(2)},
                                decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {3}, 0.125f, 0));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-8, 8, 8});
    // Same without activation: [-3200, 100, 25] / 0.125 = [-25600, 800, 200] -> [-128, 127, 127]
    const auto sat = run_golden(OpT::MUL, {qs8({3}, 0.5f, 0, {-128, 4, 1}), qs8({1}, 0.5f, 0, {100}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {3}, 0.125f, 0));
    CHECK(raws_of(sat) == std::vector<std::int64_t>{-128, 127, 127});
  }
  SUBCASE("float32: RELU6, [3] * [1]") {
    // [-1, 2, 3] * 3 = [-3, 6, 9] -> RELU6 [0, 6, 6]
    const auto out =
        run_golden(OpT::MUL, {f32({3}, {-1, 2, 3}), f32({1}, {3}), scalar_i32(3)}, decl(OT::TENSOR_FLOAT32, {3}));
    CHECK(reals_of(out) == std::vector<double>{0, 6, 6});
  }
  SUBCASE("float16: [2,2] * [2,1]") {
    // [[0.5, -4], [3, 0.25]] * [[2], [-8]] = [[1, -8], [-24, -2]]
    const auto out = run_golden(OpT::MUL, {f16({2, 2}, {0.5f, -4, 3, 0.25f}), f16({2, 1}, {2, -8}), scalar_i32(0)},
                                decl(OT::TENSOR_FLOAT16, {2, 2}));
    CHECK(reals_of(out) == std::vector<double>{1, -8, -24, -2});
  }
  SUBCASE("int32: [2,2] * [2]") {
    // [[1, 2], [3, 4]] * [10, -1] = [[10, -2], [30, -4]]
    const auto out = run_golden(OpT::MUL, {i32({2, 2}, {1, 2, 3, 4}), i32({2}, {10, -1}), scalar_i32(0)},
                                decl(OT::TENSOR_INT32, {2, 2}));
    CHECK(raws_of(out) == std::vector<std::int64_t>{10, -2, 30, -4});
  }
}

TEST_CASE("golden: RELU") {
  SUBCASE("quant8 signed, zp -5") {
    // s 0.5 zp -5: [-128, -6, -5, -4, 127] -> [-61.5, -0.5, 0, 0.5, 66] -> max 0 -> [-5, -5, -5, -4, 127]
    const auto out = run_golden(OpT::RELU, {qs8({5}, 0.5f, -5, {-128, -6, -5, -4, 127})},
                                decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.5f, -5));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-5, -5, -5, -4, 127});
  }
  SUBCASE("quant8, zp 255: every value is <= 0") {
    // s 0.5 zp 255: [0, 254, 255] -> [-127.5, -0.5, 0] -> all 0 -> [255, 255, 255]
    const auto out = run_golden(OpT::RELU, {qu8({3}, 0.5f, 255, {0, 254, 255})},
                                decl(OT::TENSOR_QUANT8_ASYMM, {3}, 0.5f, 255));
    CHECK(raws_of(out) == std::vector<std::int64_t>{255, 255, 255});
  }
  SUBCASE("quant8, zp 0: identity") {
    const auto out = run_golden(OpT::RELU, {qu8({3}, 0.5f, 0, {0, 1, 255})}, decl(OT::TENSOR_QUANT8_ASYMM, {3}, 0.5f, 0));
    CHECK(raws_of(out) == std::vector<std::int64_t>{0, 1, 255});
  }
  SUBCASE("float16 and float32") {
    // [-1.5, -0, 0, 2.25, 65504] -> [0, 0, 0, 2.25, 65504]
    const auto h = run_golden(OpT::RELU, {f16({5}, {-1.5f, -0.0f, 0, 2.25f, 65504})}, decl(OT::TENSOR_FLOAT16, {5}));
    CHECK(reals_of(h) == std::vector<double>{0, 0, 0, 2.25, 65504});
    const auto f = run_golden(OpT::RELU, {f32({2, 2}, {-1e30f, 1e-30f, -1e-30f, 7})}, decl(OT::TENSOR_FLOAT32, {0, 0}));
    CHECK(f.dims == dims_t{2, 2});
    CHECK(reals_of(f) == std::vector<double>{0, static_cast<double>(1e-30f), 0, 7});
  }
}

TEST_CASE("golden: RESHAPE") {
  // [2, 3] with shape [3, -1]: -1 = 6 / 3 = 2, bytes unchanged.
  const auto q = run_golden(OpT::RESHAPE, {qu8({2, 3}, 0.5f, 7, {0, 1, 2, 3, 4, 5}), i32_tensor({3, -1})},
                            decl(OT::TENSOR_QUANT8_ASYMM, {3, 2}, 0.5f, 7));
  CHECK(q.dims == dims_t{3, 2});
  CHECK(raws_of(q) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
  // [1, 2, 3, 1] float32 to [6]; output declared with unknown extent.
  const auto f = run_golden(OpT::RESHAPE, {f32({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6}), i32_tensor({-1})},
                            decl(OT::TENSOR_FLOAT32, {0}));
  CHECK(f.dims == dims_t{6});
  CHECK(reals_of(f) == std::vector<double>{1, 2, 3, 4, 5, 6});
  const auto s = run_golden(OpT::RESHAPE, {qs8({4}, 1.0f, -128, {-128, -1, 0, 127}), i32_tensor({2, 1, 2})},
                            decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {2, 1, 2}, 1.0f, -128));
  CHECK(raws_of(s) == std::vector<std::int64_t>{-128, -1, 0, 127});
  // TENSOR_INT32 (AIDL feature level 6).
  const auto i = run_golden(OpT::RESHAPE, {i32({2, 2}, {-7, 0, 1 << 30, 5}), i32_tensor({4})}, decl(OT::TENSOR_INT32, {4}));
  CHECK(raws_of(i) == std::vector<std::int64_t>{-7, 0, 1 << 30, 5});
}

TEST_CASE("golden: CONCATENATION") {
  SUBCASE("float32 axis 1") {
    // [[1, 2], [3, 4]] ++ [[5], [6]] along 1 = [[1, 2, 5], [3, 4, 6]]
    const auto out = run_golden(OpT::CONCATENATION, {f32({2, 2}, {1, 2, 3, 4}), f32({2, 1}, {5, 6}), scalar_i32(1)},
                                decl(OT::TENSOR_FLOAT32, {2, 3}));
    CHECK(reals_of(out) == std::vector<double>{1, 2, 5, 3, 4, 6});
  }
  SUBCASE("float16 axis 0") {
    // [[1, 2]] ++ [[3, 4], [5, 6]] = [[1, 2], [3, 4], [5, 6]]
    const auto out = run_golden(OpT::CONCATENATION, {f16({1, 2}, {1, 2}), f16({2, 2}, {3, 4, 5, 6}), scalar_i32(0)},
                                decl(OT::TENSOR_FLOAT16, {3, 2}));
    CHECK(out.dims == dims_t{3, 2});
    CHECK(reals_of(out) == std::vector<double>{1, 2, 3, 4, 5, 6});
  }
  SUBCASE("quant8: inputs requantized to the output") {
    // in0 s 0.5 zp 0: [2, 5] -> [1, 2.5];  in1 s 1 zp 10: [12, 7] -> [2, -3]
    // out s 0.25 zp 20: [1, 2.5, 2, -3] / 0.25 + 20 = [24, 30, 28, 8]
    const auto out = run_golden(OpT::CONCATENATION,
                                {qu8({2}, 0.5f, 0, {2, 5}), qu8({2}, 1.0f, 10, {12, 7}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM, {4}, 0.25f, 20));
    CHECK(raws_of(out) == std::vector<std::int64_t>{24, 30, 28, 8});
  }
  SUBCASE("quant8 signed: saturation, and an input with the output's quantization") {
    // in0 s 1 zp 0: [-100, 100] -> / 0.5 = [-200, 200] -> [-128, 127]; in1 = output params: copied
    const auto out = run_golden(OpT::CONCATENATION,
                                {qs8({2}, 1.0f, 0, {-100, 100}), qs8({2}, 0.5f, 0, {1, -1}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {4}, 0.5f, 0));
    CHECK(raws_of(out) == std::vector<std::int64_t>{-128, 127, 1, -1});
  }
  SUBCASE("three inputs along the last axis of a rank-3 tensor") {
    // [1,2,1] ++ [1,2,2] ++ [1,2,1] on axis 2:
    // row 0: [a0 | b0 b1 | c0], row 1: [a1 | b2 b3 | c1]
    const auto out = run_golden(
        OpT::CONCATENATION,
        {f32({1, 2, 1}, {1, 2}), f32({1, 2, 2}, {10, 11, 12, 13}), f32({1, 2, 1}, {100, 200}), scalar_i32(2)},
        decl(OT::TENSOR_FLOAT32, {1, 2, 4}));
    CHECK(reals_of(out) == std::vector<double>{1, 10, 11, 100, 2, 12, 13, 200});
  }
}

// =================================================================================
// 4. Shape inference
// =================================================================================

namespace {

template <class Sig>
bool infer_fails(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  auto r = infer_sig<Sig>(ins, out, executing);
  if (!r.ok()) CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  return !r.ok();
}

tensor F(dims_t d) { return decl(OT::TENSOR_FLOAT32, std::move(d)); }
tensor F_value(dims_t d) { return make_tensor(OT::TENSOR_FLOAT32, std::move(d)); }

}  // namespace

TEST_CASE("infer: ADD / MUL broadcasting") {
  const tensor act0 = scalar_i32(0), out = F({});
  SUBCASE("executing") {
    CHECK(infer_ok<sig::add>({F({2, 1, 3}), F({4, 1}), act0}, out, true) == dims_t{2, 4, 3});
    CHECK(infer_ok<sig::add>({F({3}), F({2, 3}), act0}, out, true) == dims_t{2, 3});
    CHECK(infer_ok<sig::add>({F({1}), F({1, 1, 1, 1}), act0}, out, true) == dims_t{1, 1, 1, 1});
    CHECK(infer_ok<sig::mul>({F({5, 1, 1}), F({1, 4, 1}), act0}, out, true) == dims_t{5, 4, 1});
    CHECK(infer_ok<sig::mul>({F({7, 6, 5, 4}), F({7, 6, 5, 4}), act0}, out, true) == dims_t{7, 6, 5, 4});
    // Zero-sized: 0 broadcasts against 1 and 0 only.
    CHECK(infer_ok<sig::add>({F({0, 3}), F({1, 3}), act0}, out, true) == dims_t{0, 3});
    CHECK(infer_ok<sig::add>({F({3, 1}), F({0}), act0}, out, true) == dims_t{3, 0});
    CHECK(infer_fails<sig::add>({F({0, 3}), F({2, 3}), act0}, out, true));
    CHECK(infer_fails<sig::add>({F({2, 3}), F({3, 2}), act0}, out, true));
    CHECK(infer_fails<sig::mul>({F({4}), F({2, 3}), act0}, out, true));
    CHECK(infer_fails<sig::mul>({F({1, 1, 1, 1, 1}), F({1}), act0}, out, true));  // rank 5
    CHECK(infer_fails<sig::add>({F({2}), F({2}), scalar_i32(4)}, out, true));    // not an activation
    CHECK(infer_fails<sig::add>({F({2}), F({2}), scalar_i32(-1)}, out, true));
    const tensor ia = make_tensor(OT::TENSOR_INT32, {2}), ib = make_tensor(OT::TENSOR_INT32, {2});
    CHECK(infer_ok<sig::add>({ia, ib, act0}, decl(OT::TENSOR_INT32, {}), true) == dims_t{2});
    CHECK(infer_fails<sig::add>({ia, ib, scalar_i32(1)}, decl(OT::TENSOR_INT32, {}), true));  // int32: NONE only
    CHECK(infer_fails<sig::mul>({ia, ib, scalar_i32(3)}, decl(OT::TENSOR_INT32, {}), true));
  }
  SUBCASE("validation: unknown extents") {
    CHECK(infer_ok<sig::add>({F({0, 3}), F({2, 1}), act0}, out, false) == dims_t{2, 3});
    CHECK(infer_ok<sig::add>({F({0, 3}), F({1, 3}), act0}, out, false) == dims_t{0, 3});
    CHECK(infer_ok<sig::add>({F({0, 3}), F({0, 3}), act0}, out, false) == dims_t{0, 3});
    CHECK(infer_ok<sig::mul>({F({0}), F({4, 5}), act0}, out, false) == dims_t{4, 5});
    CHECK(infer_ok<sig::add>({F({}), F({2, 3}), act0}, out, false).empty());  // unknown rank
    CHECK(infer_ok<sig::add>({F({2}), F({2}), decl(OT::INT32, {})}, out, false) == dims_t{2});  // act unknown
    CHECK(infer_fails<sig::add>({F({2, 3}), F({4, 3}), act0}, out, false));
    CHECK(infer_fails<sig::mul>({F({0, 3}), F({2, 4}), act0}, out, false));
  }
}

TEST_CASE("infer: RELU") {
  CHECK(infer_ok<sig::relu>({F({2, 3})}, F({}), true) == dims_t{2, 3});
  CHECK(infer_ok<sig::relu>({F({0, 3})}, F({}), false) == dims_t{0, 3});
  CHECK(infer_fails<sig::relu>({F({1, 1, 1, 1, 1})}, F({}), true));
  const tensor q = decl(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 3);
  CHECK(infer_ok<sig::relu>({q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 3), true) == dims_t{4});
  CHECK(infer_fails<sig::relu>({q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 4), true));
  CHECK(infer_fails<sig::relu>({q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 3), true));
}

TEST_CASE("infer: RESHAPE") {
  const tensor in = F_value({2, 3, 4});
  const tensor out = F({});
  SUBCASE("executing") {
    CHECK(infer_ok<sig::reshape>({in, i32_tensor({4, -1})}, out, true) == dims_t{4, 6});
    CHECK(infer_ok<sig::reshape>({in, i32_tensor({-1})}, out, true) == dims_t{24});
    CHECK(infer_ok<sig::reshape>({in, i32_tensor({2, -1, 3})}, out, true) == dims_t{2, 4, 3});
    CHECK(infer_ok<sig::reshape>({in, i32_tensor({1, 24, 1, 1})}, out, true) == dims_t{1, 24, 1, 1});
    CHECK(infer_fails<sig::reshape>({in, i32_tensor({-1, -1})}, out, true));
    CHECK(infer_fails<sig::reshape>({in, i32_tensor({5, -1})}, out, true));  // 24 % 5 != 0
    CHECK(infer_fails<sig::reshape>({in, i32_tensor({4, 5})}, out, true));   // 20 != 24
    CHECK(infer_fails<sig::reshape>({in, i32_tensor({-2, -12})}, out, true));
    CHECK(infer_fails<sig::reshape>({in, i32_tensor({1, 1, 2, 3, 4})}, out, true));  // rank 5
    CHECK(infer_fails<sig::reshape>({in, i32({1, 2}, {4, 6})}, out, true));           // shape not 1-D
    // Zero-sized input: -1 resolves to 0 when the known part is non-zero.
    CHECK(infer_ok<sig::reshape>({F_value({0, 3}), i32_tensor({-1, 3})}, out, true) == dims_t{0, 3});
    CHECK(infer_ok<sig::reshape>({F_value({0, 3}), i32_tensor({3, 0})}, out, true) == dims_t{3, 0});
    // Quantized: the output keeps the input's quantization.
    const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 1);
    CHECK(infer_ok<sig::reshape>({q, i32_tensor({2, 2})}, decl(q.type, {}, 0.5f, 1), true) == dims_t{2, 2});
    CHECK(infer_fails<sig::reshape>({q, i32_tensor({2, 2})}, decl(q.type, {}, 0.5f, 2), true));
  }
  SUBCASE("validation") {
    // Shape not constant: only the rank is known.
    CHECK(infer_ok<sig::reshape>({in, decl(OT::TENSOR_INT32, {3})}, out, false) == dims_t{0, 0, 0});
    // Input extents unknown: the -1 stays unknown, the rest is known.
    CHECK(infer_ok<sig::reshape>({F({0, 4}), i32_tensor({-1, 2})}, out, false) == dims_t{0, 2});
    CHECK(infer_ok<sig::reshape>({F({2, 3, 4}), i32_tensor({-1, 2})}, out, false) == dims_t{12, 2});
    CHECK(infer_fails<sig::reshape>({F({2, 3, 4}), i32_tensor({7, -1})}, out, false));
  }
}

TEST_CASE("infer: CONCATENATION") {
  const tensor out = F({});
  SUBCASE("executing") {
    CHECK(infer_ok<sig::concatenation>({F({2, 3}), F({2, 5}), scalar_i32(1)}, out, true) == dims_t{2, 8});
    CHECK(infer_ok<sig::concatenation>({F({1, 2}), F({3, 2}), F({2, 2}), scalar_i32(0)}, out, true) == dims_t{6, 2});
    CHECK(infer_ok<sig::concatenation>({F({4}), scalar_i32(0)}, out, true) == dims_t{4});
    CHECK(infer_ok<sig::concatenation>({F({2, 0}), F({2, 3}), scalar_i32(1)}, out, true) == dims_t{2, 3});
    CHECK(infer_ok<sig::concatenation>({F({1, 2, 3, 4}), F({1, 2, 3, 4}), scalar_i32(3)}, out, true) ==
          dims_t{1, 2, 3, 8});
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({2, 5}), scalar_i32(2)}, out, true));   // axis >= rank
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({2, 5}), scalar_i32(-1)}, out, true));  // negative axis
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({3, 5}), scalar_i32(1)}, out, true));   // extent 0 differs
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({2, 3, 1}), scalar_i32(1)}, out, true));  // rank differs
    CHECK(infer_fails<sig::concatenation>({F({1, 1, 1, 1, 1}), scalar_i32(0)}, out, true));       // rank 5
    CHECK(infer_fails<sig::concatenation>({F({0, 3}), F({2, 3}), scalar_i32(1)}, out, true));     // 0 vs 2
  }
  SUBCASE("validation") {
    CHECK(infer_ok<sig::concatenation>({F({2, 0}), F({2, 3}), scalar_i32(1)}, out, false) == dims_t{2, 0});
    CHECK(infer_ok<sig::concatenation>({F({0, 3}), F({2, 3}), scalar_i32(1)}, out, false) == dims_t{2, 6});
    CHECK(infer_ok<sig::concatenation>({F({2, 3}), F({2, 5}), decl(OT::INT32, {})}, out, false) == dims_t{0, 0});
    CHECK(infer_ok<sig::concatenation>({F({}), F({2, 3}), scalar_i32(1)}, out, false) == dims_t{2, 0});
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({3, 3}), scalar_i32(1)}, out, false));
    CHECK(infer_fails<sig::concatenation>({F({2, 3}), F({2, 3}), scalar_i32(5)}, out, false));
  }
  SUBCASE("quant8 inputs with other quantization than the output need HAL 1.2") {
    const tensor a = decl(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 1), b = decl(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 2);
    ty::HalVersion v = ty::HalVersion::V1_0;
    REQUIRE(infer_sig<sig::concatenation>({a, a, scalar_i32(0)}, a, false, &v).ok());
    CHECK(v == ty::HalVersion::V1_0);
    REQUIRE(infer_sig<sig::concatenation>({a, b, scalar_i32(0)}, a, false, &v).ok());
    CHECK(v == ty::HalVersion::V1_2);
  }
}

// =================================================================================
// 5. The broadcast walker
// =================================================================================

TEST_CASE("for_each_broadcast_run matches per-element index arithmetic") {
  std::mt19937 seeds(0xB0AD);
  auto check_walk = [](const dims_t& a, const dims_t& b, const dims_t& out) {
    const std::size_t total = count_of(out);
    std::vector<int> visits(total, 0);
    std::string bad;
    nnhal::ops::kernels::for_each_broadcast_run(
        out, a, b, [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
          if (!bad.empty()) return;
          if (as > 1 || bs > 1 || n == 0) {
            bad = "run with steps " + std::to_string(as) + "/" + std::to_string(bs) + ", n " + std::to_string(n);
            return;
          }
          for (std::size_t i = 0; i < n; ++i) {
            const std::size_t o = oo + i;
            if (o >= total) {
              bad = "output offset " + std::to_string(o) + " out of range";
              return;
            }
            ++visits[o];
            const std::size_t wa = broadcast_index(out, a, o), wb = broadcast_index(out, b, o);
            if (ao + i * as != wa || bo + i * bs != wb) {
              bad = "output " + std::to_string(o) + ": a " + std::to_string(ao + i * as) + " (want " +
                    std::to_string(wa) + "), b " + std::to_string(bo + i * bs) + " (want " + std::to_string(wb) + ")";
              return;
            }
          }
        });
    CHECK_MESSAGE(bad.empty(), bad);
    CHECK(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));
  };
  for (int i = 0; i < 1500; ++i) {
    const std::uint32_t seed = seeds();
    std::mt19937 rng(seed);
    const auto sh = random_broadcast(rng, 6, 4);
    INFO("seed=" << seed << " a=" << str(sh.a) << " b=" << str(sh.b) << " out=" << str(sh.out));
    check_walk(sh.a, sh.b, sh.out);
    check_walk(sh.b, sh.a, sh.out);
  }
  // Edge shapes: all-ones, scalars of rank 0, a broadcast in the middle, inputs of rank 0.
  check_walk({1, 1, 1}, {1}, {1, 1, 1});
  check_walk({}, {}, {});
  check_walk({}, {2, 3}, {2, 3});
  check_walk({4, 1, 5}, {4, 3, 5}, {4, 3, 5});
  check_walk({1, 3, 1, 2}, {2, 1, 4, 1}, {2, 3, 4, 2});
  check_walk({2, 1, 1, 1, 1, 3}, {1, 5, 1, 1, 7, 1}, {2, 5, 1, 1, 7, 3});
  // Zero-sized outputs: no run at all.
  int calls = 0;
  nnhal::ops::kernels::for_each_broadcast_run(dims_t{3, 0}, dims_t{3, 1}, dims_t{0},
                                              [&](std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,
                                                  std::size_t) { ++calls; });
  CHECK(calls == 0);
}

// =================================================================================
// 6. Zero-sized tensors and misaligned request data
// =================================================================================

TEST_CASE("zero-sized tensors: no writes, no crash") {
  auto expect_empty = [](const tensor& r, const dims_t& dims) {
    CHECK(r.dims == dims);
    CHECK(r.bytes.empty());
  };
  for (OT type : binary_types) {
    INFO(str(type));
    const float s = is_quant8(type) ? 0.5f : 0.0f;
    for (OpT op : {OpT::ADD, OpT::MUL}) {
      expect_empty(run_ok1(op, {make_tensor(type, {0, 3}, s), make_tensor(type, {1, 3}, s), scalar_i32(0)}, decl(type, {}, s)),
                   {0, 3});
      expect_empty(run_ok1(op, {make_tensor(type, {3, 1}, s), make_tensor(type, {0}, s), scalar_i32(0)}, decl(type, {}, s)),
                   {3, 0});
      expect_empty(run_ok1(op, {make_tensor(type, {2, 0, 4}, s), make_tensor(type, {4}, s), scalar_i32(0)},
                          decl(type, {}, s)),
                   {2, 0, 4});
    }
  }
  for (OT type : unary_types) {
    INFO(str(type));
    const float s = is_quant8(type) ? 0.5f : 0.0f;
    expect_empty(run_ok1(OpT::RELU, {make_tensor(type, {0}, s)}, decl(type, {}, s)), {0});
    expect_empty(run_ok1(OpT::RELU, {make_tensor(type, {2, 0, 3}, s)}, decl(type, {}, s)), {2, 0, 3});
    expect_empty(run_ok1(OpT::RESHAPE, {make_tensor(type, {0, 3}, s), i32_tensor({3, 0})}, decl(type, {}, s)), {3, 0});
    expect_empty(run_ok1(OpT::RESHAPE, {make_tensor(type, {0, 3}, s), i32_tensor({-1, 3})}, decl(type, {}, s)), {0, 3});
    expect_empty(run_ok1(OpT::CONCATENATION, {make_tensor(type, {0, 2}, s), make_tensor(type, {0, 3}, s), scalar_i32(1)},
                        decl(type, {}, s)),
                 {0, 5});
    expect_empty(run_ok1(OpT::CONCATENATION, {make_tensor(type, {2, 0}, s), make_tensor(type, {2, 0}, s), scalar_i32(1)},
                        decl(type, {}, s)),
                 {2, 0});
  }
  SUBCASE("empty inputs among non-empty ones contribute nothing") {
    std::mt19937 seeds(0x2E50);
    for (OT type : unary_types)
      for (int i = 0; i < 60; ++i) {
        const std::uint32_t seed = seeds();
        std::mt19937 rng(seed);
        const op_case c = gen_concat(type, rng, /*allow_empty_axis=*/true);
        INFO("seed=" << seed << ": " << c.describe());
        const auto r = run_ok1(c.op, c.ins, c.out);
        std::vector<double> e;
        std::vector<char> exact;
        REQUIRE(expect_concat(c, e, exact) == r.dims);
        const std::string m = compare_where_exact(r, e, exact);
        CHECK_MESSAGE(m.empty(), m);
      }
  }
}

TEST_CASE("misaligned request data: inputs and outputs at odd offsets") {
  // Every input `in` bytes past an 8-byte boundary, the output `out` bytes into its pool.
  auto run_at = [](const one_op_model& m, std::uint32_t in, std::uint32_t out) {
    const auto r = run_model_with(m, request_layout{.capacity = 1u << 16, .in_misalign = in, .out_misalign = out});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    REQUIRE(r.outs.size() == 1);
    return r.outs[0];
  };
  SUBCASE("ADD float32, inputs 1 byte into the pool, output at offset 3") {
    // [[1, 2, 3], [4, 5, 6]] + [0.5, -1, 2] = [[1.5, 1, 5], [4.5, 4, 8]]
    const auto m = model_of(OpT::ADD, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {0.5f, -1, 2}), scalar_i32(0)},
                            decl(OT::TENSOR_FLOAT32, {2, 3}));
    CHECK(reals_of(run_at(m, 1, 3)) == std::vector<double>{1.5, 1, 5, 4.5, 4, 8});
  }
  SUBCASE("ADD float32 with the activation scalar as a misaligned model input") {
    // RELU: [-1, 2] + [0.5, -3] = [-0.5, -1] -> [0, 0]; [3, 4] + [0.5, -3] = [3.5, 1]
    one_op_model m;
    const auto a = m.input(f32({2, 2}, {-1, 2, 3, 4}));
    const auto b = m.input(f32({2}, {0.5f, -3}));
    const auto act = m.input(scalar_i32(1));
    const auto out = m.output(decl(OT::TENSOR_FLOAT32, {2, 2}));
    m.operation(OpT::ADD, {a, b, act}, {out});
    CHECK(reals_of(run_at(m, 1, 1)) == std::vector<double>{0, 0, 3.5, 1});
  }
  SUBCASE("MUL float16 with a CONSTANT_REFERENCE stored at an odd offset") {
    // [1, 2, -3, 0.5] * [2, 0.25, 1, -4] = [2, 0.5, -3, -2]
    one_op_model m;
    const auto a = m.input(f16({4}, {1, 2, -3, 0.5f}));
    const auto b = constant_ref(m, f16({4}, {2, 0.25f, 1, -4}), 1);
    const auto act = m.constant(scalar_i32(0));
    const auto out = m.output(decl(OT::TENSOR_FLOAT16, {4}));
    m.operation(OpT::MUL, {a, b, act}, {out});
    CHECK(reals_of(run_at(m, 1, 1)) == std::vector<double>{2, 0.5, -3, -2});
  }
  SUBCASE("MUL int32, RELU float32/float16, RESHAPE and CONCATENATION float32") {
    auto run = [&](OpT op, const std::vector<tensor>& ins, const tensor& out_decl) {
      return run_at(model_of(op, ins, out_decl), 1, 5);
    };
    CHECK(raws_of(run(OpT::MUL, {i32({3}, {-2, 3, 7}), i32({1}, {-5}), scalar_i32(0)}, decl(OT::TENSOR_INT32, {3}))) ==
          std::vector<std::int64_t>{10, -15, -35});
    CHECK(reals_of(run(OpT::RELU, {f32({3}, {-2, 0.5f, 7})}, decl(OT::TENSOR_FLOAT32, {3}))) ==
          std::vector<double>{0, 0.5, 7});
    CHECK(reals_of(run(OpT::RELU, {f16({3}, {-2, 0.5f, 7})}, decl(OT::TENSOR_FLOAT16, {3}))) ==
          std::vector<double>{0, 0.5, 7});
    const auto rs = run(OpT::RESHAPE, {f32({2, 2}, {1, 2, 3, 4}), i32_tensor({4, 1})}, decl(OT::TENSOR_FLOAT32, {4, 1}));
    CHECK(rs.dims == dims_t{4, 1});
    CHECK(reals_of(rs) == std::vector<double>{1, 2, 3, 4});
    CHECK(reals_of(run(OpT::CONCATENATION, {f32({1, 2}, {1, 2}), f32({1, 1}, {3}), scalar_i32(1)},
                       decl(OT::TENSOR_FLOAT32, {1, 3}))) == std::vector<double>{1, 2, 3});
  }
  SUBCASE("random ADD/MUL float32 cases agree with direct kernel calls") {
    std::mt19937 seeds(0x0DD5);
    for (int i = 0; i < 20; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const op_case c = gen_binary(i % 2 ? OpT::MUL : OpT::ADD, OT::TENSOR_FLOAT32, i % 4, rng);
      INFO("seed=" << seed << ": " << c.describe());
      const auto direct = run_ok1(c.op, c.ins, c.out);
      const auto r = run_at(model_of(c.op, c.ins, decl(OT::TENSOR_FLOAT32, dims_t(direct.dims.size(), 0))), 1, 7);
      CHECK(r.dims == direct.dims);
      CHECK(r.bytes == direct.bytes);
    }
  }
}
