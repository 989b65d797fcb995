// Float recurrent cells: ONE LSTM cell that LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and
// BIDIRECTIONAL_SEQUENCE_LSTM loop over time (forward or backward), ONE RNN cell for RNN and
// the two sequence RNNs, and the matrix products SVDF uses. Everything is computed in
// float32 (float16 operands are widened, weights once at bind when they are constants).
//
// Matrix products: a weight set's gate matrices are stacked into one matrix, so a step does
// one product for the input, one for the auxiliary input and one for the recurrent state;
// the input (and auxiliary) products of a whole chunk of time steps are done in one call
// before the steps run, which leaves only the recurrent product on the serial path.
// Weights built for `path::gemm` are packed for the float32 GEMM that FULLY_CONNECTED uses
// (gemm_avx512.hpp when the CPU has AVX-512 or AVX2 + FMA, else conv_gemm.hpp; `make_dense` and `matmul`
// below are the only places that call them); for `path::reference` they stay plain and
// `matmul` runs plain loops. Both feed the same gate arithmetic, so they differ by float
// summation order only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>
#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/conv_gemm.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/ops/kernels/unary.hpp"
#include "nnhal/ops/logistic.hpp"
#include "nnhal/ops/tanh.hpp"

namespace nnhal::ops::kernels::recurrent {

enum class path : std::uint8_t { reference, gemm };

// --- float32 access to float operands ----------------------------------------------------

/// Whether an input takes part in this execution (optional inputs may be omitted).
inline bool present(const operand_desc& d) noexcept { return !d.omitted && d.value != nullptr; }

/// The elements of a TENSOR_FLOAT32 / TENSOR_FLOAT16 operand as float32 (empty if absent).
inline std::vector<float> to_f32(const operand_desc& d) {
  if (!present(d)) return {};
  std::vector<float> v(d.element_count());
  if (d.type == OperandType::TENSOR_FLOAT16) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = types::to_float(d.at<types::float16>(i));
  } else if (!v.empty()) {
    std::memcpy(v.data(), d.value, v.size() * sizeof(float));
  }
  return v;
}

/// Float32 view of an input: its own bytes for float32, a widened copy for float16.
class input_f32 {
 public:
  explicit input_f32(const operand_desc& d) {
    if (!present(d)) return;
    if (d.type == OperandType::TENSOR_FLOAT32) ptr_ = reinterpret_cast<const float*>(d.value);
    else {
      copy_ = to_f32(d);
      ptr_ = copy_.data();
    }
  }
  const float* data() const noexcept { return ptr_; }

 private:
  const float* ptr_ = nullptr;
  std::vector<float> copy_;
};

/// Float32 view of an output: the output buffer for float32; for float16 a staging buffer
/// that commit() narrows into the output.
class output_f32 {
 public:
  output_f32(const kernel_io& io, std::size_t i) : io_(&io), i_(i) {
    const std::size_t n = io.out[i].element_count();
    if (io.out[i].type == OperandType::TENSOR_FLOAT32) ptr_ = reinterpret_cast<float*>(io.out_data[i]);
    else {
      copy_.assign(n, 0.0f);
      ptr_ = copy_.data();
    }
  }
  float* data() noexcept { return ptr_; }
  void commit() {
    if (copy_.empty()) return;
    auto* dst = reinterpret_cast<types::float16*>(io_->out_data[i_]);
    for (std::size_t k = 0; k < copy_.size(); ++k) dst[k] = types::to_float16(copy_[k]);
  }

 private:
  const kernel_io* io_;
  std::size_t i_;
  float* ptr_ = nullptr;
  std::vector<float> copy_;
};

// --- matrix products -----------------------------------------------------------------------

