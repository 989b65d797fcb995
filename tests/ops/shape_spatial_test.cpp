// PAD, PAD_V2, MIRROR_PAD, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
// CHANNEL_SHUFFLE, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR:
//  - oracles written independently of the kernels: for the data-movement ops the input element
//    (or the pad value) each output element must hold, from the HAL formulas on logical
//    (batch, y, x, channel) coordinates; for the resizes the real-number interpolation in
//    double, compared within the CTS tolerances;
//  - NHWC and NCHW, every element type, random shapes and parameters (seeded);
//  - qu8/qs8 parity: the same data shifted by -128 gives results shifted by -128, bit-exact;
//  - shape inference at validation (unknown extents, unknown layout) and execution, the HAL
//    version each optional flag implies, and bad input rejected with the operand named;
//  - hand-worked golden cases end to end through exec::prepare / exec::execute.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nnhal/ops/batch_to_space_nd.hpp"
#include "nnhal/ops/resize_bilinear.hpp"
#include "nnhal/ops/resize_nearest_neighbor.hpp"
#include "nnhal/ops/space_to_batch_nd.hpp"
#include "nnhal/types/validate.hpp"
#include "support/op_runner.hpp"

namespace {

using namespace nnhal::test::op;

/// Element i of `t`: the float value, or the stored integer (quantized types, int32).
double value(const tensor& t, std::size_t i) { return is_quant8(t.type) ? static_cast<double>(t.raw(i)) : t.real(i); }
/// Element i of `a` and element j of `b` hold the same bytes.
bool same_element(const tensor& a, std::size_t i, const tensor& b, std::size_t j) {
  const std::size_t es = ty::type_info(a.type).element_size;
  return std::memcmp(a.bytes.data() + i * es, b.bytes.data() + j * es, es) == 0;
}

// ---------------------------------------------------------------------------------
// Shape inference, kernels on a split context, one-operation models
// ---------------------------------------------------------------------------------

/// The error message of a failing shape inference ("" if it succeeds).
std::string infer_error(OpT op, const std::vector<tensor>& ins, const tensor& out_decl, bool executing = true) {
  auto r = infer(op, ins, {out_decl}, executing);
  return r ? std::string() : r.err().message;
}

/// run_ok1, on a reversed_context when `parallel`.
tensor run_split(OpT op, const std::vector<tensor>& ins, const tensor& out_decl, bool parallel) {
  reversed_context reversed;
  kernel_result r = run_kernel(op, ins, {out_decl}, parallel ? &reversed : nullptr);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.guards_intact, "the kernel wrote outside its output");
  return r.outs[0];
}

/// `op` through prepare and execute with its first input a model input, the rest constants.
tensor run_golden(OpT op, const std::vector<tensor>& ins, const tensor& out_decl) {
  return run_model_ok(single(op, ins, {out_decl})).outs[0];
}

/// A model of `op` whose `as_inputs` are model inputs, with the output declared at the
/// shape execution-time inference gives (all output shapes known: no dynamic-shape version
/// bump).
one_op_model single_static(OpT op, const std::vector<tensor>& ins, tensor out_decl,
                           const std::vector<std::size_t>& as_inputs = {0}) {
  if (auto r = infer(op, ins, {out_decl}, true)) out_decl.dims = (*r)[0];
  return single_with_inputs(op, ins, {out_decl}, as_inputs);
}

/// validate_model's minimum HAL version for a one-op model, or the error message.
std::string version_of(const one_op_model& m) {
  auto v = ty::validate_model(m.model);
  return v ? std::string(to_string(*v)) : "error: " + v.err().message;
}

// ---------------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------------

int uni(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
double unif(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

void fill_random(tensor& t, std::mt19937& rng) {
  for (std::size_t i = 0; i < t.count(); ++i) {
    switch (t.type) {
      case OT::TENSOR_FLOAT32: t.set(i, static_cast<float>(unif(rng, -10, 10))); break;
      case OT::TENSOR_FLOAT16: t.set(i, ty::to_float16(static_cast<float>(unif(rng, -10, 10)))); break;
      case OT::TENSOR_INT32: t.set(i, static_cast<std::int32_t>(uni(rng, -100000, 100000))); break;
      case OT::TENSOR_QUANT8_ASYMM: t.set(i, static_cast<std::uint8_t>(uni(rng, 0, 255))); break;
      case OT::TENSOR_QUANT8_ASYMM_SIGNED: t.set(i, static_cast<std::int8_t>(uni(rng, -128, 127))); break;
      default: FAIL("fill_random: unexpected type");
    }
  }
}

/// A random input of type t (quantized: scale 0.5, a random zero point).
tensor random_tensor(std::mt19937& rng, OT t, dims_t d) {
  float scale = 0.0f;
  std::int32_t zp = 0;
  if (is_quant8(t)) {
    scale = 0.5f;
    zp = t == OT::TENSOR_QUANT8_ASYMM ? uni(rng, 0, 255) : uni(rng, -128, 127);
  }
  tensor x = make_tensor(t, std::move(d), scale, zp);
  fill_random(x, rng);
  return x;
}

constexpr std::array<OT, 4> data_types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM,
                                       OT::TENSOR_QUANT8_ASYMM_SIGNED};

// ---------------------------------------------------------------------------------
// Oracle vocabulary: logical image coordinates and expected sources
// ---------------------------------------------------------------------------------

/// Flat offset of logical (n, y, x, c) in an image whose dims are listed in `layout` order.
std::size_t flat(const dims_t& d, bool nchw, std::size_t n, std::size_t y, std::size_t x, std::size_t c) {
  if (nchw) return ((n * d[1] + c) * d[2] + y) * d[3] + x;
  return ((n * d[1] + y) * d[2] + x) * d[3] + c;
}
struct image {
  std::size_t n, h, w, c;
};
image extents(const dims_t& d, bool nchw) { return nchw ? image{d[0], d[2], d[3], d[1]} : image{d[0], d[1], d[2], d[3]}; }
dims_t dims_of(image e, bool nchw) {
  auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
  return nchw ? dims_t{u(e.n), u(e.c), u(e.h), u(e.w)} : dims_t{u(e.n), u(e.h), u(e.w), u(e.c)};
}

/// Every output element must equal the input element `src[i]`, or `pad` (its bytes) where
/// src[i] < 0. "" when all do.
std::string check_gather(const tensor& in, const tensor& out, const std::vector<std::int64_t>& src,
                         const tensor* pad = nullptr) {
  if (out.count() != src.size())
    return "element count " + std::to_string(out.count()) + ", expected " + std::to_string(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    const bool ok = src[i] < 0 ? (pad && same_element(out, i, *pad, 0))
                               : same_element(out, i, in, static_cast<std::size_t>(src[i]));
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << ": got " << value(out, i) << ", expected ";
      if (src[i] < 0) os << "the pad value";
      else os << "input element " << src[i] << " = " << value(in, static_cast<std::size_t>(src[i]));
      return os.str();
    }
  }
  return {};
}


/// The output declaration of an op whose output keeps the input's type and quantization.
tensor out_like(const tensor& in) { return decl(in.type, {}, in.scale, in.zp); }

/// A one-element tensor holding the quantized zero / float zero of `t` (the PAD fill).
tensor zero_of(const tensor& t) {
  tensor z = make_tensor(t.type, {1}, t.scale, t.zp);
  switch (t.type) {
    case OT::TENSOR_QUANT8_ASYMM: z.set(0, static_cast<std::uint8_t>(t.zp)); break;
    case OT::TENSOR_QUANT8_ASYMM_SIGNED: z.set(0, static_cast<std::int8_t>(t.zp)); break;
    default: break;  // all-zero bytes are +0.0 in float32 and float16
  }
  return z;
}

// ---------------------------------------------------------------------------------
// PAD, PAD_V2, MIRROR_PAD
// ---------------------------------------------------------------------------------

/// Source of every output element of a pad: per dimension, output index o reads input index
/// o - before; outside [0, n) it is padding (constant) or reflected (mode 0 REFLECT: about the
/// border element; 1 SYMMETRIC: about the border edge).
std::vector<std::int64_t> pad_sources(const dims_t& in, const std::vector<std::array<int, 2>>& p, int mirror_mode) {
  dims_t out(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) out[d] = in[d] + static_cast<std::uint32_t>(p[d][0] + p[d][1]);
  std::vector<std::int64_t> src(count_of(out));
  for (std::size_t i = 0; i < src.size(); ++i) {
    std::size_t rem = i;
    std::int64_t idx = 0, stride = 1;
    bool padded = false;
    for (std::size_t k = in.size(); k-- > 0;) {
      const auto o = static_cast<std::int64_t>(rem % out[k]);
      rem /= out[k];
      std::int64_t j = o - p[k][0];
      const auto n = static_cast<std::int64_t>(in[k]);
      if (j < 0 || j >= n) {
        if (mirror_mode < 0) padded = true;
        else if (j < 0) j = mirror_mode == 0 ? -j : -j - 1;
        else j = mirror_mode == 0 ? 2 * (n - 1) - j : 2 * n - 1 - j;
      }
      idx += j * stride;
      stride *= n;
    }
    src[i] = padded ? -1 : idx;
  }
  return src;
}

