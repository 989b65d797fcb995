// The element-wise unary family: ABS, EXP, LOG, NEG, RSQRT, SIN, SQRT, FLOOR, RELU1, RELU6,
// LOGISTIC, TANH, ELU, HARD_SWISH, CAST, QUANTIZE, DEQUANTIZE (and RELU, which shares the
// skeleton):
//  - oracle tests: random shapes and values, expected results from the real-number
//    definitions in double, compared within the CTS tolerances;
//  - float32 SIMD vs reference: sizes around the batch width, misaligned data, special
//    values; exact where both paths do the same IEEE operations;
//  - quantized LOGISTIC / TANH / HARD_SWISH / RSQRT: all 256 inputs for several
//    quantizations against the double oracle (max deviation reported, must be <= 1), and
//    the bound table kernel equal to the reference;
//  - qs8 == qu8 - 128 parity for every quantized operation;
//  - CAST / QUANTIZE / DEQUANTIZE conversion rules; shape inference; end-to-end models.
// Random cases use seeded std::mt19937 and print their seed on failure.
#include "nnhal/ops/families/elementwise_unary.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/relu.hpp"
#include "nnhal/types/operations.hpp"
#include "nnhal/types/signatures/abs.hpp"
#include "nnhal/types/signatures/cast.hpp"
#include "nnhal/types/signatures/dequantize.hpp"
#include "nnhal/types/signatures/elu.hpp"
#include "nnhal/types/signatures/exp.hpp"
#include "nnhal/types/signatures/floor.hpp"
#include "nnhal/types/signatures/hard_swish.hpp"
#include "nnhal/types/signatures/log.hpp"
#include "nnhal/types/signatures/logistic.hpp"
#include "nnhal/types/signatures/neg.hpp"
#include "nnhal/types/signatures/quantize.hpp"
#include "nnhal/types/signatures/relu1.hpp"
#include "nnhal/types/signatures/relu6.hpp"
#include "nnhal/types/signatures/rsqrt.hpp"
#include "nnhal/types/signatures/sin.hpp"
#include "nnhal/types/signatures/sqrt.hpp"
#include "nnhal/types/signatures/tanh.hpp"
#include "support/model_builder.hpp"
#include "support/op_runner.hpp"

using namespace nnhal::test::op;

namespace {

namespace ops = nnhal::ops;
namespace vu = nnhal::ops::kernels::vunary;
using kernel_fn = nnhal::ops::kernel;

/// The stored number as double, quantization ignored (floats: their value).
double number(const tensor& t, std::size_t i) { return ty::is_quantized(t.type) ? static_cast<double>(t.raw(i)) : t.real(i); }

tensor vec(OT t, const std::vector<double>& v, float scale = 0.0f, std::int32_t zp = 0) {
  return values(t, {static_cast<std::uint32_t>(v.size())}, v, scale, zp);
}
/// All 256 stored values of a quant8 type, in order.
tensor all_values(OT t, float scale, std::int32_t zp) {
  tensor x = make_tensor(t, {256}, scale, zp);
  for (int i = 0; i < 256; ++i) x.put(static_cast<std::size_t>(i), static_cast<double>(qmin(t) + i));
  return x;
}

std::vector<std::int64_t> raws(const tensor& t) {
  std::vector<std::int64_t> v(t.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.raw(i);
  return v;
}
std::vector<double> numbers(const tensor& t) {
  std::vector<double> v(t.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = number(t, i);
  return v;
}

// ---------------------------------------------------------------------------------
// The real-number definitions
// ---------------------------------------------------------------------------------

double oracle(OpT op, double x, double alpha = 1.0) {
  switch (op) {
    case OpT::ABS: return std::fabs(x);
    case OpT::EXP: return std::exp(x);
    case OpT::LOG: return std::log(x);
    case OpT::NEG: return -x;
    case OpT::RSQRT: return 1.0 / std::sqrt(x);
    case OpT::SIN: return std::sin(x);
    case OpT::SQRT: return std::sqrt(x);
    case OpT::FLOOR: return std::floor(x);
    case OpT::RELU: return std::max(0.0, x);
    case OpT::RELU1: return std::clamp(x, -1.0, 1.0);
    case OpT::RELU6: return std::clamp(x, 0.0, 6.0);
    case OpT::LOGISTIC: return 1.0 / (1.0 + std::exp(-x));
    case OpT::TANH: return std::tanh(x);
    case OpT::ELU: return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x) - 1.0));
    case OpT::HARD_SWISH: return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
    default: FAIL("no oracle for " << str(op)); return 0;
  }
}

/// Input values where the operation is defined and its float16 result is finite.
std::pair<double, double> domain(OpT op, OT t) {
  switch (op) {
    case OpT::EXP: return t == OT::TENSOR_FLOAT16 ? std::pair{-10.0, 10.0} : std::pair{-30.0, 30.0};
    case OpT::LOG:
    case OpT::SQRT: return {1e-3, 200.0};
    case OpT::RSQRT: return {1e-2, 200.0};
    case OpT::SIN: return {-20.0, 20.0};
    case OpT::ELU: return {-8.0, 8.0};
    default: return {-10.0, 10.0};
  }
}

bool close(double actual, double expected, OT t) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  const double tol =
      t == OT::TENSOR_FLOAT16 ? f16_tol + f16_tol * std::fabs(expected) : f32_atol + f32_rtol * std::fabs(expected);
  return std::fabs(actual - expected) <= tol;
}

/// round(r / scale) + zp clamped to the type (half away from zero, as the HAL formula).
std::int64_t quantize_oracle(double r, float scale, std::int32_t zp, OT t) {
  if (std::isnan(r)) return qmax(t);
  const double q = std::round(r / static_cast<double>(scale)) + zp;
  return static_cast<std::int64_t>(std::clamp(q, static_cast<double>(qmin(t)), static_cast<double>(qmax(t))));
}

dims_t random_dims(std::mt19937& rng, std::size_t max_rank = 4, std::uint32_t max_extent = 6) {
  std::uniform_int_distribution<std::size_t> rank_d(1, max_rank);
  std::uniform_int_distribution<std::uint32_t> ext(1, max_extent);
  dims_t d(rank_d(rng));
  for (auto& e : d) e = ext(rng);
  return d;
}
float random_scale(std::mt19937& rng, double lo = 1e-3, double hi = 1.0) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return static_cast<float>(std::exp(u(rng)));
}

const std::vector<OpT> float_ops = {OpT::ABS,   OpT::EXP,      OpT::LOG,   OpT::NEG,  OpT::RSQRT,
                                    OpT::SIN,   OpT::SQRT,     OpT::FLOOR, OpT::RELU, OpT::RELU1,
                                    OpT::RELU6, OpT::LOGISTIC, OpT::TANH,  OpT::ELU,  OpT::HARD_SWISH};

}  // namespace

// =================================================================================
// 1. Float operations against the real-number definitions
// =================================================================================

TEST_CASE("oracle: float32 and float16 results match the real-number definitions") {
  std::mt19937 seeds(0xE1E7);
  for (OpT op : float_ops) {
    for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
      for (int rep = 0; rep < 8; ++rep) {
        const auto seed = seeds();
        std::mt19937 rng(seed);
        const auto [lo, hi] = domain(op, t);
        std::uniform_real_distribution<double> val(lo, hi);
        tensor x = make_tensor(t, random_dims(rng));
        for (std::size_t i = 0; i < x.count(); ++i) x.put(i, val(rng));
        std::vector<tensor> ins{x};
        double alpha = 1.0;
        if (op == OpT::ELU) {
          alpha = std::uniform_real_distribution<double>(0.05, 3.0)(rng);
          ins.push_back(t == OT::TENSOR_FLOAT16 ? scalar_f16(static_cast<float>(alpha))
                                                : scalar_f32(static_cast<float>(alpha)));
          alpha = ins[1].type == OT::FLOAT16 ? static_cast<double>(ty::to_float(ins[1].get<ty::float16>(0)))
                                             : static_cast<double>(ins[1].get<float>(0));
        }
        INFO(str(op) << " " << str(t) << " seed=" << seed);
        const tensor out = run_ok1(op, ins, decl(t, {}));
        REQUIRE(out.dims == x.dims);
        for (std::size_t i = 0; i < x.count(); ++i) {
          const double e = oracle(op, number(x, i), alpha);
          if (!close(number(out, i), e, t)) {
            FAIL_CHECK("element " << i << ": x=" << number(x, i) << " got " << number(out, i) << " want " << e);
            break;
          }
        }
      }
    }
  }
}

TEST_CASE("oracle: TENSOR_INT32 ABS and NEG, wrapping at INT32_MIN") {
  const tensor x = vec(OT::TENSOR_INT32, {0, 1, -1, 123456, -123456, 2147483647, -2147483648.0});
  CHECK(raws(run_ok1(OpT::ABS, {x}, decl(OT::TENSOR_INT32, {}))) ==
        std::vector<std::int64_t>{0, 1, 1, 123456, 123456, 2147483647, -2147483648LL});
  CHECK(raws(run_ok1(OpT::NEG, {x}, decl(OT::TENSOR_INT32, {}))) ==
        std::vector<std::int64_t>{0, -1, 1, -123456, 123456, -2147483647, -2147483648LL});
}