/// A row-major weight matrix W [rows][cols] with a bias per row, for y = x · W^T + bias:
/// packed for the GEMM when `pack` was asked for (the plain copy is then dropped), else
/// kept as is for the reference loops.
struct dense {
  std::size_t rows = 0, cols = 0;
  std::vector<float> w;     // [rows][cols]
  std::vector<float> bias;  // [rows] (zeros when there is none)
  conv::packed_f32 packed;
  std::vector<float> packed_bias;  // bias padded to whole panels
  bool has_packed = false;
#if NNHAL_HAVE_X86_KERNELS
  std::optional<conv::avx512::gemm_isa> x86;  // packed for conv::avx512::gemm_f32 in this ISA (else conv::gemm_f32)
#endif
};

inline dense make_dense(std::vector<float> w, std::size_t rows, std::size_t cols, const float* bias, bool pack) {
  dense d;
  d.rows = rows;
  d.cols = cols;
  d.w = std::move(w);
  d.bias.assign(rows, 0.0f);
  if (bias) std::copy(bias, bias + rows, d.bias.begin());
  if (pack && rows > 0 && cols > 0) {
    std::size_t nr = conv::f32_tile<xsimd::default_arch>::nr;
#if NNHAL_HAVE_X86_KERNELS
    d.x86 = conv::avx512::f32_gemm_isa();
    if (d.x86) nr = conv::avx512::panel_width(rows);
#endif
    d.packed = conv::pack_f32(d.w.data(), rows, 1, cols, nr);
    d.packed_bias = conv::padded_bias(d.bias.data(), rows, d.packed.padded_channels());
    d.has_packed = true;
    d.w = {};
  }
  return d;
}

/// y[i][j] = sum_k x[i][k] * W[j][k] + bias[j] for i < m (x rows of d.cols, y rows of d.rows):
/// the GEMM when `d` is packed, else the reference loops.
inline void matmul(const dense& d, std::size_t m, const float* x, float* y) {
  if (m == 0 || d.rows == 0) return;
  if (d.has_packed) {
    constexpr float inf = std::numeric_limits<float>::infinity();
#if NNHAL_HAVE_X86_KERNELS
    if (d.x86)
      return conv::avx512::gemm_f32(conv::avx512::dense_rows<float>{x, d.cols}, m, d.packed, d.packed_bias.data(), -inf,
                                    inf, y, nullptr, 0, *d.x86);
#endif
    conv::gemm_f32<xsimd::default_arch>(m, x, d.packed, d.packed_bias.data(), -inf, inf, y);
    return;
  }
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < d.rows; ++j) {
      float acc = 0.0f;
      const float* xr = x + i * d.cols;
      const float* wr = d.w.data() + j * d.cols;
      for (std::size_t k = 0; k < d.cols; ++k) acc += xr[k] * wr[k];
      y[i * d.rows + j] = acc + d.bias[j];
    }
}

// --- element-wise helpers ------------------------------------------------------------------

/// p[i] = lane(p[i]) over n floats: xsimd batches, then the scalar lane for the tail.
template <class Lane>
void apply_lane(float* p, std::size_t n, const Lane& lane) {
  std::size_t i = 0;
  if constexpr (vunary::has_simd) {
    using batch = xsimd::batch<float, vunary::simd_arch>;
    for (; i + batch::size <= n; i += batch::size) lane(batch::load_unaligned(p + i)).store_unaligned(p + i);
  }
  for (; i < n; ++i) p[i] = lane(p[i]);
}
inline void apply_sigmoid(float* p, std::size_t n) { apply_lane(p, n, logistic::lane{}); }

