// The quantized recurrent, hashing and random family: QUANTIZED_16BIT_LSTM,
// QUANTIZED_LSTM, LSH_PROJECTION and RANDOM_MULTINOMIAL.
//  - fixed-point primitives (int16 logistic/tanh, the layer norm's inverse sqrt) against
//    their real-number values;
//  - the LSTM cells against the cell equations evaluated in double (tolerance: a few
//    units in the last place of the int16 / int8 outputs), plus the conformance spec's
//    golden step for each cell;
//  - FarmHash Fingerprint64 against published fingerprints; LSH bits against the spec
//    formula; the multinomial sampler against the softmax distribution;
//  - shape inference and bad input: INVALID_ARGUMENT naming the operand, never a crash.
// No quant8 signed/unsigned parity applies: QUANTIZED_16BIT_LSTM has no signed form (a
// HAL exception), QUANTIZED_LSTM only a signed one, the other two are float ops.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/kernels/lstm_quant.hpp"
#include "nnhal/ops/lsh_projection.hpp"
#include "support/op_runner.hpp"

namespace {

using namespace nnhal::test::op;
namespace kl = nnhal::ops::kernels::lstm;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

tensor i8_tensor(OT t, dims_t d, float scale, std::int32_t zp, std::mt19937& rng, int lo, int hi) {
  tensor x = make_tensor(t, std::move(d), scale, zp);
  std::uniform_int_distribution<int> u(lo, hi);
  for (std::size_t i = 0; i < x.count(); ++i) x.put(i, u(rng));
  return x;
}

/// An omitted optional input; quantized types keep a valid scale, as models declare them.
tensor absent(OT t, dims_t d) {
  tensor x = omitted(t, std::move(d));
  if (t != OT::TENSOR_INT32) x.scale = 1.0f;
  return x;
}

std::string contains(const std::string& error, const std::string& what) {
  return error.find(what) != std::string::npos ? std::string() : "'" + error + "' does not name " + what;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Fixed-point primitives
// ---------------------------------------------------------------------------------

TEST_CASE("lstm fixed point: int16 logistic and tanh follow the real functions") {
  // Q3.12 inputs over the whole int16 range; outputs Q0.15.
  double worst_sig = 0, worst_tanh = 0;
  for (int raw = -32768; raw <= 32767; raw += 7) {
    const auto x = static_cast<std::int16_t>(raw);
    const double r = raw / 4096.0;
    worst_sig = std::max(worst_sig, std::abs(kl::logistic16<3>(x) / 32768.0 - sigmoid(r)));
    worst_tanh = std::max(worst_tanh, std::abs(kl::tanh16<3>(x) / 32768.0 - std::tanh(r)));
  }
  CHECK(worst_sig < 3e-4);
  CHECK(worst_tanh < 5e-4);
  // tanh with the run-time integer bits used for the cell state (0..6).
  for (int ib = 0; ib <= 6; ++ib) {
    double worst = 0;
    std::vector<std::int16_t> in, out(4096);
    for (int raw = -32768; raw <= 32767; raw += 16) in.push_back(static_cast<std::int16_t>(raw));
    kl::tanh16_n(ib, in.data(), in.size(), out.data());
    for (std::size_t i = 0; i < in.size(); ++i)
      worst = std::max(worst, std::abs(out[i] / 32768.0 - std::tanh(std::ldexp(in[i], ib - 15))));
    CAPTURE(ib);
    CHECK(worst < 5e-4);
  }
  CHECK(kl::logistic16<3>(0) == 16384);
  CHECK(kl::tanh16<3>(0) == 0);
}

TEST_CASE("lstm fixed point: inverse square root multiplier") {
  // The multiplier stands for 1 / sqrt(v) (v <= 1 counts as 1).
  for (std::int32_t v : {0, 1, 2, 3, 7, 100, 12345, 1 << 20, 987654321, std::numeric_limits<std::int32_t>::max()}) {
    const auto m = kl::inv_sqrt_multiplier(v);
    const double real = m.mantissa_q31 * std::ldexp(1.0, m.shift - 31);
    CAPTURE(v);
    CHECK(std::abs(real * std::sqrt(std::max(1.0, static_cast<double>(v))) - 1.0) < 1e-5);
  }
}

// ---------------------------------------------------------------------------------
// QUANTIZED_16BIT_LSTM
// ---------------------------------------------------------------------------------

namespace {

struct q16_case {
  std::vector<tensor> ins;  // the 15 inputs
  std::vector<tensor> outs() const {
    const auto b = ins[0].dims[0], n = ins[14].dims[1];
    return {decl(OT::TENSOR_QUANT16_SYMM, {b, n}, 1.0f / 2048, 0), decl(OT::TENSOR_QUANT8_ASYMM, {b, n}, 1.0f / 128, 128)};
  }
};

q16_case q16_random(std::uint32_t batches, std::uint32_t input_size, std::uint32_t n, std::mt19937& rng) {
  q16_case c;
  const float ws = 0.004f;
  c.ins.push_back(i8_tensor(OT::TENSOR_QUANT8_ASYMM, {batches, input_size}, 1.0f / 128, 128, rng, 0, 255));
  for (int k = 0; k < 8; ++k)
    c.ins.push_back(i8_tensor(OT::TENSOR_QUANT8_ASYMM, {n, k < 4 ? input_size : n}, ws, 100, rng, 0, 255));
  for (int k = 0; k < 4; ++k) {
    tensor b = make_tensor(OT::TENSOR_INT32, {n}, ws / 128, 0);
    std::uniform_int_distribution<int> u(-60000, 60000);
    for (std::size_t i = 0; i < n; ++i) b.put(i, u(rng));
    c.ins.push_back(b);
  }
  tensor cell = make_tensor(OT::TENSOR_QUANT16_SYMM, {batches, n}, 1.0f / 2048, 0);
  std::uniform_int_distribution<int> uc(-4000, 4000);
  for (std::size_t i = 0; i < cell.count(); ++i) cell.put(i, uc(rng));
  c.ins.push_back(cell);
  c.ins.push_back(i8_tensor(OT::TENSOR_QUANT8_ASYMM, {batches, n}, 1.0f / 128, 128, rng, 0, 255));
  return c;
}

/// The cell in double. As in the AOSP path (and its conformance data), the gates'
/// fully connected layer multiplies [input, prev_output] with columns
/// [recurrent_to_* | input_to_*]; with input_size != output_size the two split points
/// differ, which this oracle reproduces column by column.
void q16_oracle(const q16_case& c, std::vector<double>& cell_out, std::vector<double>& out) {
  const auto& x = c.ins[0];
  const auto& h = c.ins[14];
  const std::size_t batches = x.dims[0], ni = x.dims[1], n = h.dims[1];
  const int rec[4] = {5, 7, 6, 8}, inp[4] = {1, 3, 2, 4}, bias[4] = {9, 11, 10, 12};  // i, g, f, o
  cell_out.clear();
  out.clear();
  for (std::size_t b = 0; b < batches; ++b) {
    std::vector<double> cat;
    for (std::size_t k = 0; k < ni; ++k) cat.push_back(x.real(b * ni + k));
    for (std::size_t k = 0; k < n; ++k) cat.push_back(h.real(b * n + k));
    double gate[4][64];
    for (int g = 0; g < 4; ++g)
      for (std::size_t u = 0; u < n; ++u) {
        double acc = c.ins[bias[g]].raw(u) * static_cast<double>(c.ins[bias[g]].scale);
        for (std::size_t col = 0; col < n + ni; ++col) {
          const double w = col < n ? c.ins[rec[g]].real(u * n + col) : c.ins[inp[g]].real(u * ni + col - n);
          acc += cat[col] * w;
        }
        gate[g][u] = std::clamp(std::round(acc * 4096) / 4096, -8.0, 32767.0 / 4096);  // Q3.12
      }
    for (std::size_t u = 0; u < n; ++u) {
      const double cs = sigmoid(gate[2][u]) * c.ins[13].real(b * n + u) + sigmoid(gate[0][u]) * std::tanh(gate[1][u]);
      cell_out.push_back(cs);
      out.push_back(sigmoid(gate[3][u]) * std::tanh(std::clamp(cs, -8.0, 8.0)));
    }
  }
}

}  // namespace

TEST_CASE("QUANTIZED_16BIT_LSTM: the conformance spec's step") {
  q16_case c;
  auto q8 = [](dims_t d, float s, std::int32_t zp, std::vector<double> v) {
    return values(OT::TENSOR_QUANT8_ASYMM, std::move(d), v, s, zp);
  };
  const float ws = 0.00408021f, bs = 3.187664e-05f;
  c.ins = {q8({2, 2}, 1.0f / 128, 128, {166, 179, 50, 150}),
           q8({4, 2}, ws, 100, {146, 250, 235, 171, 10, 218, 171, 108}),
           q8({4, 2}, ws, 100, {24, 50, 132, 179, 158, 110, 3, 169}),
           q8({4, 2}, ws, 100, {133, 34, 29, 49, 206, 109, 54, 183}),
           q8({4, 2}, ws, 100, {195, 187, 11, 99, 109, 10, 218, 48}),
           q8({4, 4}, ws, 100, {254, 206, 77, 168, 71, 20, 215, 6, 223, 7, 118, 225, 59, 130, 174, 26}),
           q8({4, 4}, ws, 100, {137, 240, 103, 52, 68, 51, 237, 112, 0, 220, 89, 23, 69, 4, 207, 253}),
           q8({4, 4}, ws, 100, {172, 60, 205, 65, 14, 0, 140, 168, 240, 223, 133, 56, 142, 64, 246, 216}),
           q8({4, 4}, ws, 100, {106, 214, 67, 23, 59, 158, 45, 3, 119, 132, 49, 205, 129, 218, 11, 98}),
           values(OT::TENSOR_INT32, {4}, {-7876, 13488, -726, 32839}, bs),
           values(OT::TENSOR_INT32, {4}, {9206, -46884, -11693, -38724}, bs),
           values(OT::TENSOR_INT32, {4}, {39481, 48624, 48976, -21419}, bs),
           values(OT::TENSOR_INT32, {4}, {-58999, -17050, -41852, -40538}, bs),
           values(OT::TENSOR_QUANT16_SYMM, {2, 4}, {876, 1034, 955, -909, 761, 1029, 796, -1036}, 1.0f / 2048),
           q8({2, 4}, 1.0f / 128, 128, {136, 150, 140, 115, 135, 152, 138, 112})};
  const auto r = run_ok(OpT::QUANTIZED_16BIT_LSTM, c.ins, c.outs());
  const std::int64_t cell[] = {1485, 1177, 1373, -1023, 1019, 1355, 1097, -1235};
  const std::int64_t out[] = {140, 151, 146, 112, 136, 156, 142, 112};
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(r[0].raw(i) == cell[i]);
    CHECK(r[1].raw(i) == out[i]);
  }
  // The same through prepare/execute, weights as constants.
  const auto m = run_model(single(OpT::QUANTIZED_16BIT_LSTM, c.ins, c.outs(), 1));
  REQUIRE_MESSAGE(m.status == ty::ErrorStatus::NONE, m.message);
  CHECK(same_bytes(m.outs[0], r[0]) == "");
  CHECK(same_bytes(m.outs[1], r[1]) == "");
}

TEST_CASE("QUANTIZED_16BIT_LSTM: random cells against the equations in double") {
  std::mt19937 rng(1610);
  const std::uint32_t shapes[][3] = {{1, 1, 1}, {2, 3, 4}, {3, 5, 2}, {1, 16, 16}, {4, 7, 33}};
  for (const auto& s : shapes) {
    const q16_case c = q16_random(s[0], s[1], s[2], rng);
    const auto r = run_ok(OpT::QUANTIZED_16BIT_LSTM, c.ins, c.outs());
    std::vector<double> cell, out;
    q16_oracle(c, cell, out);
    CAPTURE(s[0]);
    CAPTURE(s[1]);
    CAPTURE(s[2]);
    for (std::size_t i = 0; i < cell.size(); ++i) {
      CHECK(std::abs(r[0].raw(i) - cell[i] * 2048) <= 4);
      CHECK(std::abs(r[1].real(i) - out[i]) <= 1.5 / 128);
    }
  }
}

TEST_CASE("QUANTIZED_16BIT_LSTM: bad input names the operand") {
  std::mt19937 rng(7);
  const q16_case good = q16_random(2, 3, 4, rng);
  auto error_with = [&](std::size_t k, tensor t) {
    auto ins = good.ins;
    ins[k] = std::move(t);
    return run_error(OpT::QUANTIZED_16BIT_LSTM, ins, good.outs());
  };
  CHECK(contains(error_with(2, i8_tensor(OT::TENSOR_QUANT8_ASYMM, {4, 4}, 0.004f, 100, rng, 0, 255)),
                 "input_to_forget_weights") == "");
  CHECK(contains(error_with(7, i8_tensor(OT::TENSOR_QUANT8_ASYMM, {4, 4}, 0.004f, 99, rng, 0, 255)),
                 "recurrent_to_cell_weights") == "");
  CHECK(contains(error_with(10, values(OT::TENSOR_INT32, {3}, {1, 2, 3}, 0.004f / 128)), "forget_gate_bias") == "");
  CHECK(contains(error_with(9, values(OT::TENSOR_INT32, {4}, {1, 2, 3, 4}, 0.004f / 100)), "input_gate_bias") == "");
  CHECK(contains(error_with(13, values(OT::TENSOR_QUANT16_SYMM, {2, 4}, std::vector<double>(8, 0), 1.0f / 1024)),
                 "prev_cell_state") == "");
  CHECK(contains(error_with(13, values(OT::TENSOR_QUANT16_SYMM, {2, 5}, std::vector<double>(10, 0), 1.0f / 2048)),
                 "prev_cell_state") == "");
  CHECK(contains(error_with(0, i8_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 1.0f / 128, 127, rng, 0, 255)), "input") ==
        "");
  CHECK(contains(error_with(14, i8_tensor(OT::TENSOR_QUANT8_ASYMM, {3, 4}, 1.0f / 128, 128, rng, 0, 255)),
                 "prev_output") == "");
}

