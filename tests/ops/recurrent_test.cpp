// Recurrent family: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM, RNN,
// UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and SVDF. Expected values come from
// the HAL formulas evaluated here in double (lstm_set::step, rnn_set::step, svdf_oracle) on
// the same float / float16 values the kernels see; the kernels' GEMM path and their
// plain-loop reference path are both checked against them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nnhal/ops/bidirectional_sequence_lstm.hpp"
#include "nnhal/ops/bidirectional_sequence_rnn.hpp"
#include "nnhal/ops/lstm.hpp"
#include "nnhal/ops/rnn.hpp"
#include "nnhal/ops/svdf.hpp"
#include "nnhal/ops/unidirectional_sequence_lstm.hpp"
#include "nnhal/ops/unidirectional_sequence_rnn.hpp"
#include "support/op_runner.hpp"

using namespace nnhal::test::op;

namespace {

using vec = std::vector<double>;

/// Deterministic values in [-scale, scale], rounded to what an operand of type `t` stores.
struct rng {
  std::uint32_t s = 12345;
  double next() {
    s = s * 1664525u + 1013904223u;
    return static_cast<double>(s >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
  }
  vec fill(std::size_t n, OT t, double scale = 0.5) {
    vec v(n);
    for (auto& x : v) {
      x = next() * scale;
      x = t == OT::TENSOR_FLOAT16 ? static_cast<double>(nnhal::types::to_float(nnhal::types::to_float16(static_cast<float>(x))))
                                  : static_cast<double>(static_cast<float>(x));
    }
    return v;
  }
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double lstm_act(double x, int a) {
  switch (a) {
    case 1: return std::max(0.0, x);
    case 3: return std::clamp(x, 0.0, 6.0);
    case 4: return std::tanh(x);
    case 6: return sigmoid(x);
    default: return x;
  }
}
double fused(double x, int a) {
  switch (a) {
    case 1: return std::max(0.0, x);
    case 2: return std::clamp(x, -1.0, 1.0);
    case 3: return std::clamp(x, 0.0, 6.0);
    default: return x;
  }
}
/// y[r] = sum_k m[r * cols + k] * x[k]
double dot_row(const vec& m, std::size_t r, std::size_t cols, const double* x) {
  double s = 0;
  for (std::size_t k = 0; k < cols; ++k) s += m[r * cols + k] * x[k];
  return s;
}

// ---------------------------------------------------------------------------------------
// LSTM: one weight set and its oracle
// ---------------------------------------------------------------------------------------

struct lstm_set {
  OT type = OT::TENSOR_FLOAT32;
  std::size_t ni = 3, na = 0, nc = 4, no = 4;
  bool cifg = false, peephole = false, projection = false, proj_bias = false, ln = false;
  vec wx[4], wh[4], wa[4], peep[3], bias[4], lnw[4], wp, bp;

  void init(rng& r) {
    for (int g = 0; g < 4; ++g) {
      wx[g] = r.fill(nc * ni, type);
      wh[g] = r.fill(nc * no, type);
      if (na) wa[g] = r.fill(nc * na, type);
      bias[g] = r.fill(nc, type);
      lnw[g] = r.fill(nc, type, 1.0);
    }
    for (auto& p : peep) p = r.fill(nc, type);
    wp = r.fill(no * nc, type);
    bp = r.fill(no, type);
  }
  tensor t(const vec& v, dims_t d) const { return values(type, std::move(d), v); }
  tensor none(dims_t d = {}) const { return omitted(type, std::move(d)); }
  /// The 16 weight tensors of inputs 1..17 (HAL order), omitting what the flags leave out.
  std::vector<tensor> weights() const {
    const auto u = static_cast<std::uint32_t>(nc), i = static_cast<std::uint32_t>(ni), o = static_cast<std::uint32_t>(no);
    std::vector<tensor> w;
    for (int g = 0; g < 4; ++g) w.push_back(g == 0 && cifg ? none() : t(wx[g], {u, i}));
    for (int g = 0; g < 4; ++g) w.push_back(g == 0 && cifg ? none() : t(wh[g], {u, o}));
    for (int k = 0; k < 3; ++k) w.push_back(!peephole || (k == 0 && cifg) ? none() : t(peep[k], {u}));
    for (int g = 0; g < 4; ++g) w.push_back(g == 0 && cifg ? none() : t(bias[g], {u}));
    w.push_back(projection ? t(wp, {o, u}) : none());
    w.push_back(projection && proj_bias ? t(bp, {o}) : none());
    return w;
  }
  std::vector<tensor> layer_norm() const {
    std::vector<tensor> w;
    for (int g = 0; g < 4; ++g) w.push_back(ln && !(g == 0 && cifg) ? t(lnw[g], {static_cast<std::uint32_t>(nc)}) : none());
    return w;
  }
  std::vector<tensor> aux_weights(bool present) const {
    std::vector<tensor> w;
    for (int g = 0; g < 4; ++g)
      w.push_back(present && !(g == 0 && cifg) ? t(wa[g], {static_cast<std::uint32_t>(nc), static_cast<std::uint32_t>(na)})
                                               : none());
    return w;
  }

  static void normalize(vec& v, const vec& w, const vec& b) {
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    for (double x : v) var += (x - mean) * (x - mean);
    var /= static_cast<double>(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = (v[j] - mean) / std::sqrt(var + 1e-8) * w[j] + b[j];
  }
  /// One step of the HAL LSTM formulas for one batch row: h [no] and c [nc] updated.
  void step(const double* x, const double* a, double* h, double* c, int act, double cell_clip, double proj_clip) const {
    vec pre[4];
    for (int g = cifg ? 1 : 0; g < 4; ++g) {
      pre[g].resize(nc);
      for (std::size_t j = 0; j < nc; ++j) {
        double s = dot_row(wx[g], j, ni, x) + dot_row(wh[g], j, no, h);
        if (a) s += dot_row(wa[g], j, na, a);
        pre[g][j] = s + (ln ? 0.0 : bias[g][j]);
      }
    }
    if (peephole)
      for (std::size_t j = 0; j < nc; ++j) {
        if (!cifg) pre[0][j] += peep[0][j] * c[j];
        pre[1][j] += peep[1][j] * c[j];
      }
    if (ln)
      for (int g = cifg ? 1 : 0; g < 3; ++g) normalize(pre[g], lnw[g], bias[g]);
    vec cn(nc), m(nc);
    for (std::size_t j = 0; j < nc; ++j) {
      const double f = sigmoid(pre[1][j]);
      const double i = cifg ? 1.0 - f : sigmoid(pre[0][j]);
      cn[j] = f * c[j] + i * lstm_act(pre[2][j], act);
      if (cell_clip > 0) cn[j] = std::clamp(cn[j], -cell_clip, cell_clip);
      if (peephole) pre[3][j] += peep[2][j] * cn[j];
    }
    if (ln) normalize(pre[3], lnw[3], bias[3]);
    for (std::size_t j = 0; j < nc; ++j) m[j] = sigmoid(pre[3][j]) * lstm_act(cn[j], act);
    for (std::size_t j = 0; j < nc; ++j) c[j] = cn[j];
    for (std::size_t o = 0; o < no; ++o) {
      if (!projection) {
        h[o] = m[o];
        continue;
      }
      double s = dot_row(wp, o, nc, m.data()) + (proj_bias ? bp[o] : 0.0);
      if (proj_clip > 0) s = std::clamp(s, -proj_clip, proj_clip);
      h[o] = s;
    }
  }
  /// A sequence in time-major order x[t][b][ni]; returns out[t][b][no]; h, c updated.
  vec run(const vec& x, const vec* aux, std::size_t T, std::size_t B, vec& h, vec& c, bool forward, int act,
          double cell_clip = 0, double proj_clip = 0) const {
    vec out(T * B * no);
    for (std::size_t s = 0; s < T; ++s) {
      const std::size_t t = forward ? s : T - 1 - s;
      for (std::size_t b = 0; b < B; ++b) {
        step(&x[(t * B + b) * ni], aux ? &(*aux)[(t * B + b) * na] : nullptr, &h[b * no], &c[b * nc], act, cell_clip,
             proj_clip);
        std::copy_n(&h[b * no], no, &out[(t * B + b) * no]);
      }
    }
    return out;
  }
};

/// [T][B][n] <-> [B][T][n]
vec swap01(const vec& v, std::size_t d0, std::size_t d1, std::size_t n) {
  vec r(v.size());
  for (std::size_t i = 0; i < d0; ++i)
    for (std::size_t j = 0; j < d1; ++j)
      for (std::size_t k = 0; k < n; ++k) r[(j * d0 + i) * n + k] = v[(i * d1 + j) * n + k];
  return r;
}

/// Runs the bound kernel and, with the same operands, the op's reference() directly.
using reference_fn = void (*)(const nnhal::ops::kernel_io&);
std::vector<tensor> run_reference(OpT op, reference_fn fn, const std::vector<tensor>& ins,
                                  const std::vector<tensor>& out_decls) {
  auto shapes = infer(op, ins, out_decls, true);
  REQUIRE_MESSAGE(shapes.ok(), (shapes.ok() ? "" : shapes.err().message));
  std::vector<operand_desc> in = descs_of(ins), out;
  std::vector<tensor> outs;
  for (std::size_t j = 0; j < out_decls.size(); ++j) outs.push_back(make_tensor(out_decls[j].type, (*shapes)[j]));
  std::vector<std::byte*> data;
  for (auto& t : outs) {
    operand_desc d = desc_of(t);
    d.value = nullptr;
    out.push_back(d);
    data.push_back(t.bytes.data());
  }
  nnhal::exec::serial_context serial;
  fn(nnhal::ops::kernel_io{in, out, data, &serial});
  return outs;
}

void check_close(const tensor& got, const vec& want, const char* what) {
  INFO(what);
  CHECK(compare(got, want) == "");
}

struct lstm_case {
  const char* name;
  bool cifg, peephole, projection, proj_bias, ln;
  int act;
  float cell_clip, proj_clip;
};
constexpr lstm_case lstm_cases[] = {
    {"basic", false, false, false, false, false, 4, 0, 0},
    {"cifg_peephole", true, true, false, false, false, 4, 0, 0},
    {"peephole_projection_clip", false, true, true, true, false, 4, 0.3f, 0.2f},
    {"layer_norm_projection", false, true, true, false, true, 4, 0, 0},
    {"layer_norm_cifg", true, true, true, false, true, 4, 0, 0},
    {"relu_activation", false, false, false, false, false, 1, 0, 0},
    {"sigmoid_relu6_activation", true, false, true, true, false, 6, 0, 0},
};

lstm_set make_set(const lstm_case& k, OT type, rng& r, std::size_t ni = 3, std::size_t na = 0) {
  lstm_set s;
  s.type = type;
  s.ni = ni;
  s.na = na;
  s.cifg = k.cifg;
  s.peephole = k.peephole;
  s.projection = k.projection;
  s.proj_bias = k.proj_bias;
  s.ln = k.ln;
  s.no = k.projection ? 3 : 4;
  s.init(r);
  return s;
}

}  // namespace

TEST_CASE("LSTM: one step against the HAL formulas (all optional-input combinations, f32 and f16)") {
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
    for (const auto& k : lstm_cases) {
      CAPTURE(str(type));
      CAPTURE(k.name);
      rng r;
      const lstm_set s = make_set(k, type, r);
      const std::size_t B = 2;
      const vec x = r.fill(B * s.ni, type, 1.0);
      vec h = r.fill(B * s.no, type), c = r.fill(B * s.nc, type);
      std::vector<tensor> ins{values(type, {2, 3}, x)};
      for (auto& w : s.weights()) ins.push_back(w);
      ins.push_back(values(type, {2, static_cast<std::uint32_t>(s.no)}, h));
      ins.push_back(values(type, {2, static_cast<std::uint32_t>(s.nc)}, c));
      ins.push_back(scalar_i32(k.act));
      ins.push_back(scalar_float_for(type, k.cell_clip));
      ins.push_back(scalar_float_for(type, k.proj_clip));
      if (k.ln)
        for (auto& w : s.layer_norm()) ins.push_back(w);
      const double cc = type == OT::TENSOR_FLOAT16 ? nnhal::types::to_float(nnhal::types::to_float16(k.cell_clip)) : k.cell_clip;
      const double pc = type == OT::TENSOR_FLOAT16 ? nnhal::types::to_float(nnhal::types::to_float16(k.proj_clip)) : k.proj_clip;
      const vec out = s.run(x, nullptr, 1, B, h, c, true, k.act, cc, pc);
      const std::vector<tensor> decls(4, decl(type));
      for (int pass = 0; pass < 2; ++pass) {
        const auto got = pass == 0 ? run_ok(OpT::LSTM, ins, decls)
                                   : run_reference(OpT::LSTM, &nnhal::ops::lstm::reference, ins, decls);
        CAPTURE(pass);
        CHECK(got[0].dims == dims_t{2, static_cast<std::uint32_t>(s.nc * (k.cifg ? 3 : 4))});
        check_close(got[1], h, "output_state_out");
        check_close(got[2], c, "cell_state_out");
        check_close(got[3], out, "output");
      }
    }
  }
}

TEST_CASE("UNIDIRECTIONAL_SEQUENCE_LSTM: time-major and batch-major sequences with final states") {
  for (bool time_major : {true, false}) {
    for (const auto& k : {lstm_cases[2], lstm_cases[4]}) {
      CAPTURE(time_major);
      CAPTURE(k.name);
      rng r;
      const OT type = OT::TENSOR_FLOAT32;
      const lstm_set s = make_set(k, type, r, 5);
      const std::size_t T = 4, B = 2;
      const vec x_tm = r.fill(T * B * s.ni, type, 1.0);
      vec h = r.fill(B * s.no, type), c = r.fill(B * s.nc, type);
      const vec h0 = h, c0 = c;
      const vec out_tm = s.run(x_tm, nullptr, T, B, h, c, true, k.act, k.cell_clip, k.proj_clip);
      const dims_t xd = time_major ? dims_t{4, 2, 5} : dims_t{2, 4, 5};
      std::vector<tensor> ins{values(type, xd, time_major ? x_tm : swap01(x_tm, T, B, s.ni))};
      for (auto& w : s.weights()) ins.push_back(w);
      ins.push_back(values(type, {2, static_cast<std::uint32_t>(s.no)}, h0));
      ins.push_back(values(type, {2, static_cast<std::uint32_t>(s.nc)}, c0));
      ins.push_back(scalar_i32(k.act));
      ins.push_back(scalar_f32(k.cell_clip));
      ins.push_back(scalar_f32(k.proj_clip));
      ins.push_back(scalar_bool(time_major));
      for (auto& w : s.layer_norm()) ins.push_back(w);
      const auto got = run_ok(OpT::UNIDIRECTIONAL_SEQUENCE_LSTM, ins, {decl(type), decl(type), decl(type)});
      CHECK(got[0].dims == (time_major ? dims_t{4, 2, 3} : dims_t{2, 4, 3}));
      check_close(got[0], time_major ? out_tm : swap01(out_tm, T, B, s.no), "output");
      check_close(got[1], h, "output_state_out");
      check_close(got[2], c, "cell_state_out");
      const auto ref = run_reference(OpT::UNIDIRECTIONAL_SEQUENCE_LSTM, &nnhal::ops::unidirectional_sequence_lstm::reference,
                                     ins, {decl(type)});
      check_close(ref[0], time_major ? out_tm : swap01(out_tm, T, B, s.no), "reference output");
    }
  }
}

namespace {

/// The 61 inputs of BIDIRECTIONAL_SEQUENCE_LSTM.
std::vector<tensor> bidi_lstm_inputs(const lstm_set& fw, const lstm_set& bw, const tensor& x, const tensor& aux,
                                     bool aux_weights, const vec& fh, const vec& fc, const vec& bh, const vec& bc,
                                     int act, bool merge, bool time_major) {
  const OT t = fw.type;
  std::vector<tensor> ins{x};
  for (auto& w : fw.weights()) ins.push_back(w);
  for (auto& w : bw.weights()) ins.push_back(w);
  const auto B = static_cast<std::uint32_t>(fh.size() / fw.no);
  ins.push_back(values(t, {B, static_cast<std::uint32_t>(fw.no)}, fh));
  ins.push_back(values(t, {B, static_cast<std::uint32_t>(fw.nc)}, fc));
  ins.push_back(values(t, {B, static_cast<std::uint32_t>(bw.no)}, bh));
  ins.push_back(values(t, {B, static_cast<std::uint32_t>(bw.nc)}, bc));
  ins.push_back(aux);
  for (auto& w : fw.aux_weights(aux_weights)) ins.push_back(w);
  for (auto& w : bw.aux_weights(aux_weights)) ins.push_back(w);
  ins.push_back(scalar_i32(act));
  ins.push_back(scalar_float_for(t, 0));
  ins.push_back(scalar_float_for(t, 0));
  ins.push_back(scalar_bool(merge));
  ins.push_back(scalar_bool(time_major));
  for (auto& w : fw.layer_norm()) ins.push_back(w);
  for (auto& w : bw.layer_norm()) ins.push_back(w);
  return ins;
}

/// Interleaves [T*B][a] and [T*B][b] rows into [T*B][a + b].
vec merge_rows(const vec& f, std::size_t a, const vec& g, std::size_t b) {
  const std::size_t rows = f.size() / a;
  vec r;
  for (std::size_t i = 0; i < rows; ++i) {
    r.insert(r.end(), f.begin() + static_cast<std::ptrdiff_t>(i * a), f.begin() + static_cast<std::ptrdiff_t>((i + 1) * a));
    r.insert(r.end(), g.begin() + static_cast<std::ptrdiff_t>(i * b), g.begin() + static_cast<std::ptrdiff_t>((i + 1) * b));
  }
  return r;
}

}  // namespace

TEST_CASE("BIDIRECTIONAL_SEQUENCE_LSTM: cross-linked aux input, merged outputs, final states") {
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
    CAPTURE(str(type));
    rng r;
    const std::size_t T = 3, B = 2;
    const lstm_set fw = make_set(lstm_cases[2], type, r, 3, 2), bw = make_set(lstm_cases[1], type, r, 3, 2);
    const vec x = r.fill(T * B * 3, type, 1.0), aux = r.fill(T * B * 2, type, 1.0);
    vec fh = r.fill(B * fw.no, type), fc = r.fill(B * fw.nc, type), bh = r.fill(B * bw.no, type), bc = r.fill(B * bw.nc, type);
    const auto ins = bidi_lstm_inputs(fw, bw, values(type, {3, 2, 3}, x), values(type, {3, 2, 2}, aux), true, fh, fc, bh, bc,
                                      4, true, true);
    const vec fo = fw.run(x, &aux, T, B, fh, fc, true, 4, 0.0, 0.0);
    const vec bo = bw.run(x, &aux, T, B, bh, bc, false, 4);
    const auto got = run_ok(OpT::BIDIRECTIONAL_SEQUENCE_LSTM, ins, std::vector<tensor>(5, decl(type)));
    CHECK(got[0].dims == dims_t{3, 2, static_cast<std::uint32_t>(fw.no + bw.no)});
    check_close(got[0], merge_rows(fo, fw.no, bo, bw.no), "merged output");
    check_close(got[1], fh, "fw output state");
    check_close(got[2], fc, "fw cell state");
    check_close(got[3], bh, "bw output state");
    check_close(got[4], bc, "bw cell state");
  }
}

TEST_CASE("BIDIRECTIONAL_SEQUENCE_LSTM: parallel linking (aux input is the backward input), batch-major") {
  rng r;
  const OT type = OT::TENSOR_FLOAT32;
  const std::size_t T = 3, B = 2;
  const lstm_set fw = make_set(lstm_cases[0], type, r, 3), bw = make_set(lstm_cases[3], type, r, 2);
  const vec x = r.fill(T * B * 3, type, 1.0), aux = r.fill(T * B * 2, type, 1.0);  // time-major values
  vec fh = r.fill(B * fw.no, type), fc = r.fill(B * fw.nc, type), bh = r.fill(B * bw.no, type), bc = r.fill(B * bw.nc, type);
  const auto ins = bidi_lstm_inputs(fw, bw, values(type, {2, 3, 3}, swap01(x, T, B, 3)),
                                    values(type, {2, 3, 2}, swap01(aux, T, B, 2)), false, fh, fc, bh, bc, 4, false, false);
  const vec fo = fw.run(x, nullptr, T, B, fh, fc, true, 4);
  const vec bo = bw.run(aux, nullptr, T, B, bh, bc, false, 4);
  const auto got = run_ok(OpT::BIDIRECTIONAL_SEQUENCE_LSTM, ins, {decl(type), decl(type)});
  check_close(got[0], swap01(fo, T, B, fw.no), "fw output");
  check_close(got[1], swap01(bo, T, B, bw.no), "bw output");
  const auto ref = run_reference(OpT::BIDIRECTIONAL_SEQUENCE_LSTM, &nnhal::ops::bidirectional_sequence_lstm::reference, ins,
                                 {decl(type), decl(type)});
  check_close(ref[1], swap01(bo, T, B, bw.no), "reference bw output");
}

// ---------------------------------------------------------------------------------------
// RNN family
// ---------------------------------------------------------------------------------------

namespace {

struct rnn_set {
  OT type = OT::TENSOR_FLOAT32;
  std::size_t ni = 3, na = 0, units = 4;
  vec w, rw, b, wa;
  void init(rng& r) {
    w = r.fill(units * ni, type);
    rw = r.fill(units * units, type);
    b = r.fill(units, type);
    if (na) wa = r.fill(units * na, type);
  }
  std::vector<tensor> tensors() const {
    const auto u = static_cast<std::uint32_t>(units);
    return {values(type, {u, static_cast<std::uint32_t>(ni)}, w), values(type, {u, u}, rw), values(type, {u}, b)};
  }
  /// Time-major x[t][b][ni] -> out[t][b][units]; h updated.
  vec run(const vec& x, const vec* aux, std::size_t T, std::size_t B, vec& h, bool forward, int act) const {
    vec out(T * B * units);
    for (std::size_t s = 0; s < T; ++s) {
      const std::size_t t = forward ? s : T - 1 - s;
      for (std::size_t bb = 0; bb < B; ++bb) {
        vec nh(units);
        for (std::size_t j = 0; j < units; ++j) {
          double v = dot_row(w, j, ni, &x[(t * B + bb) * ni]) + dot_row(rw, j, units, &h[bb * units]) + b[j];
          if (aux) v += dot_row(wa, j, na, &(*aux)[(t * B + bb) * na]);
          nh[j] = fused(v, act);
        }
        std::copy(nh.begin(), nh.end(), h.begin() + static_cast<std::ptrdiff_t>(bb * units));
        std::copy(nh.begin(), nh.end(), out.begin() + static_cast<std::ptrdiff_t>((t * B + bb) * units));
      }
    }
    return out;
  }
};

rnn_set make_rnn(OT type, rng& r, std::size_t ni, std::size_t units, std::size_t na = 0) {
  rnn_set s;
  s.type = type;
  s.ni = ni;
  s.units = units;
  s.na = na;
  s.init(r);
  return s;
}

}  // namespace

TEST_CASE("RNN: one step, every activation, f32 and f16") {
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16})
    for (int act : {0, 1, 2, 3}) {
      CAPTURE(str(type));
      CAPTURE(act);
      rng r;
      const rnn_set s = make_rnn(type, r, 3, 5);
      const vec x = r.fill(2 * 3, type, 2.0);
      vec h = r.fill(2 * 5, type, 2.0);
      std::vector<tensor> ins{values(type, {2, 3}, x)};
      for (auto& t : s.tensors()) ins.push_back(t);
      ins.push_back(values(type, {2, 5}, h));
      ins.push_back(scalar_i32(act));
      const vec out = s.run(x, nullptr, 1, 2, h, true, act);
      const auto got = run_ok(OpT::RNN, ins, {decl(type), decl(type)});
      check_close(got[0], h, "hidden_state_out");
      check_close(got[1], out, "output");
      const auto ref = run_reference(OpT::RNN, &nnhal::ops::rnn::reference, ins, {decl(type), decl(type)});
      check_close(ref[1], out, "reference output");
    }
}

