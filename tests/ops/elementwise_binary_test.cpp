// SUB, DIV, MAXIMUM, MINIMUM, POW, PRELU, EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS,
// LESS_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, SELECT:
//  - oracle tests: random shapes/values, expected results from the real-number definition
//    in double, compared within the CTS tolerances (comparisons and logic: exactly);
//  - bit-exactness of the quant8 paths against an independent transcription of the AOSP
//    formulas (gemmlowp fixed point, double requantize);
//  - qu8/qs8 parity: the same data shifted by -128 gives results shifted by -128;
//  - golden cases end to end through exec::prepare/execute, shape inference, bad input,
//    zero-sized tensors, guard bytes around every output.
// Random cases draw a per-case seed from a fixed seed and print it on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/add.hpp"
#include "nnhal/ops/div.hpp"
#include "nnhal/ops/maximum.hpp"
#include "nnhal/ops/minimum.hpp"
#include "nnhal/ops/mul.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/ops/sub.hpp"
#include "nnhal/types/signatures/div.hpp"
#include "nnhal/types/signatures/equal.hpp"
#include "nnhal/types/signatures/greater.hpp"
#include "nnhal/types/signatures/logical_not.hpp"
#include "nnhal/types/signatures/maximum.hpp"
#include "nnhal/types/signatures/pow.hpp"
#include "nnhal/types/signatures/prelu.hpp"
#include "nnhal/types/signatures/select.hpp"
#include "nnhal/types/signatures/sub.hpp"
#include "support/random_cases.hpp"

using namespace nnhal::test::op;
using namespace nnhal::test::op::typed;
using namespace nnhal::test::op::cases;

namespace {

/// compare(), with TENSOR_BOOL8 outputs held to canonical bytes (exactly 0 or 1).
std::string compare_out(const tensor& got, const std::vector<double>& expected, bool exact = false) {
  if (got.type == OT::TENSOR_BOOL8)
    for (std::size_t i = 0; i < got.count(); ++i)
      if (got.raw(i) > 1) return "element " + std::to_string(i) + ": non-canonical true byte " + std::to_string(got.raw(i));
  return compare(got, expected, exact);
}

/// Values drawn from a few points so that equal elements are common (comparisons):
/// floats k/2 for k in [-4, 4], int32 [-4, 4], quant8 zp + [-6, 6] (clamped).
void fill_coarse(tensor& t, std::mt19937& rng) {
  for (std::size_t i = 0; i < t.count(); ++i) {
    const int k = uni(rng, -4, 4);
    switch (t.type) {
      case OT::TENSOR_FLOAT32: t.set(i, static_cast<float>(k) * 0.5f); break;
      case OT::TENSOR_FLOAT16: t.set(i, ty::to_float16(static_cast<float>(k) * 0.5f)); break;
      case OT::TENSOR_INT32: t.set(i, static_cast<std::int32_t>(k)); break;
      case OT::TENSOR_QUANT8_ASYMM:
      case OT::TENSOR_QUANT8_ASYMM_SIGNED: {
        const auto v = std::clamp<std::int64_t>(t.zp + uni(rng, -6, 6), qmin(t.type), qmax(t.type));
        if (t.type == OT::TENSOR_QUANT8_ASYMM) t.set(i, static_cast<std::uint8_t>(v));
        else t.set(i, static_cast<std::int8_t>(v));
        break;
      }
      default: fill_random(t, rng, 0); return;
    }
  }
}

bool has_activation(OpT op) { return op == OpT::SUB || op == OpT::DIV; }
constexpr std::array<OpT, 6> comparisons{OpT::EQUAL, OpT::NOT_EQUAL, OpT::GREATER,
                                         OpT::GREATER_EQUAL, OpT::LESS, OpT::LESS_EQUAL};
bool is_comparison(OpT op) { return std::find(comparisons.begin(), comparisons.end(), op) != comparisons.end(); }
constexpr std::array<OT, 6> comparison_types{OT::TENSOR_BOOL8, OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT32,
                                             OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                                             OT::TENSOR_QUANT8_ASYMM_SIGNED};

/// A scale k * 2^-e (k < 64): real values (q - zp) * scale are exact in float, so the
/// float comparison of the kernels and the double one of the oracle agree on ties.
float dyadic_scale(std::mt19937& rng) {
  return std::ldexp(static_cast<float>(uni(rng, 1, 63)), -uni(rng, 3, 9));
}

/// A random case of a two-input operation (plus SUB/DIV's activation) of element `type`.
op_case gen_pair(OpT op, OT type, int act, std::mt19937& rng) {
  const auto sh = random_broadcast(rng, 4, 7);
  op_case c;
  c.op = op;
  float s0 = 0, s1 = 0, so = 0;
  std::int32_t z0 = 0, z1 = 0, zo = 0;
  if (is_quant8(type)) {
    z0 = random_zp(rng, type);
    z1 = random_zp(rng, type);
    zo = random_zp(rng, type);
    if (is_comparison(op)) {
      s0 = dyadic_scale(rng);
      s1 = uni(rng, 0, 2) == 0 ? s0 : dyadic_scale(rng);
    } else {
      s0 = log_uniform(rng, 0.01, 1.0);
      s1 = log_uniform(rng, 0.01, 1.0);
    }
    // Output scales around the result's natural range: in-range results and
    // saturation at either end both occur.
    if (op == OpT::PRELU) so = s0 * log_uniform(rng, 0.3, 3.0);
    else so = std::max(s0, s1) * log_uniform(rng, 0.3, 3.0);
  }
  tensor a = make_tensor(type, sh.a, s0, z0), b = make_tensor(type, sh.b, s1, z1);
  if (is_comparison(op)) {
    fill_coarse(a, rng);
    fill_coarse(b, rng);
  } else {
    double range = std::array<double, 3>{1.0, 10.0, 100.0}[static_cast<std::size_t>(uni(rng, 0, 2))];
    if (type == OT::TENSOR_FLOAT16) range = 8.0;
    if (type == OT::TENSOR_INT32) range = 100000.0;
    fill_random(a, rng, range);
    fill_random(b, rng, range);
  }
  if (op == OpT::DIV) {
    // Divisors away from zero: the quotient stays in a range the tolerances describe.
    for (std::size_t i = 0; i < b.count(); ++i) {
      if (type == OT::TENSOR_INT32) {
        std::int32_t v = static_cast<std::int32_t>(uni(rng, -300, 300));
        if (v == 0) v = 7;
        b.set(i, v);
      } else {
        const float v = static_cast<float>((uni(rng, 0, 1) ? 1.0 : -1.0) * unif(rng, 0.5, 4.0));
        if (type == OT::TENSOR_FLOAT32) b.set(i, v);
        else b.set(i, ty::to_float16(v));
      }
    }
  }
  if (op == OpT::POW) {
    // Positive bases, moderate exponents: finite results well inside each type's range.
    for (std::size_t i = 0; i < a.count(); ++i) {
      const float base = static_cast<float>(unif(rng, 0.1, 4.0));
      if (type == OT::TENSOR_FLOAT32) a.set(i, base);
      else a.set(i, ty::to_float16(base));
    }
    for (std::size_t i = 0; i < b.count(); ++i) {
      const float e = static_cast<float>(unif(rng, -3.0, 3.0));
      if (type == OT::TENSOR_FLOAT32) b.set(i, e);
      else b.set(i, ty::to_float16(e));
    }
  }
  if (op == OpT::PRELU && !is_quant8(type)) {
    for (std::size_t i = 0; i < b.count(); ++i) {
      const float alpha = static_cast<float>(unif(rng, -2.0, 2.0));
      if (type == OT::TENSOR_FLOAT32) b.set(i, alpha);
      else b.set(i, ty::to_float16(alpha));
    }
  }
  c.ins = {a, b};
  if (has_activation(op)) c.ins.push_back(scalar_i32(act));
  c.out = decl(is_comparison(op) || op == OpT::LOGICAL_AND || op == OpT::LOGICAL_OR ? OT::TENSOR_BOOL8 : type, {}, so, zo);
  return c;
}

/// The real-number result of one element.
double expect_one(OpT op, double x, double y) {
  switch (op) {
    case OpT::SUB: return x - y;
    case OpT::DIV: return x / y;
    case OpT::MAXIMUM: return std::max(x, y);
    case OpT::MINIMUM: return std::min(x, y);
    case OpT::POW: return std::pow(x, y);
    case OpT::PRELU: return x >= 0 ? x : x * y;
    case OpT::EQUAL: return x == y;
    case OpT::NOT_EQUAL: return x != y;
    case OpT::GREATER: return x > y;
    case OpT::GREATER_EQUAL: return x >= y;
    case OpT::LESS: return x < y;
    case OpT::LESS_EQUAL: return x <= y;
    case OpT::LOGICAL_AND: return (x != 0) && (y != 0);
    case OpT::LOGICAL_OR: return (x != 0) || (y != 0);
    default: FAIL("expect_one: not a binary op"); return 0;
  }
}

std::vector<double> expect_pair(const op_case& c, const dims_t& out) {
  const tensor& a = c.ins[0];
  const tensor& b = c.ins[1];
  const int act = has_activation(c.op) ? static_cast<int>(c.ins[2].raw(0)) : 0;
  std::vector<double> e(count_of(out));
  for (std::size_t i = 0; i < e.size(); ++i) {
    double x = a.real(broadcast_index(out, a.dims, i));
    double y = b.real(broadcast_index(out, b.dims, i));
    if (a.type == OT::TENSOR_BOOL8) {  // any non-zero byte is true
      x = x != 0;
      y = y != 0;
    }
    if (c.op == OpT::DIV && a.type == OT::TENSOR_INT32) e[i] = std::floor(x / y);
    else e[i] = apply_activation(expect_one(c.op, x, y), act);
  }
  return e;
}

constexpr std::array<OT, 5> numeric_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32,
                                          OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED};