// ---------------------------------------------------------------------------------
// QUANTIZED_LSTM
// ---------------------------------------------------------------------------------

namespace {

using qin = ty::sig::quantized_lstm::in;

struct qlstm_options {
  std::uint32_t batches = 2, input_size = 5, num_units = 4, output_size = 3;
  bool cifg = false, peephole = false, layer_norm = false, projection = false;
  float inter_scale = 1.0f / 4096;
  int cell_shift = -11;
  float cell_clip = 0, proj_clip = 0;
  std::int32_t hidden_zp = 0;
};

struct qlstm_case {
  qlstm_options o;
  std::vector<tensor> ins;  // the 32 inputs
  tensor& at(qin r) { return ins[static_cast<std::size_t>(r)]; }
  const tensor& at(qin r) const { return ins[static_cast<std::size_t>(r)]; }
  std::vector<tensor> outs() const {
    const auto& h = at(qin::output_state_in);
    return {decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {o.batches, o.output_size}, h.scale, h.zp),
            decl(OT::TENSOR_QUANT16_SYMM, {o.batches, o.num_units}, at(qin::cell_state_in).scale, 0),
            decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {o.batches, o.output_size}, h.scale, h.zp)};
  }
};

constexpr float wx_scale = 0.004f, wh_scale = 0.005f, ln_scale = 1.0f / 4096, peep_scale = 1.0f / 4096,
                proj_scale = 0.01f, x_scale = 1.0f / 128, h_scale = 1.0f / 64;