tensor paddings_tensor(const std::vector<std::array<int, 2>>& p) {
  std::vector<std::int32_t> v;
  for (auto [a, b] : p) {
    v.push_back(a);
    v.push_back(b);
  }
  return i32_tensor({static_cast<std::uint32_t>(p.size()), 2}, v);
}

TEST_CASE("PAD / PAD_V2: every type, random ranks and paddings, against the index oracle") {
  std::mt19937 rng(1001);
  for (int iter = 0; iter < 160; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter) % 4];
    const bool v2 = iter % 8 >= 4;
    dims_t d(static_cast<std::size_t>(uni(rng, 1, 4)));
    for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, 1, 5));
    if (iter % 16 == 3) d[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d.size()) - 1))] = 0;  // zero-sized
    std::vector<std::array<int, 2>> p(d.size());
    for (auto& a : p) a = {uni(rng, 0, 3), uni(rng, 0, 3)};
    // Unpadded trailing dimensions (as in NHWC images padded in H and W), which the kernel
    // moves as one block, and sometimes no padding at all.
    if (iter % 3 == 0)
      for (std::size_t k = static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d.size()))); k < d.size(); ++k) p[k] = {0, 0};
    const tensor in = random_tensor(rng, t, d);
    CAPTURE(iter);
    CAPTURE(ty::format_dims(d));
    std::vector<tensor> ins{in, paddings_tensor(p)};
    tensor pad = zero_of(in);
    if (v2) {
      if (t == OT::TENSOR_FLOAT32) {
        const float v = static_cast<float>(unif(rng, -5, 5));
        ins.push_back(scalar_f32(v));
        pad.set(0, v);
      } else if (t == OT::TENSOR_FLOAT16) {
        const float v = static_cast<float>(unif(rng, -5, 5));
        ins.push_back(scalar_f16(v));
        pad.set(0, ty::to_float16(v));
      } else {
        const int v = t == OT::TENSOR_QUANT8_ASYMM ? uni(rng, 0, 255) : uni(rng, -128, 127);
        ins.push_back(scalar_i32(v));
        if (t == OT::TENSOR_QUANT8_ASYMM) pad.set(0, static_cast<std::uint8_t>(v));
        else pad.set(0, static_cast<std::int8_t>(v));
      }
    }
    const OpT op = v2 ? OpT::PAD_V2 : OpT::PAD;
    const tensor out = run_ok1(op, ins, out_like(in));
    const auto src = pad_sources(d, p, -1);
    CHECK_MESSAGE(check_gather(in, out, src, &pad) == "", check_gather(in, out, src, &pad));
    if (t == OT::TENSOR_QUANT8_ASYMM && !v2) CHECK(signed_parity(out, run_ok1(op, {to_signed(in), ins[1]}, out_like(to_signed(in)))) == "");
  }
}

TEST_CASE("MIRROR_PAD: REFLECT and SYMMETRIC, ranks 1..5, every type including TENSOR_INT32") {
  std::mt19937 rng(1002);
  const std::array<OT, 5> types{OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM,
                                OT::TENSOR_QUANT8_ASYMM_SIGNED, OT::TENSOR_INT32};
  for (int iter = 0; iter < 150; ++iter) {
    const OT t = types[static_cast<std::size_t>(iter) % 5];
    const int mode = (iter / 5) % 2;
    dims_t d(static_cast<std::size_t>(uni(rng, 1, 5)));
    for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, 1, 5));
    std::vector<std::array<int, 2>> p(d.size());
    for (std::size_t k = 0; k < d.size(); ++k) {
      const int limit = static_cast<int>(d[k]) - (mode == 0 ? 1 : 0);
      p[k] = {uni(rng, 0, limit), uni(rng, 0, limit)};
    }
    if (iter % 3 == 0)  // unpadded trailing dimensions
      for (std::size_t k = static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d.size()))); k < d.size(); ++k) p[k] = {0, 0};
    const tensor in = random_tensor(rng, t, d);
    CAPTURE(iter);
    const tensor out = run_ok1(OpT::MIRROR_PAD, {in, paddings_tensor(p), scalar_i32(mode)}, out_like(in));
    const auto src = pad_sources(d, p, mode);
    CHECK_MESSAGE(check_gather(in, out, src) == "", check_gather(in, out, src));
  }
}

TEST_CASE("MIRROR_PAD / PAD: the HAL's worked examples") {
  const tensor in = values(OT::TENSOR_FLOAT32, {3}, {1, 2, 3});
  const tensor reflect = run_golden(OpT::MIRROR_PAD, {in, i32_tensor({1, 2}, {0, 2}), scalar_i32(0)}, decl(OT::TENSOR_FLOAT32, {5}));
  const tensor symmetric = run_golden(OpT::MIRROR_PAD, {in, i32_tensor({1, 2}, {0, 2}), scalar_i32(1)}, decl(OT::TENSOR_FLOAT32, {5}));
  const std::vector<float> want_r{1, 2, 3, 2, 1}, want_s{1, 2, 3, 3, 2};
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(reflect.get<float>(i) == want_r[i]);
    CHECK(symmetric.get<float>(i) == want_s[i]);
  }
  // PAD of a quantized tensor fills with the zero point (HAL 1.2+), here 7.
  const tensor q = run_golden(OpT::PAD, {values(OT::TENSOR_QUANT8_ASYMM, {1, 2}, {10, 20}, 0.5f, 7), i32_tensor({2, 2}, {1, 0, 1, 1})},
                              decl(OT::TENSOR_QUANT8_ASYMM, {2, 4}, 0.5f, 7));
  const std::vector<int> want_q{7, 7, 7, 7, 7, 10, 20, 7};
  REQUIRE(q.dims == dims_t{2, 4});
  for (std::size_t i = 0; i < want_q.size(); ++i) CHECK(q.raw(i) == want_q[i]);
}

TEST_CASE("PAD family: shape inference and rejected operands") {
  const tensor in = decl(OT::TENSOR_FLOAT32, {2, 3});
  SUBCASE("validation: unknown extents stay unknown, the rank may come from the paddings") {
    auto r = infer(OpT::PAD, {decl(OT::TENSOR_FLOAT32, {2, 0}), i32_tensor({2, 2}, {1, 1, 2, 0})}, {out_like(in)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{4, 0});
    r = infer(OpT::PAD, {decl(OT::TENSOR_FLOAT32, {}), decl(OT::TENSOR_INT32, {3, 2})}, {out_like(in)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 0, 0});
    r = infer(OpT::PAD, {decl(OT::TENSOR_FLOAT32, {}), decl(OT::TENSOR_INT32, {})}, {out_like(in)}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0].empty());
  }
  SUBCASE("bad paddings") {
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), i32_tensor({3, 2}, {0, 0, 0, 0, 0, 0})},
                      out_like(in))
              .starts_with("paddings: shape [3, 2]"));
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), i32_tensor({4}, {0, 0, 0, 0})}, out_like(in))
              .starts_with("paddings: rank 1"));
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), i32_tensor({2, 2}, {0, 0, -1, 0})}, out_like(in))
              .starts_with("paddings: before-padding of dimension 1 is -1"));
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {2, 3}), decl(OT::TENSOR_INT32, {2, 2})}, out_like(in))
              .starts_with("paddings: no value"));
  }
  SUBCASE("rank and quantization") {
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 1}), i32_tensor({5, 2}, std::vector<int>(10, 0))},
                      out_like(in))
              .starts_with("input: rank 5"));
    CHECK(infer_error(OpT::PAD, {make_tensor(OT::TENSOR_FLOAT32, {}), i32_tensor({0, 2}, {})}, out_like(in))
              .starts_with("input: rank 0"));
    const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 3);
    CHECK(infer_error(OpT::PAD, {q, i32_tensor({1, 2}, {1, 1})}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 4))
              .starts_with("output: scale"));
  }
  SUBCASE("PAD_V2 pad value must be a stored value of the type") {
    const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 3);
    CHECK(infer_error(OpT::PAD_V2, {q, i32_tensor({1, 2}, {1, 1}), scalar_i32(256)}, out_like(q)).starts_with("pad_value: 256"));
    const tensor s = make_tensor(OT::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 3);
    CHECK(infer_error(OpT::PAD_V2, {s, i32_tensor({1, 2}, {1, 1}), scalar_i32(-129)}, out_like(s)).starts_with("pad_value: -129"));
    CHECK(infer_error(OpT::PAD_V2, {s, i32_tensor({1, 2}, {1, 1}), scalar_i32(-128)}, out_like(s)) == "");
  }
  SUBCASE("MIRROR_PAD mode and bounds") {
    const tensor x = make_tensor(OT::TENSOR_INT32, {3});
    CHECK(infer_error(OpT::MIRROR_PAD, {x, i32_tensor({1, 2}, {0, 3}), scalar_i32(0)}, out_like(x))
              .starts_with("paddings: dimension 0 of extent 3"));
    CHECK(infer_error(OpT::MIRROR_PAD, {x, i32_tensor({1, 2}, {0, 3}), scalar_i32(1)}, out_like(x)) == "");
    CHECK(infer_error(OpT::MIRROR_PAD, {x, i32_tensor({1, 2}, {0, 4}), scalar_i32(1)}, out_like(x)).starts_with("paddings:"));
    CHECK(infer_error(OpT::MIRROR_PAD, {x, i32_tensor({1, 2}, {0, 1}), scalar_i32(2)}, out_like(x)).starts_with("mode: 2"));
    auto r = infer(OpT::MIRROR_PAD, {make_tensor(OT::TENSOR_INT32, {1, 1, 1, 1, 1, 2}),
                                     i32_tensor({6, 2}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1}), scalar_i32(1)}, {out_like(x)}, true);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{1, 1, 1, 1, 2, 5});
  }
}