TEST_CASE("golden: special float values follow the AOSP CPU path") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const tensor x = vec(OT::TENSOR_FLOAT32, {nan, inf, -inf, 0.0, -0.0});
  auto check_op = [&](OpT op, std::vector<double> want) {
    INFO(str(op));
    for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
      INFO(str(t));
      tensor in = values(t, x.dims, numbers(x));
      const auto got = numbers(run_ok1(op, {in}, decl(t, {})));
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i]))
          CHECK_MESSAGE(std::isnan(got[i]), "element " << i);
        else
          CHECK_MESSAGE(got[i] == want[i], "element " << i << ": " << got[i] << " vs " << want[i]);
      }
    }
  };
  // NaN clamps to the lower bound in the activations (min(max(lo, x), hi)).
  check_op(OpT::RELU, {0, inf, 0, 0, 0});
  check_op(OpT::RELU1, {-1, 1, -1, 0, 0});
  check_op(OpT::RELU6, {0, 6, 0, 0, 0});
  check_op(OpT::ABS, {nan, inf, inf, 0, 0});
  check_op(OpT::NEG, {nan, -inf, inf, -0.0, 0});
  check_op(OpT::EXP, {nan, inf, 0, 1, 1});
  check_op(OpT::LOG, {nan, inf, nan, -inf, -inf});
  check_op(OpT::SQRT, {nan, inf, nan, 0, -0.0});
  check_op(OpT::RSQRT, {nan, 0, nan, inf, -inf});
  check_op(OpT::FLOOR, {nan, inf, -inf, 0, -0.0});
  check_op(OpT::LOGISTIC, {nan, 1, 0, 0.5, 0.5});
  check_op(OpT::TANH, {nan, 1, -1, 0, -0.0});
  check_op(OpT::HARD_SWISH, {nan, inf, nan, 0, 0});  // -inf: -inf * max(0, -inf + 3) = -inf * 0 = NaN
}

TEST_CASE("golden: ELU uses alpha as given, per execution") {
  std::vector<double> xs{-2, -0.5, 0, 0.5, 3, -200, 50};
  for (int i = 0; i < 73; ++i) xs.push_back(-6.0 + i / 6.0);  // past 64 values: the 4-vector loop
  const tensor x = vec(OT::TENSOR_FLOAT32, xs);
  // Negative, infinite and NaN alphas too: the AOSP expression then gives 0, -inf or 0 for
  // x <= 0 (its min(0, neg) turns a NaN neg into 0).
  for (float alpha : {0.0f, 0.5f, 1.0f, 2.5f, -0.5f, std::numeric_limits<float>::infinity(),
                      std::numeric_limits<float>::quiet_NaN()}) {
    INFO("alpha=" << alpha);
    const auto got = numbers(run_ok1(OpT::ELU, {x, scalar_f32(alpha)}, decl(OT::TENSOR_FLOAT32, {})));
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(close(got[i], oracle(OpT::ELU, number(x, i), alpha), OT::TENSOR_FLOAT32));
  }
  const tensor h = values(OT::TENSOR_FLOAT16, x.dims, numbers(x));
  const auto got = numbers(run_ok1(OpT::ELU, {h, scalar_f16(0.5f)}, decl(OT::TENSOR_FLOAT16, {})));
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK(close(got[i], oracle(OpT::ELU, number(x, i), 0.5), OT::TENSOR_FLOAT16));
}

// =================================================================================
// 2. float32 SIMD paths against the scalar reference
// =================================================================================

namespace {

struct simd_case {
  OpT op;
  kernel_fn vectorized;
  kernel_fn reference;
  bool exact;  // the same IEEE operations on both paths
};

std::vector<simd_case> simd_cases() {
  using A = vu::simd_arch;
  using ty::f32;
  return {
      {OpT::ABS, ops::abs::vectorized<A>, ops::abs::reference<f32>, true},
      {OpT::NEG, ops::neg::vectorized<A>, ops::neg::reference<f32>, true},
      {OpT::FLOOR, ops::floor::vectorized<A>, ops::floor::reference<f32>, true},
      {OpT::SQRT, ops::sqrt::vectorized<A>, ops::sqrt::reference<f32>, true},
      {OpT::RSQRT, ops::rsqrt::vectorized<A>, ops::rsqrt::reference<f32>, true},
      {OpT::RELU, ops::relu::vectorized<A>, ops::relu::reference<f32>, true},
      {OpT::RELU1, ops::relu1::vectorized<A>, ops::relu1::reference<f32>, true},
      {OpT::RELU6, ops::relu6::vectorized<A>, ops::relu6::reference<f32>, true},
      {OpT::HARD_SWISH, ops::hard_swish::vectorized<A>, ops::hard_swish::reference<f32>, true},
      {OpT::EXP, ops::exp::vectorized<A>, ops::exp::reference<f32>, false},
      {OpT::LOG, ops::log::vectorized<A>, ops::log::reference<f32>, false},
      {OpT::LOGISTIC, ops::logistic::vectorized<A>, ops::logistic::reference<f32>, false},
      {OpT::TANH, ops::tanh::vectorized<A>, ops::tanh::reference<f32>, false},
      {OpT::ELU, ops::elu::vectorized<A>, ops::elu::reference<f32>, false},
  };
}

/// Random values over a wide range (signs, magnitudes 1e-6 .. 1e3) with special values mixed in.
std::vector<double> simd_values(std::mt19937& rng, std::size_t n) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::array<double, 12> special{0.0,    -0.0, inf,    -inf, std::numeric_limits<double>::quiet_NaN(),
                                       1e-40,  // float32 subnormal
                                       -1e-40, 88.8, -104.0, 1e30, -1e30,
                                       3.0};
  std::uniform_real_distribution<double> mag(-6.0, 3.0), coin(0.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) {
    const double r = coin(rng);
    if (r < 0.08)
      x = special[std::uniform_int_distribution<std::size_t>(0, special.size() - 1)(rng)];
    else
      x = (r < 0.54 ? -1.0 : 1.0) * std::pow(10.0, mag(rng));
  }
  return v;
}

}  // namespace