/// The element types each operation accepts (its signature rows).
std::vector<OT> types_of(OpT op) {
  switch (op) {
    case OpT::SUB:
    case OpT::MAXIMUM:
    case OpT::MINIMUM: return {numeric_types.begin(), numeric_types.end()};
    case OpT::DIV: return {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32};
    case OpT::POW: return {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16};
    case OpT::PRELU:
      return {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED};
    case OpT::LOGICAL_AND:
    case OpT::LOGICAL_OR: return {OT::TENSOR_BOOL8};
    default: return {comparison_types.begin(), comparison_types.end()};
  }
}

}  // namespace

// =================================================================================
// 1. Oracle tests
// =================================================================================

TEST_CASE("oracle: broadcasting binary operations match the real-number definition") {
  std::mt19937 seeds(0xE1B0);
  const std::vector<OpT> ops{OpT::SUB,   OpT::DIV,       OpT::MAXIMUM,     OpT::MINIMUM,       OpT::POW,
                             OpT::PRELU, OpT::EQUAL,     OpT::NOT_EQUAL,   OpT::GREATER,       OpT::GREATER_EQUAL,
                             OpT::LESS,  OpT::LESS_EQUAL, OpT::LOGICAL_AND, OpT::LOGICAL_OR};
  for (OpT op : ops) {
    for (OT type : types_of(op)) {
      std::size_t sat_lo = 0, sat_hi = 0, trues = 0, falses = 0;
      for (int i = 0; i < 60; ++i) {
        const std::uint32_t seed = seeds();
        const int act = (type == OT::TENSOR_INT32 || !has_activation(op)) ? 0 : i % 4;
        std::mt19937 rng(seed);
        const op_case c = gen_pair(op, type, act, rng);
        INFO("seed=" << seed << " case " << i << ": " << c.describe());
        const auto r = run_ok1(op, c.ins, c.out);
        const dims_t want = naive_broadcast(c.ins[0].dims, c.ins[1].dims);
        REQUIRE_MESSAGE(r.dims == want, "dims " << str(r.dims) << ", expected " << str(want));
        const auto e = expect_pair(c, want);
        const std::string m = compare_out(r, e);
        CHECK_MESSAGE(m.empty(), m);
        for (double v : e) {
          if (is_quant8(c.out.type) && act == 0) {
            const auto q = quantize_unclamped(v, c.out.scale, c.out.zp);
            sat_lo += q < qmin(type);
            sat_hi += q > qmax(type);
          }
          (v != 0 ? trues : falses) += 1;
        }
      }
      INFO(str(op) << " " << str(type) << ": coverage");
      if (is_quant8(type) && !is_comparison(op)) {
        CHECK(sat_lo > 0);
        CHECK(sat_hi > 0);
      }
      if (is_comparison(op) || op == OpT::LOGICAL_AND || op == OpT::LOGICAL_OR) {
        CHECK(trues > 0);
        CHECK(falses > 0);
      }
    }
  }
}

