// Test support shared by the operation test TUs: tensors that own their bytes, calling one
// operation's kernel directly (shape inference as the executor does it, ops::bind, run with
// guard bytes around every output), one-operation models through exec::prepare/execute,
// the CTS comparison and the quant8 signed twin used by parity tests.
//
//   using namespace nnhal::test::op;
//   tensor x = values(OT::TENSOR_FLOAT32, {2, 2}, {1, 2, 3, 4});
//   tensor y = run_ok1(OpT::RELU, {x}, decl(OT::TENSOR_FLOAT32));
//   CHECK(compare(y, {1, 2, 3, 4}) == "");
//
// Expected values come from each test's own oracle, never from these helpers.
//
// The functions that bind kernels or prepare models (run_kernel, run_model, ...) are
// compiled once, in op_runner.cpp (library nnhal_test_support): instantiating every
// kernel of the registry costs ~40 s per TU, so test TUs must not include
// nnhal/exec/driver.hpp or nnhal/ops/registry.hpp unless they test the executor itself.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "nnhal/exec/parallel.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operations.hpp"
#include "nnhal/types/request.hpp"

namespace nnhal::test::op {

namespace ty = nnhal::types;
namespace sig = nnhal::types::sig;
using ty::dims_t;
using OT = ty::OperandType;
using OpT = ty::OperationType;
using sig::operand_desc;

// CTS comparison tolerances (/work/shared/cts/README.md).
inline constexpr double f32_atol = 9.999999747378752e-06;
inline constexpr double f32_rtol = 5.9604644775390625e-07;
inline constexpr double f16_tol = 0.0048828125;
inline constexpr std::int64_t quant_tol = 1;

inline std::size_t count_of(const dims_t& d) {
  std::size_t n = 1;
  for (auto e : d) n *= e;
  return n;
}
inline std::string str(const dims_t& d) { return ty::format_dims(d); }
inline std::string str(OT t) { return std::string(to_string(t)); }
inline std::string str(OpT t) { return std::string(to_string(t)); }

inline bool is_quant8(OT t) { return t == OT::TENSOR_QUANT8_ASYMM || t == OT::TENSOR_QUANT8_ASYMM_SIGNED; }
inline std::int64_t qmin(OT t) { return t == OT::TENSOR_QUANT8_ASYMM ? 0 : -128; }
inline std::int64_t qmax(OT t) { return t == OT::TENSOR_QUANT8_ASYMM ? 255 : 127; }

/// round(r / scale) + zp, clamped to the quant8 range of `t`.
inline std::int64_t quantize(double r, float scale, std::int32_t zp, OT t) {
  return std::clamp(static_cast<std::int64_t>(std::round(r / static_cast<double>(scale))) + zp, qmin(t), qmax(t));
}

// ---------------------------------------------------------------------------------
// Tensors with their bytes
// ---------------------------------------------------------------------------------

struct tensor {
  OT type = OT::TENSOR_FLOAT32;
  dims_t dims;
  float scale = 0.0f;
  std::int32_t zp = 0;
  std::vector<std::byte> bytes;
  bool has_value = true;   // false: known by type and shape only (validation time)
  bool omitted = false;    // an optional operand left out (NO_VALUE / hasNoValue)
  bool bind_sees_value = true;  // false: run_kernel hides the value from bind (a model input, not a constant)
  std::vector<float> channel_scales;  // TENSOR_QUANT8_SYMM_PER_CHANNEL
  std::uint32_t channel_dim = 0;