namespace {

/// Each case's `vectorized` kernel against its reference on n in `sizes`, data aligned and
/// misaligned: bit for bit where the case is exact, else within the CTS float32 tolerance.
void check_against_reference(const std::vector<simd_case>& cases, const std::vector<std::size_t>& sizes,
                             std::uint32_t seed0) {
  std::mt19937 seeds(seed0);
  for (const auto& c : cases) {
    for (std::size_t n : sizes) {
      for (std::size_t misalign : {0, 1}) {
        const auto seed = seeds();
        std::mt19937 rng(seed);
        INFO(str(c.op) << " n=" << n << " misalign=" << misalign << " seed=" << seed);
        const tensor x = values(OT::TENSOR_FLOAT32, {static_cast<std::uint32_t>(n)}, simd_values(rng, n));
        std::vector<tensor> ins{x};
        if (c.op == OpT::ELU) ins.push_back(scalar_f32(std::uniform_real_distribution<float>(0.1f, 2.0f)(rng)));
        const tensor v = run_entry1(c.op, c.vectorized, ins, decl(OT::TENSOR_FLOAT32, {}), misalign);
        const tensor r = run_entry1(c.op, c.reference, ins, decl(OT::TENSOR_FLOAT32, {}), misalign);
        for (std::size_t i = 0; i < n; ++i) {
          const float a = v.get<float>(i), e = r.get<float>(i);
          const bool ok = c.exact ? (std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(e) ||
                                     (std::isnan(a) && std::isnan(e)))
                                  : close(a, e, OT::TENSOR_FLOAT32);
          if (!ok) {
            FAIL_CHECK("element " << i << ": x=" << x.get<float>(i) << " simd " << a << " reference " << e);
            break;
          }
        }
      }
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// The AVX-512 float32 kernels, exact where they do the reference's IEEE operations.
std::vector<simd_case> avx512_cases() {
  using ty::f32;
  return {
      {OpT::ABS, ops::abs::op::avx512_f32, ops::abs::reference<f32>, true},
      {OpT::NEG, ops::neg::op::avx512_f32, ops::neg::reference<f32>, true},
      {OpT::FLOOR, ops::floor::op::avx512_f32, ops::floor::reference<f32>, true},
      {OpT::SQRT, ops::sqrt::op::avx512_f32, ops::sqrt::reference<f32>, true},
      {OpT::RSQRT, ops::rsqrt::op::avx512_f32, ops::rsqrt::reference<f32>, true},
      {OpT::RELU, ops::relu::op::avx512_f32, ops::relu::reference<f32>, true},
      {OpT::RELU1, ops::relu1::op::avx512_f32, ops::relu1::reference<f32>, true},
      {OpT::RELU6, ops::relu6::op::avx512_f32, ops::relu6::reference<f32>, true},
      {OpT::HARD_SWISH, ops::hard_swish::op::avx512_f32, ops::hard_swish::reference<f32>, false},
      {OpT::EXP, ops::exp::op::avx512_f32, ops::exp::reference<f32>, false},
      {OpT::LOGISTIC, ops::logistic::op::avx512_f32, ops::logistic::reference<f32>, false},
      {OpT::TANH, ops::tanh::op::avx512_f32, ops::tanh::reference<f32>, false},
      {OpT::ELU, ops::elu::avx512_f32, ops::elu::reference<f32>, false},
  };
}
#endif

}  // namespace

TEST_CASE("simd: float32 vectorized paths equal the reference (exact ops) or stay within the CTS tolerance") {
  constexpr std::size_t lanes = xsimd::batch<float, vu::simd_arch>::size;
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 2 * lanes + 1; ++n) sizes.push_back(n);
  for (std::size_t n : {15, 16, 17, 31, 32, 33, 1000}) sizes.push_back(n);
  check_against_reference(simd_cases(), sizes, 0x51D);
}

#if NNHAL_HAVE_X86_KERNELS
namespace {
NNHAL_TARGET_AVX512 void exp_nonpositive_on(const float* z, float* out, std::size_t n) {
  for (std::size_t i = 0; i + 64 <= n; i += 64) {
    __m512 v[4];
    for (std::size_t j = 0; j < 4; ++j) v[j] = _mm512_loadu_ps(z + i + 16 * j);
    vu::avx512::exp_nonpositive(v);
    for (std::size_t j = 0; j < 4; ++j) _mm512_storeu_ps(out + i + 16 * j, v[j]);
  }
}
}  // namespace

TEST_CASE("simd: the AVX-512 exponential of LOGISTIC and ELU is within 1.2e-7 of e^z on [-104, 0]") {
  if (!nnhal::simd::cpu().avx512) return;
  // Much tighter than the CTS tolerance, so a wrong table entry or coefficient shows.
  const std::size_t n = std::size_t{1} << 20;
  std::vector<float> z(n), e(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = -104.0f * static_cast<float>(i) / static_cast<float>(n - 1);
  z[1] = -std::numeric_limits<float>::denorm_min();
  z[2] = std::numeric_limits<float>::quiet_NaN();
  exp_nonpositive_on(z.data(), e.data(), n);
  CHECK(e[0] == 1.0f);
  CHECK(std::isnan(e[2]));
  CHECK(e[n - 1] == 0.0f);  // e^-104 is below the float range
  double worst = 0, worst_rel = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 2) continue;
    const double want = std::exp(static_cast<double>(z[i]));
    worst = std::max(worst, std::fabs(e[i] - want));
    if (z[i] > -10.0f) worst_rel = std::max(worst_rel, std::fabs(e[i] - want) / want);
  }
  CHECK(worst <= 1.2e-7);
  CHECK(worst_rel <= 2.5e-7);
}

TEST_CASE("simd: AVX-512 float32 paths equal the reference (exact ops) or stay within the CTS tolerance") {
  if (!nnhal::simd::cpu().avx512) return;
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 33; ++n) sizes.push_back(n);
  for (std::size_t n : {63, 64, 65, 100, 1000, 4099}) sizes.push_back(n);
  check_against_reference(avx512_cases(), sizes, 0x512);
  {  // every output streamed (large outputs are): the same values
    const streaming_threshold all(0);
    check_against_reference(avx512_cases(), sizes, 0x513);
  }
  // Near 0, where tanh switches from its polynomial to the exp form, and where logistic and
  // ELU leave their linear region: dense values, compared within the tolerance.
  std::vector<double> near0;
  for (int i = -400; i <= 400; ++i) near0.push_back(i / 1600.0);
  const tensor x = values(OT::TENSOR_FLOAT32, {static_cast<std::uint32_t>(near0.size())}, near0);
  for (const auto& c : avx512_cases()) {
    if (c.exact || c.op == OpT::ELU) continue;
    INFO(str(c.op));
    const tensor v = run_entry1(c.op, c.vectorized, {x}, decl(OT::TENSOR_FLOAT32, {}));
    const tensor r = run_entry1(c.op, c.reference, {x}, decl(OT::TENSOR_FLOAT32, {}));
    for (std::size_t i = 0; i < near0.size(); ++i)
      CHECK_MESSAGE(close(v.get<float>(i), r.get<float>(i), OT::TENSOR_FLOAT32), "x=" << near0[i]);
  }
}

TEST_CASE("AVX-512 HARD_SWISH is within one ulp of the reference on a sweep of all float bit patterns") {
  if (!nnhal::simd::cpu().avx512) return;
  // It multiplies by RN(1/6) where the reference divides by 6: every 4093rd bit pattern
  // (subnormals, values near -3 where the result cancels, the largest values, where
  // x * relu6(x + 3) overflows in both, infinities, NaNs) and a dense run near the subnormal
  // results. Infinities and NaNs must be where the reference has them; finite results one
  // ulp apart at most (two adjacent floats' bit patterns differ by one, across zero too).
  std::vector<double> v;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4093)
    v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
  for (std::uint32_t b = std::bit_cast<std::uint32_t>(0x1p-130f); b < std::bit_cast<std::uint32_t>(0x1p-124f); b += 61) {
    v.push_back(std::bit_cast<float>(b));
    v.push_back(-std::bit_cast<float>(b + 30));
  }
  for (float x : {-3.0f, std::nextafter(-3.0f, 0.0f), std::nextafter(-3.0f, -4.0f), 3.0f, 0.0f, -0.0f})
    v.push_back(x);
  const tensor x = values(OT::TENSOR_FLOAT32, {static_cast<std::uint32_t>(v.size())}, v);
  const tensor a = run_entry1(OpT::HARD_SWISH, ops::hard_swish::op::avx512_f32, {x}, decl(OT::TENSOR_FLOAT32, {}));
  const tensor e = run_entry1(OpT::HARD_SWISH, ops::hard_swish::reference<ty::f32>, {x}, decl(OT::TENSOR_FLOAT32, {}));
  // Ordered bit patterns: adjacent floats are adjacent integers, -0 and +0 both 0.
  const auto ordered = [](float f) {
    const auto u = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(f) & 0x7fffffffu);
    return std::signbit(f) ? -u : u;
  };
  std::size_t bad = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float av = a.get<float>(i), ev = e.get<float>(i);
    const bool same_class = std::isnan(av) == std::isnan(ev) && std::isinf(av) == std::isinf(ev);
    const bool ok = same_class && (std::isnan(ev) || (std::isinf(ev) ? av == ev : std::llabs(ordered(av) - ordered(ev)) <= 1));
    if (ok) continue;
    if (++bad <= 5) FAIL_CHECK("x=" << std::hexfloat << x.get<float>(i) << " avx512 " << av << " reference " << ev);
  }
  CHECK(bad == 0);
}

TEST_CASE("AVX-512 QUANTIZE and DEQUANTIZE equal the reference bit for bit") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(0x0512);
  // Scales also at the ends of the float range: a subnormal scale, or one whose
  // reciprocal is subnormal, takes the division; a tiny normal one, the reciprocal.
  const std::vector<float> odd_scales{1.5e-39f, 1.2e-38f, 3e38f, 1.0f, 0.1f};
  std::size_t case_no = 0;
  for (std::size_t n : {1, 5, 15, 16, 17, 33, 64, 100, 1000, 4000})
  for (bool streamed : {false, true}) {  // every output streamed, or the large ones only
    const streaming_threshold threshold(streamed ? 0 : nnhal::ops::streaming_output_bytes.load());
    for (OT qt : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
      const std::size_t c = case_no++;
      // Else no value near a tie but one exact tie in every other block of 64 (the loop's
      // step) at a random place, the scale a power of two so that it stays a tie: the other
      // blocks go by the reciprocal, these must notice their one tie (rounding to nearest
      // even would get half of them wrong).
      const bool ties = c % 2 == 0;
      const float s = c % 3 == 0 ? odd_scales[c / 3 % odd_scales.size()]
                      : ties     ? random_scale(rng, 1e-2, 4.0)
                                 : std::ldexp(1.0f, std::uniform_int_distribution<int>(-7, 2)(rng));
      const std::int32_t zp = std::uniform_int_distribution<std::int32_t>(static_cast<std::int32_t>(qmin(qt)),
                                                                          static_cast<std::int32_t>(qmax(qt)))(rng);
      INFO(str(qt) << " n=" << n << " scale=" << s << " zp=" << zp << " streamed " << streamed);
      // Values on and next to the rounding ties (or inside the range), far out of range,
      // and the special ones.
      std::vector<double> v = simd_values(rng, n);
      for (std::size_t i = 0; i < n && !ties; i += 2) v[i] = std::uniform_real_distribution<double>(-300, 300)(rng) * s;
      for (std::size_t b = 0; b + 64 <= n && !ties; b += 128)
        v[b + std::uniform_int_distribution<std::size_t>(0, 63)(rng)] =
            (std::uniform_int_distribution<int>(-200, 200)(rng) + 0.5) * s;
      for (std::size_t i = 0; i < n && ties; i += 3) v[i] = (std::uniform_int_distribution<int>(-400, 400)(rng) + 0.5) * s;
      for (std::size_t i = 1; i < n && ties; i += 3) {  // a few float steps from a tie
        float tie = static_cast<float>((std::uniform_int_distribution<int>(-300, 300)(rng) + 0.5) * s);
        const int steps = std::uniform_int_distribution<int>(-3, 3)(rng);
        for (int k = 0; k < std::abs(steps); ++k) tie = std::nextafter(tie, steps < 0 ? -INFINITY : INFINITY);
        v[i] = tie;
      }
      const tensor f = values(OT::TENSOR_FLOAT32, {static_cast<std::uint32_t>(n)}, v);
      const tensor od = decl(qt, {}, s, zp);
      const tensor got = run_ok1(OpT::QUANTIZE, {f}, od);  // bound: AVX-512 on this CPU
      const tensor want = qt == OT::TENSOR_QUANT8_ASYMM
                              ? run_entry1(OpT::QUANTIZE, ops::quantize::reference<ty::f32, ty::qu8>, {f}, od)
                              : run_entry1(OpT::QUANTIZE, ops::quantize::reference<ty::f32, ty::qs8>, {f}, od);
      CHECK(raws(got) == raws(want));
      tensor q = make_tensor(qt, {static_cast<std::uint32_t>(n)}, s, zp);
      for (std::size_t i = 0; i < n; ++i) q.put(i, std::uniform_int_distribution<int>(0, 255)(rng) + static_cast<int>(qmin(qt)));
      const tensor fd = decl(OT::TENSOR_FLOAT32, {});
      const tensor back = run_ok1(OpT::DEQUANTIZE, {q}, fd);
      const tensor back_ref = qt == OT::TENSOR_QUANT8_ASYMM
                                  ? run_entry1(OpT::DEQUANTIZE, ops::dequantize::reference<ty::qu8, ty::f32>, {q}, fd)
                                  : run_entry1(OpT::DEQUANTIZE, ops::dequantize::reference<ty::qs8, ty::f32>, {q}, fd);
      CHECK(back.bytes == back_ref.bytes);
    }
  }
}

