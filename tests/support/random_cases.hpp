// Random operation cases and the broadcasting oracle shared by the element-wise operation
// tests (foundation_ops_test: ADD/MUL/RELU/RESHAPE/CONCATENATION, elementwise_binary_test):
// seeded draws, broadcastable shape pairs, the per-element index of a broadcast input,
// the fused activations in real numbers, and a case type that prints itself for failure
// messages. Builds on op_runner.hpp; expected values still come from each test's oracle.
//
//   using namespace nnhal::test::op;
//   using namespace nnhal::test::op::cases;
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/op_runner.hpp"

namespace nnhal::test::op::cases {

// ---------------------------------------------------------------------------------
// Draws
// ---------------------------------------------------------------------------------

inline int uni(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
inline double unif(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
inline float log_uniform(std::mt19937& rng, double lo, double hi) {
  return static_cast<float>(std::exp(unif(rng, std::log(lo), std::log(hi))));
}

/// Zero points favour the extremes and the middle of the type's range.
inline std::int32_t random_zp(std::mt19937& rng, OT t) {
  const int lo = static_cast<int>(qmin(t)), hi = static_cast<int>(qmax(t));
  switch (uni(rng, 0, 3)) {
    case 0: return lo;
    case 1: return hi;
    case 2: return (lo + hi + 1) / 2;
    default: return uni(rng, lo, hi);
  }
}

inline dims_t random_dims(std::mt19937& rng, int min_rank, int max_rank, int max_ext) {
  dims_t d(static_cast<std::size_t>(uni(rng, min_rank, max_rank)));
  for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, 1, max_ext));
  return d;
}

/// Uniform values in [-range, range] (int32: integers; quant8: any stored value;
/// bool8: 0/1 and now and then a non-canonical true byte).
inline void fill_random(tensor& t, std::mt19937& rng, double range) {
  for (std::size_t i = 0; i < t.count(); ++i) {
    switch (t.type) {
      case OT::TENSOR_FLOAT32: t.set(i, static_cast<float>(unif(rng, -range, range))); break;
      case OT::TENSOR_FLOAT16: t.set(i, ty::to_float16(static_cast<float>(unif(rng, -range, range)))); break;
      case OT::TENSOR_INT32:
        t.set(i, static_cast<std::int32_t>(uni(rng, -static_cast<int>(range), static_cast<int>(range))));
        break;
      case OT::TENSOR_QUANT8_ASYMM: t.set(i, static_cast<std::uint8_t>(uni(rng, 0, 255))); break;
      case OT::TENSOR_QUANT8_ASYMM_SIGNED: t.set(i, static_cast<std::int8_t>(uni(rng, -128, 127))); break;
      case OT::TENSOR_BOOL8: {
        const int r = uni(rng, 0, 9);
        t.set(i, static_cast<std::uint8_t>(r < 5 ? 0 : (r < 9 ? 1 : uni(rng, 2, 255))));
        break;
      }
      default: FAIL("fill_random: unexpected type " << str(t.type));
    }
  }
}

// ---------------------------------------------------------------------------------
// Broadcasting (numpy rules, trailing alignment) and fused activations, as oracles
// ---------------------------------------------------------------------------------

/// Flat index into `in` (broadcast against `out`) of output element `flat`.
inline std::size_t broadcast_index(const dims_t& out, const dims_t& in, std::size_t flat) {
  std::size_t idx = 0, stride = 1, rem = flat;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t d = out.size() - 1 - k;
    const std::size_t coord = rem % out[d];
    rem /= out[d];
    if (k < in.size()) {
      const std::size_t e = in[in.size() - 1 - k];
      idx += (e == 1 ? 0 : coord) * stride;
      stride *= e;
    }
  }
  return idx;
}

