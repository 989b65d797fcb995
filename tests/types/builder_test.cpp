// Typed model builder (types/builder.hpp): operands, shapes from shape inference, fixed
// output quantization, constants placement, errors reported by build(), and the example
// MobileNet v1 (examples/common/mobilenet_v1.hpp) in every element type.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "examples/common/mobilenet_v1.hpp"
#include "nnhal/types/builder.hpp"

using namespace nnhal::types;

namespace {

std::vector<float> filled(std::size_t n, float v = 0.5f) { return std::vector<float>(n, v); }

const Operand& operand(const Model& m, std::uint32_t i) { return m.main.operands.at(i); }

}  // namespace

TEST_CASE("builder: f32 CONV_2D + SOFTMAX builds a valid model with inferred shapes") {
  builder b;
  auto x = b.input<f32>({1, 8, 8, 3});
  auto w = b.constant<f32>({4, 3, 3, 3}, filled(4 * 27));
  auto bias = b.constant<f32>({4}, filled(4, 0.0f));
  // SAME, stride 2: ceil(8 / 2) = 4.
  auto y = b.conv_2d(x, w, bias, {.padding = padding_code::same, .stride_w = 2, .stride_h = 2, .act = activation::RELU6});
  CHECK(b.dims_of(y) == dims_t{1, 4, 4, 4});
  // VALID 3x3 stride 1 on 4: 4 - 3 + 1 = 2.
  auto p = b.average_pool_2d(y, {.padding = padding_code::valid, .filter_w = 3, .filter_h = 3});
  CHECK(b.dims_of(p) == dims_t{1, 2, 2, 4});
  auto r = b.reshape(p, {1, -1});
  CHECK(b.dims_of(r) == dims_t{1, 16});
  auto s = b.output(b.softmax(r));
  auto m = b.build();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.err().message));
  CHECK(m->main.operations.size() == 4);
  CHECK(m->main.operations[0].type == OperationType::CONV_2D);
  CHECK(m->main.operations[0].inputs.size() == 7);  // implicit padding form
  CHECK(m->main.inputIndexes == std::vector<std::uint32_t>{x.index()});
  CHECK(m->main.outputIndexes == std::vector<std::uint32_t>{s.index()});
  CHECK(operand(*m, s.index()).lifetime == OperandLifeTime::SUBGRAPH_OUTPUT);
  CHECK(operand(*m, s.index()).dimensions == dims_t{1, 16});
  // The filter (432 bytes) goes to the pool; the 16-byte bias is copied inline.
  CHECK(operand(*m, w.index()).lifetime == OperandLifeTime::CONSTANT_REFERENCE);
  CHECK(operand(*m, bias.index()).lifetime == OperandLifeTime::CONSTANT_COPY);
  REQUIRE(m->pools.size() == 1);
  CHECK(m->pools[0].size >= 432);
  CHECK(operand(*m, x.index()).numberOfConsumers == 1);
  CHECK(operand(*m, y.index()).numberOfConsumers == 1);
  CHECK(operand(*m, s.index()).numberOfConsumers == 0);
}

TEST_CASE("builder: explicit padding and dilation pick the longer CONV_2D forms") {
  builder b;
  auto x = b.input<f32>({1, 5, 5, 1});
  auto w = b.constant<f32>({1, 3, 3, 1}, filled(9));
  auto bias = b.constant<f32>({1}, filled(1));
  auto y = b.conv_2d(x, w, bias, {.padding = explicit_padding{1, 1, 1, 1}});
  CHECK(b.dims_of(y) == dims_t{1, 5, 5, 1});  // 5 + 2 - 3 + 1
  auto z = b.conv_2d(y, w, bias, {.padding = padding_code::valid, .dilation_w = 2, .dilation_h = 2});
  CHECK(b.dims_of(z) == dims_t{1, 1, 1, 1});  // effective filter 5 on 5
  b.output(z);
  auto m = b.build();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.err().message));
  CHECK(m->main.operations[0].inputs.size() == 10);
  CHECK(m->main.operations[1].inputs.size() == 10);  // 7 + layout + two dilations
}