#if NNHAL_HAVE_X86_KERNELS
/// quantize_loop<S> on v against quantize_value<S> element by element, with each way of
/// ordering the packed bytes this CPU can run; the first difference is reported.
template <class S>
void check_quantize_loop(const std::vector<float>& v, float scale, std::int32_t zp) {
  for (bool vbmi : {false, true}) {
    if (vbmi && !nnhal::simd::cpu().avx512_vbmi) continue;
    std::vector<S> got(v.size());
    if (vbmi) vu::avx512::quantize_loop<false, S, true>(v.data(), got.data(), v.size(), scale, zp);
    else vu::avx512::quantize_loop<false, S, false>(v.data(), got.data(), v.size(), scale, zp);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const S want = ops::quantize::quantize_value<S>(v[i], scale, zp);
      if (got[i] != want) {
        FAIL_CHECK("vbmi " << vbmi << " x=" << v[i] << " (" << std::bit_cast<std::uint32_t>(v[i]) << ") at " << i
                           << ": got " << int{got[i]} << ", want " << int{want});
        return;
      }
    }
  }
}

TEST_CASE("AVX-512 QUANTIZE: the fixed-point loop equals the float formula next to every tie") {
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(0x9e37);
  for (int c = 0; c < 128; ++c) {
    // Scales of every size the fixed-point path takes (and a few around its limits), zero
    // points over the whole range including both ends.
    const float scale = c < 4        ? std::array{1.0f, 0x1p-7f, 3e-34f, 1e30f}[static_cast<std::size_t>(c)]
                        : c % 5 == 0 ? std::ldexp(1.0f, std::uniform_int_distribution<int>(-20, 10)(rng))
                                     : random_scale(rng, 1e-6, 1e3);
    const std::int32_t zp8 =
        c % 7 == 0 ? 0 : c % 7 == 1 ? 255 : std::uniform_int_distribution<std::int32_t>(0, 255)(rng);
    INFO("case " << c << " scale=" << scale << " zp=" << zp8);
    // x on and up to 6 float steps either side of each tie (k + 1/2) * scale for every
    // output level and a little past both ends, so each tie meets the one-sided window
    // from both sides; far out of range and the special values. Each goes alone into a
    // vector of 16 otherwise random levels: the loop writes a vector with a lane near a
    // tie again by the division, which would hide the fast path's result if every lane
    // of a vector were near one.
    std::vector<float> odd;
    for (int k = -300; k <= 300; ++k) {
      const float tie = static_cast<float>((k + 0.5) * static_cast<double>(scale));
      float lo = tie, hi = tie;
      odd.push_back(tie);
      for (int s = 0; s < 6; ++s) {
        lo = std::nextafter(lo, -INFINITY);
        hi = std::nextafter(hi, INFINITY);
        odd.push_back(lo);
        odd.push_back(hi);
      }
    }
    for (double far : {4e4, 1e6, 3e9, 1e20}) {
      odd.push_back(static_cast<float>(far * scale));
      odd.push_back(static_cast<float>(-far * scale));
    }
    for (float special : {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f})
      odd.push_back(special);
    std::uniform_real_distribution<double> level(-400.0, 400.0);
    std::uniform_int_distribution<std::size_t> lane(0, 15);
    std::vector<float> v(16 * odd.size());
    for (std::size_t j = 0; j < odd.size(); ++j) {
      for (std::size_t l = 0; l < 16; ++l) v[16 * j + l] = static_cast<float>(level(rng) * scale);
      v[16 * j + lane(rng)] = odd[j];
    }
    std::rotate(v.begin(), v.begin() + c % 64, v.end());  // vectors across blocks of 64
    v.resize(v.size() - static_cast<std::size_t>(c % 61));  // every tail length
    check_quantize_loop<std::uint8_t>(v, scale, zp8);
    check_quantize_loop<std::int8_t>(v, scale, zp8 - 128);
  }
}
#endif

TEST_CASE("8-bit tables and clamps: the bound kernels equal the reference at every length") {
  // The AVX-512 table (VBMI) and clamp loops work 64 bytes at a time with a masked tail.
  std::mt19937 rng(0x7AB);
  for (std::size_t n : {1, 7, 63, 64, 65, 127, 128, 200, 1000})
  for (bool streamed : {false, true}) {  // every output streamed, or the large ones only
    const streaming_threshold threshold(streamed ? 0 : nnhal::ops::streaming_output_bytes.load());
    for (OT qt : {OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}) {
      const bool u = qt == OT::TENSOR_QUANT8_ASYMM;
      tensor x = make_tensor(qt, {static_cast<std::uint32_t>(n)}, 0.05f, u ? 100 : -28);
      for (std::size_t i = 0; i < n; ++i) x.put(i, std::uniform_int_distribution<int>(0, 255)(rng) + static_cast<int>(qmin(qt)));
      INFO(str(qt) << " n=" << n << " streamed " << streamed);
      const tensor lo = decl(qt, {}, 1.0f / 256, u ? 0 : -128);
      const tensor got = run_ok1(OpT::LOGISTIC, {x}, lo);
      const tensor want = u ? run_entry1(OpT::LOGISTIC, ops::logistic::reference<ty::qu8>, {x}, lo)
                            : run_entry1(OpT::LOGISTIC, ops::logistic::reference<ty::qs8>, {x}, lo);
      CHECK(raws(got) == raws(want));
      const tensor same = decl(qt, {}, 0.05f, u ? 100 : -28);
      const tensor c = run_ok1(OpT::RELU6, {x}, same);
      const tensor c_ref = u ? run_entry1(OpT::RELU6, ops::relu6::reference<ty::qu8>, {x}, same)
                             : run_entry1(OpT::RELU6, ops::relu6::reference<ty::qs8>, {x}, same);
      CHECK(raws(c) == raws(c_ref));
    }
  }
}
#endif

TEST_CASE("simd: the bound float32 kernels are the fastest ones this CPU has") {
  // ops::bind picks AVX-512 where the CPU has it and the op has it, else the xsimd path;
  // its results equal that kernel's exactly.
  std::mt19937 rng(77);
  const tensor x = values(OT::TENSOR_FLOAT32, {3, 37}, simd_values(rng, 111));
  std::vector<simd_case> cases = simd_cases();
#if NNHAL_HAVE_X86_KERNELS
  if (nnhal::simd::cpu().avx512) {
    for (auto& c : cases)
      for (const auto& a : avx512_cases())
        if (a.op == c.op) c.vectorized = a.vectorized;
  }
#endif
  for (const auto& c : cases) {
    INFO(str(c.op));
    std::vector<tensor> ins{x};
    if (c.op == OpT::ELU) ins.push_back(scalar_f32(1.25f));
    const tensor b = run_ok1(c.op, ins, decl(OT::TENSOR_FLOAT32, {}));
    const tensor v = run_entry1(c.op, c.vectorized, ins, decl(OT::TENSOR_FLOAT32, {}));
    CHECK(b.bytes == v.bytes);
  }
}

// =================================================================================
// 3. Quantized LOGISTIC, TANH, HARD_SWISH, RSQRT: all 256 inputs
// =================================================================================