// ---------------------------------------------------------------------------------
// DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND
// ---------------------------------------------------------------------------------

/// Runs `op` on random images of every type in both layouts, checking each output element's
/// source against `sources(in_dims, nchw)`; qu8 and qs8 runs must agree. `m` bounds the
/// random extents (in blocks): small for many cases, large enough for whole SIMD tiles.
template <class MakeCase>
void image_op_sweep(OpT op, std::uint32_t seed, int cases, int m, MakeCase make_case) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < cases; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter) % 4];
    const bool nchw = (iter / 4) % 2 == 1;
    CAPTURE(iter);
    CAPTURE(nchw);
    std::vector<tensor> params;  // inputs after the image, before the layout flag
    image e{};
    std::function<std::vector<std::int64_t>(const dims_t&)> sources;
    make_case(rng, m, e, params, sources, nchw);
    const dims_t d = dims_of(e, nchw);
    CAPTURE(ty::format_dims(d));
    const tensor in = random_tensor(rng, t, d);
    std::vector<tensor> ins{in};
    for (const auto& p : params) ins.push_back(p);
    if (nchw || iter % 3 == 0) ins.push_back(scalar_bool(nchw));  // NHWC: the flag is optional
    const tensor out = run_ok1(op, ins, out_like(in));
    const tensor pad = zero_of(in);
    const auto src = sources(d);
    CHECK_MESSAGE(check_gather(in, out, src, &pad) == "", check_gather(in, out, src, &pad));
    if (t == OT::TENSOR_QUANT8_ASYMM) {
      ins[0] = to_signed(in);
      CHECK(signed_parity(out, run_ok1(op, ins, out_like(ins[0]))) == "");
    }
  }
}

TEST_CASE("DEPTH_TO_SPACE: out(n, y, x, c) = in(n, y/b, x/b, ((y%b)*b + x%b)*C' + c), both layouts") {
  const auto make = [](std::mt19937& rng, int m, image& e, std::vector<tensor>& params, auto& sources, bool nchw) {
    const int b = uni(rng, 1, 3);
    e = {static_cast<std::size_t>(uni(rng, 0, 2)), static_cast<std::size_t>(uni(rng, 1, m)),
         static_cast<std::size_t>(uni(rng, 1, m)), static_cast<std::size_t>(b * b * uni(rng, 1, m))};
    params = {scalar_i32(b)};
    const image in_e = e;
    sources = [=](const dims_t& d) {
      const std::size_t B = static_cast<std::size_t>(b), oc = in_e.c / (B * B);
      const image o{in_e.n, in_e.h * B, in_e.w * B, oc};
      std::vector<std::int64_t> src(o.n * o.h * o.w * o.c);
      for (std::size_t n = 0; n < o.n; ++n)
        for (std::size_t y = 0; y < o.h; ++y)
          for (std::size_t x = 0; x < o.w; ++x)
            for (std::size_t c = 0; c < oc; ++c)
              src[flat(dims_of(o, nchw), nchw, n, y, x, c)] = static_cast<std::int64_t>(
                  flat(d, nchw, n, y / B, x / B, ((y % B) * B + x % B) * oc + c));
      return src;
    };
  };
  image_op_sweep(OpT::DEPTH_TO_SPACE, 2001, 64, 3, make);
  image_op_sweep(OpT::DEPTH_TO_SPACE, 2011, 16, 24, make);  // whole 16x16 transpose tiles and runs
}

TEST_CASE("SPACE_TO_DEPTH: out(n, y/b, x/b, ((y%b)*b + x%b)*C + c) = in(n, y, x, c), both layouts") {
  const auto make = [](std::mt19937& rng, int m, image& e, std::vector<tensor>& params, auto& sources, bool nchw) {
    const int b = uni(rng, 1, 3);
    e = {static_cast<std::size_t>(uni(rng, 0, 2)), static_cast<std::size_t>(b * uni(rng, 1, m)),
         static_cast<std::size_t>(b * uni(rng, 1, m)), static_cast<std::size_t>(uni(rng, 1, m))};
    params = {scalar_i32(b)};
    const image in_e = e;
    sources = [=](const dims_t& d) {
      const std::size_t B = static_cast<std::size_t>(b);
      const image o{in_e.n, in_e.h / B, in_e.w / B, in_e.c * B * B};
      std::vector<std::int64_t> src(o.n * o.h * o.w * o.c);
      for (std::size_t n = 0; n < in_e.n; ++n)
        for (std::size_t y = 0; y < in_e.h; ++y)
          for (std::size_t x = 0; x < in_e.w; ++x)
            for (std::size_t c = 0; c < in_e.c; ++c)
              src[flat(dims_of(o, nchw), nchw, n, y / B, x / B, ((y % B) * B + x % B) * in_e.c + c)] =
                  static_cast<std::int64_t>(flat(d, nchw, n, y, x, c));
      return src;
    };
  };
  image_op_sweep(OpT::SPACE_TO_DEPTH, 2002, 64, 3, make);
  image_op_sweep(OpT::SPACE_TO_DEPTH, 2012, 16, 24, make);  // whole 16x16 transpose tiles and runs
}

TEST_CASE("BATCH_TO_SPACE_ND: in batch ((dy*bw)+dx)*N + n fills output batch n at block offset (dy, dx)") {
  const auto make = [](std::mt19937& rng, int m, image& e, std::vector<tensor>& params, auto& sources, bool nchw) {
    const int bh = uni(rng, 1, 3), bw = uni(rng, 1, 3);
    const std::size_t out_n = static_cast<std::size_t>(uni(rng, 0, 2));
    e = {out_n * static_cast<std::size_t>(bh * bw), static_cast<std::size_t>(uni(rng, 1, m)),
         static_cast<std::size_t>(uni(rng, 1, m)), static_cast<std::size_t>(uni(rng, 1, m))};
    params = {i32_tensor({2}, {bh, bw})};
    const image in_e = e;
    sources = [=](const dims_t& d) {
      const std::size_t BH = static_cast<std::size_t>(bh), BW = static_cast<std::size_t>(bw);
      const image o{out_n, in_e.h * BH, in_e.w * BW, in_e.c};
      std::vector<std::int64_t> src(o.n * o.h * o.w * o.c);
      for (std::size_t n = 0; n < o.n; ++n)
        for (std::size_t y = 0; y < o.h; ++y)
          for (std::size_t x = 0; x < o.w; ++x)
            for (std::size_t c = 0; c < o.c; ++c) {
              const std::size_t k = ((y % BH) * BW + x % BW) * out_n + n;
              src[flat(dims_of(o, nchw), nchw, n, y, x, c)] = static_cast<std::int64_t>(flat(d, nchw, k, y / BH, x / BW, c));
            }
      return src;
    };
  };
  image_op_sweep(OpT::BATCH_TO_SPACE_ND, 2003, 64, 3, make);
  image_op_sweep(OpT::BATCH_TO_SPACE_ND, 2013, 16, 24, make);  // whole 16x16 transpose tiles and runs
}