/// The LSTM cell activation g: 0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid (validated).
inline void apply_lstm_activation(float* p, std::size_t n, std::int32_t act) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  switch (act) {
    case 1: apply_lane(p, n, vunary::clamp_lane{0.0f, inf}); break;
    case 3: apply_lane(p, n, vunary::clamp_lane{0.0f, 6.0f}); break;
    case 4: apply_lane(p, n, tanh::lane{}); break;
    case 6: apply_sigmoid(p, n); break;
    default: break;
  }
}
/// A FusedActivationFunc (RNN, SVDF): clamp to its range.
inline void apply_fused_activation(float* p, std::size_t n, std::int32_t act) {
  if (act == 0) return;
  const float_range r = activation_range_float(act);
  apply_lane(p, n, vunary::clamp_lane{r.lo, r.hi});
}
inline void clip(float* p, std::size_t n, float limit) {
  if (limit > 0.0f) apply_lane(p, n, vunary::clamp_lane{-limit, limit});
}
/// Layer normalization of one gate's n values (mean 0, variance 1 with epsilon 1e-8, as
/// the AOSP CPU path), then times `weight` plus `bias`.
inline void layer_norm(float* p, std::size_t n, const float* weight, const float* bias) {
  if (n == 0) return;
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) sum += p[i];
  const float mean = sum / static_cast<float>(n);
  float sq = 0.0f;
  for (std::size_t i = 0; i < n; ++i) sq += (p[i] - mean) * (p[i] - mean);
  const float inv = 1.0f / std::sqrt(sq / static_cast<float>(n) + 1e-8f);
  for (std::size_t i = 0; i < n; ++i) p[i] = (p[i] - mean) * inv * weight[i] + bias[i];
}

// --- sequences -----------------------------------------------------------------------------

/// A sequence's input and output rows. Row (t, b) of a [time, batch, n] (time-major) or
/// [batch, time, n] tensor; outputs may be interleaved (merged bidirectional outputs).
struct sequence {
  std::size_t time = 1, batch = 0;
  bool time_major = true;
  const float* x = nullptr;    // input rows of `x_size`
  const float* aux = nullptr;  // auxiliary input rows of `aux_size` (nullptr: none)
  float* out = nullptr;        // output row (t, b) at out + row * out_stride + out_offset
  std::size_t out_stride = 0, out_offset = 0;
  bool forward = true;

  std::size_t row(std::size_t t, std::size_t b) const noexcept { return time_major ? t * batch + b : b * time + t; }
};

/// Scratch floats that are written before they are read (no zero fill).
using scratch = std::unique_ptr<float[]>;
inline scratch make_scratch(std::size_t n) { return std::make_unique_for_overwrite<float[]>(n ? n : 1); }

/// Time steps per chunk of precomputed input products (about 4 MiB of gate values).
inline std::size_t chunk_steps(std::size_t time, std::size_t row_floats) {
  const std::size_t budget = std::size_t{1} << 20;
  return std::clamp<std::size_t>(budget / std::max<std::size_t>(row_floats, 1), 1, std::max<std::size_t>(time, 1));
}

/// Gathers the rows of steps [s0, s0 + n) (in processing order) of a sequence input into a
/// contiguous [n * batch][width] block.
inline void gather_steps(const sequence& s, const float* src, std::size_t width, std::size_t s0, std::size_t n,
                         float* dst) {
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t step = s0 + k, t = s.forward ? step : s.time - 1 - step;
    for (std::size_t b = 0; b < s.batch; ++b)
      std::copy_n(src + s.row(t, b) * width, width, dst + (k * s.batch + b) * width);
  }
}

// --- LSTM ------------------------------------------------------------------------------------

/// The operands of one LSTM weight set (nullptr: absent). Gate order input, forget, cell,
/// output; peephole order input, forget, output.
struct lstm_operands {
  const operand_desc* input_to[4] = {};
  const operand_desc* recurrent_to[4] = {};
  const operand_desc* cell_to[3] = {};
  const operand_desc* bias[4] = {};
  const operand_desc* projection_weights = nullptr;
  const operand_desc* projection_bias = nullptr;
  const operand_desc* layer_norm[4] = {};
  const operand_desc* aux_to[4] = {};