namespace {

struct quant_case {
  float in_scale;
  std::int32_t in_zp;  // TENSOR_QUANT8_ASYMM
  float out_scale;
  std::int32_t out_zp;
};

/// Runs op on all 256 qu8 inputs; checks the bound (table) kernel equals the reference,
/// the qs8 twin equals it - 128, and returns the max deviation from the double oracle
/// (inputs whose real value is outside the op's domain are skipped).
int exhaustive(OpT op, const kernel_fn& ref_u, const kernel_fn& ref_s, const quant_case& q) {
  INFO(str(op) << " in " << q.in_scale << "/" << q.in_zp << " out " << q.out_scale << "/" << q.out_zp);
  const tensor x = all_values(OT::TENSOR_QUANT8_ASYMM, q.in_scale, q.in_zp);
  const tensor od = decl(OT::TENSOR_QUANT8_ASYMM, {}, q.out_scale, q.out_zp);
  const tensor table_out = run_ok1(op, {x}, od);
  const tensor ref_out = run_entry1(op, ref_u, {x}, od);
  CHECK(raws(table_out) == raws(ref_out));
  const tensor s_out = run_ok1(op, {to_signed(x)}, to_signed(od));
  CHECK(raws(run_entry1(op, ref_s, {to_signed(x)}, to_signed(od))) == raws(s_out));
  int max_dev = 0;
  for (std::size_t i = 0; i < 256; ++i) {
    CHECK_MESSAGE(s_out.raw(i) == ref_out.raw(i) - 128, "parity at input " << x.raw(i));
    const double r = x.real(i);
    if (op == OpT::RSQRT && !(r > 0)) {
      CHECK_MESSAGE(ref_out.raw(i) == 255, "1/sqrt(" << r << ") saturates");
      continue;
    }
    const std::int64_t want = quantize_oracle(oracle(op, r), q.out_scale, q.out_zp, OT::TENSOR_QUANT8_ASYMM);
    const int dev = static_cast<int>(std::abs(ref_out.raw(i) - want));
    if (dev > 1) FAIL_CHECK("input " << x.raw(i) << " (" << r << "): got " << ref_out.raw(i) << " want " << want);
    max_dev = std::max(max_dev, dev);
  }
  return max_dev;
}

}  // namespace

TEST_CASE("quantized LOGISTIC and TANH: every input, several input quantizations, within 1 of the oracle") {
  const std::vector<std::pair<float, std::int32_t>> inputs = {{0.05f, 100},  {1.0f / 16, 128}, {0.01f, 0},
                                                              {0.5f, 255},   {0.1f, 37},       {2.0f, 128},
                                                              {0.003f, 200}, {1.0f / 32, 128}};
  int worst_logistic = 0, worst_tanh = 0;
  for (auto [s, zp] : inputs) {
    worst_logistic = std::max(worst_logistic, exhaustive(OpT::LOGISTIC, ops::logistic::reference<ty::qu8>,
                                                         ops::logistic::reference<ty::qs8>, {s, zp, 1.0f / 256, 0}));
    worst_tanh = std::max(worst_tanh, exhaustive(OpT::TANH, ops::tanh::reference<ty::qu8>,
                                                 ops::tanh::reference<ty::qs8>, {s, zp, 1.0f / 128, 128}));
  }
  MESSAGE("max deviation from the double oracle: LOGISTIC " << worst_logistic << ", TANH " << worst_tanh);
  CHECK(worst_logistic <= 1);
  CHECK(worst_tanh <= 1);
}

TEST_CASE("quantized HARD_SWISH: every input, several quantizations, within 1 of the oracle") {
  const std::vector<quant_case> cases = {
      {0.078125f, 128, 0.078125f, 128},  // the CTS example
      {0.078125f, 128, 0.03125f, 0},     // the CTS example's second output
      {0.05f, 100, 0.02f, 50},
      {0.1f, 128, 0.05f, 200},
      {0.01f, 0, 0.01f, 0},
      {0.2f, 30, 0.1f, 10},
      {1.0f, 128, 0.5f, 5},
      {0.003f, 255, 0.0005f, 255},
      {0.04f, 64, 0.2f, 20},
      {0.5f, 0, 0.25f, 0},
  };
  int worst = 0;
  for (const auto& q : cases)
    worst = std::max(worst, exhaustive(OpT::HARD_SWISH, ops::hard_swish::reference<ty::qu8>,
                                       ops::hard_swish::reference<ty::qs8>, q));
  MESSAGE("max deviation from the double oracle: HARD_SWISH " << worst);
  CHECK(worst <= 1);
}

TEST_CASE("quantized RSQRT (AIDL V3): every input, within 1 of the oracle; 1/sqrt(x <= 0) saturates") {
  const std::vector<quant_case> cases = {
      {0.25f, 0, 0.25f, 0},  // CTS rsqrt_quant8 examples
      {0.25f, 0, 0.01f, 75},  {0.125f, 10, 0.25f, 0}, {0.01f, 0, 0.05f, 3},
      {1.0f, 128, 0.004f, 0}, {0.002f, 50, 1.0f, 10}, {0.3f, 255, 0.1f, 100},
  };
  int worst = 0;
  for (const auto& q : cases)
    worst = std::max(worst, exhaustive(OpT::RSQRT, ops::rsqrt::reference<ty::qu8>, ops::rsqrt::reference<ty::qs8>, q));
  MESSAGE("max deviation from the double oracle: RSQRT " << worst);
  CHECK(worst <= 1);
}

TEST_CASE("golden: quantized activations from the CTS corpus") {
  // rsqrt_quant8: s 0.25 zp 0 [1, 4, 16, 64] = [0.25, 1, 4, 16] -> [2, 1, 0.5, 0.25] -> [8, 4, 2, 1]
  CHECK(raws(run_ok1(OpT::RSQRT, {vec(OT::TENSOR_QUANT8_ASYMM, {1, 4, 16, 64}, 0.25f, 0)},
                 decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 0))) == std::vector<std::int64_t>{8, 4, 2, 1});
  // out s 0.01 zp 75: [4, 16] -> [0.5, 0.25] -> [125, 100]
  CHECK(raws(run_ok1(OpT::RSQRT, {vec(OT::TENSOR_QUANT8_ASYMM, {16, 64}, 0.25f, 0)},
                 decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.01f, 75))) == std::vector<std::int64_t>{125, 100});
  // LOGISTIC s 0.5 zp 0: [0, 1, 2, 6] -> [0, 0.5, 1, 3] -> [0.5, 0.6225, 0.7311, 0.9526] * 256
  CHECK(raws(run_ok1(OpT::LOGISTIC, {vec(OT::TENSOR_QUANT8_ASYMM, {0, 1, 2, 6}, 0.5f, 0)},
                 decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0))) == std::vector<std::int64_t>{128, 159, 187, 244});
  // TANH s 0.5 zp 128, signed twin: [-128, 0, 2, 127] -> [-64, 0, 1, 63.5] -> [-1, 0, 0.7616, 1) * 128
  CHECK(raws(run_ok1(OpT::TANH, {vec(OT::TENSOR_QUANT8_ASYMM_SIGNED, {-128, 0, 2, 127}, 0.5f, 0)},
                 decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 128, 0))) ==
        std::vector<std::int64_t>{-128, 0, 97, 127});
}

TEST_CASE("quantized RELU / RELU1 / RELU6: every input clamps at the quantized bounds") {
  const std::vector<std::pair<float, std::int32_t>> params = {{0.5f, 0},        {0.1f, 128}, {0.02f, 255},
                                                              {1.0f / 128, 37}, {4.0f, 200}, {0.25f, 128}};
  for (OpT op : {OpT::RELU, OpT::RELU1, OpT::RELU6}) {
    for (const auto& param : params) {
      const float s = param.first;  // not a structured binding: doctest's macros capture them
      const std::int32_t zp = param.second;
      INFO(str(op) << " s=" << s << " zp=" << zp);
      const tensor x = all_values(OT::TENSOR_QUANT8_ASYMM, s, zp);
      const tensor od = decl(OT::TENSOR_QUANT8_ASYMM, {}, s, zp);
      const tensor u = run_ok1(op, {x}, od);
      const kernel_fn ref = op == OpT::RELU    ? kernel_fn{ops::relu::reference<ty::qu8>}
                            : op == OpT::RELU1 ? kernel_fn{ops::relu1::reference<ty::qu8>}
                                               : kernel_fn{ops::relu6::reference<ty::qu8>};
      CHECK(raws(run_entry1(op, ref, {x}, od)) == raws(u));
      for (std::size_t i = 0; i < 256; ++i) {
        // Clamping the stored value: the oracle of the real value, quantized, within 1.
        const std::int64_t want = quantize_oracle(oracle(op, x.real(i)), s, zp, OT::TENSOR_QUANT8_ASYMM);
        CHECK_MESSAGE(std::abs(u.raw(i) - want) <= 1, "input " << x.raw(i) << ": got " << u.raw(i) << " want " << want);
        // and never moves a value that is inside the bounds.
        if (u.raw(i) != x.raw(i)) CHECK(oracle(op, x.real(i)) != x.real(i));
      }
    }
  }
}