TEST_CASE("SPACE_TO_BATCH_ND: padded blocks to batches; padding holds zero / the zero point") {
  const auto make = [](std::mt19937& rng, int m, image& e, std::vector<tensor>& params, auto& sources, bool nchw) {
    const int bh = uni(rng, 1, 3), bw = uni(rng, 1, 3);
    const int top = uni(rng, 0, 2), left = uni(rng, 0, 2);
    const int ph = bh * uni(rng, 1, m), pw = bw * uni(rng, 1, m);  // padded extents
    const int h = std::max(1, ph - top - uni(rng, 0, 2)), w = std::max(1, pw - left - uni(rng, 0, 2));
    const int bottom = std::max(0, ph - top - h), right = std::max(0, pw - left - w);
    const int padded_h = top + h + bottom, padded_w = left + w + right;
    // Keep the padded extents multiples of the block (h may exceed ph - top when clamped).
    const int extra_h = (bh - padded_h % bh) % bh, extra_w = (bw - padded_w % bw) % bw;
    e = {static_cast<std::size_t>(uni(rng, 0, 2)), static_cast<std::size_t>(h), static_cast<std::size_t>(w),
         static_cast<std::size_t>(uni(rng, 1, m))};
    params = {i32_tensor({2}, {bh, bw}), i32_tensor({2, 2}, {top, bottom + extra_h, left, right + extra_w})};
    const image in_e = e;
    sources = [=](const dims_t& d) {
      const std::size_t BH = static_cast<std::size_t>(bh), BW = static_cast<std::size_t>(bw);
      const std::size_t PH = static_cast<std::size_t>(padded_h + extra_h), PW = static_cast<std::size_t>(padded_w + extra_w);
      const image o{in_e.n * BH * BW, PH / BH, PW / BW, in_e.c};
      std::vector<std::int64_t> src(o.n * o.h * o.w * o.c);
      for (std::size_t k = 0; k < o.n; ++k)
        for (std::size_t y = 0; y < o.h; ++y)
          for (std::size_t x = 0; x < o.w; ++x)
            for (std::size_t c = 0; c < o.c; ++c) {
              const std::size_t n = k % in_e.n, blk = k / in_e.n;
              const auto iy = static_cast<std::int64_t>(y * BH + blk / BW) - top;
              const auto ix = static_cast<std::int64_t>(x * BW + blk % BW) - left;
              const bool inside = iy >= 0 && iy < static_cast<std::int64_t>(in_e.h) && ix >= 0 &&
                                  ix < static_cast<std::int64_t>(in_e.w);
              src[flat(dims_of(o, nchw), nchw, k, y, x, c)] =
                  inside ? static_cast<std::int64_t>(flat(d, nchw, n, static_cast<std::size_t>(iy), static_cast<std::size_t>(ix), c)) : -1;
            }
      return src;
    };
  };
  image_op_sweep(OpT::SPACE_TO_BATCH_ND, 2004, 80, 3, make);
  image_op_sweep(OpT::SPACE_TO_BATCH_ND, 2014, 16, 24, make);  // whole 16x16 transpose tiles and runs
}

TEST_CASE("SPACE_TO_DEPTH then DEPTH_TO_SPACE, SPACE_TO_BATCH_ND then BATCH_TO_SPACE_ND: identity") {
  std::mt19937 rng(2005);
  for (int iter = 0; iter < 16; ++iter) {
    const bool nchw = iter % 2 == 1;
    const int b = uni(rng, 1, 3);
    const image e{1 + static_cast<std::size_t>(uni(rng, 0, 1)), static_cast<std::size_t>(b * uni(rng, 1, 3)),
                  static_cast<std::size_t>(b * uni(rng, 1, 3)), static_cast<std::size_t>(uni(rng, 1, 4))};
    const tensor in = random_tensor(rng, OT::TENSOR_FLOAT32, dims_of(e, nchw));
    const tensor mid = run_ok1(OpT::SPACE_TO_DEPTH, {in, scalar_i32(b), scalar_bool(nchw)}, out_like(in));
    const tensor back = run_ok1(OpT::DEPTH_TO_SPACE, {mid, scalar_i32(b), scalar_bool(nchw)}, out_like(in));
    CHECK(back.dims == in.dims);
    CHECK(back.bytes == in.bytes);
    const tensor batched = run_ok1(OpT::SPACE_TO_BATCH_ND, {in, i32_tensor({2}, {b, b}), i32_tensor({2, 2}, {0, 0, 0, 0}), scalar_bool(nchw)}, out_like(in));
    const tensor unbatched = run_ok1(OpT::BATCH_TO_SPACE_ND, {batched, i32_tensor({2}, {b, b}), scalar_bool(nchw)}, out_like(in));
    CHECK(unbatched.dims == in.dims);
    CHECK(unbatched.bytes == in.bytes);
  }
}

/// reference<E>(io) of `Op` for the element type of `t` (the four image types).
template <template <class> class Ref>
tensor run_reference(OpT op, OT t, const std::vector<tensor>& ins, const tensor& out_decl) {
  switch (t) {
    case OT::TENSOR_FLOAT32: return run_entry1(op, Ref<ty::f32>::fn, ins, out_decl);
    case OT::TENSOR_FLOAT16: return run_entry1(op, Ref<ty::f16>::fn, ins, out_decl);
    case OT::TENSOR_QUANT8_ASYMM: return run_entry1(op, Ref<ty::qu8>::fn, ins, out_decl);
    default: return run_entry1(op, Ref<ty::qs8>::fn, ins, out_decl);
  }
}
template <class E>
struct b2s_ref {
  static constexpr auto fn = nnhal::ops::batch_to_space_nd::reference<E>;
};
template <class E>
struct s2b_ref {
  static constexpr auto fn = nnhal::ops::space_to_batch_nd::reference<E>;
};
template <class E>
struct rnn_ref {
  static constexpr auto fn = nnhal::ops::resize_nearest_neighbor::reference<E>;
};

TEST_CASE("BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND: the bound permutation equals the per-pixel reference()") {
  std::mt19937 rng(2006);
  for (int iter = 0; iter < 48; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter) % 4];
    const bool nchw = (iter / 4) % 2 == 1;
    const int bh = uni(rng, 1, 4), bw = uni(rng, 1, 4);
    const bool whole = iter % 3 == 0;  // extents in whole blocks, and SPACE_TO_BATCH_ND without padding
    const image e{static_cast<std::size_t>(bh * bw * uni(rng, 1, 2)),
                  static_cast<std::size_t>(whole ? bh * uni(rng, 1, 10) : uni(rng, 1, 40)),
                  static_cast<std::size_t>(whole ? bw * uni(rng, 1, 10) : uni(rng, 1, 40)),
                  static_cast<std::size_t>(uni(rng, 1, 40))};
    CAPTURE(iter);
    CAPTURE(nchw);
    const tensor in = random_tensor(rng, t, dims_of(e, nchw));
    const std::vector<tensor> b2s{in, i32_tensor({2}, {bh, bw}), scalar_bool(nchw)};
    const tensor got = run_ok1(OpT::BATCH_TO_SPACE_ND, b2s, out_like(in));
    CHECK(got.bytes == run_reference<b2s_ref>(OpT::BATCH_TO_SPACE_ND, t, b2s, out_like(in)).bytes);
    // Paddings that make the padded extents whole blocks.
    const int top = whole ? 0 : uni(rng, 0, 5), left = whole ? 0 : uni(rng, 0, 5);
    const int h = static_cast<int>(e.h), w = static_cast<int>(e.w);
    const int bottom = (bh - (top + h) % bh) % bh + (whole ? 0 : bh * uni(rng, 0, 1));
    const int right = (bw - (left + w) % bw) % bw;
    const std::vector<tensor> s2b{in, i32_tensor({2}, {bh, bw}), i32_tensor({2, 2}, {top, bottom, left, right}),
                                  scalar_bool(nchw)};
    const tensor batched = run_ok1(OpT::SPACE_TO_BATCH_ND, s2b, out_like(in));
    CHECK(batched.bytes == run_reference<s2b_ref>(OpT::SPACE_TO_BATCH_ND, t, s2b, out_like(in)).bytes);
  }
}

TEST_CASE("image ops: the HAL's worked examples end to end") {
  SUBCASE("DEPTH_TO_SPACE [1,1,1,8] by 2, NHWC and NCHW") {
    const std::vector<double> v{1.4f, 2.3f, 3.2f, 4.1f, 5.4f, 6.3f, 7.2f, 8.1f};
    const tensor nhwc = run_golden(OpT::DEPTH_TO_SPACE, {values(OT::TENSOR_FLOAT32, {1, 1, 1, 8}, v), scalar_i32(2)}, decl(OT::TENSOR_FLOAT32, {1, 2, 2, 2}));
    for (std::size_t i = 0; i < 8; ++i) CHECK(nhwc.get<float>(i) == v[i]);
    const tensor nchw = run_golden(OpT::DEPTH_TO_SPACE, {values(OT::TENSOR_FLOAT32, {1, 8, 1, 1}, v), scalar_i32(2), scalar_bool(true)}, decl(OT::TENSOR_FLOAT32, {1, 2, 2, 2}));
    // NCHW output [1, 2, 2, 2]: channel c at (y, x) came from input channel ((y*2)+x)*2 + c.
    const std::vector<float> want{1.4f, 3.2f, 5.4f, 7.2f, 2.3f, 4.1f, 6.3f, 8.1f};
    for (std::size_t i = 0; i < 8; ++i) CHECK(nchw.get<float>(i) == want[i]);
  }
  SUBCASE("BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND [4,1,1,1] <-> [1,2,2,1]") {
    const tensor s = run_golden(OpT::BATCH_TO_SPACE_ND, {values(OT::TENSOR_FLOAT32, {4, 1, 1, 1}, {1, 2, 3, 4}), i32_tensor({2}, {2, 2})}, decl(OT::TENSOR_FLOAT32, {}));
    CHECK(s.dims == dims_t{1, 2, 2, 1});
    for (std::size_t i = 0; i < 4; ++i) CHECK(s.get<float>(i) == static_cast<float>(i + 1));
    const tensor b = run_golden(OpT::SPACE_TO_BATCH_ND, {values(OT::TENSOR_FLOAT32, {1, 2, 2, 1}, {1, 2, 3, 4}), i32_tensor({2}, {2, 2}), i32_tensor({2, 2}, {0, 0, 0, 0})},
                                decl(OT::TENSOR_FLOAT32, {0, 0, 0, 0}));
    CHECK(b.dims == dims_t{4, 1, 1, 1});
    for (std::size_t i = 0; i < 4; ++i) CHECK(b.get<float>(i) == static_cast<float>(i + 1));
  }
  SUBCASE("SPACE_TO_BATCH_ND pads a quantized tensor with its zero point") {
    const tensor b = run_golden(OpT::SPACE_TO_BATCH_ND,
                                {values(OT::TENSOR_QUANT8_ASYMM, {1, 1, 2, 1}, {1, 2}, 1.0f, 9), i32_tensor({2}, {1, 2}), i32_tensor({2, 2}, {0, 0, 1, 1})},
                                decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 9));
    REQUIRE(b.dims == dims_t{2, 1, 2, 1});
    // Padded row [9, 1, 2, 9]: batch 0 takes columns 0 and 2, batch 1 columns 1 and 3.
    const std::vector<int> want{9, 2, 1, 9};
    for (std::size_t i = 0; i < 4; ++i) CHECK(b.raw(i) == want[i]);
  }
}