constexpr std::int32_t x_zp = 3, h_zp = -2;

qlstm_case qlstm_random(const qlstm_options& o, std::mt19937& rng) {
  qlstm_case c;
  c.o = o;
  c.ins.resize(32);
  const auto n = o.num_units;
  auto i16 = [&](dims_t d, float scale, int lo, int hi) {
    tensor t = make_tensor(OT::TENSOR_QUANT16_SYMM, std::move(d), scale, 0);
    std::uniform_int_distribution<int> u(lo, hi);
    for (std::size_t i = 0; i < t.count(); ++i) t.put(i, u(rng));
    return t;
  };
  auto i32 = [&](dims_t d, float real_range, double unit) {
    tensor t = make_tensor(OT::TENSOR_INT32, std::move(d));
    std::uniform_real_distribution<double> u(-real_range, real_range);
    for (std::size_t i = 0; i < t.count(); ++i) t.put(i, std::round(u(rng) / unit));
    return t;
  };
  c.at(qin::input) = i8_tensor(OT::TENSOR_QUANT8_ASYMM_SIGNED, {o.batches, o.input_size}, x_scale, x_zp, rng, -100, 100);
  for (qin r : {qin::input_to_input_weights, qin::input_to_forget_weights, qin::input_to_cell_weights,
                qin::input_to_output_weights})
    c.at(r) = i8_tensor(OT::TENSOR_QUANT8_SYMM, {n, o.input_size}, wx_scale, 0, rng, -100, 100);
  for (qin r : {qin::recurrent_to_input_weights, qin::recurrent_to_forget_weights, qin::recurrent_to_cell_weights,
                qin::recurrent_to_output_weights})
    c.at(r) = i8_tensor(OT::TENSOR_QUANT8_SYMM, {n, o.output_size}, wh_scale, 0, rng, -100, 100);
  for (qin r : {qin::cell_to_input_weights, qin::cell_to_forget_weights, qin::cell_to_output_weights})
    c.at(r) = o.peephole ? i16({n}, peep_scale, -2000, 2000) : absent(OT::TENSOR_QUANT16_SYMM, {n});
  // Biases: at the input matmul's scale without layer norm, at ln_scale / 1024 with it.
  const double bias_unit = o.layer_norm ? ln_scale / 1024.0 : static_cast<double>(x_scale) * wx_scale;
  for (qin r : {qin::input_gate_bias, qin::forget_gate_bias, qin::cell_bias, qin::output_gate_bias})
    c.at(r) = i32({n}, 0.4f, bias_unit);
  for (qin r : {qin::input_layer_norm_weights, qin::forget_layer_norm_weights, qin::cell_layer_norm_weights,
                qin::output_layer_norm_weights})
    c.at(r) = o.layer_norm ? i16({n}, ln_scale, 2048, 6144) : absent(OT::TENSOR_QUANT16_SYMM, {n});
  if (o.cifg) {
    c.at(qin::input_to_input_weights) = absent(OT::TENSOR_QUANT8_SYMM, {n, o.input_size});
    c.at(qin::recurrent_to_input_weights) = absent(OT::TENSOR_QUANT8_SYMM, {n, o.output_size});
    c.at(qin::cell_to_input_weights) = absent(OT::TENSOR_QUANT16_SYMM, {n});
    c.at(qin::input_gate_bias) = absent(OT::TENSOR_INT32, {n});
    c.at(qin::input_layer_norm_weights) = absent(OT::TENSOR_QUANT16_SYMM, {n});
  }
  if (o.projection) {
    c.at(qin::projection_weights) = i8_tensor(OT::TENSOR_QUANT8_SYMM, {o.output_size, n}, proj_scale, 0, rng, -100, 100);
    c.at(qin::projection_bias) = i32({o.output_size}, 0.2f, static_cast<double>(proj_scale) / 128);
  } else {
    c.at(qin::projection_weights) = absent(OT::TENSOR_QUANT8_SYMM, {o.output_size, n});
    c.at(qin::projection_bias) = absent(OT::TENSOR_INT32, {o.output_size});
  }
  c.at(qin::output_state_in) =
      i8_tensor(OT::TENSOR_QUANT8_ASYMM_SIGNED, {o.batches, o.output_size}, h_scale, h_zp, rng, -60, 60);
  const int cell_range = static_cast<int>(std::ldexp(1.5, -o.cell_shift));  // |c| <= 1.5
  c.at(qin::cell_state_in) =
      i16({o.batches, n}, static_cast<float>(std::ldexp(1.0, o.cell_shift)), -std::min(cell_range, 32767),
          std::min(cell_range, 32767));
  c.at(qin::cell_clip) = scalar_f32(o.cell_clip);
  c.at(qin::projection_clip) = scalar_f32(o.proj_clip);
  for (qin r : {qin::input_intermediate_scale, qin::forget_intermediate_scale, qin::cell_intermediate_scale,
                qin::output_intermediate_scale})
    c.at(r) = scalar_f32(o.inter_scale);
  c.at(qin::hidden_state_zero_point) = scalar_i32(o.hidden_zp);
  c.at(qin::hidden_state_scale) = scalar_f32(1.0f / 128);
  return c;
}