// =================================================================================
// 4. qs8 == qu8 - 128 for every quantized operation (random quantizations and data)
// =================================================================================

TEST_CASE("parity: signed results equal unsigned results - 128") {
  std::mt19937 seeds(0x9A41);
  std::uniform_int_distribution<int> zp_d(0, 255), byte(0, 255);
  for (int rep = 0; rep < 40; ++rep) {
    const auto seed = seeds();
    std::mt19937 rng(seed);
    INFO("seed=" << seed);
    const dims_t d = random_dims(rng);
    const float s_in = random_scale(rng, 1e-3, 2.0);
    const std::int32_t zp_in = zp_d(rng);
    tensor x = make_tensor(OT::TENSOR_QUANT8_ASYMM, d, s_in, zp_in);
    for (std::size_t i = 0; i < x.count(); ++i) x.put(i, byte(rng));
    const float s_out = random_scale(rng, s_in / 64, s_in * 4);
    const std::int32_t zp_out = zp_d(rng);
    auto check = [&](OpT op, const tensor& od) {
      INFO(str(op));
      const tensor u = run_ok1(op, {x}, od);
      const tensor s = run_ok1(op, {to_signed(x)}, to_signed(od));
      REQUIRE(u.count() == s.count());
      for (std::size_t i = 0; i < u.count(); ++i) CHECK(s.raw(i) == u.raw(i) - 128);
    };
    check(OpT::RELU, decl(OT::TENSOR_QUANT8_ASYMM, {}, s_in, zp_in));
    check(OpT::RELU1, decl(OT::TENSOR_QUANT8_ASYMM, {}, s_in, zp_in));
    check(OpT::RELU6, decl(OT::TENSOR_QUANT8_ASYMM, {}, s_in, zp_in));
    check(OpT::LOGISTIC, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0));
    check(OpT::TANH, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 128));
    check(OpT::HARD_SWISH, decl(OT::TENSOR_QUANT8_ASYMM, {}, s_out, zp_out));
    check(OpT::RSQRT, decl(OT::TENSOR_QUANT8_ASYMM, {}, s_out, zp_out));
    // DEQUANTIZE: the same real numbers, so identical floats.
    for (OT ft : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
      const tensor u = run_ok1(OpT::DEQUANTIZE, {x}, decl(ft, {}));
      const tensor s = run_ok1(OpT::DEQUANTIZE, {to_signed(x)}, decl(ft, {}));
      CHECK(u.bytes == s.bytes);
    }
    // QUANTIZE: float data to (s_out, zp_out) and to (s_out, zp_out - 128).
    for (OT ft : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
      tensor f = make_tensor(ft, d);
      std::uniform_real_distribution<double> val(-200.0 * s_out, 200.0 * s_out);
      for (std::size_t i = 0; i < f.count(); ++i) f.put(i, val(rng));
      const tensor od = decl(OT::TENSOR_QUANT8_ASYMM, {}, s_out, zp_out);
      const tensor u = run_ok1(OpT::QUANTIZE, {f}, od);
      const tensor s = run_ok1(OpT::QUANTIZE, {f}, to_signed(od));
      for (std::size_t i = 0; i < u.count(); ++i) CHECK(s.raw(i) == u.raw(i) - 128);
    }
  }
}

// =================================================================================
// 5. CAST, QUANTIZE, DEQUANTIZE
// =================================================================================

namespace {

/// CAST's conversion of the number v to type `to` (the AOSP CPU path's rules, NaN and
/// out-of-range int32 as documented in ops/cast.hpp).
double cast_oracle(double v, OT to) {
  switch (to) {
    case OT::TENSOR_FLOAT32: return static_cast<double>(static_cast<float>(v));
    case OT::TENSOR_FLOAT16: return static_cast<double>(ty::to_float(ty::to_float16(static_cast<float>(v))));
    case OT::TENSOR_INT32:
      if (std::isnan(v)) return 0;
      return std::clamp(std::trunc(v), -2147483648.0, 2147483647.0);
    case OT::TENSOR_QUANT8_ASYMM:
      if (std::isnan(v) || v < 0) return 0;
      return std::min(255.0, std::trunc(v));
    default: FAIL("cast_oracle"); return 0;
  }
}

const std::array<OT, 4> cast_types = {OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT32, OT::TENSOR_INT32,
                                      OT::TENSOR_QUANT8_ASYMM};

}  // namespace

TEST_CASE("CAST: every pair of FLOAT16 / FLOAT32 / INT32 / QUANT8_ASYMM, quantization ignored") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> float_values = {0,   -0.0, 0.4,  0.5,  2.7,    -2.7,   -0.9,  254.9, 255.5,
                                            300, -300, 1e6,  -1e6, 65504,  70000,  2049,  3e9,   -3e9,
                                            nan, inf,  -inf, 1e-8, 123.25, 1024.5, -1e-3, 7};
  const std::vector<double> int_values = {0,     1,     -1,    255,      256,        -256,          2049,     65504,
                                          65519, 65520, 70000, 16777217, 2147483647, -2147483648.0, 100000000};
  const std::vector<double> byte_values = {0, 1, 7, 128, 254, 255};
  for (OT from : cast_types) {
    const std::vector<double>& src = from == OT::TENSOR_INT32          ? int_values
                                     : from == OT::TENSOR_QUANT8_ASYMM ? byte_values
                                                                       : float_values;
    // Quantization parameters are ignored: give the quantized side some that would matter.
    const tensor x =
        vec(from, src, from == OT::TENSOR_QUANT8_ASYMM ? 0.5f : 0.0f, from == OT::TENSOR_QUANT8_ASYMM ? 3 : 0);
    for (OT to : cast_types) {
      INFO(str(from) << " -> " << str(to));
      const bool q = to == OT::TENSOR_QUANT8_ASYMM;
      const tensor out = run_ok1(OpT::CAST, {x}, decl(to, {}, q ? 2.0f : 0.0f, q ? 100 : 0));
      REQUIRE(out.dims == x.dims);
      for (std::size_t i = 0; i < x.count(); ++i) {
        const double want = cast_oracle(number(x, i), to);
        const double got = number(out, i);
        if (std::isnan(want))
          CHECK_MESSAGE(std::isnan(got), "element " << i);
        else
          CHECK_MESSAGE(got == want, "element " << i << " (" << number(x, i) << "): got " << got << " want " << want);
      }
    }
  }
}

TEST_CASE("CAST: identity casts copy the bytes for every type the 1.3 table allows") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(0, 255);
  for (OT t :
       {OT::TENSOR_FLOAT16, OT::TENSOR_FLOAT32, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_BOOL8,
        OT::TENSOR_QUANT16_ASYMM, OT::TENSOR_QUANT16_SYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_SYMM}) {
    INFO(str(t));
    const bool q = ty::is_quantized(t);
    tensor x = make_tensor(t, {3, 5}, q ? 0.25f : 0.0f, 0);
    for (auto& b : x.bytes) b = static_cast<std::byte>(byte(rng));
    if (t == OT::TENSOR_FLOAT16 || t == OT::TENSOR_FLOAT32)  // keep NaN payloads out of the comparison
      for (std::size_t i = 0; i < x.count(); ++i) x.put(i, std::uniform_real_distribution<double>(-100, 100)(rng));
    const tensor out = run_ok1(OpT::CAST, {x}, decl(t, {}, q ? 0.5f : 0.0f, 0));
    CHECK(out.bytes == x.bytes);
  }
}

TEST_CASE("QUANTIZE: round half away from zero in float, clamped, as the AOSP CPU path") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  // scale 0.5 zp 10: x / 0.5 = [0.5, -0.5, 1.5, -1.5, 2.5, 2e9, -2e9, NaN, inf, -inf, 0.4, -0.6]
  const std::vector<double> x = {0.25, -0.25, 0.75, -0.75, 1.25, 1e9, -1e9, nan, inf, -inf, 0.2, -0.3};
  for (OT ft : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
    INFO(str(ft));
    const tensor in = vec(ft, x);
    std::vector<std::int64_t> want = {11, 9, 12, 8, 13, 255, 0, 255, 255, 0, 10, 9};
    if (ft == OT::TENSOR_FLOAT16) want[5] = 255, want[6] = 0;  // 1e9 -> inf in half
    CHECK(raws(run_ok1(OpT::QUANTIZE, {in}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 10))) == want);
    for (auto& w : want) w -= 128;
    CHECK(raws(run_ok1(OpT::QUANTIZE, {in}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.5f, -118))) == want);
  }
}