TEST_CASE("UNIDIRECTIONAL_SEQUENCE_RNN: both layouts, with and without the final state") {
  for (int time_major : {0, 1})
    for (bool with_state : {false, true}) {
      CAPTURE(time_major);
      rng r;
      const OT type = OT::TENSOR_FLOAT32;
      const std::size_t T = 5, B = 2;
      const rnn_set s = make_rnn(type, r, 3, 4);
      const vec x = r.fill(T * B * 3, type, 1.0);
      vec h = r.fill(B * 4, type);
      std::vector<tensor> ins{values(type, time_major ? dims_t{5, 2, 3} : dims_t{2, 5, 3}, time_major ? x : swap01(x, T, B, 3))};
      for (auto& t : s.tensors()) ins.push_back(t);
      ins.push_back(values(type, {2, 4}, h));
      ins.push_back(scalar_i32(1));
      ins.push_back(scalar_i32(time_major));
      const vec out = s.run(x, nullptr, T, B, h, true, 1);
      std::vector<tensor> decls{decl(type)};
      if (with_state) decls.push_back(decl(type));
      const auto got = run_ok(OpT::UNIDIRECTIONAL_SEQUENCE_RNN, ins, decls);
      check_close(got[0], time_major ? out : swap01(out, T, B, 4), "output");
      if (with_state) check_close(got[1], h, "hidden_state_out");
    }
}