  std::size_t count() const { return count_of(dims); }
  template <class S>
  S get(std::size_t i) const {
    S s;
    std::memcpy(&s, bytes.data() + i * sizeof(S), sizeof(S));
    return s;
  }
  template <class S>
  void set(std::size_t i, S v) {
    std::memcpy(bytes.data() + i * sizeof(S), &v, sizeof(S));
  }
  /// Stored integer value (quant8/16, int32, bool8).
  std::int64_t raw(std::size_t i) const {
    switch (type) {
      case OT::TENSOR_QUANT8_ASYMM:
      case OT::TENSOR_BOOL8:
      case OT::BOOL: return get<std::uint8_t>(i);
      case OT::TENSOR_QUANT8_ASYMM_SIGNED:
      case OT::TENSOR_QUANT8_SYMM:
      case OT::TENSOR_QUANT8_SYMM_PER_CHANNEL: return get<std::int8_t>(i);
      case OT::TENSOR_QUANT16_ASYMM: return get<std::uint16_t>(i);
      case OT::TENSOR_QUANT16_SYMM: return get<std::int16_t>(i);
      case OT::INT32:
      case OT::UINT32:
      case OT::TENSOR_INT32: return get<std::int32_t>(i);
      default: return 0;
    }
  }
  /// The scale of element i of a TENSOR_QUANT8_SYMM_PER_CHANNEL tensor (its channel's).
  double channel_scale(std::size_t i) const {
    if (channel_dim >= dims.size() || channel_scales.size() != dims[channel_dim]) return 0.0;
    std::size_t inner = 1;
    for (std::size_t d = channel_dim + 1; d < dims.size(); ++d) inner *= dims[d];
    return static_cast<double>(channel_scales[(i / inner) % dims[channel_dim]]);
  }
  /// The real number element i stands for.
  double real(std::size_t i) const {
    switch (type) {
      case OT::TENSOR_QUANT8_SYMM_PER_CHANNEL: return static_cast<double>(raw(i)) * channel_scale(i);
      case OT::FLOAT32:
      case OT::TENSOR_FLOAT32: return get<float>(i);
      case OT::FLOAT16:
      case OT::TENSOR_FLOAT16: return static_cast<double>(ty::to_float(get<ty::float16>(i)));
      case OT::TENSOR_QUANT8_ASYMM:
      case OT::TENSOR_QUANT8_ASYMM_SIGNED:
      case OT::TENSOR_QUANT8_SYMM:
      case OT::TENSOR_QUANT16_ASYMM:
      case OT::TENSOR_QUANT16_SYMM: return (static_cast<double>(raw(i)) - zp) * static_cast<double>(scale);
      default: return static_cast<double>(raw(i));
    }
  }
  /// Sets element i from a real value (floats) or a stored value (integer types, bool8).
  void put(std::size_t i, double v) {
    switch (type) {
      case OT::FLOAT32:
      case OT::TENSOR_FLOAT32: set(i, static_cast<float>(v)); break;
      case OT::FLOAT16:
      case OT::TENSOR_FLOAT16: set(i, ty::to_float16(static_cast<float>(v))); break;
      case OT::BOOL:
      case OT::TENSOR_QUANT8_ASYMM:
      case OT::TENSOR_BOOL8: set(i, static_cast<std::uint8_t>(v)); break;
      case OT::TENSOR_QUANT8_ASYMM_SIGNED:
      case OT::TENSOR_QUANT8_SYMM:
      case OT::TENSOR_QUANT8_SYMM_PER_CHANNEL: set(i, static_cast<std::int8_t>(v)); break;
      case OT::TENSOR_QUANT16_ASYMM: set(i, static_cast<std::uint16_t>(v)); break;
      case OT::TENSOR_QUANT16_SYMM: set(i, static_cast<std::int16_t>(v)); break;
      case OT::INT32:
      case OT::UINT32:
      case OT::TENSOR_INT32: set(i, static_cast<std::int32_t>(v)); break;
      default: FAIL("put: unexpected type " << str(type));
    }
  }
};

inline tensor make_tensor(OT t, dims_t d, float scale = 0.0f, std::int32_t zp = 0) {
  tensor x;
  x.type = t;
  x.dims = std::move(d);
  x.scale = scale;
  x.zp = zp;
  x.bytes.resize(x.count() * ty::type_info(t).element_size);
  return x;
}
/// A tensor (or scalar, with dims {}) holding `v` (real values for float types, stored
/// values for the others; see tensor::put).
inline tensor values(OT t, dims_t d, const std::vector<double>& v, float scale = 0.0f, std::int32_t zp = 0) {
  tensor x = make_tensor(t, std::move(d), scale, zp);
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.put(i, v[i]);
  return x;
}
/// An operand known only by type, shape and quantization (no value).
inline tensor decl(OT t, dims_t d = {}, float scale = 0.0f, std::int32_t zp = 0) {
  tensor x;
  x.type = t;
  x.dims = std::move(d);
  x.scale = scale;
  x.zp = zp;
  x.has_value = false;
  return x;
}
/// An omitted optional input of type `t`.
inline tensor omitted(OT t, dims_t d = {}) {
  tensor x = decl(t, std::move(d));
  x.omitted = true;
  return x;
}
inline tensor scalar_i32(std::int32_t v) { return values(OT::INT32, {}, {static_cast<double>(v)}); }
inline tensor scalar_f32(float v) { return values(OT::FLOAT32, {}, {static_cast<double>(v)}); }
inline tensor scalar_f16(float v) { return values(OT::FLOAT16, {}, {static_cast<double>(v)}); }
inline tensor scalar_bool(bool v) { return values(OT::BOOL, {}, {v ? 1.0 : 0.0}); }
/// A float scalar of the type that goes with tensors of type `t` (FLOAT16 for TENSOR_FLOAT16).
inline tensor scalar_float_for(OT t, float v) { return t == OT::TENSOR_FLOAT16 ? scalar_f16(v) : scalar_f32(v); }
/// The stored-value range of a quantized tensor type (not per-channel).
inline std::pair<std::int64_t, std::int64_t> stored_range(OT t) {
  switch (t) {
    case OT::TENSOR_QUANT8_ASYMM: return {0, 255};
    case OT::TENSOR_QUANT8_ASYMM_SIGNED:
    case OT::TENSOR_QUANT8_SYMM: return {-128, 127};
    case OT::TENSOR_QUANT16_ASYMM: return {0, 65535};
    case OT::TENSOR_QUANT16_SYMM: return {-32768, 32767};
    default: FAIL("stored_range: not a quantized type: " << str(t));
  }
  return {0, 0};
}
/// A tensor holding real values `v`: float types take them as they are (scale and zp are
/// for quantized types only), quantized types store round(v / scale) + zp (half away from
/// zero) clamped to the type's range.
inline tensor reals(OT t, dims_t d, const std::vector<double>& v, float scale = 0.0f, std::int32_t zp = 0) {
  if (!ty::is_quantized(t)) return values(t, std::move(d), v);
  const auto [lo, hi] = stored_range(t);
  std::vector<double> q;
  q.reserve(v.size());
  for (double r : v)
    q.push_back(static_cast<double>(
        std::clamp(static_cast<std::int64_t>(std::round(r / static_cast<double>(scale))) + zp, lo, hi)));
  return values(t, std::move(d), q, scale, zp);
}
inline tensor i32_tensor(const std::vector<std::int32_t>& a) {
  tensor x = make_tensor(OT::TENSOR_INT32, {static_cast<std::uint32_t>(a.size())});
  for (std::size_t i = 0; i < a.size(); ++i) x.set(i, a[i]);
  return x;
}
/// A TENSOR_INT32 of shape `d` holding `a`.
inline tensor i32_tensor(dims_t d, const std::vector<std::int32_t>& a) {
  tensor x = make_tensor(OT::TENSOR_INT32, std::move(d));
  REQUIRE(a.size() == x.count());
  for (std::size_t i = 0; i < a.size(); ++i) x.set(i, a[i]);
  return x;
}

/// The TENSOR_QUANT8_ASYMM_SIGNED twin of a TENSOR_QUANT8_ASYMM tensor: data and zero
/// point - 128. Other tensors are returned unchanged.
inline tensor to_signed(const tensor& u) {
  if (u.type != OT::TENSOR_QUANT8_ASYMM) return u;
  tensor s = u;
  s.type = OT::TENSOR_QUANT8_ASYMM_SIGNED;
  s.zp = u.zp - 128;
  if (u.has_value)
    for (std::size_t i = 0; i < u.count(); ++i)
      s.set(i, static_cast<std::int8_t>(static_cast<int>(u.get<std::uint8_t>(i)) - 128));
  return s;
}

inline const std::byte* nonnull_empty() {
  static const std::byte b[16]{};
  return b;
}
/// The operand_desc of `t` as bind() and the kernels see it. `t` must outlive the desc.
inline operand_desc desc_of(const tensor& t) {
  operand_desc d;
  d.type = t.type;
  d.dims = t.dims;
  d.scale = t.scale;
  d.zero_point = t.zp;
  d.omitted = t.omitted;
  if (t.has_value && !t.omitted) {
    d.value = t.bytes.empty() ? nonnull_empty() : t.bytes.data();
    d.value_size = t.bytes.size();
  }
  return d;
}
inline std::vector<operand_desc> descs_of(const std::vector<tensor>& ts) {
  std::vector<operand_desc> d;
  for (const auto& t : ts) d.push_back(desc_of(t));
  return d;
}

// ---------------------------------------------------------------------------------
// Calling a kernel directly: infer (executing) + ops::bind + run, outputs between guards
// ---------------------------------------------------------------------------------

/// Per-channel quantization of operand descs: the params must outlive the descs.
struct channel_params {
  std::vector<ty::SymmPerChannelQuantParams> params;
  void attach(const std::vector<tensor>& ts, std::vector<operand_desc>& ds) {
    params.clear();
    params.reserve(ts.size());
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].type != OT::TENSOR_QUANT8_SYMM_PER_CHANNEL) continue;
      params.push_back(ty::SymmPerChannelQuantParams{ts[i].channel_scales, ts[i].channel_dim});
      ds[i].channel_quant = &params.back();
    }
  }
};