TEST_CASE("builder: quantized outputs get the parameters the HAL fixes") {
  builder b;
  const quant q{0.5f, 3};
  auto x = b.input<qu8>({2, 3}, q);
  auto y = b.input<qu8>({2, 3}, q);
  auto s = b.add(x, y, activation::NONE, {1.0f, 5});
  CHECK(b.quant_of(s).scale == 1.0f);
  CHECK(b.quant_of(s).zero_point == 5);
  auto r = b.reshape(s, {6});
  CHECK(b.quant_of(r).zero_point == 5);
  auto sm = b.output(b.softmax(r));
  CHECK(b.quant_of(sm).scale == 1.0f / 256.0f);
  CHECK(b.quant_of(sm).zero_point == 0);
  auto lg = b.output(b.logistic(x));
  CHECK(b.quant_of(lg).zero_point == 0);
  auto r6 = b.output(b.relu6(b.relu1(b.relu(y))));
  CHECK(b.quant_of(r6).zero_point == 3);  // the RELUs keep the input's parameters
  CHECK(b.dims_of(r6) == dims_t{2, 3});
  auto m = b.build();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.err().message));

  builder bs;
  auto xs = bs.input<qs8>({4}, {0.25f, -1});
  auto ss = bs.output(bs.softmax(xs, 0.5f));
  CHECK(bs.quant_of(ss).zero_point == -128);
  CHECK(bs.build().ok());
}

TEST_CASE("builder: QUANTIZE, DEQUANTIZE and FULLY_CONNECTED") {
  builder b;
  auto x = b.input<f32>({2, 4});
  auto q = b.quantize<qs8>(x, {0.1f, 0});
  CHECK(b.dims_of(q) == dims_t{2, 4});
  auto w = b.constant<qs8>({3, 4}, std::vector<std::int8_t>(12, 1), {0.05f, 0});
  auto bias = b.constant<i32>({3}, std::vector<std::int32_t>{1, 2, 3}, {0.1f * 0.05f, 0});
  auto fc = b.fully_connected(q, w, bias, activation::RELU, {0.2f, -10});
  CHECK(b.dims_of(fc) == dims_t{2, 3});
  auto d = b.output(b.dequantize(fc));
  CHECK(operand(*b.build(), d.index()).type == OperandType::TENSOR_FLOAT32);
}

TEST_CASE("builder: per-channel filters") {
  builder b;
  auto x = b.input<qu8>({1, 4, 4, 2}, {0.5f, 128});
  auto w = b.constant_per_channel({3, 1, 1, 2}, std::vector<std::int8_t>(6, 2), {0.1f, 0.2f, 0.3f}, 0);
  auto bias = b.constant<i32>({3}, std::vector<std::int32_t>(3, 0));
  b.output(b.conv_2d(x, w, bias, {}, {1.0f, 128}));
  auto m = b.build();
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.err().message));
  const auto* pc = std::get_if<SymmPerChannelQuantParams>(&operand(*m, w.index()).extraParams);
  REQUIRE(pc != nullptr);
  CHECK(pc->scales.size() == 3);
}