TEST_CASE("BIDIRECTIONAL_SEQUENCE_RNN: no linking, cross linking, parallel linking; merged and separate") {
  struct mode {
    const char* name;
    bool aux, aux_weights, merge, time_major;
  };
  for (const mode m : {mode{"plain", false, false, false, true}, mode{"cross_merged", true, true, true, true},
                       mode{"parallel_batch_major", true, false, false, false}, mode{"parallel_merged", true, false, true, true}}) {
    CAPTURE(m.name);
    rng r;
    const OT type = OT::TENSOR_FLOAT32;
    const std::size_t T = 4, B = 2, ni = 3, na = 2;
    const rnn_set fw = make_rnn(type, r, ni, 4, m.aux_weights ? na : 0);
    const rnn_set bw = make_rnn(type, r, m.aux && !m.aux_weights ? na : ni, 3, m.aux_weights ? na : 0);
    const vec x = r.fill(T * B * ni, type, 1.0), aux = r.fill(T * B * na, type, 1.0);
    vec fh = r.fill(B * 4, type), bh = r.fill(B * 3, type);
    const auto layout = [&](const vec& v, std::size_t n) { return m.time_major ? v : swap01(v, T, B, n); };
    const auto sd = [&](std::size_t n) {
      return m.time_major ? dims_t{4, 2, static_cast<std::uint32_t>(n)} : dims_t{2, 4, static_cast<std::uint32_t>(n)};
    };
    std::vector<tensor> ins{values(type, sd(ni), layout(x, ni))};
    for (auto& t : fw.tensors()) ins.push_back(t);
    ins.push_back(values(type, {2, 4}, fh));
    for (auto& t : bw.tensors()) ins.push_back(t);
    ins.push_back(values(type, {2, 3}, bh));
    ins.push_back(m.aux ? values(type, sd(na), layout(aux, na)) : omitted(type));
    ins.push_back(m.aux_weights ? values(type, {4, 2}, fw.wa) : omitted(type));
    ins.push_back(m.aux_weights ? values(type, {3, 2}, bw.wa) : omitted(type));
    ins.push_back(scalar_i32(0));
    ins.push_back(scalar_bool(m.time_major));
    ins.push_back(scalar_bool(m.merge));
    const vec fo = fw.run(x, m.aux_weights ? &aux : nullptr, T, B, fh, true, 0);
    const vec bo = bw.run(m.aux && !m.aux_weights ? aux : x, m.aux_weights ? &aux : nullptr, T, B, bh, false, 0);
    std::vector<tensor> decls(m.merge ? 3 : 4, decl(type));
    const auto got = run_ok(OpT::BIDIRECTIONAL_SEQUENCE_RNN, ins, decls);
    if (m.merge) {
      check_close(got[0], layout(merge_rows(fo, 4, bo, 3), 7), "merged output");
    } else {
      check_close(got[0], layout(fo, 4), "fw output");
      check_close(got[1], layout(bo, 3), "bw output");
    }
    check_close(got[m.merge ? 1 : 2], fh, "fw hidden state");
    check_close(got[m.merge ? 2 : 3], bh, "bw hidden state");
  }
}