/// The cell equations in double, with the quantization points of the integer cell
/// (gate pre-activations at the intermediate scale, the cell at 2^cell_shift, the
/// hidden state at hidden_state_scale) so that the remaining difference is the fixed
/// point activations' error. Hidden zero point convention as in the AOSP path: the
/// stored hidden value is round(h / scale) - zero_point.
void qlstm_oracle(const qlstm_case& c, std::vector<double>& cell_out, std::vector<double>& out_q) {
  const auto& o = c.o;
  const std::size_t n = o.num_units, ni = o.input_size, no = o.output_size;
  const double cell_unit = std::ldexp(1.0, o.cell_shift);
  cell_out.assign(o.batches * n, 0);
  out_q.assign(o.batches * no, 0);
  const qin wx[4] = {qin::input_to_input_weights, qin::input_to_forget_weights, qin::input_to_cell_weights,
                     qin::input_to_output_weights};
  const qin wh[4] = {qin::recurrent_to_input_weights, qin::recurrent_to_forget_weights,
                     qin::recurrent_to_cell_weights, qin::recurrent_to_output_weights};
  const qin peep[4] = {qin::cell_to_input_weights, qin::cell_to_forget_weights, qin::cell_to_output_weights,
                       qin::cell_to_output_weights};
  const qin bias[4] = {qin::input_gate_bias, qin::forget_gate_bias, qin::cell_bias, qin::output_gate_bias};
  const qin norm[4] = {qin::input_layer_norm_weights, qin::forget_layer_norm_weights, qin::cell_layer_norm_weights,
                       qin::output_layer_norm_weights};
  const double bias_unit = o.layer_norm ? ln_scale / 1024.0 : static_cast<double>(x_scale) * wx_scale;
  for (std::size_t b = 0; b < o.batches; ++b) {
    auto pre = [&](int g, const std::vector<double>& cell) {
      // Each term is its own product at the intermediate scale (a rounding point each).
      std::vector<double> v(n);
      auto q = [&](double r) { return std::round(r / o.inter_scale) * o.inter_scale; };
      for (std::size_t u = 0; u < n; ++u) {
        double ax = o.layer_norm ? 0.0 : c.at(bias[g]).raw(u) * bias_unit, ah = 0;
        for (std::size_t k = 0; k < ni; ++k) ax += c.at(qin::input).real(b * ni + k) * c.at(wx[g]).real(u * ni + k);
        for (std::size_t k = 0; k < no; ++k)
          ah += c.at(qin::output_state_in).real(b * no + k) * c.at(wh[g]).real(u * no + k);
        v[u] = q(ax) + q(ah);
        if (o.peephole && g != 2) v[u] += q(cell[u] * c.at(peep[g]).real(u));
      }
      if (o.layer_norm) {
        double mean = 0, var = 0;
        for (double x : v) mean += x / n;
        for (double x : v) var += (x - mean) * (x - mean) / n;
        for (std::size_t u = 0; u < n; ++u)
          v[u] = (v[u] - mean) / std::sqrt(var) * c.at(norm[g]).real(u) + c.at(bias[g]).raw(u) * bias_unit;
      } else {
        for (auto& x : v) x = x / o.inter_scale / 4096;  // the raw gate read as Q3.12
      }
      return v;
    };
    std::vector<double> prev(n);
    for (std::size_t u = 0; u < n; ++u) prev[u] = c.at(qin::cell_state_in).real(b * n + u);
    const auto f = pre(1, prev), g = pre(2, prev);
    const auto i = o.cifg ? std::vector<double>{} : pre(0, prev);
    std::vector<double> cell(n);
    for (std::size_t u = 0; u < n; ++u) {
      const double ig = o.cifg ? 1 - sigmoid(f[u]) : sigmoid(i[u]);
      double cs = sigmoid(f[u]) * prev[u] + ig * std::tanh(g[u]);
      if (o.cell_clip > 0) cs = std::clamp(cs, -static_cast<double>(o.cell_clip), static_cast<double>(o.cell_clip));
      cs = std::clamp(std::round(cs / cell_unit), -32768.0, 32767.0) * cell_unit;
      cell[u] = cs;
      cell_out[b * n + u] = cs;
    }
    const auto og = pre(3, cell);
    std::vector<double> hidden(n);
    for (std::size_t u = 0; u < n; ++u) {
      const double hq = std::clamp(std::round(sigmoid(og[u]) * std::tanh(cell[u]) * 128) - o.hidden_zp, -128.0, 127.0);
      hidden[u] = (hq + o.hidden_zp) / 128;
      if (!o.projection) out_q[b * no + u] = hq;
    }
    if (o.projection) {
      const auto& wp = c.at(qin::projection_weights);
      for (std::size_t k = 0; k < no; ++k) {
        double acc = c.at(qin::projection_bias).raw(k) * static_cast<double>(proj_scale) / 128;
        for (std::size_t u = 0; u < n; ++u) acc += hidden[u] * wp.real(k * n + u);
        double q = std::clamp(std::round(acc / h_scale) + h_zp, -128.0, 127.0);
        if (o.proj_clip > 0) {
          const double lim = std::trunc(std::min(o.proj_clip / proj_scale, 127.0f));
          q = std::clamp(q, -lim, lim);
        }
        out_q[b * no + k] = q;
      }
    }
  }
}