TEST_CASE("image ops: shape inference and rejected operands") {
  const tensor f = decl(OT::TENSOR_FLOAT32, {});
  SUBCASE("validation: known extents by layout, unknown ones stay unknown") {
    auto r = infer(OpT::DEPTH_TO_SPACE, {decl(OT::TENSOR_FLOAT32, {0, 2, 3, 8}), scalar_i32(2)}, {f}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 4, 6, 2});
    r = infer(OpT::DEPTH_TO_SPACE, {decl(OT::TENSOR_FLOAT32, {1, 8, 2, 0}), scalar_i32(2), scalar_bool(true)}, {f}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{1, 2, 4, 0});
    // A non-constant layout: only the batch and the rank are known.
    r = infer(OpT::SPACE_TO_DEPTH, {decl(OT::TENSOR_FLOAT32, {3, 4, 4, 4}), scalar_i32(2), decl(OT::BOOL, {})}, {f}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{3, 0, 0, 0});
    r = infer(OpT::SPACE_TO_BATCH_ND, {decl(OT::TENSOR_FLOAT32, {2, 3, 3, 1}), i32_tensor({2}, {2, 2}), decl(OT::TENSOR_INT32, {2, 2})}, {f}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{8, 0, 0, 1});
    r = infer(OpT::BATCH_TO_SPACE_ND, {decl(OT::TENSOR_FLOAT32, {}), i32_tensor({2}, {2, 2})}, {f}, false);
    REQUIRE(r.ok());
    CHECK((*r)[0] == dims_t{0, 0, 0, 0});
  }
  SUBCASE("bad operands are named") {
    const tensor x = make_tensor(OT::TENSOR_FLOAT32, {1, 2, 2, 4});
    CHECK(infer_error(OpT::DEPTH_TO_SPACE, {x, scalar_i32(0)}, f).starts_with("block_size: 0"));
    CHECK(infer_error(OpT::DEPTH_TO_SPACE, {x, scalar_i32(3)}, f).starts_with("input: depth 4"));
    CHECK(infer_error(OpT::DEPTH_TO_SPACE, {make_tensor(OT::TENSOR_FLOAT32, {2, 2, 4}), scalar_i32(1)}, f).starts_with("input: rank 3"));
    CHECK(infer_error(OpT::SPACE_TO_DEPTH, {x, scalar_i32(-1)}, f).starts_with("block_size: -1"));
    CHECK(infer_error(OpT::SPACE_TO_DEPTH, {make_tensor(OT::TENSOR_FLOAT32, {1, 3, 2, 1}), scalar_i32(2)}, f).starts_with("input: height 3"));
    CHECK(infer_error(OpT::BATCH_TO_SPACE_ND, {x, i32_tensor({2}, {2, 1})}, f).starts_with("input: batch 1"));
    CHECK(infer_error(OpT::BATCH_TO_SPACE_ND, {x, i32_tensor({3}, {1, 1, 1})}, f).starts_with("block_shape: shape [3]"));
    CHECK(infer_error(OpT::BATCH_TO_SPACE_ND, {x, i32_tensor({2}, {1, 0})}, f).starts_with("block_shape: entry 1 is 0"));
    CHECK(infer_error(OpT::SPACE_TO_BATCH_ND, {x, i32_tensor({2}, {2, 2}), i32_tensor({2, 2}, {0, 1, 0, 0})}, f).starts_with("input: padded height 3"));
    CHECK(infer_error(OpT::SPACE_TO_BATCH_ND, {x, i32_tensor({2}, {2, 2}), i32_tensor({2, 2}, {0, 0, -2, 2})}, f).starts_with("paddings: before-padding of dimension 1 is -2"));
    CHECK(infer_error(OpT::SPACE_TO_BATCH_ND, {x, i32_tensor({2}, {2, 2}), i32_tensor({2}, {0, 0})}, f).starts_with("paddings: rank 1"));
    const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 4}, 0.25f, 10);
    CHECK(infer_error(OpT::SPACE_TO_DEPTH, {q, scalar_i32(2)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 11)).starts_with("output: scale"));
  }
  SUBCASE("zero batches give zero batches") {
    const tensor r = run_ok1(OpT::DEPTH_TO_SPACE, {make_tensor(OT::TENSOR_FLOAT32, {0, 2, 2, 4}), scalar_i32(2)}, f);
    CHECK(r.dims == dims_t{0, 4, 4, 1});
  }
}

// ---------------------------------------------------------------------------------
// CHANNEL_SHUFFLE
// ---------------------------------------------------------------------------------

TEST_CASE("CHANNEL_SHUFFLE: output channel k*G + g = input channel g*(C/G) + k, any axis, negative axes") {
  std::mt19937 rng(3001);
  for (int iter = 0; iter < 384; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter) % 4];
    dims_t d(static_cast<std::size_t>(uni(rng, 1, 4)));
    for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, 1, 4));
    const int rank = static_cast<int>(d.size());
    const int axis = iter % 2 ? -1 : uni(rng, -rank, rank - 1);  // half of them the last axis
    const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    // Also wide channel runs: pixels of 64 to 128 bytes (one byte permute), past them
    // (the per-piece plans, also with up to 64 groups), and past the plans' limit.
    const bool wide = iter % 3 == 0;
    const int groups = !wide ? uni(rng, 1, 4) : iter / 4 % 2 == 0 ? uni(rng, 1, 64) : iter / 12 % 8 + 1;
    d[a] = static_cast<std::uint32_t>(groups * (wide ? uni(rng, 8, 80) : uni(rng, 1, 3)));
    if (iter % 47 == 0) d[a] = static_cast<std::uint32_t>(groups * (16384 / groups + 1));
    CAPTURE(iter);
    const tensor in = random_tensor(rng, t, d);
    tensor num_groups = scalar_i32(groups);
    num_groups.bind_sees_value = iter % 5 != 0;  // a model input: the plan is made per execution
    const tensor out = run_ok1(OpT::CHANNEL_SHUFFLE, {in, num_groups, scalar_i32(axis)}, out_like(in));
    REQUIRE(out.dims == d);
    const std::size_t C = d[a], gs = C / static_cast<std::size_t>(groups);
    std::size_t inner = 1;
    for (std::size_t k = a + 1; k < d.size(); ++k) inner *= d[k];
    std::vector<std::int64_t> src(count_of(d));
    for (std::size_t i = 0; i < src.size(); ++i) {
      const std::size_t ch = (i / inner) % C, outer = i / (inner * C);
      const std::size_t k = ch / static_cast<std::size_t>(groups), g = ch % static_cast<std::size_t>(groups);
      src[i] = static_cast<std::int64_t>((outer * C + g * gs + k) * inner + i % inner);
    }
    CHECK_MESSAGE(check_gather(in, out, src) == "", check_gather(in, out, src));
    if (t == OT::TENSOR_QUANT8_ASYMM)
      CHECK(signed_parity(out, run_ok1(OpT::CHANNEL_SHUFFLE, {to_signed(in), scalar_i32(groups), scalar_i32(axis)}, out_like(to_signed(in)))) == "");
  }
}

TEST_CASE("CHANNEL_SHUFFLE: shape inference and rejected operands") {
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {2, 6});
  const tensor f = decl(OT::TENSOR_FLOAT32, {});
  CHECK(infer_error(OpT::CHANNEL_SHUFFLE, {x, scalar_i32(3), scalar_i32(2)}, f).starts_with("axis: 2 outside [-2, 2)"));
  CHECK(infer_error(OpT::CHANNEL_SHUFFLE, {x, scalar_i32(3), scalar_i32(-3)}, f).starts_with("axis: -3"));
  CHECK(infer_error(OpT::CHANNEL_SHUFFLE, {x, scalar_i32(4), scalar_i32(-1)}, f).starts_with("num_groups: 4 does not divide"));
  CHECK(infer_error(OpT::CHANNEL_SHUFFLE, {x, scalar_i32(0), scalar_i32(1)}, f).starts_with("num_groups: 0"));
  CHECK(infer_error(OpT::CHANNEL_SHUFFLE, {make_tensor(OT::TENSOR_FLOAT32, {1, 1, 1, 1, 2}), scalar_i32(1), scalar_i32(0)}, f)
            .starts_with("input: rank 5"));
  auto r = infer(OpT::CHANNEL_SHUFFLE, {decl(OT::TENSOR_FLOAT32, {0, 6}), scalar_i32(3), scalar_i32(1)}, {f}, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 6});
  const tensor g = run_golden(OpT::CHANNEL_SHUFFLE, {values(OT::TENSOR_FLOAT32, {1, 6}, {0, 1, 2, 3, 4, 5}), scalar_i32(2), scalar_i32(-1)}, decl(OT::TENSOR_FLOAT32, {1, 6}));
  const std::vector<float> want{0, 3, 1, 4, 2, 5};
  for (std::size_t i = 0; i < 6; ++i) CHECK(g.get<float>(i) == want[i]);
}

