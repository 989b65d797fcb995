// The AVX-512 requantization and the quantized ADD/MUL kernels built on it must equal
// the scalar reference bit for bit, for random values, multipliers, tails and broadcasts.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "nnhal/ops/add.hpp"
#include "nnhal/ops/mul.hpp"
#include "nnhal/ops/simd/fixed_point_avx512.hpp"

using namespace nnhal;
using ops::quant::fixed_multiplier;

#if NNHAL_HAVE_X86_KERNELS
namespace {

NNHAL_TARGET_AVX512 void apply_x16(const std::int32_t* in, std::int32_t* out, fixed_multiplier m) {
  const __m512i x = _mm512_loadu_si512(in);
  _mm512_storeu_si512(out, simd::avx512::apply_multiplier(x, m));
}

}  // namespace

TEST_CASE("AVX-512 apply_multiplier equals the scalar one") {
  if (!simd::cpu().avx512) {
    MESSAGE("no AVX-512 on this CPU: skipped");
    return;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> log_real(-40.0, 8.0);
  std::uniform_int_distribution<std::int32_t> any32;
  std::uniform_int_distribution<std::int32_t> small(-(1 << 20), 1 << 20);
  for (int trial = 0; trial < 4000; ++trial) {
    const fixed_multiplier m = ops::quant::quantize_multiplier(std::exp2(log_real(rng)));
    std::int32_t in[16], out[16];
    for (auto& v : in) v = trial % 2 ? any32(rng) : small(rng);
    in[0] = std::numeric_limits<std::int32_t>::min();
    in[1] = std::numeric_limits<std::int32_t>::max();
    apply_x16(in, out, m);
    for (int i = 0; i < 16; ++i) {
      CAPTURE(in[i]);
      CAPTURE(m.mantissa_q31);
      CAPTURE(m.shift);
      REQUIRE(out[i] == ops::quant::apply_multiplier(in[i], m));
    }
  }
}

namespace {

// Runs the bound vectorized and the reference kernel of a quantized binary op on the
// same random inputs (shapes with tails and broadcasts) and compares every byte.
template <types::element E, class Vectorized, class Reference, class Params>
void compare_binary(const Params& p, Vectorized vec, Reference ref, std::vector<std::uint32_t> da,
                    std::vector<std::uint32_t> db, std::vector<std::uint32_t> dout, std::int32_t act, float so,
                    std::int32_t zo, std::mt19937& rng) {
  using S = typename E::storage;
  auto count = [](const std::vector<std::uint32_t>& d) {
    std::size_t n = 1;
    for (auto e : d) n *= e;
    return n;
  };
  std::vector<S> a(count(da)), b(count(db)), o1(count(dout)), o2(count(dout));
  std::uniform_int_distribution<int> byte(std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
  for (auto& v : a) v = static_cast<S>(byte(rng));
  for (auto& v : b) v = static_cast<S>(byte(rng));
  types::sig::operand_desc in[3], out[1];
  in[0] = {E::hal, da, 0.5f, 0, nullptr, reinterpret_cast<const std::byte*>(a.data()), a.size()};
  in[1] = {E::hal, db, 0.5f, 0, nullptr, reinterpret_cast<const std::byte*>(b.data()), b.size()};
  in[2] = {types::OperandType::INT32, {}, 0, 0, nullptr, reinterpret_cast<const std::byte*>(&act), 4};
  out[0] = {E::hal, dout, so, zo};
  std::byte* d1[1] = {reinterpret_cast<std::byte*>(o1.data())};
  std::byte* d2[1] = {reinterpret_cast<std::byte*>(o2.data())};
  exec::serial_context par;
  vec(ops::kernel_io{in, out, d1, &par}, p);
  ref(ops::kernel_io{in, out, d2, &par}, p);
  REQUIRE(o1 == o2);
}

}  // namespace

TEST_CASE_TEMPLATE("vectorized quantized ADD and MUL equal the reference", E, types::qu8, types::qs8) {
  if (!simd::cpu().avx512) {
    MESSAGE("no AVX-512 on this CPU: skipped");
    return;
  }
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> scale(0.001f, 2.0f);
  using S = typename E::storage;
  std::uniform_int_distribution<int> zp(std::numeric_limits<S>::min(), std::numeric_limits<S>::max());
  const std::vector<std::vector<std::vector<std::uint32_t>>> shapes = {
      {{1}, {1}, {1}},          {{15}, {15}, {15}},          {{17}, {17}, {17}},
      {{33}, {1}, {33}},        {{1}, {47}, {47}},           {{3, 40}, {40}, {3, 40}},
      {{2, 3, 19}, {2, 1, 19}, {2, 3, 19}}, {{1000}, {1000}, {1000}}};
  for (int trial = 0; trial < 200; ++trial) {
    const auto& sh = shapes[static_cast<std::size_t>(trial) % shapes.size()];
    types::sig::operand_desc a{E::hal, {}, scale(rng), zp(rng)}, b{E::hal, {}, scale(rng), zp(rng)},
        o{E::hal, {}, scale(rng), zp(rng)};
    const std::int32_t act = trial % 4;
    CAPTURE(trial);
    const auto pa = ops::add::make_quant_params(a, b, o);
    compare_binary<E>(pa, ops::add::vectorized<E>, ops::add::reference<E>, sh[0], sh[1], sh[2], act, o.scale,
                      o.zero_point, rng);
    const auto pm = ops::mul::make_quant_params(a, b, o);
    compare_binary<E>(pm, ops::mul::vectorized<E>, ops::mul::reference<E>, sh[0], sh[1], sh[2], act, o.scale,
                      o.zero_point, rng);
  }
}
#endif