void check_qlstm(const qlstm_case& c, int cell_tol, int out_tol) {
  const auto r = run_ok(OpT::QUANTIZED_LSTM, c.ins, c.outs());
  std::vector<double> cell, out;
  qlstm_oracle(c, cell, out);
  const double cell_unit = std::ldexp(1.0, c.o.cell_shift);
  for (std::size_t i = 0; i < cell.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(r[1].raw(i) - cell[i] / cell_unit) <= cell_tol);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(r[2].raw(i) - out[i]) <= out_tol);
    CHECK(r[0].raw(i) == r[2].raw(i));
  }
}

}  // namespace

TEST_CASE("QUANTIZED_LSTM: the conformance spec's step (layer norm, projection)") {
  qlstm_case c;
  c.ins.resize(32);
  const float ws = 0.00784314f, lns = 3.05182e-05f;
  auto s8 = [](dims_t d, float s, std::vector<double> v) { return values(OT::TENSOR_QUANT8_SYMM, std::move(d), v, s); };
  auto i32 = [](std::vector<double> v) {
    return values(OT::TENSOR_INT32, {static_cast<std::uint32_t>(v.size())}, v);
  };
  auto i16 = [](dims_t d, float s, std::vector<double> v) {
    return values(OT::TENSOR_QUANT16_SYMM, std::move(d), v, s);
  };
  c.at(qin::input) =
      values(OT::TENSOR_QUANT8_ASYMM_SIGNED, {2, 5}, {90, 102, 13, 26, 38, 102, 13, 26, 51, 64}, 0.0078125f, 0);
  c.at(qin::input_to_input_weights) = s8({4, 5}, ws, {64, 77, 89, -102, -115, 13, 25, 38, -51, 64, -102, 89, -77, 64, -51, -64, -51, -38, -25, -13});
  c.at(qin::input_to_forget_weights) = s8({4, 5}, ws, {-77, -13, 38, 25, 115, -64, -25, -51, 38, -102, -51, 38, -64, -51, -77, 38, -51, -77, -64, -64});
  c.at(qin::input_to_cell_weights) = s8({4, 5}, ws, {-51, -38, -25, -13, -64, 64, -25, -38, -25, -77, 77, -13, -51, -38, -89, 89, -115, -64, 102, 77});
  c.at(qin::input_to_output_weights) = s8({4, 5}, ws, {-102, -51, -25, -115, -13, -89, 38, -38, -102, -25, 77, -25, 51, -89, -38, -64, 13, 64, -77, -51});
  c.at(qin::recurrent_to_input_weights) = s8({4, 3}, ws, {-25, -38, 51, 13, -64, 115, -25, -38, -89, 6, -25, -77});
  c.at(qin::recurrent_to_forget_weights) = s8({4, 3}, ws, {-64, -38, -64, -25, 77, 51, 115, 38, -13, 25, 64, 25});
  c.at(qin::recurrent_to_cell_weights) = s8({4, 3}, ws, {-38, 25, 13, -38, 102, -10, -25, 38, 102, -77, -13, 25});
  c.at(qin::recurrent_to_output_weights) = s8({4, 3}, ws, {38, -13, 13, -25, -64, -89, -25, -77, -13, -51, -89, -25});
  for (qin r : {qin::cell_to_input_weights, qin::cell_to_forget_weights, qin::cell_to_output_weights})
    c.at(r) = absent(OT::TENSOR_QUANT16_SYMM, {4});
  c.at(qin::input_gate_bias) = i32({644245, 3221226, 4724464, 8160438});
  c.at(qin::forget_gate_bias) = i32({2147484, -6442451, -4294968, 2147484});
  c.at(qin::cell_bias) = i32({-1073742, 15461883, 5368709, 1717987});
  c.at(qin::output_gate_bias) = i32({1073742, -214748, 4294968, 2147484});
  c.at(qin::projection_weights) = s8({3, 4}, 0.00392157f, {-25, 51, 3, -51, 25, 127, 77, 20, 18, 51, -102, 51});
  c.at(qin::projection_bias) = i32({0, 0, 0});
  c.at(qin::output_state_in) = values(OT::TENSOR_QUANT8_ASYMM_SIGNED, {2, 3}, std::vector<double>(6, 0), 3.05176e-05f, 0);
  c.at(qin::cell_state_in) = i16({2, 4}, 3.05176e-05f, std::vector<double>(8, 0));
  c.at(qin::input_layer_norm_weights) = i16({4}, lns, {3277, 6553, 9830, 16384});
  c.at(qin::forget_layer_norm_weights) = i16({4}, lns, {6553, 6553, 13107, 9830});
  c.at(qin::cell_layer_norm_weights) = i16({4}, lns, {22937, 6553, 9830, 26214});
  c.at(qin::output_layer_norm_weights) = i16({4}, lns, {19660, 6553, 6553, 16384});
  c.at(qin::cell_clip) = scalar_f32(0);
  c.at(qin::projection_clip) = scalar_f32(0);
  c.at(qin::input_intermediate_scale) = scalar_f32(0.007059f);
  c.at(qin::forget_intermediate_scale) = scalar_f32(0.007812f);
  c.at(qin::cell_intermediate_scale) = scalar_f32(0.007059f);
  c.at(qin::output_intermediate_scale) = scalar_f32(0.007812f);
  c.at(qin::hidden_state_zero_point) = scalar_i32(0);
  c.at(qin::hidden_state_scale) = scalar_f32(0.007f);
  c.o.batches = 2;
  c.o.num_units = 4;
  c.o.output_size = 3;
  const auto r = run_ok(OpT::QUANTIZED_LSTM, c.ins, c.outs());
  const std::int64_t out[] = {127, 127, -108, -67, 127, 127};
  const std::int64_t cell[] = {-14650, 8939, 5771, 6715, -11843, 7847, 1508, 12939};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(r[0].raw(i) == out[i]);
    CHECK(r[2].raw(i) == out[i]);
  }
  for (std::size_t i = 0; i < 8; ++i) CHECK(r[1].raw(i) == cell[i]);
  // Through prepare/execute with the weights as constants (the plan is made at bind).
  const auto m = run_model(single(OpT::QUANTIZED_LSTM, c.ins, c.outs(), 1));
  REQUIRE_MESSAGE(m.status == ty::ErrorStatus::NONE, m.message);
  for (std::size_t k = 0; k < 3; ++k) CHECK(same_bytes(m.outs[k], r[k]) == "");
}