struct kernel_result {
  bool ok = false;
  std::string error;
  std::vector<tensor> outs;
  bool guards_intact = true;
};

inline constexpr std::byte guard_byte{0xA5};

/// Shape inference of `op` as the executor (executing) or the validator calls it; with
/// `version`, inference raises it to the HAL version these operands need.
inline ty::result<sig::shapes> infer(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& outs,
                                     bool executing, ty::HalVersion* version = nullptr) {
  const ty::op_entry* e = ty::find_operation(op);
  REQUIRE(e != nullptr);
  REQUIRE((e->infer != nullptr));
  auto in = descs_of(ins);
  channel_params cp;
  cp.attach(ins, in);
  auto out = descs_of(outs);
  for (auto& d : out) {
    d.value = nullptr;
    d.value_size = 0;
  }
  return e->infer(sig::infer_context{op, in, out, executing, version});
}

/// Output tensors of the inferred `shapes`, their value-less descs, and a buffer for each
/// with guard bytes on both sides, starting `misalign` elements past a 64-byte boundary:
/// what a kernel writes into.
struct guarded_outputs {
  static constexpr std::size_t guard = 64;
  std::vector<tensor> outs;
  std::vector<operand_desc> descs;
  std::vector<std::vector<std::byte>> bufs;
  std::vector<std::byte*> data;