TEST_CASE("QUANTIZE: random data against the double oracle (within 1) and the float formula (exact)") {
  std::mt19937 seeds(0x0A7);
  for (int rep = 0; rep < 30; ++rep) {
    const auto seed = seeds();
    std::mt19937 rng(seed);
    INFO("seed=" << seed);
    const OT ft = rep % 2 ? OT::TENSOR_FLOAT16 : OT::TENSOR_FLOAT32;
    const OT qt = rep % 3 ? OT::TENSOR_QUANT8_ASYMM : OT::TENSOR_QUANT8_ASYMM_SIGNED;
    const float s = random_scale(rng, 1e-2, 4.0);
    const std::int32_t zp = std::uniform_int_distribution<std::int32_t>(static_cast<std::int32_t>(qmin(qt)),
                                                                        static_cast<std::int32_t>(qmax(qt)))(rng);
    tensor f = make_tensor(ft, random_dims(rng));
    std::uniform_real_distribution<double> val(-300.0 * s, 300.0 * s);
    for (std::size_t i = 0; i < f.count(); ++i) f.put(i, val(rng));
    const tensor out = run_ok1(OpT::QUANTIZE, {f}, decl(qt, {}, s, zp));
    for (std::size_t i = 0; i < f.count(); ++i) {
      const float xf = static_cast<float>(number(f, i));
      const float qf = static_cast<float>(zp) + std::round(xf / s);
      const auto exact =
          static_cast<std::int64_t>(std::clamp(qf, static_cast<float>(qmin(qt)), static_cast<float>(qmax(qt))));
      CHECK(out.raw(i) == exact);
      CHECK(std::abs(out.raw(i) - quantize_oracle(number(f, i), s, zp, qt)) <= 1);
    }
  }
}

TEST_CASE("DEQUANTIZE: per-tensor types to float32 / float16") {
  std::mt19937 seeds(0xDE0);
  for (int rep = 0; rep < 24; ++rep) {
    const auto seed = seeds();
    std::mt19937 rng(seed);
    const OT qt = std::array{OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_QUANT8_SYMM}[rep % 3];
    const OT ft = rep % 2 ? OT::TENSOR_FLOAT16 : OT::TENSOR_FLOAT32;
    INFO(str(qt) << " -> " << str(ft) << " seed=" << seed);
    const float s = random_scale(rng, 1e-3, 10.0);
    const std::int32_t zp = qt == OT::TENSOR_QUANT8_SYMM    ? 0
                            : qt == OT::TENSOR_QUANT8_ASYMM ? std::uniform_int_distribution<int>(0, 255)(rng)
                                                            : std::uniform_int_distribution<int>(-128, 127)(rng);
    tensor x = make_tensor(qt, random_dims(rng), s, zp);
    for (std::size_t i = 0; i < x.count(); ++i)
      x.put(i, std::uniform_int_distribution<int>(
                   static_cast<int>(qmin(qt == OT::TENSOR_QUANT8_ASYMM ? qt : OT::TENSOR_QUANT8_ASYMM_SIGNED)),
                   static_cast<int>(qmax(qt == OT::TENSOR_QUANT8_ASYMM ? qt : OT::TENSOR_QUANT8_ASYMM_SIGNED)))(rng));
    const tensor out = run_ok1(OpT::DEQUANTIZE, {x}, decl(ft, {}));
    REQUIRE(out.dims == x.dims);
    for (std::size_t i = 0; i < x.count(); ++i) CHECK(close(number(out, i), x.real(i), ft));
  }
}

TEST_CASE("DEQUANTIZE: TENSOR_QUANT8_SYMM_PER_CHANNEL uses the scale of each element's channel") {
  std::mt19937 seeds(0xC4A);
  for (int rep = 0; rep < 24; ++rep) {
    const auto seed = seeds();
    std::mt19937 rng(seed);
    const OT ft = rep % 2 ? OT::TENSOR_FLOAT16 : OT::TENSOR_FLOAT32;
    const dims_t d = random_dims(rng);
    const std::uint32_t axis =
        std::uniform_int_distribution<std::uint32_t>(0, static_cast<std::uint32_t>(d.size() - 1))(rng);
    INFO(str(ft) << " dims rank " << d.size() << " channelDim " << axis << " seed=" << seed);
    tensor x = make_tensor(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, d);
    x.channel_dim = axis;
    for (std::uint32_t c = 0; c < d[axis]; ++c) x.channel_scales.push_back(random_scale(rng, 1e-3, 5.0));
    for (std::size_t i = 0; i < x.count(); ++i) x.put(i, std::uniform_int_distribution<int>(-127, 127)(rng));
    const tensor out = run_ok1(OpT::DEQUANTIZE, {x}, decl(ft, {}));
    std::size_t inner = 1;
    for (std::size_t k = axis + 1; k < d.size(); ++k) inner *= d[k];
    for (std::size_t i = 0; i < x.count(); ++i) {
      const std::size_t c = (i / inner) % d[axis];
      CHECK(close(number(out, i), static_cast<double>(x.channel_scales[c]) * number(x, i), ft));
    }
  }
}

// =================================================================================
// 6. Shape inference and operand rules
// =================================================================================

namespace {

template <class Sig>
ty::result<sig::shapes> infer(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  return nnhal::test::op::infer(Sig::op, ins, {out}, executing);
}
template <class Sig>
dims_t infer_ok(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  auto r = infer<Sig>(ins, out, executing);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.err().message));
  REQUIRE(r->size() == 1);
  return (*r)[0];
}
/// The message of a rejected inference (checks the status); empty when it was accepted.
template <class Sig>
std::string infer_error(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  auto r = infer<Sig>(ins, out, executing);
  if (r.ok()) return {};
  CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
  return r.err().message;
}
bool mentions(const std::string& message, const std::string& role) { return message.find(role) != std::string::npos; }

tensor F(dims_t d) { return decl(OT::TENSOR_FLOAT32, std::move(d)); }

/// Same-shape inference for one operation signature: ranks 1..5, unknown rank and extents.
template <class Sig>
void check_same_shape(std::size_t max_rank, std::vector<tensor> extra = {}) {
  INFO(str(Sig::op));
  auto ins = [&](tensor x) {
    std::vector<tensor> v{std::move(x)};
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
  };
  for (std::size_t rank = 1; rank <= 5; ++rank) {
    dims_t d(rank);
    for (std::size_t i = 0; i < rank; ++i) d[i] = static_cast<std::uint32_t>(i + 2);
    if (rank <= max_rank) {
      CHECK(infer_ok<Sig>(ins(F(d)), F({}), true) == d);
    } else {
      const std::string e = infer_error<Sig>(ins(F(d)), F({}), true);
      CHECK(mentions(e, "input"));
    }
  }
  CHECK(infer_ok<Sig>(ins(F({})), F({}), false).empty());                   // unknown rank stays unknown
  CHECK(infer_ok<Sig>(ins(F({0, 3})), F({}), false) == dims_t{0, 3});       // unknown extent stays unknown
  CHECK(infer_ok<Sig>(ins(F({2, 0, 3})), F({}), true) == dims_t{2, 0, 3});  // zero-sized at execution
}

}  // namespace

TEST_CASE("infer: output shape = input shape; rank limits from the spec") {
  check_same_shape<sig::abs>(8);
  check_same_shape<sig::exp>(8);
  check_same_shape<sig::log>(8);
  check_same_shape<sig::neg>(8);
  check_same_shape<sig::rsqrt>(8);
  check_same_shape<sig::sin>(8);
  check_same_shape<sig::sqrt>(8);
  check_same_shape<sig::floor>(4);
  check_same_shape<sig::relu1>(4);
  check_same_shape<sig::relu6>(4);
  check_same_shape<sig::logistic>(4);
  check_same_shape<sig::tanh>(4);
  check_same_shape<sig::elu>(8, {scalar_f32(1.0f)});
  check_same_shape<sig::hard_swish>(8);
  check_same_shape<sig::cast>(8);
  check_same_shape<sig::quantize>(8);
  check_same_shape<sig::dequantize>(4);
}