  /// Every operand that is there has its value (at bind: all constants).
  bool all_values() const noexcept {
    const operand_desc* const* groups[] = {input_to, recurrent_to, bias, layer_norm, aux_to};
    for (auto g : groups)
      for (int k = 0; k < 4; ++k)
        if (g[k] && !g[k]->omitted && !g[k]->value) return false;
    for (auto d : cell_to)
      if (d && !d->omitted && !d->value) return false;
    for (auto d : {projection_weights, projection_bias})
      if (d && !d->omitted && !d->value) return false;
    return true;
  }
};

struct lstm_params {
  std::int32_t activation = 4;
  float cell_clip = 0.0f, proj_clip = 0.0f;
};

/// One LSTM weight set in float32 with the gates stacked: rows [k * n_cell, (k + 1) * n_cell)
/// of wx / wh / wa belong to the k-th gate present (input is absent with CIFG).
struct lstm_weights {
  std::size_t n_input = 0, n_aux = 0, n_cell = 0, n_output = 0, gates = 4;
  bool cifg = false, peephole = false, layer_norm = false, projection = false;
  dense wx, wh, wa, wp;            // wa.rows == 0: no auxiliary weights
  std::vector<float> gate_bias;    // [gates * n_cell]
  std::vector<float> ln;           // [gates * n_cell] (layer norm only)
  std::vector<float> peep[3];      // input (not with CIFG), forget, output

  /// Offset of gate g (0 input .. 3 output) in a row of stacked gate values.
  std::size_t offset(int g) const noexcept { return static_cast<std::size_t>(cifg ? g - 1 : g) * n_cell; }
};

inline bool has(const operand_desc* d) noexcept { return d && present(*d); }

/// Stacks one weight set; packs its matrices for the GEMM when `pack`. Shapes were checked
/// by shape inference (types/signatures/detail_recurrent.hpp).
inline lstm_weights make_lstm_weights(const lstm_operands& o, bool pack) {
  lstm_weights w;
  w.cifg = !has(o.input_to[0]);
  w.peephole = has(o.cell_to[2]);
  w.layer_norm = has(o.layer_norm[3]);
  w.projection = has(o.projection_weights);
  w.n_cell = o.input_to[3]->dims[0];
  w.n_input = o.input_to[3]->dims[1];
  w.n_output = o.recurrent_to[3]->dims[1];
  const bool aux = has(o.aux_to[1]);
  w.n_aux = aux ? o.aux_to[1]->dims[1] : 0;
  w.gates = w.cifg ? 3 : 4;
  const std::size_t rows = w.gates * w.n_cell;
  auto stack = [&](const operand_desc* const* src, std::size_t cols) {
    std::vector<float> m;
    m.reserve(rows * cols);
    for (int g = w.cifg ? 1 : 0; g < 4; ++g) {
      const std::vector<float> part = to_f32(*src[g]);
      m.insert(m.end(), part.begin(), part.end());
    }
    return m;
  };
  w.gate_bias = stack(o.bias, 1);
  if (w.layer_norm) w.ln = stack(o.layer_norm, 1);
  // Without layer normalization the gate bias rides on the input product; with it the bias
  // is added after the normalization.
  w.wx = make_dense(stack(o.input_to, w.n_input), rows, w.n_input, w.layer_norm ? nullptr : w.gate_bias.data(), pack);
  w.wh = make_dense(stack(o.recurrent_to, w.n_output), rows, w.n_output, nullptr, pack);
  if (aux) w.wa = make_dense(stack(o.aux_to, w.n_aux), rows, w.n_aux, nullptr, pack);
  if (w.peephole)
    for (int k = 0; k < 3; ++k) w.peep[k] = to_f32(*o.cell_to[k]);
  if (w.projection) {
    const std::vector<float> pb = has(o.projection_bias) ? to_f32(*o.projection_bias) : std::vector<float>{};
    w.wp = make_dense(to_f32(*o.projection_weights), w.n_output, w.n_cell, pb.empty() ? nullptr : pb.data(), pack);
  }
  return w;
}