  guarded_outputs(const std::vector<tensor>& out_decls, const sig::shapes& shapes, std::size_t misalign = 0) {
    REQUIRE(shapes.size() == out_decls.size());
    for (std::size_t j = 0; j < out_decls.size(); ++j) {
      outs.push_back(make_tensor(out_decls[j].type, shapes[j], out_decls[j].scale, out_decls[j].zp));
      operand_desc d = desc_of(outs.back());
      d.value = nullptr;
      d.value_size = 0;
      descs.push_back(d);
      const std::size_t skew = misalign * ty::type_info(out_decls[j].type).element_size;
      bufs.emplace_back(guard + 64 + skew + outs.back().bytes.size() + guard, guard_byte);
      // Vector storage is not 64-byte aligned: round the start up, then skew it.
      const auto base = reinterpret_cast<std::uintptr_t>(bufs.back().data()) + guard;
      data.push_back(bufs.back().data() + guard + (64 - base % 64) % 64 + skew);
    }
  }
  /// Copies the written outputs into `outs`; false when a guard byte changed.
  bool finish() {
    bool intact = true;
    for (std::size_t j = 0; j < bufs.size(); ++j) {
      const auto begin = static_cast<std::size_t>(data[j] - bufs[j].data()), end = begin + outs[j].bytes.size();
      for (std::size_t i = 0; i < bufs[j].size(); ++i)
        if ((i < begin || i >= end) && bufs[j][i] != guard_byte) intact = false;
      if (!outs[j].bytes.empty()) std::memcpy(outs[j].bytes.data(), data[j], outs[j].bytes.size());
    }
    return intact;
  }
};