TEST_CASE("QUANTIZED_LSTM: variants against the equations in double") {
  std::mt19937 rng(95);
  SUBCASE("CIFG, peephole, projection, clipping, no layer norm") {
    qlstm_options o;
    o.cifg = o.peephole = o.projection = true;
    o.cell_clip = 1.0f;
    o.proj_clip = 0.6f;
    o.hidden_zp = 5;
    for (int rep = 0; rep < 4; ++rep) check_qlstm(qlstm_random(o, rng), 3, 2);
  }
  SUBCASE("full input gate with peephole, no projection") {
    qlstm_options o;
    o.peephole = true;
    o.output_size = o.num_units = 6;
    o.cell_shift = -12;
    for (int rep = 0; rep < 4; ++rep) check_qlstm(qlstm_random(o, rng), 3, 1);
  }
  SUBCASE("layer norm, no projection") {
    qlstm_options o;
    o.layer_norm = true;
    o.output_size = o.num_units = 8;
    o.inter_scale = 1.0f / 1024;
    o.cell_shift = -15;
    // The int16 logistic / tanh are within 2e-4 / 3.6e-4 of the real functions; through
    // f * c + i * g that is up to ~1e-3, 33 units of 2^-15.
    for (int rep = 0; rep < 4; ++rep) check_qlstm(qlstm_random(o, rng), 36, 1);
  }
  SUBCASE("layer norm with CIFG and projection, one batch") {
    qlstm_options o;
    o.layer_norm = o.cifg = o.projection = true;
    o.batches = 1;
    o.num_units = 16;
    o.output_size = 5;
    o.inter_scale = 1.0f / 1024;
    for (int rep = 0; rep < 4; ++rep) check_qlstm(qlstm_random(o, rng), 4, 2);
  }
}

TEST_CASE("QUANTIZED_LSTM: shape inference and bad input") {
  std::mt19937 rng(3);
  qlstm_options o;
  o.projection = true;
  const qlstm_case good = qlstm_random(o, rng);
  auto infer_ok = ::nnhal::test::op::infer(OpT::QUANTIZED_LSTM, good.ins, good.outs(), true);
  REQUIRE(infer_ok.ok());
  CHECK((*infer_ok)[0] == dims_t{2, 3});
  CHECK((*infer_ok)[1] == dims_t{2, 4});
  CHECK((*infer_ok)[2] == dims_t{2, 3});
  auto error_with = [&](qin r, tensor t) {
    qlstm_case c = good;
    c.at(r) = std::move(t);
    return run_error(OpT::QUANTIZED_LSTM, c.ins, c.outs());
  };
  CHECK(contains(error_with(qin::input_to_forget_weights, i8_tensor(OT::TENSOR_QUANT8_SYMM, {4, 6}, wx_scale, 0, rng, -1, 1)),
                 "input_to_forget_weights") == "");
  CHECK(contains(error_with(qin::recurrent_to_cell_weights, i8_tensor(OT::TENSOR_QUANT8_SYMM, {5, 3}, wh_scale, 0, rng, -1, 1)),
                 "recurrent_to_cell_weights") == "");
  CHECK(contains(error_with(qin::cell_state_in, values(OT::TENSOR_QUANT16_SYMM, {2, 5}, std::vector<double>(10, 0), 1.0f / 2048)),
                 "cell_state_in") == "");
  CHECK(contains(error_with(qin::cell_state_in, values(OT::TENSOR_QUANT16_SYMM, {2, 4}, std::vector<double>(8, 0), 0.001f)),
                 "cell_state_in") == "");
  CHECK(contains(error_with(qin::output_state_in,
                            i8_tensor(OT::TENSOR_QUANT8_ASYMM_SIGNED, {3, 3}, h_scale, h_zp, rng, -1, 1)),
                 "output_state_in") == "");
  CHECK(contains(error_with(qin::projection_weights, i8_tensor(OT::TENSOR_QUANT8_SYMM, {3, 5}, proj_scale, 0, rng, -1, 1)),
                 "projection_weights") == "");
  // Half a CIFG, a lone peephole weight, a partial layer norm: rejected, naming the operand.
  CHECK(contains(error_with(qin::recurrent_to_input_weights, absent(OT::TENSOR_QUANT8_SYMM, {4, 3})),
                 "recurrent_to_input_weights") == "");
  CHECK(contains(error_with(qin::input_gate_bias, absent(OT::TENSOR_INT32, {4})), "input_gate_bias") == "");
  CHECK(contains(error_with(qin::cell_to_forget_weights, values(OT::TENSOR_QUANT16_SYMM, {4}, {1, 2, 3, 4}, peep_scale)),
                 "cell_to_") == "");
  CHECK(contains(error_with(qin::forget_layer_norm_weights, values(OT::TENSOR_QUANT16_SYMM, {4}, {1, 2, 3, 4}, ln_scale)),
                 "layer_norm_weights") == "");
  // Without projection the output width must equal num_units.
  CHECK(contains(error_with(qin::projection_weights, absent(OT::TENSOR_QUANT8_SYMM, {3, 4})), "output_size") == "");
  // A mandatory weight left out is a validation error of the model.
  {
    qlstm_case c = good;
    c.at(qin::input_to_forget_weights) = absent(OT::TENSOR_QUANT8_SYMM, {4, 5});
    const auto m = run_model(single(OpT::QUANTIZED_LSTM, c.ins, c.outs(), 1));
    CHECK(m.status == ty::ErrorStatus::INVALID_ARGUMENT);
    CHECK(contains(m.message, "input 2") == "");
  }
  // Zero batches: empty outputs, nothing read.
  {
    qlstm_options z = o;
    z.batches = 0;
    const auto c = qlstm_random(z, rng);
    const auto r = run_ok(OpT::QUANTIZED_LSTM, c.ins, c.outs());
    CHECK(r[0].dims == dims_t{0, 3});
  }
}

// ---------------------------------------------------------------------------------
// LSH_PROJECTION
// ---------------------------------------------------------------------------------

namespace {
std::uint64_t fp(const std::string& s) {
  return nnhal::ops::lsh_projection::detail::fingerprint64(reinterpret_cast<const unsigned char*>(s.data()), s.size());
}
}  // namespace