/// The cell update of one step for `batch` rows of stacked gate pre-activations (input,
/// auxiliary and recurrent products plus bias; bias excluded with layer normalization):
/// peephole, layer normalization, gate activations; `c` holds the previous cell state and
/// receives the new one; m = o * g(c) is the cell output before projection.
inline void lstm_cell(const lstm_weights& w, const lstm_params& p, std::size_t batch, float* gates, float* c,
                      float* m) {
  const std::size_t nc = w.n_cell, stride = w.gates * nc;
  for (std::size_t b = 0; b < batch; ++b) {
    float* g = gates + b * stride;
    float* gi = w.cifg ? nullptr : g + w.offset(0);
    float* gf = g + w.offset(1);
    float* gc = g + w.offset(2);
    float* go = g + w.offset(3);
    float* cb = c + b * nc;
    if (w.peephole)
      for (std::size_t j = 0; j < nc; ++j) {
        if (gi) gi[j] += w.peep[0][j] * cb[j];
        gf[j] += w.peep[1][j] * cb[j];
      }
    if (w.layer_norm) {
      if (gi) layer_norm(gi, nc, w.ln.data() + w.offset(0), w.gate_bias.data() + w.offset(0));
      layer_norm(gf, nc, w.ln.data() + w.offset(1), w.gate_bias.data() + w.offset(1));
      layer_norm(gc, nc, w.ln.data() + w.offset(2), w.gate_bias.data() + w.offset(2));
    }
    if (gi) apply_sigmoid(gi, nc);
    apply_sigmoid(gf, nc);
    apply_lstm_activation(gc, nc, p.activation);
    for (std::size_t j = 0; j < nc; ++j) cb[j] = gf[j] * cb[j] + (gi ? gi[j] : 1.0f - gf[j]) * gc[j];
    clip(cb, nc, p.cell_clip);
    if (w.peephole)
      for (std::size_t j = 0; j < nc; ++j) go[j] += w.peep[2][j] * cb[j];
    if (w.layer_norm) layer_norm(go, nc, w.ln.data() + w.offset(3), w.gate_bias.data() + w.offset(3));
    apply_sigmoid(go, nc);
    float* mb = m + b * nc;
    std::copy_n(cb, nc, mb);
    apply_lstm_activation(mb, nc, p.activation);
    for (std::size_t j = 0; j < nc; ++j) mb[j] *= go[j];
  }
}

/// The recurrent layers' input side, hoisted out of the time loop: per chunk of steps,
/// the inputs (and the auxiliary inputs, when `wa` has rows) of every step and batch row
/// times their weights at once into rows of `width` values; then, in time order,
/// `step(t, pre)` with t the sequence index and `pre` that step's [batch][width] block.
template <class Step>
void for_each_projected_step(const dense& wx, const dense& wa, std::size_t n_input, std::size_t n_aux,
                             const sequence& s, std::size_t width, Step&& step) {
  const std::size_t B = s.batch;
  const bool aux = s.aux && wa.rows > 0;
  const std::size_t chunk = chunk_steps(s.time, B * width);
  const std::size_t steps = std::min(chunk, s.time);
  const scratch xin = make_scratch(steps * B * n_input), gx = make_scratch(steps * B * width);
  const scratch ain = make_scratch(aux ? steps * B * n_aux : 0), ga = make_scratch(aux ? steps * B * width : 0);
  for (std::size_t s0 = 0; s0 < s.time; s0 += chunk) {
    const std::size_t n = std::min(chunk, s.time - s0);
    gather_steps(s, s.x, n_input, s0, n, xin.get());
    matmul(wx, n * B, xin.get(), gx.get());
    if (aux) {
      gather_steps(s, s.aux, n_aux, s0, n, ain.get());
      matmul(wa, n * B, ain.get(), ga.get());
      for (std::size_t i = 0; i < n * B * width; ++i) gx[i] += ga[i];
    }
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = s0 + k;
      step(s.forward ? i : s.time - 1 - i, gx.get() + k * B * width);
    }
  }
}