/// A two-way parallel context that runs its chunks one after the other in reverse order,
/// the second half on a thread of its own, to check that a kernel's split covers its
/// output exactly once and that its chunks do not rely on the calling thread's state.
struct reversed_context final : nnhal::exec::parallel_context {
  std::size_t concurrency() const noexcept override { return 2; }
  void parallel_for(std::size_t n, std::size_t, nnhal::exec::range_fn fn) override {
    const std::size_t mid = n / 2;
    // The second half on another thread (its thread_local state is not the caller's), finished first.
    if (mid < n) std::thread([&] { fn(mid, n); }).join();
    if (mid > 0) fn(0, mid);
  }
};

/// Sets ops::streaming_output_bytes for one scope (0: every float32 element-wise output
/// is written with streaming stores), then puts the old value back.
struct streaming_threshold {
  std::size_t old;
  explicit streaming_threshold(std::size_t bytes) : old(nnhal::ops::streaming_output_bytes.exchange(bytes)) {}
  ~streaming_threshold() { nnhal::ops::streaming_output_bytes = old; }
  streaming_threshold(const streaming_threshold&) = delete;
  streaming_threshold& operator=(const streaming_threshold&) = delete;
};

/// Lets kernels bind for `allowed` only (simd::allow_only) for one scope, e.g. the
/// portable xsimd kernels on an AVX-512 machine; what was allowed before again after it.
struct cpu_limit {
  nnhal::simd::cpu_features old = nnhal::simd::cpu();
  explicit cpu_limit(const nnhal::simd::cpu_features& allowed) { nnhal::simd::allow_only(allowed); }
  ~cpu_limit() { nnhal::simd::allow_only(old); }
  cpu_limit(const cpu_limit&) = delete;
  cpu_limit& operator=(const cpu_limit&) = delete;
};

/// Calls one kernel entry point `fn` (an op's reference() or vectorized<Arch>, taking a
/// kernel_io) on `ins` without bind: outputs shaped by execution-time inference, between
/// guard bytes that must stay intact. For checking entry points against each other.
/// Input 0 and the outputs start `misalign` elements past a 64-byte boundary; input 0
/// sits between guards too and must come back unchanged. Runs on `par` when given.
template <class Fn>
std::vector<tensor> run_entry(OpT op, Fn&& fn, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls,
                              std::size_t misalign = 0, nnhal::exec::parallel_context* par = nullptr) {
  auto shapes = infer(op, ins, out_decls, true);
  REQUIRE_MESSAGE(shapes.ok(), (shapes.ok() ? std::string() : shapes.err().message));
  std::vector<operand_desc> in = descs_of(ins);
  channel_params cp;
  cp.attach(ins, in);
  const bool place_in0 = !ins.empty() && in[0].value != nullptr;
  guarded_outputs in0(place_in0 ? std::vector<tensor>{ins[0]} : std::vector<tensor>{},
                      place_in0 ? sig::shapes{ins[0].dims} : sig::shapes{}, misalign);
  if (place_in0) {
    if (!ins[0].bytes.empty()) std::memcpy(in0.data[0], ins[0].bytes.data(), ins[0].bytes.size());
    in[0].value = in0.data[0];
  }
  guarded_outputs g(out_decls, *shapes, misalign);
  nnhal::exec::serial_context serial;
  fn(nnhal::ops::kernel_io{in, g.descs, g.data, par ? par : &serial});
  CHECK_MESSAGE(g.finish(), "the kernel wrote outside its output");
  CHECK_MESSAGE((in0.finish() && (!place_in0 || in0.outs[0].bytes == ins[0].bytes)), "the kernel wrote into input 0");
  return std::move(g.outs);
}
template <class Fn>
tensor run_entry1(OpT op, Fn&& fn, const std::vector<tensor>& ins, const tensor& out_decl, std::size_t misalign = 0,
                  nnhal::exec::parallel_context* par = nullptr) {
  return run_entry(op, std::forward<Fn>(fn), ins, {out_decl}, misalign, par)[0];
}

/// Infers, binds and runs `op` on `ins` with a serial context (or `par`); outputs sit
/// between guard bytes that must stay intact. Inputs with bind_sees_value false are
/// hidden from bind (read at execution only).
kernel_result run_kernel(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls,
                         nnhal::exec::parallel_context* par = nullptr);