/// The broadcast shape of two shapes known to broadcast.
inline dims_t naive_broadcast(const dims_t& a, const dims_t& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  dims_t out(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const std::uint32_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const std::uint32_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[rank - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

struct broadcast_case {
  dims_t a, b, out;
};
/// Two shapes that broadcast: some extents of either set to 1, maybe leading dims dropped.
inline broadcast_case random_broadcast(std::mt19937& rng, int max_rank, int max_ext) {
  const dims_t full = random_dims(rng, 1, max_rank, max_ext);
  dims_t a = full, b = full;
  for (std::size_t d = 0; d < full.size(); ++d) {
    const int r = uni(rng, 0, 9);
    if (r < 2) a[d] = 1;
    else if (r < 4) b[d] = 1;
  }
  const int drop = uni(rng, 0, 5);
  dims_t& victim = drop == 0 ? a : b;
  if (drop <= 1 && victim.size() > 1)
    victim.erase(victim.begin(), victim.begin() + uni(rng, 1, static_cast<int>(victim.size()) - 1));
  return {a, b, naive_broadcast(a, b)};
}

/// FuseCode in real numbers: 0 NONE, 1 RELU, 2 RELU1, 3 RELU6.
inline double apply_activation(double v, int act) {
  switch (act) {
    case 1: return std::max(v, 0.0);
    case 2: return std::clamp(v, -1.0, 1.0);
    case 3: return std::clamp(v, 0.0, 6.0);
    default: return v;
  }
}

/// round(r / scale) + zp before clamping (for counting saturated results).
inline std::int64_t quantize_unclamped(double r, float scale, std::int32_t zp) {
  return static_cast<std::int64_t>(std::round(r / static_cast<double>(scale))) + zp;
}

// ---------------------------------------------------------------------------------
// One operation's case
// ---------------------------------------------------------------------------------

/// One operation's inputs and output declaration (dims of `out` empty: inferred).
struct op_case {
  OpT op = OpT::ADD;
  std::vector<tensor> ins;
  tensor out;
  std::string describe() const {
    std::string s = str(op) + " in:";
    for (const auto& t : ins) {
      s += " " + str(t.type) + str(t.dims);
      if (is_quant8(t.type)) s += "(s=" + std::to_string(t.scale) + ",zp=" + std::to_string(t.zp) + ")";
      if (t.type == OT::INT32) s += "=" + std::to_string(t.raw(0));
    }
    s += " out: " + str(out.type);
    if (is_quant8(out.type)) s += "(s=" + std::to_string(out.scale) + ",zp=" + std::to_string(out.zp) + ")";
    return s;
  }
};

/// The case with every quant8 unsigned operand replaced by its signed twin.
inline op_case with_signed(const op_case& c) {
  op_case s = c;
  for (auto& t : s.ins) t = to_signed(t);
  s.out = to_signed(c.out);
  return s;
}

/// Runs a TENSOR_QUANT8_ASYMM case and its signed twin: the signed result must be the
/// unsigned one - 128 (outputs of other types, e.g. TENSOR_BOOL8, identical).
inline void check_parity(const op_case& cu) {
  const op_case cs = with_signed(cu);
  const tensor ru = run_ok1(cu.op, cu.ins, cu.out);
  const tensor rs = run_ok1(cs.op, cs.ins, cs.out);
  const std::string m = signed_parity(ru, rs);
  CHECK_MESSAGE(m.empty(), m);
}

// ---------------------------------------------------------------------------------
// Shape inference through one signature, and end-to-end golden runs
// ---------------------------------------------------------------------------------

/// Sig::infer on these operands (executing: values known; else validation time).
template <class Sig>
ty::result<sig::shapes> infer_sig(const std::vector<tensor>& ins, const tensor& out, bool executing,
                                  ty::HalVersion* min_version = nullptr) {
  const auto in = descs_of(ins);
  const std::vector<operand_desc> outs{desc_of(out)};
  return Sig::infer(sig::infer_context{Sig::op, in, outs, executing, min_version});
}

/// The one inferred output shape (REQUIREs success).
template <class Sig>
dims_t infer_ok(const std::vector<tensor>& ins, const tensor& out, bool executing) {
  auto r = infer_sig<Sig>(ins, out, executing);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.err().message));
  REQUIRE(r->size() == 1);
  return (*r)[0];
}

/// A model of `op` whose leading tensor operands are model inputs and whose scalars are
/// constants; RESHAPE's shape is a constant too, so its output shape is known at prepare.
inline one_op_model model_of(OpT op, const std::vector<tensor>& ins, const tensor& out_decl) {
  std::size_t n = 0;
  while (n < ins.size() && ty::is_tensor(ins[n].type)) ++n;
  return single(op, ins, {out_decl}, op == OpT::RESHAPE ? 1 : n);
}

/// model_of run end to end (every input and the output `misalign` bytes off alignment);
/// the output (REQUIREs success).
inline tensor run_golden(OpT op, const std::vector<tensor>& ins, const tensor& out_decl, std::uint32_t misalign = 0) {
  const auto r = run_model_with(model_of(op, ins, out_decl),
                                request_layout{.capacity = 1u << 16, .in_misalign = misalign, .out_misalign = misalign});
  REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
  REQUIRE(r.outs.size() == 1);
  return r.outs[0];
}

}  // namespace nnhal::test::op::cases