/// Runs one direction over a sequence from the states h0 [batch][n_output] and c0
/// [batch][n_cell]; writes every step's output and, when not null, the final states and
/// (`gates_out`, [batch][gates * n_cell]) the last step's gate values.
inline void lstm_sequence(const lstm_weights& w, const lstm_params& p, const sequence& s, const float* h0,
                          const float* c0, float* h_final, float* c_final, float* gates_out) {
  const std::size_t B = s.batch, nc = w.n_cell, no = w.n_output, G = w.gates * nc;
  std::vector<float> h(h0, h0 + B * no), c(c0, c0 + B * nc), gates(B * G, 0.0f), rec(B * G), m(B * nc),
      proj(w.projection ? B * no : 0);
  for_each_projected_step(w.wx, w.wa, w.n_input, w.n_aux, s, G, [&](std::size_t t, const float* pre) {
    matmul(w.wh, B, h.data(), rec.data());
    for (std::size_t i = 0; i < B * G; ++i) gates[i] = pre[i] + rec[i];
    lstm_cell(w, p, B, gates.data(), c.data(), m.data());
    const float* result = m.data();
    if (w.projection) {
      matmul(w.wp, B, m.data(), proj.data());
      clip(proj.data(), proj.size(), p.proj_clip);
      result = proj.data();
    }
    std::copy_n(result, B * no, h.data());
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(result + b * no, no, s.out + s.row(t, b) * s.out_stride + s.out_offset);
  });
  if (h_final) std::copy(h.begin(), h.end(), h_final);
  if (c_final) std::copy(c.begin(), c.end(), c_final);
  if (gates_out) std::copy(gates.begin(), gates.end(), gates_out);
}

// --- RNN ------------------------------------------------------------------------------------

/// One RNN weight set: weights [units][n_input] with the bias, recurrent [units][units],
/// auxiliary weights [units][n_aux] (rows == 0: none).
struct rnn_weights {
  std::size_t n_input = 0, n_aux = 0, units = 0;
  dense wx, wh, wa;
};

inline rnn_weights make_rnn_weights(const operand_desc& weights, const operand_desc& recurrent,
                                    const operand_desc& bias, const operand_desc* aux_weights, bool pack) {
  rnn_weights w;
  w.units = weights.dims[0];
  w.n_input = weights.dims[1];
  const std::vector<float> b = to_f32(bias);
  w.wx = make_dense(to_f32(weights), w.units, w.n_input, b.data(), pack);
  w.wh = make_dense(to_f32(recurrent), w.units, w.units, nullptr, pack);
  if (aux_weights && present(*aux_weights)) {
    w.n_aux = aux_weights->dims[1];
    w.wa = make_dense(to_f32(*aux_weights), w.units, w.n_aux, nullptr, pack);
  }
  return w;
}

/// h_t = act(x_t W^T + aux_t Wa^T + h_{t-1} Wh^T + bias) over a sequence from h0
/// [batch][units]; every step's h is the output row; the final state goes to h_final.
inline void rnn_sequence(const rnn_weights& w, std::int32_t activation, const sequence& s, const float* h0,
                         float* h_final) {
  const std::size_t B = s.batch, U = w.units;
  std::vector<float> h(h0, h0 + B * U), rec(B * U);
  for_each_projected_step(w.wx, w.wa, w.n_input, w.n_aux, s, U, [&](std::size_t t, const float* pre) {
    matmul(w.wh, B, h.data(), rec.data());
    for (std::size_t i = 0; i < B * U; ++i) h[i] = pre[i] + rec[i];
    apply_fused_activation(h.data(), h.size(), activation);
    for (std::size_t b = 0; b < B; ++b)
      std::copy_n(h.data() + b * U, U, s.out + s.row(t, b) * s.out_stride + s.out_offset);
  });
  if (h_final) std::copy(h.begin(), h.end(), h_final);
}

}  // namespace nnhal::ops::kernels::recurrent