inline std::vector<tensor> run_ok(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls) {
  kernel_result r = run_kernel(op, ins, out_decls);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.guards_intact, "the kernel wrote outside its output");
  return r.outs;
}
inline tensor run_ok1(OpT op, const std::vector<tensor>& ins, const tensor& out_decl) {
  return run_ok(op, ins, {out_decl})[0];
}

/// ops::bind's verdict for `op` with these operand types ("" when a kernel binds). The
/// outputs' shapes are taken as declared.
std::string bind_error(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls);

/// The error message of an execution-time rejection ("" when it ran).
inline std::string run_error(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& out_decls) {
  kernel_result r = run_kernel(op, ins, out_decls);
  return r.ok ? std::string() : r.error;
}

// ---------------------------------------------------------------------------------
// One-operation models through exec::prepare / exec::execute
// ---------------------------------------------------------------------------------

struct one_op_model {
  ty::Model model;
  std::vector<tensor> inputs;   // values of the model inputs, in inputIndexes order
  std::vector<tensor> outputs;  // declarations of the model outputs

  std::uint32_t operand(const tensor& t, ty::OperandLifeTime lt) {
    ty::Operand o;
    o.type = t.type;
    o.dimensions = t.dims;
    o.scale = t.scale;
    o.zeroPoint = t.zp;
    o.lifetime = lt;
    if (t.type == OT::TENSOR_QUANT8_SYMM_PER_CHANNEL)
      o.extraParams = ty::SymmPerChannelQuantParams{t.channel_scales, t.channel_dim};
    model.main.operands.push_back(o);
    return static_cast<std::uint32_t>(model.main.operands.size() - 1);
  }
  std::uint32_t input(const tensor& t) {
    const auto i = operand(t, ty::OperandLifeTime::SUBGRAPH_INPUT);
    model.main.inputIndexes.push_back(i);
    inputs.push_back(t);
    return i;
  }
  std::uint32_t constant(const tensor& t) {
    if (t.omitted) return operand(t, ty::OperandLifeTime::NO_VALUE);
    auto& v = model.operandValues;
    while (v.size() % 8) v.push_back(0);
    const auto i = operand(t, ty::OperandLifeTime::CONSTANT_COPY);
    model.main.operands[i].location = {0, static_cast<std::uint32_t>(v.size()),
                                       static_cast<std::uint32_t>(t.bytes.size())};
    for (auto b : t.bytes) v.push_back(static_cast<std::uint8_t>(b));
    return i;
  }
  std::uint32_t output(const tensor& d) {
    const auto i = operand(d, ty::OperandLifeTime::SUBGRAPH_OUTPUT);
    model.main.outputIndexes.push_back(i);
    outputs.push_back(d);
    return i;
  }
  void operation(OpT type, std::vector<std::uint32_t> ins, std::vector<std::uint32_t> outs) {
    for (auto i : ins) ++model.main.operands[i].numberOfConsumers;
    model.main.operations.push_back(ty::Operation{type, std::move(ins), std::move(outs)});
  }
};

/// A model of `op`: the first `inputs_until` operands are model inputs, the rest constants
/// (omitted ones become NO_VALUE operands).
inline one_op_model single(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& outs,
                           std::size_t inputs_until = 1) {
  one_op_model m;
  std::vector<std::uint32_t> idx, odx;
  for (std::size_t k = 0; k < ins.size(); ++k)
    idx.push_back(k < inputs_until && !ins[k].omitted ? m.input(ins[k]) : m.constant(ins[k]));
  for (const auto& o : outs) odx.push_back(m.output(o));
  m.operation(op, idx, odx);
  return m;
}
/// A model of `op` whose operands at positions `as_inputs` are model inputs, the others
/// constants (omitted ones NO_VALUE operands).
inline one_op_model single_with_inputs(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& outs,
                                       const std::vector<std::size_t>& as_inputs) {
  one_op_model m;
  std::vector<std::uint32_t> idx, odx;
  for (std::size_t k = 0; k < ins.size(); ++k) {
    const bool input = std::find(as_inputs.begin(), as_inputs.end(), k) != as_inputs.end();
    idx.push_back(input && !ins[k].omitted ? m.input(ins[k]) : m.constant(ins[k]));
  }
  for (const auto& o : outs) odx.push_back(m.output(o));
  m.operation(op, idx, odx);
  return m;
}