TEST_CASE("LSH_PROJECTION: FarmHash Fingerprint64 matches published fingerprints") {
  // Values published with BigQuery's FARM_FINGERPRINT, Guava's and other ports' tests.
  CHECK(fp("") == 0x9ae16a3b2f90404fULL);
  CHECK(static_cast<std::int64_t>(fp("alphabet")) == -2427165924636348523LL);
  CHECK(static_cast<std::int64_t>(fp("1footrue")) == -1541654101129638711LL);
  CHECK(static_cast<std::int64_t>(fp("2applefalse")) == 2794438866806483259LL);
  CHECK(static_cast<std::int64_t>(fp("3true")) == -4880158226897771312LL);
  CHECK(fp("Amazon Redshift") == 8085098817162212970ULL);
  CHECK(fp("Q") == 13816109650407654260ULL);
  CHECK(fp(",=") == 1326014594494455617ULL);
  CHECK(fp("WW5") == 6316074107149058620ULL);
  CHECK(fp("test") == 8581389452482819506ULL);
  CHECK(fp("M)(iJ1-nf>5XCc0L?") == 9968500208262240300ULL);                                   // 17 bytes
  CHECK(static_cast<std::int64_t>(fp(std::string("testtesttesttesttesttesttesttest"))) == -4196240717365766262LL);  // 32
  CHECK(fp("ECCD828C-5D7A-4C8B-9A1B-F244747E96C3") == 9693850515132481856ULL);                // 36
  CHECK(fp("F7479877-4690-4A44-AFC9-8FE987EA512F:some_other_id") == 6862335115798125349ULL);  // 51
  std::string t256;
  for (int i = 0; i < 64; ++i) t256 += "test";
  CHECK(fp(t256) == 3500507768004279527ULL);
  // Every length 0..3199 chained (Guava's multiple-lengths check).
  std::vector<unsigned char> buf(3200, 0);
  std::size_t len = 0;
  std::uint64_t h = 0;
  auto remix = [](std::uint64_t v) {
    v ^= v >> 41;
    return v * 949921979ULL;
  };
  auto next = [&](std::size_t n) {
    h ^= nnhal::ops::lsh_projection::detail::fingerprint64(buf.data(), n);
    h = remix(h);
    buf[len++] = static_cast<unsigned char>('a' + (h & 0xfffff) % 26);
  };
  for (std::size_t i = 0; i < 800; ++i) {
    next(i);
    next(i * i % len);
    next(i * i * i % len);
    next(len);
    const std::size_t x0 = buf[len - 1], x1 = buf[len - 2], x2 = buf[len - 3], x3 = buf[len / 2];
    buf[((x0 << 16) + (x1 << 8) + x2) % len] ^= static_cast<unsigned char>(x3);
    buf[((x1 << 16) + (x2 << 8) + x3) % len] ^= static_cast<unsigned char>(i % 256);
  }
  CHECK(h == 0x7a1d67c50ec7e167ULL);
}

TEST_CASE("LSH_PROJECTION: the conformance spec's cases and the spec formula") {
  const tensor hash = values(OT::TENSOR_FLOAT32, {4, 2}, {0.123, 0.456, -0.321, -0.654, 1.234, 5.678, -4.321, -8.765});
  const tensor input = values(OT::TENSOR_INT32, {3, 2}, {12345, 54321, 67890, 9876, -12345678, -87654321});
  const tensor weight = values(OT::TENSOR_FLOAT32, {3}, {0.12, 0.34, 0.56});
  const tensor dense = run_ok1(OpT::LSH_PROJECTION, {hash, input, weight, scalar_i32(2)}, decl(OT::TENSOR_INT32));
  CHECK(compare(dense, {1, 1, 1, 0, 1, 1, 1, 0}) == "");
  const auto no_weight = omitted(OT::TENSOR_FLOAT32, {3});
  const tensor sparse_old = run_ok1(OpT::LSH_PROJECTION, {hash, input, no_weight, scalar_i32(1)}, decl(OT::TENSOR_INT32));
  CHECK(compare(sparse_old, {1, 2, 2, 0}) == "");
  // SPARSE (3) adds i * 2^num_bits to hash function i's signature.
  const tensor sparse = run_ok1(OpT::LSH_PROJECTION, {hash, input, no_weight, scalar_i32(3)}, decl(OT::TENSOR_INT32));
  CHECK(compare(sparse, {1, 6, 10, 12}) == "");

  // Random cases against the formula: bit = [sum_i w_i * int64(fp(seed ++ item_i)) > 0].
  std::mt19937 rng(15);
  for (int rep = 0; rep < 20; ++rep) {
    const std::uint32_t items = 1 + rng() % 5, width = 1 + rng() % 9, num_hash = 1 + rng() % 4, bits = 1 + rng() % 6;
    std::uniform_real_distribution<double> u(-3, 3);
    tensor h = make_tensor(OT::TENSOR_FLOAT32, {num_hash, bits});
    for (std::size_t i = 0; i < h.count(); ++i) h.put(i, u(rng));
    const OT types[] = {OT::TENSOR_FLOAT32, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM};
    const OT it = types[rep % 3];
    tensor x = make_tensor(it, {items, width}, it == OT::TENSOR_QUANT8_ASYMM ? 0.5f : 0.0f, 0);
    for (std::size_t i = 0; i < x.count(); ++i) x.put(i, it == OT::TENSOR_QUANT8_ASYMM ? rng() % 256 : u(rng) * 1000);
    tensor w = make_tensor(OT::TENSOR_FLOAT32, {items});
    for (std::size_t i = 0; i < items; ++i) w.put(i, u(rng));
    const std::size_t item_bytes = x.bytes.size() / items;
    std::vector<double> want_dense, want_sparse;
    for (std::size_t i = 0; i < num_hash; ++i) {
      std::int64_t sig = 0;
      for (std::size_t j = 0; j < bits; ++j) {
        const float seed = h.get<float>(i * bits + j);
        double score = 0;
        for (std::size_t k = 0; k < items; ++k) {
          std::string key(sizeof seed + item_bytes, '\0');
          std::memcpy(key.data(), &seed, sizeof seed);
          std::memcpy(key.data() + sizeof seed, x.bytes.data() + k * item_bytes, item_bytes);
          score += w.get<float>(k) * static_cast<double>(static_cast<std::int64_t>(fp(key)));
        }
        want_dense.push_back(score > 0);
        sig = sig * 2 + (score > 0);
      }
      want_sparse.push_back(static_cast<double>(sig + (std::int64_t{static_cast<std::int64_t>(i)} << bits)));
    }
    CHECK(compare(run_ok1(OpT::LSH_PROJECTION, {h, x, w, scalar_i32(2)}, decl(OT::TENSOR_INT32)), want_dense) == "");
    CHECK(compare(run_ok1(OpT::LSH_PROJECTION, {h, x, w, scalar_i32(3)}, decl(OT::TENSOR_INT32)), want_sparse) == "");
  }

  // float16 hash and weight: the seed is the half value widened to float.
  tensor h16 = make_tensor(OT::TENSOR_FLOAT16, {4, 2});
  tensor w16 = make_tensor(OT::TENSOR_FLOAT16, {3});
  for (std::size_t i = 0; i < 8; ++i) h16.put(i, hash.get<float>(i));
  for (std::size_t i = 0; i < 3; ++i) w16.put(i, weight.get<float>(i));
  tensor h32 = make_tensor(OT::TENSOR_FLOAT32, {4, 2});
  tensor w32 = make_tensor(OT::TENSOR_FLOAT32, {3});
  for (std::size_t i = 0; i < 8; ++i) h32.put(i, h16.real(i));
  for (std::size_t i = 0; i < 3; ++i) w32.put(i, w16.real(i));
  CHECK(same_bytes(run_ok1(OpT::LSH_PROJECTION, {h16, input, w16, scalar_i32(2)}, decl(OT::TENSOR_INT32)),
                   run_ok1(OpT::LSH_PROJECTION, {h32, input, w32, scalar_i32(2)}, decl(OT::TENSOR_INT32))) == "");
}