TEST_CASE("infer: quantization rules") {
  const tensor qu = decl(OT::TENSOR_QUANT8_ASYMM, {4}, 0.1f, 128);
  const tensor qs = decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {4}, 0.1f, 0);
  SUBCASE("RELU1 / RELU6: the output keeps the input's scale and zero point") {
    CHECK(infer_ok<sig::relu1>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.1f, 128), true) == dims_t{4});
    CHECK(mentions(infer_error<sig::relu1>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.2f, 128), false), "output"));
    CHECK(mentions(infer_error<sig::relu6>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.1f, 1), true), "output"));
  }
  SUBCASE("LOGISTIC: output scale 1/256, zero point 0 / -128") {
    CHECK(infer_ok<sig::logistic>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0), false) == dims_t{4});
    CHECK(infer_ok<sig::logistic>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, -128), false) ==
          dims_t{4});
    CHECK(mentions(infer_error<sig::logistic>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 128), false),
                   "output"));
    CHECK(mentions(infer_error<sig::logistic>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, 0), false),
                   "output"));
    CHECK(
        mentions(infer_error<sig::logistic>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 0), false), "output"));
    // Input scales below 2^-27 cannot be rescaled to Q4.27 by a multiplier > 1.
    CHECK(mentions(infer_error<sig::logistic>({decl(OT::TENSOR_QUANT8_ASYMM, {4}, 1e-9f, 0)},
                                              decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0), false),
                   "input"));
  }
  SUBCASE("TANH: output scale 1/128, zero point 128 / 0") {
    CHECK(infer_ok<sig::tanh>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 128), false) == dims_t{4});
    CHECK(infer_ok<sig::tanh>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 128, 0), false) == dims_t{4});
    CHECK(mentions(infer_error<sig::tanh>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 0), false), "output"));
    CHECK(mentions(infer_error<sig::tanh>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1.0f / 256, 0), true),
                   "output"));
  }
  SUBCASE("HARD_SWISH: the output may have its own quantization, scale above input scale / 128") {
    CHECK(infer_ok<sig::hard_swish>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.05f, 3), false) == dims_t{4});
    CHECK(infer_ok<sig::hard_swish>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.1f / 120, 3), false) == dims_t{4});
    CHECK(mentions(infer_error<sig::hard_swish>({qu}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.1f / 128, 0), false),
                   "output"));
    CHECK(mentions(infer_error<sig::hard_swish>({qs}, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 1e-5f, 0), true),
                   "output"));
  }
  SUBCASE("DEQUANTIZE per-channel: as many scales as channels") {
    tensor pc = decl(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 3});
    pc.channel_scales = {0.5f, 0.25f, 1.0f};
    pc.channel_dim = 1;
    CHECK(infer_ok<sig::dequantize>({pc}, F({}), true) == dims_t{2, 3});
    pc.dims = {2, 0};
    CHECK(infer_ok<sig::dequantize>({pc}, F({}), false) == dims_t{2, 0});  // channels unknown yet
    pc.dims = {2, 4};
    CHECK(mentions(infer_error<sig::dequantize>({pc}, F({}), true), "input"));
    pc.dims = {3};
    CHECK(mentions(infer_error<sig::dequantize>({pc}, F({}), true), "channelDim"));
    // No SymmPerChannelQuantParams at all (descs_of attaches none).
    pc.dims = {2, 3};
    const std::vector<operand_desc> bare = descs_of({pc}), f_out = descs_of({F({})});
    const auto r = sig::dequantize::infer(sig::infer_context{OpT::DEQUANTIZE, bare, f_out, true, nullptr});
    CHECK(r.status() == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK(mentions(r.ok() ? std::string() : r.err().message, "input"));
  }
}

// =================================================================================
// 7. End to end: one-operation models through prepare and execute (run_any_model)
// =================================================================================

using nnhal::test::model_builder;

TEST_CASE("end to end: unary models prepare and execute, with dynamic output shapes") {
  SUBCASE("LOGISTIC quant8, output shape unknown until execution") {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(OT::TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 0);
    const auto y = g.output(OT::TENSOR_QUANT8_ASYMM, {0, 0}, 1.0f / 256, 0);
    g.op(OpT::LOGISTIC, {x}, {y});
    const tensor in = values(OT::TENSOR_QUANT8_ASYMM, {2, 2}, {0, 1, 2, 6}, 0.5f, 0);
    const auto r = run_any_model(b.build(), {in});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(r.outs[0].dims == dims_t{2, 2});
    CHECK(raws(r.outs[0]) == raws(run_ok1(OpT::LOGISTIC, {in}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 256, 0))));
  }
  SUBCASE("ELU with a constant alpha, float16") {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(OT::TENSOR_FLOAT16, {3});
    const auto alpha = g.constant(OT::FLOAT16, {}, std::vector<ty::float16>{ty::to_float16(0.5f)});
    const auto y = g.output(OT::TENSOR_FLOAT16, {3});
    g.op(OpT::ELU, {x, alpha}, {y});
    const auto r = run_any_model(b.build(), {vec(OT::TENSOR_FLOAT16, {-1, 0, 2})});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(close(number(r.outs[0], 0), 0.5 * (std::exp(-1.0) - 1.0), OT::TENSOR_FLOAT16));
    CHECK(number(r.outs[0], 1) == 0);
    CHECK(number(r.outs[0], 2) == 2);
  }
  SUBCASE("DEQUANTIZE per-channel") {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 2});
    g.operand(x).extraParams = ty::SymmPerChannelQuantParams{{0.5f, 2.0f}, 1};
    const auto y = g.output(OT::TENSOR_FLOAT32, {2, 2});
    g.op(OpT::DEQUANTIZE, {x}, {y});
    const auto r = run_any_model(b.build(), {values(OT::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 2}, {1, 1, -4, 3})});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(numbers(r.outs[0]) == std::vector<double>{0.5, 2, -2, 6});
  }
  SUBCASE("CAST float32 to TENSOR_QUANT8_ASYMM and QUANTIZE float16 to signed") {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(OT::TENSOR_FLOAT32, {4});
    const auto y = g.output(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 7);
    g.op(OpT::CAST, {x}, {y});
    const auto r = run_any_model(b.build(), {vec(OT::TENSOR_FLOAT32, {-3.5, 2.9, 255.1, 1000})});
    REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
    CHECK(raws(r.outs[0]) == std::vector<std::int64_t>{0, 2, 255, 255});

    model_builder b2;
    auto g2 = b2.main();
    const auto x2 = g2.input(OT::TENSOR_FLOAT16, {3});
    const auto y2 = g2.output(OT::TENSOR_QUANT8_ASYMM_SIGNED, {3}, 0.25f, -3);
    g2.op(OpT::QUANTIZE, {x2}, {y2});
    const auto r2 = run_any_model(b2.build(), {vec(OT::TENSOR_FLOAT16, {-1, 0.125, 100})});
    REQUIRE_MESSAGE(r2.status == ty::ErrorStatus::NONE, r2.message);
    CHECK(raws(r2.outs[0]) == std::vector<std::int64_t>{-7, -2, 127});
  }
  SUBCASE("zero-sized input gives a zero-sized output") {
    for (OpT op : {OpT::RELU1, OpT::RELU6, OpT::LOGISTIC, OpT::TANH, OpT::HARD_SWISH, OpT::DEQUANTIZE, OpT::QUANTIZE}) {
      INFO(str(op));
      const bool deq = op == OpT::DEQUANTIZE, q = op == OpT::QUANTIZE;
      const OT in_t = deq ? OT::TENSOR_QUANT8_ASYMM : OT::TENSOR_FLOAT32;
      const OT out_t = q ? OT::TENSOR_QUANT8_ASYMM : OT::TENSOR_FLOAT32;
      const tensor in = make_tensor(in_t, {0, 3}, deq ? 0.5f : 0.0f, 0);
      const tensor out = run_ok1(op, {in}, decl(out_t, {}, q ? 0.5f : 0.0f, 0));
      CHECK(out.dims == dims_t{0, 3});
    }
  }
  SUBCASE("invalid models are rejected at prepare with the operand named") {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(OT::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 0);
    const auto y = g.output(OT::TENSOR_QUANT8_ASYMM, {4}, 1.0f / 128, 0);
    g.op(OpT::TANH, {x}, {y});  // TANH quant8 output must have zero point 128
    const auto r = run_any_model(b.build(), {vec(OT::TENSOR_QUANT8_ASYMM, {0, 1, 2, 3}, 0.5f, 0)});
    CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK(mentions(r.message, "output"));

    model_builder b2;
    auto g2 = b2.main();
    const auto x2 = g2.input(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 2});
    const auto y2 = g2.output(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 2});
    g2.op(OpT::FLOOR, {x2}, {y2});
    const auto r2 = run_any_model(b2.build(), {values(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 2}, {1.5, -1.5})});
    CHECK(r2.status == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK(mentions(r2.message, "input"));
  }
}

TEST_CASE("unary kernels split into parallel chunks equal the one-chunk result") {
  // Past two chunk grains the AVX-512 loops split; the reversed context runs the halves in
  // reverse order.
  std::mt19937 rng(0xC4D);
  const auto n = static_cast<std::uint32_t>(8 * nnhal::ops::elementwise_grain + 5);  // 8-bit loops use 4x the grain
  const tensor f = values(OT::TENSOR_FLOAT32, {n}, simd_values(rng, n));
  tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {n}, 0.05f, 100);
  for (std::size_t i = 0; i < n; ++i) q.put(i, std::uniform_int_distribution<int>(0, 255)(rng));
  auto same_split = [](OpT op, const std::vector<tensor>& ins, const tensor& od) {
    INFO(str(op));
    reversed_context reversed;
    const kernel_result split = run_kernel(op, ins, {od}, &reversed);
    REQUIRE(split.ok);
    CHECK(split.guards_intact);
    CHECK(split.outs[0].bytes == run_ok1(op, ins, od).bytes);
  };
  for (bool streamed : {false, true}) {
    // Streamed: each chunk streams its stores from its first 64-byte boundary on (the
    // second half starts off a boundary) and fences them.
    const streaming_threshold threshold(streamed ? 0 : nnhal::ops::streaming_output_bytes.load());
    INFO("streamed " << streamed);
    same_split(OpT::LOGISTIC, {f}, decl(OT::TENSOR_FLOAT32, {}));
    same_split(OpT::RELU6, {f}, decl(OT::TENSOR_FLOAT32, {}));
    same_split(OpT::QUANTIZE, {f}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.05f, 100));
    same_split(OpT::DEQUANTIZE, {q}, decl(OT::TENSOR_FLOAT32, {}));
    same_split(OpT::TANH, {q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f / 128, 128));
    same_split(OpT::RELU6, {q}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.05f, 100));
  }
}