struct model_result {
  ty::ErrorStatus status = ty::ErrorStatus::NONE;
  std::string message;
  std::vector<tensor> outs;
};

/// Prepares (a failure is reported as the result) and executes; each output gets a buffer
/// of `capacity` bytes.
model_result run_model(const one_op_model& m, std::uint32_t capacity = 1u << 12);
/// run_model that must succeed.
inline model_result run_model_ok(const one_op_model& m, std::uint32_t capacity = 1u << 12) {
  model_result r = run_model(m, capacity);
  REQUIRE_MESSAGE(r.status == ty::ErrorStatus::NONE, r.message);
  return r;
}

/// Where run_model_with puts the request's data: unaligned offsets exercise the executor's
/// and the kernels' unaligned paths.
struct request_layout {
  std::uint32_t capacity = 1u << 12;  // bytes of each output's buffer
  std::uint32_t in_misalign = 0;      // each input this many bytes past an 8-byte boundary
  std::uint32_t out_misalign = 0;     // each output this many bytes into its pool
};
model_result run_model_with(const one_op_model& m, const request_layout& layout);

/// Any model: its inputs get `inputs` (inputIndexes order; an omitted tensor is passed as
/// hasNoValue), its outputs buffers of `capacity` bytes typed by the model's operands.
/// OUTPUT_INSUFFICIENT_SIZE and other failures come back as the status and message.
model_result run_any_model(const ty::Model& model, const std::vector<tensor>& inputs,
                           std::uint32_t capacity = 1u << 12);

/// exec::prepare's verdict on `model`: NONE and "" when it prepared, else status and message.
model_result prepare_only(const ty::Model& model);

/// exec::supported_operations (the status of a failure comes back in `status`).
struct support_result {
  ty::ErrorStatus status = ty::ErrorStatus::NONE;
  std::string message;
  std::vector<bool> flags;
};
support_result supported(const ty::Model& model);

// ---------------------------------------------------------------------------------
// Comparison under the CTS tolerances
// ---------------------------------------------------------------------------------

/// Compares `got` with expected values: real values for float and quantized types (quant
/// outputs compare with the quantized expectation, tolerance 1 or 0 when `exact`), stored
/// values for int32 and bool8 (as 0/1). "" when equal, else a message naming the element.
inline std::string compare(const tensor& got, const std::vector<double>& expected, bool exact = false) {
  if (got.count() != expected.size())
    return "element count " + std::to_string(got.count()) + ", expected " + std::to_string(expected.size());
  std::ostringstream os;
  os << std::setprecision(17);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i];
    switch (got.type) {
      case OT::TENSOR_FLOAT32:
      case OT::TENSOR_FLOAT16: {
        const double a = got.real(i);
        const double tol =
            got.type == OT::TENSOR_FLOAT32 ? f32_atol + f32_rtol * std::abs(e) : f16_tol + f16_tol * std::abs(e);
        const bool same_inf = std::isinf(e) && a == e;
        if (!same_inf && (exact ? !(a == e) : !(std::abs(a - e) <= tol))) {
          os << "element " << i << ": expected " << e << ", got " << a;
          return os.str();
        }
        break;
      }
      case OT::TENSOR_INT32:
      case OT::TENSOR_BOOL8: {
        const double a = got.type == OT::TENSOR_BOOL8 ? (got.raw(i) != 0 ? 1 : 0) : static_cast<double>(got.raw(i));
        if (a != e) {
          os << "element " << i << ": expected " << e << ", got " << got.raw(i);
          return os.str();
        }
        break;
      }
      default: {
        // Quantized: the expected real value quantized with the output's parameters.
        std::int64_t q = static_cast<std::int64_t>(std::round(e / static_cast<double>(got.scale))) + got.zp;
        if (is_quant8(got.type)) q = std::clamp(q, qmin(got.type), qmax(got.type));
        const std::int64_t a = got.raw(i);
        if (std::abs(a - q) > (exact ? 0 : quant_tol)) {
          os << "element " << i << ": expected " << q << " (real " << e << "), got " << a;
          return os.str();
        }
      }
    }
  }
  return {};
}