TEST_CASE("oracle: comparisons see equal real values across different quantizations") {
  // 2 * 0.5 == 4 * 0.25 == 1: equal reals from different stored values, both types.
  for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    const int z = type == OT::TENSOR_QUANT8_ASYMM ? 100 : -28;
    const tensor a = q8(type, {3}, 0.5f, z, {z + 2, z + 2, z - 2});
    const tensor b = q8(type, {3}, 0.25f, z + 1, {z + 5, z + 6, z - 3});  // reals 1, 1.25, -1
    const tensor o = decl(OT::TENSOR_BOOL8, {});
    CHECK(raws_of(run_ok1(OpT::EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 0, 1});
    CHECK(raws_of(run_ok1(OpT::NOT_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{0, 1, 0});
    CHECK(raws_of(run_ok1(OpT::LESS, {a, b}, o)) == std::vector<std::int64_t>{0, 1, 0});
    CHECK(raws_of(run_ok1(OpT::LESS_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 1, 1});
    CHECK(raws_of(run_ok1(OpT::GREATER, {a, b}, o)) == std::vector<std::int64_t>{0, 0, 0});
    CHECK(raws_of(run_ok1(OpT::GREATER_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 0, 1});
  }
}

TEST_CASE("oracle: float comparisons and MAXIMUM/MINIMUM with NaN, infinities and signed zeros") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const tensor a = f32({5}, {nan, 1.0f, -inf, 0.0f, nan});
  const tensor b = f32({5}, {1.0f, nan, inf, -0.0f, nan});
  const tensor o = decl(OT::TENSOR_BOOL8, {});
  CHECK(raws_of(run_ok1(OpT::EQUAL, {a, b}, o)) == std::vector<std::int64_t>{0, 0, 0, 1, 0});
  CHECK(raws_of(run_ok1(OpT::NOT_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 1, 1, 0, 1});
  CHECK(raws_of(run_ok1(OpT::LESS, {a, b}, o)) == std::vector<std::int64_t>{0, 0, 1, 0, 0});
  CHECK(raws_of(run_ok1(OpT::GREATER_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{0, 0, 0, 1, 0});
  // std::max / std::min: input 0 is kept unless input 1 is strictly larger / smaller.
  const auto mx = run_ok1(OpT::MAXIMUM, {a, b}, decl(OT::TENSOR_FLOAT32, {}));
  CHECK(std::isnan(mx.real(0)));
  CHECK(mx.real(1) == 1.0);
  CHECK(mx.real(2) == static_cast<double>(inf));
  CHECK(!std::signbit(mx.real(3)));  // max(0, -0) keeps input 0's +0
  const auto mn = run_ok1(OpT::MINIMUM, {a, b}, decl(OT::TENSOR_FLOAT32, {}));
  CHECK(std::isnan(mn.real(0)));
  CHECK(mn.real(2) == -static_cast<double>(inf));
}

TEST_CASE("oracle: TENSOR_BOOL8 inputs are truth values, outputs are canonical 0/1") {
  const tensor a = b8({6}, {0, 1, 2, 255, 0, 7});
  const tensor b = b8({6}, {0, 0, 1, 255, 9, 1});
  const tensor o = decl(OT::TENSOR_BOOL8, {});
  CHECK(raws_of(run_ok1(OpT::LOGICAL_AND, {a, b}, o)) == std::vector<std::int64_t>{0, 0, 1, 1, 0, 1});
  CHECK(raws_of(run_ok1(OpT::LOGICAL_OR, {a, b}, o)) == std::vector<std::int64_t>{0, 1, 1, 1, 1, 1});
  CHECK(raws_of(run_ok1(OpT::LOGICAL_NOT, {a}, o)) == std::vector<std::int64_t>{1, 0, 0, 0, 1, 0});
  CHECK(raws_of(run_ok1(OpT::EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 0, 1, 1, 0, 1});
  CHECK(raws_of(run_ok1(OpT::GREATER, {a, b}, o)) == std::vector<std::int64_t>{0, 1, 0, 0, 0, 0});
  CHECK(raws_of(run_ok1(OpT::LESS_EQUAL, {a, b}, o)) == std::vector<std::int64_t>{1, 0, 1, 1, 1, 1});
}

TEST_CASE("oracle: LOGICAL_NOT over random shapes") {
  std::mt19937 seeds(0x4071);
  for (int i = 0; i < 40; ++i) {
    const std::uint32_t seed = seeds();
    std::mt19937 rng(seed);
    tensor x = make_tensor(OT::TENSOR_BOOL8, random_dims(rng, 1, 5, 6));
    fill_random(x, rng, 0);
    INFO("seed=" << seed << " dims " << str(x.dims));
    const auto r = run_ok1(OpT::LOGICAL_NOT, {x}, decl(OT::TENSOR_BOOL8, {}));
    REQUIRE(r.dims == x.dims);
    std::vector<double> e = reals_of(x);
    for (auto& v : e) v = v == 0 ? 1 : 0;
    CHECK(compare_out(r, e).empty());
  }
}

TEST_CASE("oracle: DIV TENSOR_INT32 is floor division; x // 0 and INT32_MIN // -1 do not trap") {
  const std::int32_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  const tensor a = i32({10}, {5, -5, 5, -5, 6, -6, 0, 7, lo, hi});
  const tensor b = i32({10}, {2, 2, -2, -2, 3, 3, -4, 0, -1, -1});
  const auto r = run_ok1(OpT::DIV, {a, b, scalar_i32(0)}, decl(OT::TENSOR_INT32, {}));
  CHECK(raws_of(r) == std::vector<std::int64_t>{2, -3, -3, 2, 2, -2, 0, 0, lo, -static_cast<std::int64_t>(hi)});
  // Random divisors of both signs: floor(x / y) in exact double arithmetic.
  std::mt19937 rng(0xD1F);
  tensor x = make_tensor(OT::TENSOR_INT32, {500}), y = make_tensor(OT::TENSOR_INT32, {500});
  for (std::size_t i = 0; i < 500; ++i) {
    x.set(i, static_cast<std::int32_t>(uni(rng, -1000000, 1000000)));
    std::int32_t d = static_cast<std::int32_t>(uni(rng, -50, 50));
    y.set(i, d == 0 ? 1 : d);
  }
  const auto q = run_ok1(OpT::DIV, {x, y, scalar_i32(0)}, decl(OT::TENSOR_INT32, {}));
  for (std::size_t i = 0; i < 500; ++i)
    REQUIRE(q.raw(i) == static_cast<std::int64_t>(std::floor(x.real(i) / y.real(i))));
}

TEST_CASE("oracle: SUB TENSOR_INT32 wraps in two's complement") {
  const std::int32_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  const auto r = run_ok1(OpT::SUB, {i32({3}, {lo, hi, 5}), i32({3}, {1, -1, 7}), scalar_i32(0)}, decl(OT::TENSOR_INT32, {}));
  CHECK(raws_of(r) == std::vector<std::int64_t>{hi, lo, -2});
}

TEST_CASE("oracle: SELECT picks per element and requantizes quant8 inputs") {
  std::mt19937 seeds(0x5E1E);
  for (OT type : numeric_types) {
    for (int i = 0; i < 50; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const dims_t d = random_dims(rng, 1, 5, 6);
      float s1 = 0, s2 = 0, so = 0;
      std::int32_t z1 = 0, z2 = 0, zo = 0;
      if (is_quant8(type)) {
        s1 = log_uniform(rng, 0.01, 1.0);
        s2 = uni(rng, 0, 3) == 0 ? s1 : log_uniform(rng, 0.01, 1.0);
        so = std::max(s1, s2) * log_uniform(rng, 0.3, 3.0);
        z1 = random_zp(rng, type);
        z2 = random_zp(rng, type);
        zo = random_zp(rng, type);
      }
      tensor mask = make_tensor(OT::TENSOR_BOOL8, d), x = make_tensor(type, d, s1, z1), y = make_tensor(type, d, s2, z2);
      fill_random(mask, rng, 0);
      fill_random(x, rng, 100.0);
      fill_random(y, rng, 100.0);
      const op_case c{OpT::SELECT, {mask, x, y}, decl(type, {}, so, zo)};
      INFO("seed=" << seed << ": " << c.describe());
      const auto r = run_ok1(OpT::SELECT, c.ins, c.out);
      REQUIRE(r.dims == d);
      std::vector<double> e(x.count());
      for (std::size_t k = 0; k < e.size(); ++k) e[k] = mask.raw(k) != 0 ? x.real(k) : y.real(k);
      // Float and int32 elements are copies: bit-exact.
      const std::string m = compare_out(r, e, !is_quant8(type));
      CHECK_MESSAGE(m.empty(), m);
    }
  }
}

// =================================================================================
// 2. Bit-exactness with the AOSP CPU path (independent transcription of its formulas)
// =================================================================================

namespace {

// gemmlowp / TFLite fixed point, written out here from the definitions.
std::int32_t aosp_srdhm(std::int32_t a, std::int32_t b) {
  if (a == b && a == std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::max();
  const std::int64_t ab = static_cast<std::int64_t>(a) * b;
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : (1 - (std::int64_t{1} << 30));
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}
std::int32_t aosp_rdbpot(std::int32_t x, int exponent) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}
void aosp_quantize_multiplier(double m, std::int32_t* q, int* shift) {
  if (m == 0.0) {
    *q = 0;
    *shift = 0;
    return;
  }
  const double f = std::frexp(m, shift);
  auto fixed = static_cast<std::int64_t>(std::round(f * static_cast<double>(std::int64_t{1} << 31)));
  if (fixed == (std::int64_t{1} << 31)) {
    fixed /= 2;
    ++*shift;
  }
  *q = static_cast<std::int32_t>(fixed);
}
std::int32_t aosp_mul_by_quantized(std::int32_t x, std::int32_t q, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return aosp_rdbpot(aosp_srdhm(x * (1 << left), q), right);
}
std::int32_t aosp_activation_bound(float f, float scale, std::int32_t zp) {
  return zp + static_cast<std::int32_t>(std::round(f / scale));
}

/// AOSP subQuant8 (BroadcastAdd4DSlow with the second multiplier negated), one element.
std::int32_t aosp_sub(std::int32_t x, std::int32_t y, const tensor& a, const tensor& b, const tensor& o, int act) {
  const double twice_max = 2 * std::max(a.scale, b.scale);
  std::int32_t m1, m2, mo;
  int e1, e2, eo;
  aosp_quantize_multiplier(a.scale / twice_max, &m1, &e1);
  aosp_quantize_multiplier(b.scale / twice_max, &m2, &e2);
  aosp_quantize_multiplier(twice_max / ((1 << 20) * o.scale), &mo, &eo);
  m2 = -m2;
  const std::int32_t s1 = aosp_mul_by_quantized((x - a.zp) * (1 << 20), m1, e1);
  const std::int32_t s2 = aosp_mul_by_quantized((y - b.zp) * (1 << 20), m2, e2);
  std::int32_t v = aosp_mul_by_quantized(s1 + s2, mo, eo) + o.zp;
  std::int32_t lo = static_cast<std::int32_t>(qmin(o.type)), hi = static_cast<std::int32_t>(qmax(o.type));
  if (act == 1 || act == 3) lo = std::max(lo, aosp_activation_bound(0.0f, o.scale, o.zp));
  if (act == 2) lo = std::max(lo, aosp_activation_bound(-1.0f, o.scale, o.zp));
  if (act == 2) hi = std::min(hi, aosp_activation_bound(1.0f, o.scale, o.zp));
  if (act == 3) hi = std::min(hi, aosp_activation_bound(6.0f, o.scale, o.zp));
  return std::clamp(v, lo, hi);
}

/// AOSP PRelu evalQuant8, one element.
std::int32_t aosp_prelu(std::int32_t x, std::int32_t alpha, const tensor& in, const tensor& al, const tensor& o) {
  const double product = in.scale * al.scale;  // float product, as AOSP writes it
  const double pos = in.scale / o.scale;        // float ratio
  const double neg = product / o.scale;
  std::int32_t mp, mn;
  int ep, en;
  aosp_quantize_multiplier(pos, &mp, &ep);
  aosp_quantize_multiplier(neg, &mn, &en);
  const std::int32_t v = x - in.zp;
  const std::int32_t r = v >= 0 ? o.zp + aosp_mul_by_quantized(v, mp, ep)
                                : o.zp + aosp_mul_by_quantized(v * (alpha - al.zp), mn, en);
  return std::clamp<std::int32_t>(r, static_cast<std::int32_t>(qmin(o.type)), static_cast<std::int32_t>(qmax(o.type)));
}

/// AOSP requantize() (OperationsUtils), TENSOR_QUANT8_ASYMM.
std::int32_t aosp_requantize(std::int32_t q, const tensor& from, const tensor& to) {
  const double real = (q - from.zp) * from.scale;
  const double r = real / to.scale + to.zp;
  if (r < 0) return 0;
  if (r > 255) return 255;
  return static_cast<std::int32_t>(std::round(r));
}

}  // namespace

TEST_CASE("AOSP bit-exactness: quant8 SUB, PRELU, MAXIMUM, MINIMUM, SELECT (every stored value)") {
  std::mt19937 rng(0xB17E);
  tensor all = make_tensor(OT::TENSOR_QUANT8_ASYMM, {256, 1});
  for (std::size_t i = 0; i < 256; ++i) all.set(i, static_cast<std::uint8_t>(i));
  for (int round = 0; round < 24; ++round) {
    tensor a = all, b = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 9});
    fill_random(b, rng, 0);
    a.scale = log_uniform(rng, 0.005, 1.0);
    a.zp = random_zp(rng, OT::TENSOR_QUANT8_ASYMM);
    b.scale = log_uniform(rng, 0.005, 1.0);
    b.zp = random_zp(rng, OT::TENSOR_QUANT8_ASYMM);
    tensor o = decl(OT::TENSOR_QUANT8_ASYMM, {}, std::max(a.scale, b.scale) * log_uniform(rng, 0.2, 4.0),
                    random_zp(rng, OT::TENSOR_QUANT8_ASYMM));
    const int act = round % 4;
    INFO("round " << round << ": a s=" << a.scale << " zp=" << a.zp << ", b s=" << b.scale << " zp=" << b.zp
                  << ", out s=" << o.scale << " zp=" << o.zp << ", act " << act);
    const auto sub = run_ok1(OpT::SUB, {a, b, scalar_i32(act)}, o);
    const auto prelu = run_ok1(OpT::PRELU, {a, b}, o);
    const auto mx = run_ok1(OpT::MAXIMUM, {a, b}, o);
    const auto mn = run_ok1(OpT::MINIMUM, {a, b}, o);
    REQUIRE(sub.dims == dims_t{256, 9});
    for (std::size_t i = 0; i < 256; ++i)
      for (std::size_t j = 0; j < 9; ++j) {
        const auto x = static_cast<std::int32_t>(i), y = static_cast<std::int32_t>(b.raw(j));
        const std::size_t k = i * 9 + j;
        REQUIRE(sub.raw(k) == aosp_sub(x, y, a, b, o, act));
        REQUIRE(prelu.raw(k) == aosp_prelu(x, y, a, b, o));
        const std::int32_t ra = aosp_requantize(x, a, o), rb = aosp_requantize(y, b, o);
        REQUIRE(mx.raw(k) == std::max(ra, rb));
        REQUIRE(mn.raw(k) == std::min(ra, rb));
      }
    // SELECT: input1 = every stored value, input2 its reverse, alternating mask.
    tensor m = make_tensor(OT::TENSOR_BOOL8, {256}), x1 = a, x2 = a;
    x1.dims = x2.dims = {256};
    x2.scale = b.scale;
    x2.zp = b.zp;
    for (std::size_t i = 0; i < 256; ++i) {
      m.set(i, static_cast<std::uint8_t>(i % 3 == 0));
      x2.set(i, static_cast<std::uint8_t>(255 - i));
    }
    const auto sel = run_ok1(OpT::SELECT, {m, x1, x2}, o);
    for (std::size_t i = 0; i < 256; ++i)
      REQUIRE(sel.raw(i) == (i % 3 == 0 ? aosp_requantize(static_cast<std::int32_t>(i), x1, o)
                                        : aosp_requantize(static_cast<std::int32_t>(255 - i), x2, o)));
  }
}

TEST_CASE("quant8 PRELU with an output scale 1e20 times smaller than the input's saturates, no int32 overflow") {
  // Either branch's multiplier is then capped and its result saturates at the int32 end;
  // the output zero point added to it must not overflow (UBSan checks) and the result is
  // the type's end of that sign, as the real numbers give.
  for (const OT t : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
    CAPTURE(t);
    const bool s8 = t == OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const std::int32_t zp = s8 ? 0 : 128, lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    tensor x = make_tensor(t, {3}), alpha = make_tensor(t, {1});
    x.scale = alpha.scale = 1.0f;
    x.zp = alpha.zp = zp;
    const std::int32_t xs[3] = {zp + 3, zp - 3, zp};  // 3, -3 and 0 in real numbers
    for (std::size_t i = 0; i < 3; ++i) x.set(i, static_cast<std::uint8_t>(xs[i]));
    alpha.set(0, static_cast<std::uint8_t>(zp + 2));  // alpha = 2
    for (const std::int32_t out_zp : {lo + 5, hi - 5}) {
      CAPTURE(out_zp);
      const auto out = run_ok1(OpT::PRELU, {x, alpha}, decl(t, {}, 1e-20f, out_zp));
      CHECK(out.raw(0) == hi);
      CHECK(out.raw(1) == lo);
      CHECK(out.raw(2) == out_zp);
    }
  }
}

// =================================================================================
// 3. Signed/unsigned parity
// =================================================================================

TEST_CASE("parity: qs8 results equal qu8 results - 128 (SUB, MAXIMUM, MINIMUM, PRELU, comparisons)") {
  std::mt19937 seeds(0x9A31);
  const std::vector<OpT> ops{OpT::SUB,     OpT::MAXIMUM, OpT::MINIMUM,       OpT::PRELU, OpT::EQUAL,
                             OpT::NOT_EQUAL, OpT::GREATER, OpT::GREATER_EQUAL, OpT::LESS,  OpT::LESS_EQUAL};
  for (OpT op : ops)
    for (int i = 0; i < 60; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      op_case c = gen_pair(op, OT::TENSOR_QUANT8_ASYMM, i % 4, rng);
      if (is_comparison(op) && i % 2) {  // also arbitrary (non-dyadic) scales and values
        c.ins[0].scale = log_uniform(rng, 0.001, 1.0);
        c.ins[1].scale = log_uniform(rng, 0.001, 1.0);
        fill_random(c.ins[0], rng, 0);
        fill_random(c.ins[1], rng, 0);
      }
      INFO("seed=" << seed << ": " << c.describe());
      check_parity(c);
    }
}

TEST_CASE("parity: qs8 SELECT equals qu8 SELECT - 128") {
  std::mt19937 rng(0x9A32);
  for (int i = 0; i < 100; ++i) {
    const dims_t d = random_dims(rng, 1, 4, 8);
    tensor mask = make_tensor(OT::TENSOR_BOOL8, d);
    tensor x = make_tensor(OT::TENSOR_QUANT8_ASYMM, d, log_uniform(rng, 0.001, 1.0), random_zp(rng, OT::TENSOR_QUANT8_ASYMM));
    tensor y = make_tensor(OT::TENSOR_QUANT8_ASYMM, d, log_uniform(rng, 0.001, 1.0), random_zp(rng, OT::TENSOR_QUANT8_ASYMM));
    fill_random(mask, rng, 0);
    fill_random(x, rng, 0);
    fill_random(y, rng, 0);
    const op_case c{OpT::SELECT, {mask, x, y},
                    decl(OT::TENSOR_QUANT8_ASYMM, {}, log_uniform(rng, 0.001, 1.0), random_zp(rng, OT::TENSOR_QUANT8_ASYMM))};
    INFO(c.describe());
    check_parity(c);
  }
}

// =================================================================================
// 4. Golden cases end to end (exec::prepare / execute), some with misaligned data
// =================================================================================

TEST_CASE("golden: SUB") {
  SUBCASE("float32 broadcast [2,2] - [2], RELU") {
    const auto out = run_golden(OpT::SUB, {f32({2, 2}, {1, 2, 3, 4}), f32({2}, {2, 1}), scalar_i32(1)},
                                decl(OT::TENSOR_FLOAT32, {2, 2}), 1);
    CHECK(reals_of(out) == std::vector<double>{0, 1, 1, 3});
  }
  SUBCASE("float16 RELU1") {
    const auto out = run_golden(OpT::SUB, {f16({3}, {0.5f, 3, -3}), f16({3}, {1, 1, -2.5f}), scalar_i32(2)},
                                decl(OT::TENSOR_FLOAT16, {3}));
    CHECK(reals_of(out) == std::vector<double>{-0.5, 1, -0.5});
  }
  SUBCASE("quant8: different scales") {
    // a s 0.5 zp 0: [10, 20] -> [5, 10]; b s 0.25 zp 4: [8, 0] -> [1, -1]; diff [4, 11] / 1 + 3
    const auto out = run_golden(OpT::SUB, {qu8({2}, 0.5f, 0, {10, 20}), qu8({2}, 0.25f, 4, {8, 0}), scalar_i32(0)},
                                decl(OT::TENSOR_QUANT8_ASYMM, {2}, 1.0f, 3), 3);
    CHECK(raws_of(out) == std::vector<std::int64_t>{7, 14});
  }
  SUBCASE("int32, dynamic output shape") {
    const auto out = run_golden(OpT::SUB, {i32({2, 1}, {10, -20}), i32({2}, {1, 2}), scalar_i32(0)},
                                decl(OT::TENSOR_INT32, {0, 0}));
    CHECK(out.dims == dims_t{2, 2});
    CHECK(raws_of(out) == std::vector<std::int64_t>{9, 8, -21, -22});
  }
}

TEST_CASE("golden: DIV, POW, PRELU, MAXIMUM, MINIMUM") {
  CHECK(reals_of(run_golden(OpT::DIV, {f32({3}, {1, -6, 3}), f32({1}, {2}), scalar_i32(3)}, decl(OT::TENSOR_FLOAT32, {3}), 2)) ==
        std::vector<double>{0.5, 0, 1.5});
  CHECK(reals_of(run_golden(OpT::POW, {f32({2, 1}, {2, 3}), f32({3}, {0, 1, 2})}, decl(OT::TENSOR_FLOAT32, {0, 0}))) ==
        std::vector<double>{1, 2, 4, 1, 3, 9});
  CHECK(reals_of(run_golden(OpT::PRELU, {f16({4}, {-2, -1, 0, 3}), f16({1}, {0.5f})}, decl(OT::TENSOR_FLOAT16, {4}))) ==
        std::vector<double>{-1, -0.5, 0, 3});
  // PRELU quant8: input s 0.5 zp 128; alpha s 0.25 zp 50 (value 52 -> 0.5); output s 0.25 zp 120.
  // x = [120, 128, 140] -> [-4, 0, 6] -> [-2, 0, 6] -> q [112, 120, 144]
  CHECK(raws_of(run_golden(OpT::PRELU, {qu8({3}, 0.5f, 128, {120, 128, 140}), qu8({1}, 0.25f, 50, {52})},
                        decl(OT::TENSOR_QUANT8_ASYMM, {3}, 0.25f, 120), 1)) == std::vector<std::int64_t>{112, 120, 144});
  // MAXIMUM quant8 signed: a s 1 zp 0 [-3, 4]; b s 0.5 zp -10 [-4 (3), -20 (-5)] -> max [3, 4] at s 0.5 zp 0
  CHECK(raws_of(run_golden(OpT::MAXIMUM, {qs8({2}, 1.0f, 0, {-3, 4}), qs8({2}, 0.5f, -10, {-4, -20})},
                        decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 0))) == std::vector<std::int64_t>{6, 8});
  CHECK(raws_of(run_golden(OpT::MINIMUM, {i32({2, 2}, {1, 5, -3, 8}), i32({2}, {4, 4})}, decl(OT::TENSOR_INT32, {2, 2}), 3)) ==
        std::vector<std::int64_t>{1, 4, -3, 4});
}

TEST_CASE("golden: comparisons, logic and SELECT") {
  const tensor o = decl(OT::TENSOR_BOOL8, {0, 0});
  CHECK(raws_of(run_golden(OpT::LESS, {f32({2, 1}, {1, 5}), f32({3}, {0, 1, 6})}, o, 1)) ==
        std::vector<std::int64_t>{0, 0, 1, 0, 0, 1});
  CHECK(raws_of(run_golden(OpT::GREATER_EQUAL, {i32({2, 1}, {1, 5}), i32({3}, {0, 1, 6})}, o)) ==
        std::vector<std::int64_t>{1, 1, 0, 1, 1, 0});
  CHECK(raws_of(run_golden(OpT::LOGICAL_OR, {b8({2, 1}, {0, 1}), b8({2}, {0, 1})}, o, 3)) ==
        std::vector<std::int64_t>{0, 1, 1, 1});
  CHECK(raws_of(run_golden(OpT::LOGICAL_NOT, {b8({3}, {0, 1, 0})}, decl(OT::TENSOR_BOOL8, {3}))) ==
        std::vector<std::int64_t>{1, 0, 1});
  // SELECT quant8: input1 s 1.5 zp 129, input2 s 0.5 zp 127, output s 1 zp 128 (the CTS example's params).
  CHECK(raws_of(run_golden(OpT::SELECT, {b8({3}, {1, 0, 1}), qu8({3}, 1.5f, 129, {130, 131, 128}),
                                      qu8({3}, 0.5f, 127, {131, 129, 120})},
                        decl(OT::TENSOR_QUANT8_ASYMM, {3}, 1.0f, 128), 1)) == std::vector<std::int64_t>{130, 129, 127});
}

// =================================================================================
// 5. Shape inference and bad input
// =================================================================================

namespace {
/// The error message, which must come with INVALID_ARGUMENT ("" when inference passed).
template <class Sig>
std::string infer_error(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  auto r = infer_sig<Sig>(ins, out, executing);
  if (r.ok()) return {};
  CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  return r.err().message;
}

bool mentions(const std::string& message, const std::string& role) { return message.find(role) != std::string::npos; }

tensor F(dims_t d) { return decl(OT::TENSOR_FLOAT32, std::move(d)); }
tensor B(dims_t d) { return decl(OT::TENSOR_BOOL8, std::move(d)); }

}  // namespace

TEST_CASE("infer: SUB / DIV (rank <= 4, activation)") {
  const tensor act0 = scalar_i32(0), out = F({});
  CHECK(infer_ok<sig::sub>({F({2, 1, 3}), F({4, 1}), act0}, out, true) == dims_t{2, 4, 3});
  CHECK(infer_ok<sig::div>({F({0, 3}), F({1, 3}), act0}, out, true) == dims_t{0, 3});
  CHECK(infer_ok<sig::sub>({F({0, 3}), F({2, 1}), act0}, out, false) == dims_t{2, 3});
  CHECK(infer_ok<sig::div>({F({}), F({2, 3}), act0}, out, false).empty());
  CHECK(mentions(infer_error<sig::sub>({F({1, 1, 1, 1, 1}), F({1}), act0}, out, true), "input0"));
  CHECK(mentions(infer_error<sig::div>({F({1}), F({1, 1, 1, 1, 1}), act0}, out, true), "input1"));
  CHECK(!infer_error<sig::sub>({F({2, 3}), F({3, 2}), act0}, out, true).empty());
  CHECK(mentions(infer_error<sig::sub>({F({2}), F({2}), scalar_i32(4)}, out, true), "activation"));
  const tensor ia = decl(OT::TENSOR_INT32, {2});
  CHECK(mentions(infer_error<sig::div>({ia, ia, scalar_i32(1)}, decl(OT::TENSOR_INT32, {}), true), "activation"));
  CHECK(mentions(infer_error<sig::sub>({ia, ia, scalar_i32(3)}, decl(OT::TENSOR_INT32, {}), false), "activation"));
}

TEST_CASE("infer: broadcasting without activation (MAXIMUM, POW, PRELU, comparisons, logic)") {
  const tensor out = F({});
  CHECK(infer_ok<sig::maximum>({F({5, 1, 1}), F({1, 4, 1})}, out, true) == dims_t{5, 4, 1});
  CHECK(infer_ok<sig::equal>({B({3, 1}), B({0})}, B({}), true) == dims_t{3, 0});
  CHECK(infer_ok<sig::greater>({F({1, 1, 1, 1, 1, 2}), F({3, 1})}, B({}), true) == dims_t{1, 1, 1, 1, 3, 2});
  CHECK(infer_ok<sig::pow>({F({0, 3}), F({2, 1})}, out, false) == dims_t{2, 3});
  CHECK(infer_ok<sig::prelu>({F({}), F({3})}, out, false).empty());
  // Roles in messages: a bad broadcast names the second operand, rank limits either.
  CHECK(mentions(infer_error<sig::prelu>({F({2, 3}), F({4})}, out, true), "alpha"));
  CHECK(mentions(infer_error<sig::pow>({F({2, 3}), F({0, 4})}, out, false), "exponent"));
  CHECK(mentions(infer_error<sig::equal>({F({1, 1, 1, 1, 1, 1, 1, 1, 1}), F({1})}, B({}), true), "input0"));
  CHECK(mentions(infer_error<sig::maximum>({F({1}), F({1, 1, 1, 1, 1, 1, 1, 1, 1})}, out, false), "input1"));
  CHECK(!infer_error<sig::maximum>({F({0, 3}), F({2, 3})}, out, true).empty());  // 0 broadcasts with 0 or 1 only
}

TEST_CASE("infer: LOGICAL_NOT and SELECT") {
  CHECK(infer_ok<sig::logical_not>({B({2, 0, 3})}, B({}), true) == dims_t{2, 0, 3});
  CHECK(infer_ok<sig::logical_not>({B({})}, B({}), false).empty());
  const tensor out = F({});
  CHECK(infer_ok<sig::select>({B({2, 3}), F({2, 3}), F({2, 3})}, out, true) == dims_t{2, 3});
  CHECK(infer_ok<sig::select>({B({0, 3}), F({2, 0}), F({})}, out, false) == dims_t{2, 3});
  CHECK(infer_ok<sig::select>({B({}), F({}), F({4})}, out, false) == dims_t{4});
  CHECK(infer_ok<sig::select>({B({0, 2}), F({0, 2}), F({0, 2})}, out, true) == dims_t{0, 2});
  // No broadcasting: every mismatch names the operand.
  CHECK(mentions(infer_error<sig::select>({B({2, 3}), F({2, 3}), F({1, 3})}, out, true), "input2"));
  CHECK(mentions(infer_error<sig::select>({B({2, 3}), F({3}), F({2, 3})}, out, true), "input1"));
  CHECK(mentions(infer_error<sig::select>({B({2, 3}), F({2, 0}), F({2, 4})}, out, false), "input2"));
}

TEST_CASE("bad models are rejected with INVALID_ARGUMENT naming the operand, never a crash") {
  auto rejected = [](const one_op_model& m, const std::string& role) {
    const auto r = prepare_only(m.model);
    CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK_MESSAGE(mentions(r.message, role), r.message);
  };
  rejected(model_of(OpT::SUB, {F({2, 3}), F({3, 2}), scalar_i32(0)}, F({0, 0})), "input1");
  rejected(model_of(OpT::DIV, {F({1, 1, 1, 1, 2}), F({2}), scalar_i32(0)}, F({})), "input0");
  rejected(model_of(OpT::SUB, {decl(OT::TENSOR_INT32, {2}), decl(OT::TENSOR_INT32, {2}), scalar_i32(2)},
                  decl(OT::TENSOR_INT32, {2})),
           "activation");
  rejected(model_of(OpT::PRELU, {F({2, 3}), F({2})}, F({})), "alpha");
  rejected(model_of(OpT::SELECT, {B({3}), F({3}), F({4})}, F({3})), "input2");
  rejected(model_of(OpT::LESS, {F({3}), F({2})}, B({3})), "input1");
  // The declared output shape must agree with the inferred one.
  const auto r = prepare_only(model_of(OpT::MAXIMUM, {F({2, 3}), F({3})}, F({3, 3})).model);
  CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
  // Type rules come from the rows: DIV has no quant8 form, the comparisons output bool8.
  CHECK(prepare_only(model_of(OpT::DIV, {decl(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0),
                                         decl(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0), scalar_i32(0)},
                              decl(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0))
                         .model)
            .status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(prepare_only(model_of(OpT::EQUAL, {F({2}), F({2})}, F({2})).model).status == ty::ErrorStatus::INVALID_ARGUMENT);
  // Execution-time shapes that do not broadcast: an execution error, not a crash.
  // Execution-time shapes that do not broadcast: an execution error, not a crash. The
  // model leaves the extents unknown; the request gives [2] and [3].
  one_op_model m = model_of(OpT::GREATER, {F({0}), F({0})}, B({0}));
  REQUIRE(prepare_only(m.model).status == ty::ErrorStatus::NONE);
  m.inputs[0] = f32({2}, {1, 2});
  m.inputs[1] = f32({3}, {1, 2, 3});
  CHECK(run_model(m).status == ty::ErrorStatus::INVALID_ARGUMENT);
}

// =================================================================================
// 6. Zero-sized tensors and long runs
// =================================================================================

TEST_CASE("zero-sized inputs give zero-sized outputs and touch no memory") {
  const std::vector<OpT> ops{OpT::SUB,   OpT::DIV,   OpT::MAXIMUM, OpT::MINIMUM,   OpT::POW,       OpT::PRELU,
                             OpT::EQUAL, OpT::LESS,  OpT::LOGICAL_AND, OpT::LOGICAL_OR};
  for (OpT op : ops)
    for (OT type : types_of(op)) {
      INFO(str(op) << " " << str(type));
      const float s = is_quant8(type) ? 0.5f : 0.0f;
      std::vector<tensor> ins{make_tensor(type, {0, 3}, s, 0), make_tensor(type, {1, 3}, s, 0)};
      std::mt19937 rng(1);
      fill_random(ins[1], rng, 1.0);
      if (has_activation(op)) ins.push_back(scalar_i32(0));
      const OT out_type = (is_comparison(op) || op == OpT::LOGICAL_AND || op == OpT::LOGICAL_OR) ? OT::TENSOR_BOOL8 : type;
      const auto r = run_ok1(op, ins, decl(out_type, {}, s, 0));
      CHECK(r.dims == dims_t{0, 3});
    }
  const auto n = run_ok1(OpT::LOGICAL_NOT, {make_tensor(OT::TENSOR_BOOL8, {4, 0})}, B({}));
  CHECK(n.dims == dims_t{4, 0});
  const auto s = run_ok1(OpT::SELECT, {make_tensor(OT::TENSOR_BOOL8, {0}), make_tensor(OT::TENSOR_INT32, {0}),
                                      make_tensor(OT::TENSOR_INT32, {0})},
                        decl(OT::TENSOR_INT32, {}));
  CHECK(s.dims == dims_t{0});
}

TEST_CASE("long contiguous and strided runs stay inside the output") {
  // Sizes around vector widths and one large: the contiguous inner loop and the
  // broadcast (stride 0) loop, guard bytes checked by run_ok.
  std::mt19937 rng(0x1046);
  for (std::uint32_t n : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 4099u}) {
    INFO("n=" << n);
    tensor a = make_tensor(OT::TENSOR_FLOAT32, {n}), b = make_tensor(OT::TENSOR_FLOAT32, {n}),
           one = make_tensor(OT::TENSOR_FLOAT32, {1});
    fill_random(a, rng, 10.0);
    fill_random(b, rng, 10.0);
    fill_random(one, rng, 10.0);
    for (const auto& rhs : {b, one}) {
      const op_case c{OpT::SUB, {a, rhs, scalar_i32(0)}, F({})};
      const auto r = run_ok1(OpT::SUB, c.ins, c.out);
      CHECK(compare_out(r, expect_pair(c, r.dims)).empty());
      const op_case cmp{OpT::LESS, {a, rhs}, B({})};
      CHECK(compare_out(run_ok1(OpT::LESS, cmp.ins, cmp.out), expect_pair(cmp, r.dims)).empty());
    }
  }
}

// =================================================================================
// 7. Vectorized float32 paths against the reference
// =================================================================================

namespace {

/// Runs the entry point `k` of `op` on float32 inputs a, b (+ activation when act >= 0)
/// with input 0 and the output `misalign` floats off alignment, between guard bytes.
template <class K>
std::vector<float> run_f32(OpT op, K k, const tensor& a, const tensor& b, int act, std::size_t misalign) {
  std::vector<tensor> ins{a, b};
  if (act >= 0) ins.push_back(scalar_i32(act));
  const tensor out = run_entry1(op, k, ins, decl(OT::TENSOR_FLOAT32), misalign);
  std::vector<float> v(out.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = out.get<float>(i);
  return v;
}

bool same_bits(float x, float y) {
  if (std::isnan(x) && std::isnan(y)) return true;
  std::uint32_t bx, by;
  std::memcpy(&bx, &x, 4);
  std::memcpy(&by, &y, 4);
  return bx == by;
}

/// Random floats with NaN, infinities, signed zeros and exact zeros mixed in.
void fill_special(tensor& t, std::mt19937& rng) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.0f, -1.0f, 6.0f};
  for (std::size_t i = 0; i < t.count(); ++i)
    t.set(i, uni(rng, 0, 9) == 0 ? specials[uni(rng, 0, 7)] : static_cast<float>(unif(rng, -8.0, 8.0)));
}

}  // namespace

TEST_CASE("vectorized float32 SUB / DIV / MAXIMUM / MINIMUM (and their AVX-512 forms, with ADD and MUL) equal the reference bit for bit") {
  namespace ops = nnhal::ops;
  if constexpr (!ops::kernels::vbinary::has_simd) {
    MESSAGE("no SIMD instruction set in this build: vectorized paths not bound, nothing to compare");
    return;
  } else {
    using Arch = ops::kernels::vbinary::simd_arch;
    constexpr std::uint32_t width = xsimd::batch<float, Arch>::size;
    std::vector<std::uint32_t> sizes;
    for (std::uint32_t n = 1; n <= 2 * width + 1; ++n) sizes.push_back(n);
    for (std::uint32_t n : {15u, 16u, 17u, 31u, 32u, 33u, 1001u}) sizes.push_back(n);
    std::mt19937 rng(0x51D0);
    for (std::uint32_t n : sizes) {
      // Shapes: both advance; one held (either side); outer broadcast; both broadcast inner.
      const std::vector<std::pair<dims_t, dims_t>> shapes{
          {{n}, {n}}, {{n}, {1}}, {{1}, {n}}, {{3, n}, {n}}, {{n, 1}, {1, n}}, {{2, 1, n}, {3, 1}}};
      for (const auto& shape : shapes)
        for (std::size_t misalign : {std::size_t{0}, std::size_t{1}}) {
          const dims_t &da = shape.first, &db = shape.second;  // doctest's macros capture them
          tensor a = make_tensor(OT::TENSOR_FLOAT32, da), b = make_tensor(OT::TENSOR_FLOAT32, db);
          fill_special(a, rng);
          fill_special(b, rng);
          INFO("a " << str(da) << " b " << str(db) << " misalign " << misalign);
          auto check = [&](OpT op, auto vec, auto ref, int act) {
            INFO(str(op) << " act " << act);
            const auto v = run_f32(op, vec, a, b, act, misalign);
            const auto r = run_f32(op, ref, a, b, act, misalign);
            REQUIRE(v.size() == r.size());
            std::size_t i = 0;
            while (i < v.size() && same_bits(v[i], r[i])) ++i;
            CHECK_MESSAGE(i == v.size(), "element " << i << ": " << (i < v.size() ? v[i] : 0) << " vs "
                                                    << (i < r.size() ? r[i] : 0));
          };
          for (int act = 0; act < 4; ++act) {
            check(OpT::SUB, ops::sub::vectorized<Arch>, [](const ops::kernel_io& io) { ops::sub::reference<ty::f32>(io, {}); }, act);
            check(OpT::DIV, ops::div::vectorized<Arch>, ops::div::reference<ty::f32>, act);
          }
#if NNHAL_HAVE_X86_KERNELS
          // The AVX-512 float32 arithmetic ADD / SUB / MUL / DIV bind; also with every output
          // streamed (large outputs are; runs of 256 floats or more stream).
          for (std::size_t stream : {std::size_t{0}, std::size_t{1}}) {
            if (!nnhal::simd::cpu().avx512) break;
            const streaming_threshold threshold(stream ? 0 : ops::streaming_output_bytes.load());
            INFO("streamed " << stream);
            namespace vb = ops::kernels::vbinary;
            for (int act = 0; act < 4; ++act) {
              check(OpT::ADD, vb::arith_f32_avx512<vb::arith::add>, [](const ops::kernel_io& io) { ops::add::reference<ty::f32>(io, {}); }, act);
              check(OpT::SUB, vb::arith_f32_avx512<vb::arith::sub>, [](const ops::kernel_io& io) { ops::sub::reference<ty::f32>(io, {}); }, act);
              check(OpT::MUL, vb::arith_f32_avx512<vb::arith::mul>, [](const ops::kernel_io& io) { ops::mul::reference<ty::f32>(io, {}); }, act);
              check(OpT::DIV, vb::arith_f32_avx512<vb::arith::div>, ops::div::reference<ty::f32>, act);
            }
            check(OpT::MAXIMUM, vb::arith_f32_avx512<vb::arith::maximum>,
                  [](const ops::kernel_io& io) { ops::maximum::reference<ty::f32>(io, nullptr); }, -1);
            check(OpT::MINIMUM, vb::arith_f32_avx512<vb::arith::minimum>,
                  [](const ops::kernel_io& io) { ops::minimum::reference<ty::f32>(io, nullptr); }, -1);
          }
#endif
          check(OpT::MAXIMUM, ops::maximum::vectorized<Arch>, [](const ops::kernel_io& io) { ops::maximum::reference<ty::f32>(io, nullptr); }, -1);
          check(OpT::MINIMUM, ops::minimum::vectorized<Arch>, [](const ops::kernel_io& io) { ops::minimum::reference<ty::f32>(io, nullptr); }, -1);
        }
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
namespace {
/// rescale_input on d[0..16), stored to out.
NNHAL_TARGET_AVX512 void rescale16(const std::int32_t* d, std::int32_t* out, nnhal::ops::quant::fixed_multiplier m) {
  const auto st = nnhal::ops::add::input_stage::of(m);
  _mm512_storeu_si512(out, nnhal::ops::add::rescale_input(_mm512_loadu_si512(d), st));
}
}  // namespace

TEST_CASE("quant8 ADD's int32 input stage equals apply_multiplier(d * 2^20, m) for every input") {
  if (!nnhal::simd::cpu().avx512) return;
  namespace q = nnhal::ops::quant;
  std::mt19937 rng(0x1257);
  std::vector<std::int32_t> d;
  for (int v = -255; v <= 255; ++v) d.push_back(v);
  d.resize((d.size() + 15) / 16 * 16, 0);
  std::vector<std::int32_t> got(d.size());
  for (int iter = 0; iter < 3000; ++iter) {
    // Multipliers as ADD makes them (s_i / (2 max) in (0, 1/2]), and negated as SUB does.
    q::fixed_multiplier m = q::quantize_multiplier(std::ldexp(std::uniform_real_distribution<double>(0.5, 1.0)(rng),
                                                              -uni(rng, 1, 24)));
    if (iter % 2) m.mantissa_q31 = -m.mantissa_q31;
    INFO("mantissa " << m.mantissa_q31 << " shift " << m.shift);
    REQUIRE(m.shift <= 0);
    for (std::size_t i = 0; i < d.size(); i += 16) rescale16(d.data() + i, got.data() + i, m);
    for (std::size_t i = 0; i < d.size(); ++i)
      if (got[i] != q::apply_multiplier(d[i] * (1 << 20), m)) {
        FAIL_CHECK("d=" << d[i] << ": " << got[i] << " vs " << q::apply_multiplier(d[i] * (1 << 20), m));
        break;
      }
  }
}
#endif

TEST_CASE("AVX-512 quant8 ADD, SUB and MUL equal the reference bit for bit") {
  namespace ops = nnhal::ops;
  if (!nnhal::simd::cpu().avx512) {
    MESSAGE("this CPU has no AVX-512: the quant8 ADD / SUB / MUL kernels are the reference");
    return;
  }
  std::mt19937 seeds(0x5AB5);
  for (OpT op : {OpT::ADD, OpT::SUB, OpT::MUL})
    for (OT type : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED})
      for (int i = 0; i < 80; ++i) {
        const std::uint32_t seed = seeds();
        std::mt19937 rng(seed);
        op_case c = gen_pair(op, type, i % 4, rng);
        if (c.ins.size() == 2) c.ins.push_back(scalar_i32(i % 4));  // gen_pair adds SUB's activation only
        if (i % 3 == 0) {  // long runs: whole 16-lane blocks plus a tail, one side broadcast or not
          const std::uint32_t n = static_cast<std::uint32_t>(uni(rng, 16, 200));
          c.ins[0] = make_tensor(type, {2, n}, c.ins[0].scale, c.ins[0].zp);
          c.ins[1] = make_tensor(type, uni(rng, 0, 1) ? dims_t{n} : dims_t{2, 1}, c.ins[1].scale, c.ins[1].zp);
          fill_random(c.ins[0], rng, 0);
          fill_random(c.ins[1], rng, 0);
        }
        INFO(str(op) << " seed=" << seed << ": " << c.describe());
        // The multipliers as bind computes them; the output's shape does not matter to them.
        const auto a = desc_of(c.ins[0]), b = desc_of(c.ins[1]), o = desc_of(c.out);
        auto entries = [&](auto tag) {
          using E = decltype(tag);
          tensor v, r;
          if (op == OpT::MUL) {
            const auto p = ops::mul::make_quant_params(a, b, o);
            v = run_entry1(op, [&](const ops::kernel_io& io) { ops::mul::vectorized<E>(io, p); }, c.ins, c.out);
            r = run_entry1(op, [&](const ops::kernel_io& io) { ops::mul::reference<E>(io, p); }, c.ins, c.out);
          } else if (op == OpT::SUB) {
            const auto p = ops::sub::make_quant_params(a, b, o);
            v = run_entry1(op, [&](const ops::kernel_io& io) { ops::sub::vectorized<E>(io, p); }, c.ins, c.out);
            r = run_entry1(op, [&](const ops::kernel_io& io) { ops::sub::reference<E>(io, p); }, c.ins, c.out);
          } else {
            const auto p = ops::add::make_quant_params(a, b, o);
            v = run_entry1(op, [&](const ops::kernel_io& io) { ops::add::vectorized<E>(io, p); }, c.ins, c.out);
            r = run_entry1(op, [&](const ops::kernel_io& io) { ops::add::reference<E>(io, p); }, c.ins, c.out);
          }
          CHECK(same_bytes(v, r) == "");
        };
        if (type == OT::TENSOR_QUANT8_ASYMM) entries(ty::qu8{});
        else entries(ty::qs8{});
      }
}

// ADD and SUB run a linear form of the stored values where make_quant_params found one that
// equals the AOSP arithmetic (plain, or corrected per stored value; with a band of values
// near a half computed the AOSP way). Every pair of stored values, for scales random and
// structured (equal, powers of two, ratios whose sums fall on halves, an output scale so
// small that no form applies): the kinds of form must occur, and each must equal the
// reference, also run with a wider band and with no form (every kernel path).
TEST_CASE("AVX-512 quant8 ADD and SUB's linear form equals the reference on every pair of values") {
  namespace ops = nnhal::ops;
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(0x11F0);
  int exact = 0, banded = 0, unused = 0, corrected = 0;
  std::array<int, 4> word_forms{};  // plain, y's table, x's table, both tables
  for (int i = 0; i < 48; ++i) {
    const OpT op = i % 2 ? OpT::SUB : OpT::ADD;
    const OT type = i % 4 < 2 ? OT::TENSOR_QUANT8_ASYMM : OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const bool is_signed = type == OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const std::int32_t lo = is_signed ? -128 : 0;
    // Every eighth case: scales where the plain form leaves 0.7% of the pairs in the band
    // (the bench's mixed case); every twelfth an output multiplier above 1 (no form).
    const bool dense = i % 8 == 7, tiny = i % 12 == 5;
    auto zp = [&] { return dense ? lo + 128 : static_cast<std::int32_t>(uni(rng, lo, lo + 255)); };
    const float s0 = dense ? 0.05f : std::uniform_real_distribution<float>(0.002f, 0.3f)(rng);
    static constexpr float ratios[][2] = {{1.0f, 2.0f}, {1.0f, 1.0f}, {0.75f, 1.5f}, {0.5f, 0.25f}, {0.83f, 1.5f}};
    float s1, so;
    if (dense) {
      s1 = s0 * 0.83f;
      so = s0 * 1.5f;
    } else if (tiny) {
      s1 = s0;
      so = s0 * 1e-7f;
    } else if (i % 3 == 0) {
      s1 = s0 * ratios[(i / 3) % 5][0];
      so = s0 * ratios[(i / 3) % 5][1];
    } else {
      s1 = std::uniform_real_distribution<float>(0.002f, 0.3f)(rng);
      so = std::uniform_real_distribution<float>(0.002f, 0.3f)(rng);
    }
    // All 2^16 pairs: x down the rows and y along them, with input 0 broadcast along the
    // rows, or both full-sized with the pairs in random order (so the AOSP-way vectors
    // fall anywhere in the kernel's blocks).
    // (The shuffled list has 40 pairs more, for the kernels' last partial groups.)
    const bool broadcast = i % 6 < 3 && !dense;
    const dims_t flat{256 * 256 + 40};
    tensor a = make_tensor(type, broadcast ? dims_t{256, 1} : flat, s0, zp());
    tensor b = make_tensor(type, broadcast ? dims_t{1, 256} : flat, s1, zp());
    std::vector<std::size_t> pairs(256 * 256);
    std::iota(pairs.begin(), pairs.end(), std::size_t{0});
    if (!broadcast) {
      std::shuffle(pairs.begin(), pairs.end(), rng);
      for (int k = 0; k < 40; ++k) pairs.push_back(static_cast<std::size_t>(uni(rng, 0, 65535)));
    }
    for (std::size_t k = 0; k < a.count(); ++k) a.put(k, static_cast<double>(lo) + static_cast<double>(broadcast ? k : pairs[k] / 256));
    for (std::size_t k = 0; k < b.count(); ++k) b.put(k, static_cast<double>(lo) + static_cast<double>(pairs[k] % 256));
    const tensor out = decl(type, broadcast ? dims_t{256, 256} : flat, so, zp());
    const std::vector<tensor> ins{a, b, scalar_i32(i % 4)};
    auto p = op == OpT::SUB ? ops::sub::make_quant_params(desc_of(a), desc_of(b), desc_of(out))
                                  : ops::add::make_quant_params(desc_of(a), desc_of(b), desc_of(out));
    (p.linear.band == 0 ? exact : p.linear.band > 0 ? banded : unused) += 1;
    corrected += p.linear.corrected;
    INFO(str(op) << " " << str(type) << " scales " << s0 << " " << s1 << " " << so << " zero points " << a.zp << " "
                 << b.zp << " " << out.zp << " band " << p.linear.band << " shift " << p.linear.shift << " corrected "
                 << p.linear.corrected);
    if (tiny) CHECK(p.linear.band < 0);
    // The mixed scales need no band once the corrected form's few differences are repaired.
    if (dense && nnhal::simd::cpu().avx512_vbmi) CHECK(p.linear.band == 0);
    auto check = [&](auto tag) {
      using E = decltype(tag);
      tensor v, r;
      if (op == OpT::SUB) {
        v = run_entry1(op, [&](const ops::kernel_io& io) { ops::sub::vectorized<E>(io, p); }, ins, out);
        r = run_entry1(op, [&](const ops::kernel_io& io) { ops::sub::reference<E>(io, p); }, ins, out);
      } else {
        v = run_entry1(op, [&](const ops::kernel_io& io) { ops::add::vectorized<E>(io, p); }, ins, out);
        r = run_entry1(op, [&](const ops::kernel_io& io) { ops::add::reference<E>(io, p); }, ins, out);
      }
      CHECK(same_bytes(v, r) == "");
    };
    // Each form through both kernels: the word kernel (VNNI and VBMI) and the int32 one.
    const bool word_kernel = nnhal::simd::cpu().avx512_vnni && nnhal::simd::cpu().avx512_vbmi;
    // (The word kernel runs exact forms only.)
    CHECK(p.linear.words == (word_kernel && p.linear.band == 0));
    if (p.linear.words)
      ++word_forms[p.linear.corrected ? (p.linear.one_table ? (p.linear.y_table ? 1 : 2) : 3) : 0];
    auto check_type = [&] {
      const bool kept = p.linear.words;
      for (const bool words : {false, true}) {
        if (words && !word_kernel) continue;
        p.linear.words = words;
        if (is_signed) check(ty::qs8{});
        else check(ty::qu8{});
      }
      p.linear.words = kept;
    };
    check_type();
    if (p.linear.band < 0) continue;
    if (p.linear.corrected) {
      const auto kept = p;
      // The plain form too, with the band its differences need.
      p.linear = ops::add::detail::fit_linear(p, lo, lo + 255);
      ops::add::detail::check_linear(p, p.linear, lo, lo + 255);
      banded += p.linear.band > 0;
      if (p.linear.band >= 0) check_type();
      // The corrected form as fitted, before its differences are repaired.
      p.linear = ops::add::detail::fit_corrected(p, lo, lo + 255);
      ops::add::detail::check_linear(p, p.linear, lo, lo + 255);
      banded += p.linear.band > 0;
      if (p.linear.band >= 0) check_type();
      p = kept;
    }
    const std::int32_t band = p.linear.band;
    p.linear.band = std::max(band, std::int32_t{1} << std::min(p.linear.shift - 4, 12));  // more lanes the AOSP way
    check_type();
    // A form an eighth of a unit off (so wrong next to every whole number) with a band of a
    // quarter: about half the vectors are recomputed, and every wrong lane must be among them.
    const std::int64_t eighth = std::int64_t{1} << (p.linear.shift - 3);
    const std::int64_t c = p.linear.c + (p.linear.c >= 0 ? -eighth : eighth);
    std::int64_t reach = 0;
    for (std::int64_t x : {lo, lo + 255})
      for (std::int64_t y : {lo, lo + 255}) reach = std::max(reach, std::abs(x * p.linear.a + y * p.linear.b + c) + 300);
    if (reach < (std::int64_t{1} << 31) - 2 * std::int64_t{p.linear.tie_step}) {
      p.linear.c = static_cast<std::int32_t>(c);
      p.linear.band = std::int32_t{1} << (p.linear.shift - 2);
      check_type();
    }
    p.linear.band = -1;  // no form at all
    check_type();
  }
  MESSAGE("linear forms: " << exact << " exact everywhere, " << banded << " with a band, " << unused << " not used, "
                            << corrected << " corrected");
  if (nnhal::simd::cpu().avx512_vbmi) CHECK(corrected > 0);
  MESSAGE("word kernel forms: " << word_forms[0] << " plain, " << word_forms[1] << " with y's table, " << word_forms[2]
                                << " with x's, " << word_forms[3] << " with both");
  if (nnhal::simd::cpu().avx512_vnni && nnhal::simd::cpu().avx512_vbmi)
    for (const int count : word_forms) CHECK(count > 0);
  CHECK(exact > 0);
  CHECK(banded > 0);
  CHECK(unused > 0);
}

// Quant8 MUL requantizes its products by the GEMM epilogue's float path where the
// multiplier is below 1 (a block of 64 redone in fixed point when a lane lies next to a
// rounding boundary). Every pair of stored values, for scales random and structured
// (powers of two, whose products fall on halves: many blocks redone; a multiplier of about
// 1, and one above 1, which takes the fixed point only), each activation: equal to the
// reference, and again with the float path taken away (quant_params::lanes null).
TEST_CASE("AVX-512 quant8 MUL equals the reference on every pair of values") {
  namespace ops = nnhal::ops;
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(0x3A17);
  int with_float_path = 0;
  for (int i = 0; i < 24; ++i) {
    const OT type = i % 2 ? OT::TENSOR_QUANT8_ASYMM : OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const bool is_signed = type == OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const std::int32_t lo = is_signed ? -128 : 0;
    auto zp = [&] { return static_cast<std::int32_t>(uni(rng, lo, lo + 255)); };
    auto real = [&](float a, float b) { return std::uniform_real_distribution<float>(a, b)(rng); };
    float s0 = real(0.002f, 0.3f), s1 = real(0.002f, 0.3f), so = s0 * s1 * real(20.0f, 400.0f);
    if (i % 4 == 1) {  // powers of two: products on halves and quarters of a step
      s0 = std::ldexp(1.0f, uni(rng, -8, -2));
      s1 = std::ldexp(1.0f, uni(rng, -8, -2));
      so = s0 * s1 * std::ldexp(1.0f, uni(rng, 1, 9));
    } else if (i % 8 == 3) {
      so = s0 * s1 * 1.0001f;  // about 1: a shift of 0
    } else if (i % 8 == 7) {
      so = s0 * s1 * 0.3f;  // above 1: a left shift, the fixed point only
    }
    // All 2^16 pairs in random order, 40 more for the kernel's last partial blocks.
    std::vector<std::size_t> pairs(256 * 256);
    std::iota(pairs.begin(), pairs.end(), std::size_t{0});
    std::shuffle(pairs.begin(), pairs.end(), rng);
    for (int k = 0; k < 40; ++k) pairs.push_back(static_cast<std::size_t>(uni(rng, 0, 65535)));
    const dims_t flat{static_cast<std::uint32_t>(pairs.size())};
    tensor a = make_tensor(type, flat, s0, zp()), b = make_tensor(type, flat, s1, zp());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      a.put(k, static_cast<double>(lo + static_cast<std::int32_t>(pairs[k] / 256)));
      b.put(k, static_cast<double>(lo + static_cast<std::int32_t>(pairs[k] % 256)));
    }
    const tensor out = decl(type, flat, so, zp());
    const std::vector<tensor> ins{a, b, scalar_i32(i % 4)};
    auto p = ops::mul::make_quant_params(desc_of(a), desc_of(b), desc_of(out));
    INFO(str(type) << " scales " << s0 << " " << s1 << " " << so << " zero points " << a.zp << " " << b.zp << " "
                   << out.zp << " shift " << p.out.shift << " activation " << i % 4);
    CHECK((p.lanes != nullptr) == (p.out.shift <= 0));
    with_float_path += p.lanes != nullptr;
    auto check = [&](auto tag) {
      using E = decltype(tag);
      const tensor v = run_entry1(OpT::MUL, [&](const ops::kernel_io& io) { ops::mul::vectorized<E>(io, p); }, ins, out);
      const tensor r = run_entry1(OpT::MUL, [&](const ops::kernel_io& io) { ops::mul::reference<E>(io, p); }, ins, out);
      CHECK(same_bytes(v, r) == "");
    };
    for (int path = 0; path < 2; ++path) {
      if (is_signed) check(ty::qs8{});
      else check(ty::qu8{});
      p.lanes = nullptr;  // then the fixed point throughout
    }
  }
  CHECK(with_float_path >= 16);
}

TEST_CASE("quant8 arithmetic split into parallel chunks equals the one-chunk result") {
  std::mt19937 rng(0xC4E);
  const auto n = static_cast<std::uint32_t>(8 * nnhal::ops::elementwise_grain + 21);
  for (const dims_t& db : {dims_t{n}, dims_t{1}}) {
    tensor a = make_tensor(OT::TENSOR_QUANT8_ASYMM, {n}, 0.05f, 120), b = make_tensor(OT::TENSOR_QUANT8_ASYMM, db, 0.03f, 7);
    fill_random(a, rng, 0);
    fill_random(b, rng, 0);
    for (OpT op : {OpT::ADD, OpT::MUL}) {
      INFO(str(op) << " b " << str(db));
      const std::vector<tensor> ins{a, b, scalar_i32(0)};
      const tensor od = decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.1f, 100);
      reversed_context reversed;
      const kernel_result split = run_kernel(op, ins, {od}, &reversed);
      REQUIRE(split.ok);
      CHECK(split.guards_intact);
      CHECK(split.outs[0].bytes == run_ok1(op, ins, od).bytes);
    }
  }
}

TEST_CASE("float32 arithmetic split into parallel chunks equals the one-chunk result") {
  // Runs past two chunk grains split; the reversed context runs the halves in reverse.
  std::mt19937 rng(0xC4C);
  const auto n = static_cast<std::uint32_t>(2 * nnhal::ops::elementwise_grain + 37);
  for (const dims_t& db : {dims_t{n}, dims_t{1}}) {
    tensor a = make_tensor(OT::TENSOR_FLOAT32, {n}), b = make_tensor(OT::TENSOR_FLOAT32, db);
    fill_special(a, rng);
    fill_special(b, rng);
    for (OpT op : {OpT::ADD, OpT::MAXIMUM})
      for (std::size_t stream : {std::size_t{0}, std::size_t{1}}) {
        INFO(str(op) << " b " << str(db) << " streamed " << stream);
        std::vector<tensor> ins{a, b};
        if (op == OpT::ADD) ins.push_back(scalar_i32(1));
        const tensor expected = run_ok1(op, ins, decl(OT::TENSOR_FLOAT32));
        const streaming_threshold threshold(stream ? 0 : nnhal::ops::streaming_output_bytes.load());
        reversed_context reversed;
        const kernel_result split = run_kernel(op, ins, {decl(OT::TENSOR_FLOAT32)}, &reversed);
        REQUIRE(split.ok);
        CHECK(split.guards_intact);
        CHECK(split.outs[0].bytes == expected.bytes);
      }
  }
}