TEST_CASE("builder: the untyped fallback is checked by build()") {
  builder b;
  auto x = b.input<f32>({3});
  auto t = b.output(b.operation<f32>(OperationType::TANH, {x}));
  CHECK(b.dims_of(t) == dims_t{3});
  CHECK(b.build().ok());

  // TANH has no TENSOR_INT32 row: the typed path would not compile, the fallback fails at build().
  builder bad;
  auto xi = bad.input<i32>({3});
  bad.output(bad.operation<i32>(OperationType::TANH, {xi}));
  auto m = bad.build();
  REQUIRE_FALSE(m.ok());
  CHECK(m.status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(m.err().message.find("TANH") != std::string::npos);
}

TEST_CASE("builder: mistakes come back from build() as one error naming the problem") {
  SUBCASE("wrong number of constant values") {
    builder b;
    auto x = b.input<f32>({2});
    auto c = b.constant<f32>({2}, filled(3));
    b.output(b.add(x, c));
    auto m = b.build();
    REQUIRE_FALSE(m.ok());
    CHECK(m.err().message.find("3 values") != std::string::npos);
  }
  SUBCASE("a model input cannot be an output") {
    builder b;
    auto x = b.input<f32>({2});
    b.output(x);
    auto m = b.build();
    REQUIRE_FALSE(m.ok());
    CHECK(m.err().message.find("SUBGRAPH_INPUT") != std::string::npos);
  }
  SUBCASE("a default handle") {
    builder b;
    tensor<f32> nothing;
    auto x = b.input<f32>({2});
    b.output(b.add(x, nothing));
    auto m = b.build();
    REQUIRE_FALSE(m.ok());
    CHECK(m.err().message.find("refers to no operand") != std::string::npos);
  }
  SUBCASE("shape inference rejects a filter of the wrong depth") {
    builder b;
    auto x = b.input<f32>({1, 4, 4, 3});
    auto w = b.constant<f32>({2, 1, 1, 5}, filled(10));
    auto bias = b.constant<f32>({2}, filled(2));
    b.output(b.conv_2d(x, w, bias));
    auto m = b.build();
    REQUIRE_FALSE(m.ok());
    CHECK(m.err().message.find("CONV_2D") != std::string::npos);
    CHECK(m.err().message.find("depth_in 5") != std::string::npos);
  }
  SUBCASE("a quantized output without a scale") {
    builder b;
    auto x = b.input<qu8>({2}, {1.0f, 0});
    b.output(b.add(x, x));
    CHECK_FALSE(b.build().ok());
  }
  SUBCASE("no outputs") {
    builder b;
    (void)b.input<f32>({2});
    CHECK_FALSE(b.build().ok());
  }
}

TEST_CASE_TEMPLATE("mobilenet_v1: structure and validation", E, f32, qu8, qs8) {
  // Small width and resolution keep the test fast; the layer list does not depend on them.
  auto net = nnhal::examples::mobilenet_v1<E>({.width = 0.25f, .resolution = 96, .classes = 10, .seed = 3});
  REQUIRE_MESSAGE(net.ok(), (net.ok() ? "" : net.err().message));
  const Model& m = net->model;
  // 1 + 13 * 2 convolutions, average pool, logits convolution, reshape, softmax.
  REQUIRE(m.main.operations.size() == 31);
  CHECK(net->operations == 31);
  int conv = 0, dw = 0;
  for (const auto& op : m.main.operations) {
    conv += op.type == OperationType::CONV_2D;
    dw += op.type == OperationType::DEPTHWISE_CONV_2D;
  }
  CHECK(conv == 15);
  CHECK(dw == 13);
  CHECK(m.main.operations[27].type == OperationType::AVERAGE_POOL_2D);
  CHECK(m.main.operations[30].type == OperationType::SOFTMAX);
  CHECK(net->input_dims == dims_t{1, 96, 96, 3});
  CHECK(operand(m, m.main.outputIndexes[0]).dimensions == dims_t{1, 10});
  // The last feature map is 96 / 32 = 3 wide, with 1024 * 0.25 channels.
  CHECK(operand(m, m.main.operations[27].inputs[0]).dimensions == dims_t{1, 3, 3, 256});
  if constexpr (std::is_same_v<E, f32>) {
    CHECK(net->input_quant.scale == 0.0f);
  } else {
    CHECK(net->input_quant.scale == 1.0f / 128.0f);
    CHECK(net->input_quant.zero_point == (std::is_same_v<E, qu8> ? 128 : 0));
    CHECK(net->output_quant.zero_point == (std::is_same_v<E, qu8> ? 0 : -128));
  }
  const auto in = nnhal::examples::mobilenet_v1_input<E>(*net, 1);
  CHECK(in.size() == 96u * 96u * 3u);
}

TEST_CASE("mobilenet_v1: 1.0-224 has the published cost and the same weights in every type") {
  auto f = nnhal::examples::mobilenet_v1<f32>();
  REQUIRE(f.ok());
  // Howard et al. 2017, table 8: 569 million multiply-adds (logits layer included).
  CHECK(f->macs == 568'741'376u);
  auto q = nnhal::examples::mobilenet_v1<qu8>();
  REQUIRE(q.ok());
  auto s = nnhal::examples::mobilenet_v1<qs8>();
  REQUIRE(s.ok());
  // qs8 weights are the qu8 weights minus 128 (same real values).
  const auto& qm = q->model;
  const auto& sm = s->model;
  REQUIRE(qm.main.operands.size() == sm.main.operands.size());
  const Operand& qw = qm.main.operands[qm.main.operations[0].inputs[1]];
  const Operand& sw = sm.main.operands[sm.main.operations[0].inputs[1]];
  CHECK(sw.zeroPoint == qw.zeroPoint - 128);
  CHECK(sw.scale == qw.scale);
  const auto* qb = reinterpret_cast<const std::uint8_t*>(qm.pools[0].data + qw.location.offset);
  const auto* sb = reinterpret_cast<const std::int8_t*>(sm.pools[0].data + sw.location.offset);
  for (std::uint32_t i = 0; i < qw.location.length; ++i) REQUIRE(int{sb[i]} == int{qb[i]} - 128);
  // Different seeds give different weights.
  auto other = nnhal::examples::mobilenet_v1<f32>({.seed = 2});
  REQUIRE(other.ok());
  const Operand& w1 = f->model.main.operands[f->model.main.operations[0].inputs[1]];
  CHECK(std::memcmp(f->model.pools[0].data + w1.location.offset, other->model.pools[0].data + w1.location.offset,
                    w1.location.length) != 0);
}