/// Bit equality of two tensors' types, shapes and bytes ("" when identical).
inline std::string same_bytes(const tensor& a, const tensor& b) {
  if (a.type != b.type) return "types " + str(a.type) + " vs " + str(b.type);
  if (a.dims != b.dims) return "shapes " + str(a.dims) + " vs " + str(b.dims);
  for (std::size_t i = 0; i < a.bytes.size(); ++i)
    if (a.bytes[i] != b.bytes[i]) return "byte " + std::to_string(i) + " differs";
  return {};
}

/// Signed/unsigned parity: `s` (quant8 signed) must equal `u` (quant8 unsigned) - 128,
/// element for element, with zero point - 128. "" when it holds.
inline std::string signed_parity(const tensor& u, const tensor& s) {
  if (u.type != OT::TENSOR_QUANT8_ASYMM || s.type != OT::TENSOR_QUANT8_ASYMM_SIGNED) return same_bytes(u, s);
  if (u.dims != s.dims) return "shapes " + str(u.dims) + " vs " + str(s.dims);
  if (s.zp != u.zp - 128) return "zero points " + std::to_string(u.zp) + " vs " + std::to_string(s.zp);
  for (std::size_t i = 0; i < u.count(); ++i)
    if (s.raw(i) != u.raw(i) - 128)
      return "element " + std::to_string(i) + ": unsigned " + std::to_string(u.raw(i)) + ", signed " +
             std::to_string(s.raw(i));
  return {};
}


// ---------------------------------------------------------------------------------
// Typed constructors and element readers (opt in: using namespace nnhal::test::op::typed;
// kept apart so that a TU's own helpers of the same names stay unambiguous)
// ---------------------------------------------------------------------------------

namespace typed {

inline tensor f32(dims_t d, const std::vector<float>& v) {
  tensor x = make_tensor(OT::TENSOR_FLOAT32, std::move(d));
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.set(i, v[i]);
  return x;
}
inline tensor f16(dims_t d, const std::vector<float>& v) {
  tensor x = make_tensor(OT::TENSOR_FLOAT16, std::move(d));
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.set(i, ty::to_float16(v[i]));
  return x;
}
inline tensor i32(dims_t d, const std::vector<std::int32_t>& v) {
  tensor x = make_tensor(OT::TENSOR_INT32, std::move(d));
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.set(i, v[i]);
  return x;
}
/// TENSOR_BOOL8 holding the bytes `v` as given (non-canonical true values too).
inline tensor b8(dims_t d, const std::vector<int>& v) {
  tensor x = make_tensor(OT::TENSOR_BOOL8, std::move(d));
  REQUIRE(v.size() == x.count());
  for (std::size_t i = 0; i < v.size(); ++i) x.set(i, static_cast<std::uint8_t>(v[i]));
  return x;
}
/// A quant8 tensor of stored values `v`, each within the range of `t`.
inline tensor q8(OT t, dims_t d, float scale, std::int32_t zp, const std::vector<int>& v) {
  REQUIRE(is_quant8(t));
  for (int e : v) REQUIRE((e >= qmin(t) && e <= qmax(t)));
  std::vector<double> s(v.begin(), v.end());
  return values(t, std::move(d), s, scale, zp);
}
inline tensor qu8(dims_t d, float scale, std::int32_t zp, const std::vector<int>& v) {
  return q8(OT::TENSOR_QUANT8_ASYMM, std::move(d), scale, zp, v);
}
inline tensor qs8(dims_t d, float scale, std::int32_t zp, const std::vector<int>& v) {
  return q8(OT::TENSOR_QUANT8_ASYMM_SIGNED, std::move(d), scale, zp, v);
}

/// Every element's real value (tensor::real).
inline std::vector<double> reals_of(const tensor& t) {
  std::vector<double> v(t.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.real(i);
  return v;
}
/// Every element's stored value (tensor::raw).
inline std::vector<std::int64_t> raws_of(const tensor& t) {
  std::vector<std::int64_t> v(t.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.raw(i);
  return v;
}

}  // namespace typed

}  // namespace nnhal::test::op