// ---------------------------------------------------------------------------------------
// SVDF
// ---------------------------------------------------------------------------------------

TEST_CASE("SVDF: rank 1 and 2, bias present and omitted, state out") {
  for (OT type : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16})
    for (int rank : {1, 2})
      for (bool with_bias : {false, true}) {
        CAPTURE(str(type));
        CAPTURE(rank);
        CAPTURE(with_bias);
        rng r;
        const std::size_t B = 2, ni = 3, units = 4, F = units * static_cast<std::size_t>(rank), M = 5;
        const vec x = r.fill(B * ni, type, 1.0), wf = r.fill(F * ni, type), wt = r.fill(F * M, type),
                  bias = r.fill(units, type);
        vec state = r.fill(B * F * M, type);
        for (std::size_t row = 0; row < B * F; ++row) state[row * M + M - 1] = 0;  // as a previous SVDF leaves it
        // The HAL formula: the memory window of filter f is the last M - 1 entries of its
        // state plus this step's feature; the output sums the rank filters of each unit.
        vec out(B * units), next(B * F * M, 0.0);
        for (std::size_t b = 0; b < B; ++b) {
          vec filtered(F);
          for (std::size_t f = 0; f < F; ++f) {
            vec window(M);
            for (std::size_t k = 0; k + 1 < M; ++k) window[k] = state[(b * F + f) * M + k];
            window[M - 1] = dot_row(wf, f, ni, &x[b * ni]);
            filtered[f] = dot_row(wt, f, M, window.data());
            for (std::size_t k = 0; k + 1 < M; ++k) next[(b * F + f) * M + k] = window[k + 1];
          }
          for (std::size_t u = 0; u < units; ++u) {
            double v = with_bias ? bias[u] : 0.0;
            for (int k = 0; k < rank; ++k) v += filtered[u * static_cast<std::size_t>(rank) + static_cast<std::size_t>(k)];
            out[b * units + u] = fused(v, 1);
          }
        }
        const auto Fu = static_cast<std::uint32_t>(F), Mu = static_cast<std::uint32_t>(M);
        std::vector<tensor> ins{values(type, {2, 3}, x), values(type, {Fu, 3}, wf), values(type, {Fu, Mu}, wt),
                                with_bias ? values(type, {4}, bias) : omitted(type), values(type, {2, Fu * Mu}, state),
                                scalar_i32(rank), scalar_i32(1)};
        const auto got = run_ok(OpT::SVDF, ins, {decl(type), decl(type)});
        check_close(got[0], next, "state_out");
        check_close(got[1], out, "output");
      }
}