// ---------------------------------------------------------------------------------
// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
// ---------------------------------------------------------------------------------

/// Real source coordinate of output index i (the HAL / TF definitions, in double).
double source_coord(std::size_t i, std::size_t in, std::size_t out, bool align, bool half) {
  const double scale = align && out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1)
                                        : static_cast<double>(in) / static_cast<double>(out);
  return half ? (static_cast<double>(i) + 0.5) * scale - 0.5 : static_cast<double>(i) * scale;
}

/// Bilinear interpolation of one channel in double; for quantized types the stored values,
/// whose rounding the caller allows 1 of (the output keeps the input's scale and zero point).
double bilinear(const tensor& in, bool nchw, std::size_t n, std::size_t c, double sy, double sx) {
  const image e = extents(in.dims, nchw);
  auto axis = [](double s, std::size_t extent, std::size_t& lo, std::size_t& hi) {
    lo = static_cast<std::size_t>(std::max(std::floor(s), 0.0));
    hi = static_cast<std::size_t>(std::min(std::ceil(s), static_cast<double>(extent - 1)));
    return s - static_cast<double>(lo);
  };
  std::size_t y0, y1, x0, x1;
  const double dy = axis(sy, e.h, y0, y1), dx = axis(sx, e.w, x0, x1);
  auto at = [&](std::size_t y, std::size_t x) { return value(in, flat(in.dims, nchw, n, y, x, c)); };
  return at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx) + at(y0, x1) * (1 - dy) * dx + at(y1, x1) * dy * dx;
}

struct resize_case {
  image in;
  std::size_t oh, ow;
  bool nchw, align, half;
  bool by_scale;
  float sh = 0, sw = 0;
};

resize_case random_resize(std::mt19937& rng, int iter) {
  resize_case r{};
  r.nchw = iter % 2 == 1;
  const int flags = (iter / 2) % 3;  // none, align_corners, half_pixel_centers
  r.align = flags == 1;
  r.half = flags == 2;
  r.in = {static_cast<std::size_t>(uni(rng, 0, 2)), static_cast<std::size_t>(uni(rng, 1, 6)),
          static_cast<std::size_t>(uni(rng, 1, 6)), static_cast<std::size_t>(uni(rng, 1, 3))};
  r.by_scale = iter % 5 == 4;
  if (r.by_scale) {
    const std::array<float, 6> scales{0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 3.0f};
    r.sh = scales[static_cast<std::size_t>(uni(rng, 0, 5))];
    r.sw = scales[static_cast<std::size_t>(uni(rng, 0, 5))];
    r.oh = static_cast<std::size_t>(std::floor(static_cast<float>(r.in.h) * r.sh));
    r.ow = static_cast<std::size_t>(std::floor(static_cast<float>(r.in.w) * r.sw));
    if (r.oh == 0 || r.ow == 0) {
      r.by_scale = false;
      r.oh = std::max<std::size_t>(r.oh, 1);
      r.ow = std::max<std::size_t>(r.ow, 1);
    }
  } else {
    r.oh = static_cast<std::size_t>(uni(rng, 1, 9));
    r.ow = static_cast<std::size_t>(uni(rng, 1, 9));
  }
  return r;
}

std::vector<tensor> resize_inputs(const resize_case& r, const tensor& in, bool layout_mandatory) {
  std::vector<tensor> ins{in};
  if (r.by_scale) {
    if (in.type == OT::TENSOR_FLOAT16) {
      ins.push_back(scalar_f16(r.sw));
      ins.push_back(scalar_f16(r.sh));
    } else {
      ins.push_back(scalar_f32(r.sw));
      ins.push_back(scalar_f32(r.sh));
    }
  } else {
    ins.push_back(scalar_i32(static_cast<std::int32_t>(r.ow)));
    ins.push_back(scalar_i32(static_cast<std::int32_t>(r.oh)));
  }
  if (r.nchw || r.align || r.half || layout_mandatory) ins.push_back(scalar_bool(r.nchw));
  if (r.align || r.half) {
    ins.push_back(scalar_bool(r.align));
    ins.push_back(scalar_bool(r.half));
  }
  return ins;
}

TEST_CASE("RESIZE_BILINEAR: against the real-number interpolation, every type, both layouts and all options") {
  std::mt19937 rng(4001);
  for (int iter = 0; iter < 240; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter / 30) % 4];
    const resize_case r = random_resize(rng, iter);
    CAPTURE(iter);
    CAPTURE(r.align);
    CAPTURE(r.half);
    CAPTURE(r.nchw);
    const tensor in = random_tensor(rng, t, dims_of(r.in, r.nchw));
    const auto ins = resize_inputs(r, in, false);
    const tensor out = run_split(OpT::RESIZE_BILINEAR, ins, out_like(in), iter % 3 == 0);
    const image oe{r.in.n, r.oh, r.ow, r.in.c};
    REQUIRE(out.dims == dims_of(oe, r.nchw));
    for (std::size_t n = 0; n < oe.n; ++n)
      for (std::size_t y = 0; y < oe.h; ++y)
        for (std::size_t x = 0; x < oe.w; ++x)
          for (std::size_t c = 0; c < oe.c; ++c) {
            const double want = bilinear(in, r.nchw, n, c, source_coord(y, r.in.h, r.oh, r.align, r.half),
                                         source_coord(x, r.in.w, r.ow, r.align, r.half));
            const double got = value(out, flat(out.dims, r.nchw, n, y, x, c));
            double tol = 1.0;  // quantized: one step
            if (t == OT::TENSOR_FLOAT32) tol = f32_atol + f32_rtol * std::abs(want);
            if (t == OT::TENSOR_FLOAT16) tol = f16_tol + f16_tol * std::abs(want);
            if (!(std::abs(got - want) <= tol))
              FAIL("at (", n, ", ", y, ", ", x, ", ", c, "): got ", got, ", expected ", want);
          }
    if (t == OT::TENSOR_QUANT8_ASYMM) {
      auto sins = ins;
      sins[0] = to_signed(in);
      CHECK(signed_parity(out, run_ok1(OpT::RESIZE_BILINEAR, sins, out_like(sins[0]))) == "");
    }
  }
}

TEST_CASE("RESIZE_BILINEAR: quantized rounding is half up (the AOSP CPU results), parity on dense random data") {
  // [1,2,2,1] -> [1,3,3,1], sources 0, 2/3, 4/3 (upper neighbour clamped to 1): the centre is
  // 25/9 = 2.78 -> 3, the first edge 5/3 = 1.67 -> 2, the last 10/3 = 3.33 -> 3.
  const tensor q = run_golden(OpT::RESIZE_BILINEAR, {values(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, {1, 2, 2, 4}, 1.0f, 0), scalar_i32(3), scalar_i32(3)},
                              decl(OT::TENSOR_QUANT8_ASYMM, {1, 3, 3, 1}, 1.0f, 0));
  // Rows: y = 0 -> src 0; y = 1 -> 0.667; y = 2 -> 1.333 (clamped to 1). Columns alike.
  const std::vector<int> want{1, 2, 2, 2, 3, 3, 2, 3, 4};
  for (std::size_t i = 0; i < 9; ++i) CHECK(q.raw(i) == want[i]);
  std::mt19937 rng(4002);
  for (int iter = 0; iter < 40; ++iter) {
    resize_case r = random_resize(rng, iter);
    r.in.n = 1;
    const tensor in = random_tensor(rng, OT::TENSOR_QUANT8_ASYMM, dims_of(r.in, r.nchw));
    auto ins = resize_inputs(r, in, false);
    const tensor u = run_ok1(OpT::RESIZE_BILINEAR, ins, out_like(in));
    ins[0] = to_signed(in);
    CHECK(signed_parity(u, run_ok1(OpT::RESIZE_BILINEAR, ins, out_like(ins[0]))) == "");
  }
}