TEST_CASE("LSH_PROJECTION: bad input names the operand") {
  const tensor hash = values(OT::TENSOR_FLOAT32, {2, 2}, {1, 2, 3, 4});
  const tensor input = values(OT::TENSOR_INT32, {3}, {1, 2, 3});
  const tensor weight = values(OT::TENSOR_FLOAT32, {3}, {1, 1, 1});
  const auto out = decl(OT::TENSOR_INT32);
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {values(OT::TENSOR_FLOAT32, {4}, {1, 2, 3, 4}), input, weight, scalar_i32(2)}, {out}), "hash") == "");
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {make_tensor(OT::TENSOR_FLOAT32, {1, 33}), input, weight, scalar_i32(2)}, {out}), "hash") == "");
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {hash, input, values(OT::TENSOR_FLOAT32, {2}, {1, 1}), scalar_i32(2)}, {out}), "weight") == "");
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {hash, input, weight, scalar_i32(0)}, {out}), "type") == "");
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {hash, input, weight, scalar_i32(4)}, {out}), "type") == "");
  CHECK(contains(run_error(OpT::LSH_PROJECTION, {hash, values(OT::TENSOR_INT32, {}, {1}), weight, scalar_i32(2)}, {out}), "input") == "");
}

// ---------------------------------------------------------------------------------
// RANDOM_MULTINOMIAL
// ---------------------------------------------------------------------------------

TEST_CASE("RANDOM_MULTINOMIAL: sample frequencies follow softmax(logits)") {
  const std::vector<double> logits = {1.0, 2.0, 0.5, -1.0, 3.0, -100.0, 0.0};
  const auto classes = static_cast<std::uint32_t>(logits.size());
  for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16}) {
    std::vector<double> rows;
    for (int b = 0; b < 2; ++b)
      for (double l : logits) rows.push_back(b == 0 ? l : -l);
    const tensor in = values(t, {2, classes}, rows);
    const std::int32_t samples = 40000;
    const tensor out = run_ok1(OpT::RANDOM_MULTINOMIAL, {in, scalar_i32(samples), i32_tensor({37, 11})},
                               decl(OT::TENSOR_INT32));
    REQUIRE(out.dims == dims_t{2, static_cast<std::uint32_t>(samples)});
    for (int b = 0; b < 2; ++b) {
      std::vector<double> p(classes), count(classes, 0);
      double z = 0;
      for (std::size_t j = 0; j < classes; ++j) z += p[j] = std::exp(in.real(b * classes + j));
      for (std::size_t s = 0; s < static_cast<std::size_t>(samples); ++s) {
        const auto k = out.raw(b * samples + s);
        REQUIRE(k >= 0);
        REQUIRE(k < classes);
        ++count[static_cast<std::size_t>(k)];
      }
      for (std::size_t j = 0; j < classes; ++j) {
        CAPTURE(j);
        CHECK(std::abs(count[j] / samples - p[j] / z) < 0.01);
      }
    }
  }
}

TEST_CASE("RANDOM_MULTINOMIAL: seeds, non-finite logits and bad input") {
  const tensor in = values(OT::TENSOR_FLOAT32, {1, 4}, {0.0, 0.0, 0.0, 0.0});
  auto draw = [&](std::int32_t a, std::int32_t b) {
    return run_ok1(OpT::RANDOM_MULTINOMIAL, {in, scalar_i32(64), i32_tensor({a, b})}, decl(OT::TENSOR_INT32));
  };
  CHECK(same_bytes(draw(1, 2), draw(1, 2)) == "");
  CHECK(same_bytes(draw(1, 2), draw(2, 1)) != "");
  CHECK(same_bytes(draw(0, 0), draw(0, 0)) == "");
  // NaN and infinite logits never get drawn; all non-finite: a valid index still.
  tensor odd = make_tensor(OT::TENSOR_FLOAT32, {2, 3});
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float v[] = {nan, 1.0f, inf, nan, -inf, inf};
  for (std::size_t i = 0; i < 6; ++i) odd.set(i, v[i]);
  const tensor r = run_ok1(OpT::RANDOM_MULTINOMIAL, {odd, scalar_i32(100), i32_tensor({5, 6})}, decl(OT::TENSOR_INT32));
  for (std::size_t s = 0; s < 100; ++s) {
    CHECK(r.raw(s) == 1);
    CHECK(r.raw(100 + s) >= 0);
    CHECK(r.raw(100 + s) < 3);
  }
  const auto out = decl(OT::TENSOR_INT32);
  CHECK(contains(run_error(OpT::RANDOM_MULTINOMIAL, {values(OT::TENSOR_FLOAT32, {4}, {0, 0, 0, 0}), scalar_i32(3), i32_tensor({1, 2})}, {out}), "input") == "");
  CHECK(contains(run_error(OpT::RANDOM_MULTINOMIAL, {in, scalar_i32(0), i32_tensor({1, 2})}, {out}), "sample_count") == "");
  CHECK(contains(run_error(OpT::RANDOM_MULTINOMIAL, {in, scalar_i32(4), i32_tensor({1, 2, 3})}, {out}), "seeds") == "");
  CHECK(contains(run_error(OpT::RANDOM_MULTINOMIAL, {make_tensor(OT::TENSOR_FLOAT32, {1, 0}), scalar_i32(4), i32_tensor({1, 2})}, {out}), "input") == "");
}