// ---------------------------------------------------------------------------------------
// Bad input: errors that name the operand, never a crash
// ---------------------------------------------------------------------------------------

namespace {

std::vector<tensor> lstm_inputs(const lstm_set& s, std::size_t B, rng& r) {
  std::vector<tensor> ins{values(s.type, {static_cast<std::uint32_t>(B), static_cast<std::uint32_t>(s.ni)},
                                 r.fill(B * s.ni, s.type))};
  for (auto& w : s.weights()) ins.push_back(w);
  ins.push_back(values(s.type, {static_cast<std::uint32_t>(B), static_cast<std::uint32_t>(s.no)}, r.fill(B * s.no, s.type)));
  ins.push_back(values(s.type, {static_cast<std::uint32_t>(B), static_cast<std::uint32_t>(s.nc)}, r.fill(B * s.nc, s.type)));
  ins.push_back(scalar_i32(4));
  ins.push_back(scalar_f32(0));
  ins.push_back(scalar_f32(0));
  return ins;
}

std::string lstm_error(std::vector<tensor> ins) {
  return run_error(OpT::LSTM, ins, std::vector<tensor>(4, decl(OT::TENSOR_FLOAT32)));
}

}  // namespace

TEST_CASE("LSTM: bad shapes and inconsistent optional inputs are rejected, naming the operand") {
  rng r;
  const lstm_set s = make_set(lstm_cases[0], OT::TENSOR_FLOAT32, r);
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[2] = values(OT::TENSOR_FLOAT32, {5, 3}, r.fill(15, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("input_to_forget_weights") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[7] = values(OT::TENSOR_FLOAT32, {4, 5}, r.fill(20, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("recurrent_to_cell_weights") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[18] = values(OT::TENSOR_FLOAT32, {3, 4}, r.fill(12, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("output_state_in") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[19] = values(OT::TENSOR_FLOAT32, {2, 5}, r.fill(10, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("cell_state_in") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);  // half of the input gate: input_to_input without recurrent_to_input
    ins[5] = omitted(OT::TENSOR_FLOAT32);
    CHECK(lstm_error(ins).find("CIFG") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);  // peephole weights partly present
    ins[10] = values(OT::TENSOR_FLOAT32, {4}, r.fill(4, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("peephole") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);  // projection bias without projection weights
    ins[17] = values(OT::TENSOR_FLOAT32, {4}, r.fill(4, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("projection_bias") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[20] = scalar_i32(2);
    CHECK(lstm_error(ins).find("activation") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[21] = scalar_f32(-1.0f);
    CHECK(lstm_error(ins).find("cell_clip") != std::string::npos);
  }
  {
    auto ins = lstm_inputs(s, 2, r);
    ins[0] = values(OT::TENSOR_FLOAT32, {2, 3, 1}, r.fill(6, OT::TENSOR_FLOAT32));
    CHECK(lstm_error(ins).find("input: rank") != std::string::npos);
  }
  {
    // A missing mandatory operand fails validation at prepare.
    auto ins = lstm_inputs(s, 2, r);
    ins[13] = omitted(OT::TENSOR_FLOAT32);
    auto m = single(OpT::LSTM, ins, std::vector<tensor>(4, decl(OT::TENSOR_FLOAT32, {2, 16})));
    const auto res = run_model(m);
    CHECK(res.status == nnhal::types::ErrorStatus::INVALID_ARGUMENT);
    CHECK(res.message.find("input 13") != std::string::npos);
  }
}

TEST_CASE("Sequence ops and SVDF: bad input is rejected, naming the operand") {
  rng r;
  const OT f = OT::TENSOR_FLOAT32;
  const rnn_set s = make_rnn(f, r, 3, 4);
  auto seq = [&](tensor hidden, std::int32_t time_major) {
    std::vector<tensor> ins{values(f, {5, 2, 3}, r.fill(30, f))};
    for (auto& t : s.tensors()) ins.push_back(t);
    ins.push_back(hidden);
    ins.push_back(scalar_i32(0));
    ins.push_back(scalar_i32(time_major));
    return run_error(OpT::UNIDIRECTIONAL_SEQUENCE_RNN, ins, {decl(f)});
  };
  CHECK(seq(values(f, {2, 4}, r.fill(8, f)), 1) == "");
  CHECK(seq(values(f, {5, 4}, r.fill(20, f)), 1).find("hidden_state") != std::string::npos);
  CHECK(seq(values(f, {2, 4}, r.fill(8, f)), 2).find("time_major") != std::string::npos);

  // BIDIRECTIONAL_SEQUENCE_RNN: aux weights without aux input, and a mismatched merge flag.
  std::vector<tensor> ins{values(f, {4, 2, 3}, r.fill(24, f))};
  for (int d = 0; d < 2; ++d) {
    for (auto& t : s.tensors()) ins.push_back(t);
    ins.push_back(values(f, {2, 4}, r.fill(8, f)));
  }
  ins.push_back(omitted(f));
  ins.push_back(values(f, {4, 3}, r.fill(12, f)));
  ins.push_back(values(f, {4, 3}, r.fill(12, f)));
  ins.push_back(scalar_i32(0));
  ins.push_back(scalar_bool(true));
  ins.push_back(scalar_bool(false));
  CHECK(run_error(OpT::BIDIRECTIONAL_SEQUENCE_RNN, ins, {decl(f), decl(f)}).find("aux_input") != std::string::npos);
  ins[10] = omitted(f);
  ins[11] = omitted(f);
  CHECK(run_error(OpT::BIDIRECTIONAL_SEQUENCE_RNN, ins, {decl(f), decl(f)}) == "");
  CHECK(run_error(OpT::BIDIRECTIONAL_SEQUENCE_RNN, ins, {decl(f)}).find("merge_outputs") != std::string::npos);

  // SVDF: filters not a multiple of rank; state of the wrong size.
  auto svdf = [&](std::int32_t rank, std::uint32_t state) {
    std::vector<tensor> in{values(f, {2, 3}, r.fill(6, f)), values(f, {4, 3}, r.fill(12, f)), values(f, {4, 5}, r.fill(20, f)),
                           omitted(f), values(f, {2, state}, r.fill(2 * state, f)), scalar_i32(rank), scalar_i32(0)};
    return run_error(OpT::SVDF, in, {decl(f), decl(f)});
  };
  CHECK(svdf(2, 20) == "");
  CHECK(svdf(3, 20).find("rank") != std::string::npos);
  CHECK(svdf(2, 16).find("state_in") != std::string::npos);
  CHECK(svdf(0, 20).find("rank") != std::string::npos);
}

TEST_CASE("LSTM through prepare/execute: constant weights packed at bind, omitted inputs, unknown output shapes") {
  rng r;
  const lstm_set s = make_set(lstm_cases[1], OT::TENSOR_FLOAT32, r);  // CIFG + peephole: NO_VALUE operands
  const std::size_t B = 2;
  auto ins = lstm_inputs(s, B, r);
  vec h(B * s.no), c(B * s.nc), x(B * s.ni);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = ins[18].real(i);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = ins[19].real(i);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = ins[0].real(i);
  const vec out = s.run(x, nullptr, 1, B, h, c, true, 4);
  // Input 0 and the states are model inputs, the weights constants; outputs of unknown shape.
  std::vector<tensor> decls(4, decl(OT::TENSOR_FLOAT32, {0, 0}));
  auto m = single(OpT::LSTM, ins, decls, 1);
  const auto res = run_model(m);
  REQUIRE_MESSAGE(res.status == nnhal::types::ErrorStatus::NONE, res.message);
  CHECK(res.outs[0].dims == dims_t{2, 12});
  check_close(res.outs[1], h, "output_state_out");
  check_close(res.outs[2], c, "cell_state_out");
  check_close(res.outs[3], out, "output");
}

TEST_CASE("Zero time steps: outputs are empty and the final states equal the initial ones") {
  rng r;
  const OT f = OT::TENSOR_FLOAT32;
  const rnn_set s = make_rnn(f, r, 3, 4);
  const vec h = r.fill(8, f);
  std::vector<tensor> ins{make_tensor(f, {0, 2, 3})};
  for (auto& t : s.tensors()) ins.push_back(t);
  ins.push_back(values(f, {2, 4}, h));
  ins.push_back(scalar_i32(1));
  ins.push_back(scalar_i32(1));
  const auto got = run_ok(OpT::UNIDIRECTIONAL_SEQUENCE_RNN, ins, {decl(f), decl(f)});
  CHECK(got[0].dims == dims_t{0, 2, 4});
  check_close(got[1], h, "hidden_state_out");
}