TEST_CASE("RESIZE_BILINEAR: the xsimd f32 path is bit-identical to the reference") {
  namespace rb = nnhal::ops::resize_bilinear;
  std::mt19937 rng(4004);
  for (int iter = 0; iter < 60; ++iter) {
    resize_case r = random_resize(rng, iter);
    r.nchw = iter % 10 == 9;  // NCHW falls back to the reference
    r.in.c = static_cast<std::size_t>(uni(rng, 1, 19));
    const tensor in = random_tensor(rng, OT::TENSOR_FLOAT32, dims_of(r.in, r.nchw));
    const auto ins = resize_inputs(r, in, false);
    reversed_context reversed;
    const tensor ref = run_entry1(OpT::RESIZE_BILINEAR, rb::reference<ty::f32>, ins, out_like(in));
    const tensor vec = run_entry1(OpT::RESIZE_BILINEAR, rb::vectorized_f32, ins, out_like(in), 0,
                                  iter % 2 == 0 ? &reversed : nullptr);
    CAPTURE(iter);
    CHECK(ref.dims == vec.dims);
    CHECK(ref.bytes == vec.bytes);
  }
}

TEST_CASE("RESIZE_BILINEAR: float16, bound (the float32 kernel on widened halves), is bit-identical to the reference") {
  namespace rb = nnhal::ops::resize_bilinear;
  std::mt19937 rng(4006);
  for (int iter = 0; iter < 80; ++iter) {
    resize_case r = random_resize(rng, iter);
    r.in.c = static_cast<std::size_t>(iter % 3 == 0 ? uni(rng, 1, 70) : uni(rng, 1, 19));
    const tensor in = random_tensor(rng, OT::TENSOR_FLOAT16, dims_of(r.in, r.nchw));
    const auto ins = resize_inputs(r, in, false);
    const tensor ref = run_entry1(OpT::RESIZE_BILINEAR, rb::reference<ty::f16>, ins, out_like(in));
    const tensor got = run_ok1(OpT::RESIZE_BILINEAR, ins, out_like(in));
    CAPTURE(iter);
    CHECK(ref.dims == got.dims);
    CHECK(ref.bytes == got.bytes);
  }
}

#if NNHAL_HAVE_X86_KERNELS
TEST_CASE("RESIZE_BILINEAR: the AVX-512 f32, qu8 and qs8 paths are bit-identical to the reference") {
  namespace rb = nnhal::ops::resize_bilinear;
  if (!nnhal::simd::cpu().avx512) return;
  std::mt19937 rng(4005);
  for (int iter = 0; iter < 180; ++iter) {
    resize_case r = random_resize(rng, iter);
    r.nchw = iter % 4 == 3;  // NCHW: through the NHWC kernel between two transposes
    r.in.c = static_cast<std::size_t>(iter % 3 == 0 ? uni(rng, 1, 70) : uni(rng, 1, 19));  // tails and whole 16s
    const OT t = std::array{OT::TENSOR_FLOAT32, OT::TENSOR_QUANT8_ASYMM, OT::TENSOR_QUANT8_ASYMM_SIGNED}[iter % 3];
    const tensor in = random_tensor(rng, t, dims_of(r.in, r.nchw));
    const auto ins = resize_inputs(r, in, false);
    reversed_context reversed;
    nnhal::exec::parallel_context* par = iter % 2 == 0 ? &reversed : nullptr;
    tensor ref, got;
    if (t == OT::TENSOR_FLOAT32) {
      ref = run_entry1(OpT::RESIZE_BILINEAR, rb::reference<ty::f32>, ins, out_like(in));
      got = run_entry1(OpT::RESIZE_BILINEAR, rb::resize_avx512<float>, ins, out_like(in), 1, par);
    } else if (t == OT::TENSOR_QUANT8_ASYMM) {
      ref = run_entry1(OpT::RESIZE_BILINEAR, rb::reference<ty::qu8>, ins, out_like(in));
      got = run_entry1(OpT::RESIZE_BILINEAR, rb::resize_avx512<std::uint8_t>, ins, out_like(in), 1, par);
    } else {
      ref = run_entry1(OpT::RESIZE_BILINEAR, rb::reference<ty::qs8>, ins, out_like(in));
      got = run_entry1(OpT::RESIZE_BILINEAR, rb::resize_avx512<std::int8_t>, ins, out_like(in), 1, par);
    }
    CAPTURE(iter);
    CAPTURE(to_string(t));
    CHECK(ref.dims == got.dims);
    CHECK(ref.bytes == got.bytes);
  }
}
#endif

TEST_CASE("RESIZE_NEAREST_NEIGHBOR: every output pixel copies the pixel at the rounded source coordinate") {
  std::mt19937 rng(4003);
  for (int iter = 0; iter < 240; ++iter) {
    const OT t = data_types[static_cast<std::size_t>(iter / 30) % 4];
    const resize_case r = random_resize(rng, iter);
    CAPTURE(iter);
    const tensor in = random_tensor(rng, t, dims_of(r.in, r.nchw));
    const auto ins = resize_inputs(r, in, true);
    const tensor out = run_split(OpT::RESIZE_NEAREST_NEIGHBOR, ins, out_like(in), iter % 3 == 0);
    const image oe{r.in.n, r.oh, r.ow, r.in.c};
    REQUIRE(out.dims == dims_of(oe, r.nchw));
    // The source index in real arithmetic; within 1e-4 of a rounding boundary either
    // neighbour is accepted (float and double may fall on different sides).
    auto candidates = [&](std::size_t i, std::size_t in_ext, std::size_t out_ext) {
      // TF's nearest rule: s = i * scale, or (i + 0.5) * scale with half-pixel centres (no
      // -0.5 offset, unlike bilinear); round(s) with aligned corners, else floor(s).
      const double scale = r.align && out_ext > 1 ? static_cast<double>(in_ext - 1) / static_cast<double>(out_ext - 1)
                                                  : static_cast<double>(in_ext) / static_cast<double>(out_ext);
      const double s = (static_cast<double>(i) + (r.half ? 0.5 : 0.0)) * scale;
      std::array<double, 2> v{s - 1e-4, s + 1e-4};
      std::array<std::size_t, 2> k{};
      for (std::size_t j = 0; j < 2; ++j) {
        const double q = r.align ? std::round(v[j]) : std::floor(v[j]);
        k[j] = static_cast<std::size_t>(std::clamp(q, 0.0, static_cast<double>(in_ext - 1)));
      }
      return k;
    };
    for (std::size_t n = 0; n < oe.n; ++n)
      for (std::size_t y = 0; y < oe.h; ++y) {
        const auto ky = candidates(y, r.in.h, r.oh);
        for (std::size_t x = 0; x < oe.w; ++x) {
          const auto kx = candidates(x, r.in.w, r.ow);
          for (std::size_t c = 0; c < oe.c; ++c) {
            const std::size_t o = flat(out.dims, r.nchw, n, y, x, c);
            bool ok = false;
            for (auto yy : ky)
              for (auto xx : kx) ok = ok || same_element(out, o, in, flat(in.dims, r.nchw, n, yy, xx, c));
            if (!ok) FAIL("at (", n, ", ", y, ", ", x, ", ", c, "): got ", value(out, o));
          }
        }
      }
    // The bound kernel (NCHW: row by row) is the per-pixel reference() bit for bit.
    CHECK(out.bytes == run_reference<rnn_ref>(OpT::RESIZE_NEAREST_NEIGHBOR, t, ins, out_like(in)).bytes);
    if (t == OT::TENSOR_QUANT8_ASYMM) {
      auto sins = ins;
      sins[0] = to_signed(in);
      CHECK(signed_parity(out, run_ok1(OpT::RESIZE_NEAREST_NEIGHBOR, sins, out_like(sins[0]))) == "");
    }
  }
}

TEST_CASE("RESIZE_*: golden cases end to end") {
  SUBCASE("bilinear [1,2,2,1] -> [1,3,3,1] (HAL 1.0 example)") {
    const tensor out = run_golden(OpT::RESIZE_BILINEAR, {values(OT::TENSOR_FLOAT32, {1, 2, 2, 1}, {1, 1, 2, 2}), scalar_i32(3), scalar_i32(3)},
                                  decl(OT::TENSOR_FLOAT32, {1, 3, 3, 1}));
    const std::vector<double> want{1, 1, 1, 5.0 / 3, 5.0 / 3, 5.0 / 3, 2, 2, 2};
    for (std::size_t i = 0; i < 9; ++i) CHECK(std::abs(out.get<float>(i) - want[i]) <= 1e-5);
  }
  SUBCASE("bilinear half_pixel_centers [1,2,2,1] -> [1,3,3,1] NCHW via scale") {
    const tensor out = run_golden(OpT::RESIZE_BILINEAR,
                                  {values(OT::TENSOR_FLOAT32, {1, 1, 2, 2}, {1, 2, 3, 4}), scalar_f32(1.5f), scalar_f32(1.5f), scalar_bool(true), scalar_bool(false), scalar_bool(true)},
                                  decl(OT::TENSOR_FLOAT32, {0, 0, 0, 0}));
    REQUIRE(out.dims == dims_t{1, 1, 3, 3});
    // Sources: -1/6 (both neighbours 0), 0.5, 7/6 (both neighbours 1).
    const std::vector<double> want{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4};
    for (std::size_t i = 0; i < 9; ++i) CHECK(std::abs(out.get<float>(i) - want[i]) <= 1e-5);
  }
  SUBCASE("nearest align_corners [1,2,2,1] -> [1,3,3,1]") {
    const tensor out = run_golden(OpT::RESIZE_NEAREST_NEIGHBOR,
                                  {values(OT::TENSOR_FLOAT32, {1, 2, 2, 1}, {1, 2, 3, 4}), scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(true), scalar_bool(false)},
                                  decl(OT::TENSOR_FLOAT32, {}));
    // scale 0.5: sources round(0) = 0, round(0.5) = 1, round(1) = 1.
    const std::vector<float> want{1, 2, 2, 3, 4, 4, 3, 4, 4};
    for (std::size_t i = 0; i < 9; ++i) CHECK(out.get<float>(i) == want[i]);
  }
  SUBCASE("zero batches") {
    const tensor out = run_ok1(OpT::RESIZE_BILINEAR, {make_tensor(OT::TENSOR_FLOAT32, {0, 2, 2, 1}), scalar_i32(3), scalar_i32(5)},
                              decl(OT::TENSOR_FLOAT32, {}));
    CHECK(out.dims == dims_t{0, 5, 3, 1});
  }
}

TEST_CASE("RESIZE_*: shape inference and rejected operands") {
  const tensor x = make_tensor(OT::TENSOR_FLOAT32, {1, 4, 6, 2});
  const tensor f = decl(OT::TENSOR_FLOAT32, {});
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_i32(0), scalar_i32(3)}, f).starts_with("width: output size 0"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_i32(2), scalar_i32(-3)}, f).starts_with("height: output size -3"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_f32(0.1f), scalar_f32(1.0f)}, f).starts_with("width: scale"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_f32(1.0f), scalar_f32(std::numeric_limits<float>::quiet_NaN())}, f)
            .starts_with("height: scale"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_f32(1e30f), scalar_f32(1.0f)}, f).starts_with("width: scale"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {x, scalar_i32(2), scalar_i32(2), scalar_bool(false), scalar_bool(true), scalar_bool(true)}, f)
            .starts_with("half_pixel_centers"));
  CHECK(infer_error(OpT::RESIZE_NEAREST_NEIGHBOR, {make_tensor(OT::TENSOR_FLOAT32, {4, 6, 2}), scalar_i32(2), scalar_i32(2), scalar_bool(false)}, f)
            .starts_with("input: rank 3"));
  CHECK(infer_error(OpT::RESIZE_BILINEAR, {make_tensor(OT::TENSOR_FLOAT32, {1, 0, 6, 2}), scalar_i32(2), scalar_i32(2)}, f)
            .starts_with("input: [1, 0, 6, 2] (only the batch"));
  const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.5f, 1);
  CHECK(infer_error(OpT::RESIZE_NEAREST_NEIGHBOR, {q, scalar_i32(2), scalar_i32(2), scalar_bool(false)}, decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.25f, 1))
            .starts_with("output: scale"));
  // Scales: floor(extent * scale) in float, NCHW picks H and W from dims 2 and 3.
  auto r = infer(OpT::RESIZE_BILINEAR, {make_tensor(OT::TENSOR_FLOAT16, {1, 2, 4, 6}), scalar_f16(1.5f), scalar_f16(0.6f), scalar_bool(true)}, {decl(OT::TENSOR_FLOAT16, {})}, true);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{1, 2, 2, 9});
  // Validation: unknown extents stay unknown; a known INT32 size is known regardless.
  r = infer(OpT::RESIZE_NEAREST_NEIGHBOR, {decl(OT::TENSOR_FLOAT32, {0, 0, 0, 3}), scalar_i32(5), scalar_i32(7), scalar_bool(false)}, {f}, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 7, 5, 3});
  r = infer(OpT::RESIZE_BILINEAR, {decl(OT::TENSOR_FLOAT32, {0, 0, 4, 3}), scalar_f32(2.0f), decl(OT::FLOAT32, {})}, {f}, false);
  REQUIRE(r.ok());
  CHECK((*r)[0] == dims_t{0, 0, 8, 3});
}

// ---------------------------------------------------------------------------------
// HAL versions implied by values
// ---------------------------------------------------------------------------------

TEST_CASE("minimum HAL versions: layout, resize options, quant8 zero points") {
  const tensor img = make_tensor(OT::TENSOR_FLOAT32, {1, 4, 4, 4});  // valid in both layouts
  const tensor out = decl(OT::TENSOR_FLOAT32, {});
  SUBCASE("DEPTH_TO_SPACE: no flag / false flag are HAL 1.0, true or non-constant is 1.2") {
    CHECK(version_of(single_static(OpT::DEPTH_TO_SPACE, {img, scalar_i32(2)}, out)) == "V1_0");
    CHECK(version_of(single_static(OpT::DEPTH_TO_SPACE, {img, scalar_i32(2), scalar_bool(false)}, out)) == "V1_0");
    CHECK(version_of(single_static(OpT::DEPTH_TO_SPACE, {img, scalar_i32(2), scalar_bool(true)}, out)) == "V1_2");
    CHECK(version_of(single_static(OpT::DEPTH_TO_SPACE, {img, scalar_i32(2), scalar_bool(false)}, out, {0, 2})) == "V1_2");
  }
  SUBCASE("BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND") {
    const tensor four = make_tensor(OT::TENSOR_FLOAT32, {4, 1, 1, 1});
    CHECK(version_of(single_static(OpT::BATCH_TO_SPACE_ND, {four, i32_tensor({2}, {2, 2}), scalar_bool(false)}, out)) == "V1_1");
    CHECK(version_of(single_static(OpT::BATCH_TO_SPACE_ND, {four, i32_tensor({2}, {2, 2}), scalar_bool(true)}, out)) == "V1_2");
    const tensor q0 = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.5f, 0);
    const tensor q5 = make_tensor(OT::TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.5f, 5);
    const auto blocks = i32_tensor({2}, {2, 2});
    const auto pads = i32_tensor({2, 2}, {0, 0, 0, 0});
    CHECK(version_of(single_static(OpT::SPACE_TO_BATCH_ND, {q0, blocks, pads}, out_like(q0))) == "V1_1");
    CHECK(version_of(single_static(OpT::SPACE_TO_BATCH_ND, {q5, blocks, pads}, out_like(q5))) == "V1_2");
    CHECK(version_of(single_static(OpT::PAD, {q0, i32_tensor({4, 2}, std::vector<int>(8, 1))}, out_like(q0))) == "V1_1");
    CHECK(version_of(single_static(OpT::PAD, {q5, i32_tensor({4, 2}, std::vector<int>(8, 1))}, out_like(q5))) == "V1_2");
  }
  SUBCASE("RESIZE_BILINEAR: layout needs 1.2, align_corners / half_pixel_centers need 1.3") {
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3)}, out)) == "V1_0");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(false), scalar_bool(false)}, out)) == "V1_0");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(true), scalar_bool(false), scalar_bool(false)}, out)) == "V1_2");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(true)}, out)) == "V1_3");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(false), scalar_bool(true)}, out)) == "V1_3");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(false)}, out, {0, 4})) == "V1_3");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_f32(1.5f), scalar_f32(1.5f)}, out)) == "V1_2");
    CHECK(version_of(single_static(OpT::RESIZE_BILINEAR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(true), scalar_bool(true)}, out))
              .starts_with("error:"));
  }
  SUBCASE("RESIZE_NEAREST_NEIGHBOR: 1.2, options need 1.3") {
    CHECK(version_of(single_static(OpT::RESIZE_NEAREST_NEIGHBOR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(true)}, out)) == "V1_2");
    CHECK(version_of(single_static(OpT::RESIZE_NEAREST_NEIGHBOR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(false), scalar_bool(false)}, out)) == "V1_2");
    CHECK(version_of(single_static(OpT::RESIZE_NEAREST_NEIGHBOR, {img, scalar_i32(3), scalar_i32(3), scalar_bool(false), scalar_bool(false), scalar_bool(true)}, out)) == "V1_3");
  }
}

TEST_CASE("execution rejects what validation could not see") {
  // The block size arrives as a model input: 3 does not divide the depth 4.
  const tensor img = make_tensor(OT::TENSOR_FLOAT32, {1, 2, 2, 4});
  auto m = single(OpT::DEPTH_TO_SPACE, {img, scalar_i32(3)}, {decl(OT::TENSOR_FLOAT32)}, 2);
  const auto r = run_model(m);
  CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(r.message.find("input: depth 4") != std::string::npos);
  // Paddings as a model input are honoured.
  auto p = single(OpT::PAD, {values(OT::TENSOR_FLOAT32, {2}, {5, 6}), i32_tensor({1, 2}, {2, 1})}, {decl(OT::TENSOR_FLOAT32, {0})}, 2);
  const auto pr = run_model(p);
  REQUIRE_MESSAGE(pr.status == ty::ErrorStatus::NONE, pr.message);
  REQUIRE(pr.outs[0].dims == dims_t{5});
  const std::vector<float> want{0, 0, 5, 6, 0};
  for (std::size_t i = 0; i < 5; ++i) CHECK(pr.outs[0].get<float>(i) == want[i]);
}

}  // namespace
