// Tests of nnhal_corpus: the corpus loader, the comparison rules and the variants.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "corpus/compare.hpp"
#include "corpus/corpus.hpp"
#include "nnhal/types/element.hpp"

namespace {

using namespace nnhal::corpus;
using nnhal::types::OperandLifeTime;
using nnhal::types::OperandType;
using nnhal::types::OperationType;

// ---------------------------------------------------------------------------------
// JSON builders.

std::string operand(const std::string& type, const std::string& dims, const std::string& lifetime,
                    const std::string& dataType, const std::string& data, const std::string& extra = "") {
  return R"({"name":"x","type":")" + type + R"(","dimensions":)" + dims +
         R"(,"scale":0.0,"zeroPoint":0,"lifetime":")" + lifetime +
         R"(","isIgnored":false,"numberOfConsumers":1,"channelQuant":null,"dataType":")" + dataType +
         R"(","data":)" + data + extra + "}";
}

std::string model_json(const std::string& name, const std::string& operands, const std::string& operations,
                       const std::string& inputs, const std::string& outputs, const std::string& referenced = "[]",
                       const std::string& flags = R"("expectFailure":false,"isRelaxed":false)",
                       const std::string& tolerance = "0.0") {
  return R"({"name":")" + name + R"(",)" + flags + R"(,"expectedMultinomialDistributionTolerance":)" + tolerance +
         R"(,"minSupportedVersion":"V1_0","main":{"name":null,"operands":[)" + operands + R"(],"operations":[)" +
         operations + R"(],"inputIndexes":)" + inputs + R"(,"outputIndexes":)" + outputs + R"(},"referenced":)" +
         referenced + "}";
}

std::string file_json(const std::string& models) {
  return R"({"format":"nnhal-cts-json/1","spec":"t","halVersionDir":"V1_0","source":{},"models":[)" + models + "]}";
}

// A float ADD: inputs 0 and 1, INT32 act (CONSTANT_COPY), output 3; plus a
// CONSTANT_REFERENCE operand 4 feeding a second ADD whose output is 5 (output 1).
std::string add_model(const std::string& name = "add") {
  const std::string ops =
      operand("TENSOR_FLOAT32", "[2,2]", "SUBGRAPH_INPUT", "float", "[1.0,2.0,3.0,-0.0]") + "," +
      operand("TENSOR_FLOAT32", "[2,2]", "SUBGRAPH_INPUT", "float", "[]") + "," +
      operand("INT32", "[]", "CONSTANT_COPY", "int32_t", "[0]") + "," +
      operand("TENSOR_FLOAT32", "[2,2]", "SUBGRAPH_OUTPUT", "float", "[4.0,6.0,8.0,-0.0]") + "," +
      operand("TENSOR_FLOAT32", "[3]", "CONSTANT_REFERENCE", "float", "[0.5,\"inf\",\"-inf\"]") + "," +
      operand("TENSOR_FLOAT32", "[0]", "SUBGRAPH_OUTPUT", "float", "[]");
  const std::string operations =
      R"({"type":"ADD","inputs":[0,1,2],"outputs":[3]},{"type":"ADD","inputs":[4,4,2],"outputs":[5]})";
  return model_json(name, ops, operations, "[0,1]", "[3,5]");
}

test_model load_one(const std::string& text) {
  auto r = parse_corpus(text, "t.json");
  if (!r) FAIL_CHECK(r.err().message);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  return std::move((*r)[0]);
}

std::string load_error(const std::string& text) {
  auto r = parse_corpus(text, "t.json");
  REQUIRE_FALSE(r.ok());
  return r.err().message;
}

/// `s` with the first occurrence of `from` replaced by `to` (which must exist).
std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  s.replace(pos, from.size(), to);
  return s;
}

template <class T>
T read_at(const std::vector<std::uint8_t>& v, std::size_t offset) {
  T x;
  REQUIRE(offset + sizeof(T) <= v.size());
  std::memcpy(&x, v.data() + offset, sizeof(T));
  return x;
}

// ---------------------------------------------------------------------------------
// Comparison helpers.

template <class T>
std::vector<std::uint8_t> bytes_of(std::initializer_list<T> values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::size_t i = 0;
  for (T v : values) std::memcpy(out.data() + sizeof(T) * i++, &v, sizeof(T));
  return out;
}

expected_output make_expected(OperandType type, std::vector<std::uint32_t> dims, std::vector<std::uint8_t> bytes) {
  expected_output e;
  e.type = type;
  e.dimensions = std::move(dims);
  e.bytes = std::move(bytes);
  return e;
}

check_result cmp(const expected_output& e, const std::vector<std::uint8_t>& actual, const compare_flags& flags = {},
                 std::size_t index = 0) {
  return compare_output(index, e, std::as_bytes(std::span(actual)), e.dimensions, flags);
}

/// Checks the tolerance boundary for a float32 output: the actual value exactly at the
/// limit passes, one float ulp beyond fails.
void check_float32_boundary(float e, const compare_flags& flags) {
  const criterion c = criterion_for(OperandType::TENSOR_FLOAT32, flags);
  const double limit = c.tol.atol + c.tol.rtol * std::fabs(static_cast<double>(e));
  const float a = static_cast<float>(static_cast<double>(e) + limit);
  REQUIRE(static_cast<double>(a) - static_cast<double>(e) == limit);  // the test values are exact
  const auto exp = make_expected(OperandType::TENSOR_FLOAT32, {1}, bytes_of<float>({e}));
  CHECK(cmp(exp, bytes_of<float>({a}), flags).ok);
  const float beyond = std::nextafter(a, std::numeric_limits<float>::infinity());
  CHECK_FALSE(cmp(exp, bytes_of<float>({beyond}), flags).ok);
  // Symmetric below the expected value.
  const float below = static_cast<float>(static_cast<double>(e) - limit);
  if (static_cast<double>(e) - static_cast<double>(below) == limit) {
    CHECK(cmp(exp, bytes_of<float>({below}), flags).ok);
    CHECK_FALSE(cmp(exp, bytes_of<float>({std::nextafter(below, -std::numeric_limits<float>::infinity())}), flags).ok);
  }
}

}  // namespace

// =================================================================================
// Comparison rules.

TEST_CASE("compare: tolerance constants are the upstream defaults") {
  CHECK(float32_atol == 9.999999747378752e-06);
  CHECK(float32_rtol == 5.9604644775390625e-07);
  CHECK(float16_tol == 0.0048828125);
  const compare_flags none;
  auto c = criterion_for(OperandType::TENSOR_FLOAT32, none);
  CHECK(c.kind == compare_kind::tolerance);
  CHECK(c.tol.atol == float32_atol);
  CHECK(c.tol.rtol == float32_rtol);
  CHECK(criterion_for(OperandType::TENSOR_FLOAT16, none).tol.rtol == float16_tol);
  CHECK(criterion_for(OperandType::TENSOR_INT32, none).tol.atol == 1.0);
  CHECK(criterion_for(OperandType::INT32, none).tol.atol == 1.0);
  CHECK(criterion_for(OperandType::TENSOR_BOOL8, none).kind == compare_kind::boolean);
  CHECK(criterion_for(OperandType::FLOAT32, none).kind == compare_kind::not_comparable);
  CHECK(criterion_for(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, none).kind == compare_kind::not_comparable);
}

TEST_CASE("compare: float32 boundary exactly at atol + rtol*|e| passes, one ulp beyond fails") {
  const compare_flags none;
  check_float32_boundary(0.0f, none);                // atol alone
  check_float32_boundary(std::ldexp(1.0f, -16), none);  // atol + rtol*|e|, exact in float
  check_float32_boundary(-std::ldexp(1.0f, -16), none);
}

TEST_CASE("compare: relaxed float32 uses the float16 tolerance") {
  compare_flags relaxed;
  relaxed.isRelaxed = true;
  const auto c = criterion_for(OperandType::TENSOR_FLOAT32, relaxed);
  CHECK(c.tol.atol == float16_tol);
  CHECK(c.tol.rtol == float16_tol);
  check_float32_boundary(1.0f, relaxed);
  check_float32_boundary(0.0f, relaxed);
  // A difference the strict rule rejects passes when relaxed.
  const auto exp = make_expected(OperandType::TENSOR_FLOAT32, {1}, bytes_of<float>({1.0f}));
  CHECK_FALSE(cmp(exp, bytes_of<float>({1.001f})).ok);
  CHECK(cmp(exp, bytes_of<float>({1.001f}), relaxed).ok);
}

TEST_CASE("compare: float32 output of a model with a TENSOR_FLOAT16 operand uses the float16 tolerance") {
  compare_flags f16;
  f16.hasFloat16Operand = true;
  check_float32_boundary(1.0f, f16);
  // flags_for() finds a TENSOR_FLOAT16 operand in a referenced subgraph too.
  test_model tm;
  tm.model.referenced.emplace_back();
  tm.model.referenced[0].operands.emplace_back();
  tm.model.referenced[0].operands[0].type = OperandType::TENSOR_FLOAT16;
  CHECK(flags_for(tm).hasFloat16Operand);
  tm.model.referenced[0].operands[0].type = OperandType::FLOAT16;  // scalars do not count
  CHECK_FALSE(flags_for(tm).hasFloat16Operand);
}

TEST_CASE("compare: TENSOR_FLOAT16 boundary") {
  using nnhal::types::to_float16;
  const std::uint16_t e = to_float16(1.0f).bits;
  const std::uint16_t at = to_float16(1.009765625f).bits;  // 1 + 10 * 2^-10 = atol + rtol*1
  REQUIRE(nnhal::types::to_float(nnhal::types::float16{at}) == 1.009765625f);
  const auto exp = make_expected(OperandType::TENSOR_FLOAT16, {1}, bytes_of<std::uint16_t>({e}));
  CHECK(cmp(exp, bytes_of<std::uint16_t>({at})).ok);
  CHECK_FALSE(cmp(exp, bytes_of<std::uint16_t>({static_cast<std::uint16_t>(at + 1)})).ok);
}

TEST_CASE("compare: int32 tolerance 1") {
  for (auto type : {OperandType::TENSOR_INT32, OperandType::INT32}) {
    const auto exp = make_expected(type, type == OperandType::INT32 ? std::vector<std::uint32_t>{} : std::vector<std::uint32_t>{2},
                                   type == OperandType::INT32 ? bytes_of<std::int32_t>({5}) : bytes_of<std::int32_t>({5, -7}));
    if (type == OperandType::INT32) {
      CHECK(cmp(exp, bytes_of<std::int32_t>({6})).ok);
      CHECK(cmp(exp, bytes_of<std::int32_t>({4})).ok);
      CHECK_FALSE(cmp(exp, bytes_of<std::int32_t>({7})).ok);
      CHECK_FALSE(cmp(exp, bytes_of<std::int32_t>({3})).ok);
    } else {
      CHECK(cmp(exp, bytes_of<std::int32_t>({6, -8})).ok);
      CHECK_FALSE(cmp(exp, bytes_of<std::int32_t>({5, -9})).ok);
    }
  }
}

TEST_CASE("compare: quant8 tolerance 1, or 3 for mobilenet") {
  compare_flags mobilenet;
  mobilenet.isMobilenet = true;
  {
    const auto exp = make_expected(OperandType::TENSOR_QUANT8_ASYMM, {1}, bytes_of<std::uint8_t>({100}));
    CHECK(cmp(exp, bytes_of<std::uint8_t>({101})).ok);
    CHECK(cmp(exp, bytes_of<std::uint8_t>({99})).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::uint8_t>({102})).ok);
    CHECK(cmp(exp, bytes_of<std::uint8_t>({103}), mobilenet).ok);
    CHECK(cmp(exp, bytes_of<std::uint8_t>({97}), mobilenet).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::uint8_t>({104}), mobilenet).ok);
  }
  for (auto type : {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, OperandType::TENSOR_QUANT8_SYMM}) {
    const auto exp = make_expected(type, {1}, bytes_of<std::int8_t>({-128}));
    CHECK(cmp(exp, bytes_of<std::int8_t>({-127})).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::int8_t>({-126})).ok);
    CHECK(cmp(exp, bytes_of<std::int8_t>({-125}), mobilenet).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::int8_t>({-124}), mobilenet).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::int8_t>({127})).ok);  // no wrap-around
  }
  test_model tm;
  tm.name = "mobilenet_224_gender_basic_fixed_relaxed";
  CHECK(flags_for(tm).isMobilenet);
  tm.name = "conv_quant8";
  CHECK_FALSE(flags_for(tm).isMobilenet);
}

TEST_CASE("compare: quant16 tolerance 1") {
  {
    const auto exp = make_expected(OperandType::TENSOR_QUANT16_SYMM, {2}, bytes_of<std::int16_t>({-300, 300}));
    CHECK(cmp(exp, bytes_of<std::int16_t>({-301, 301})).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::int16_t>({-302, 300})).ok);
  }
  {
    const auto exp = make_expected(OperandType::TENSOR_QUANT16_ASYMM, {1}, bytes_of<std::uint16_t>({65535}));
    CHECK(cmp(exp, bytes_of<std::uint16_t>({65534})).ok);
    CHECK_FALSE(cmp(exp, bytes_of<std::uint16_t>({65533})).ok);
  }
}

TEST_CASE("compare: bool8 is exact, any non-zero byte is true") {
  const auto exp = make_expected(OperandType::TENSOR_BOOL8, {3}, bytes_of<std::uint8_t>({1, 0, 1}));
  CHECK(cmp(exp, bytes_of<std::uint8_t>({1, 0, 1})).ok);
  CHECK(cmp(exp, bytes_of<std::uint8_t>({7, 0, 255})).ok);
  CHECK_FALSE(cmp(exp, bytes_of<std::uint8_t>({1, 2, 1})).ok);
  const auto r = cmp(exp, bytes_of<std::uint8_t>({0, 0, 1}));
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("element 0: expected true, actual false") != std::string::npos);
}

TEST_CASE("compare: isIgnored outputs are not checked, values nor dimensions") {
  auto exp = make_expected(OperandType::TENSOR_FLOAT32, {2}, bytes_of<float>({0.0f, 0.0f}));
  exp.isIgnored = true;
  const auto actual = bytes_of<float>({123.0f, std::numeric_limits<float>::quiet_NaN()});
  const std::vector<std::uint32_t> dims{7, 7};
  CHECK(compare_output(0, exp, std::as_bytes(std::span(actual)), dims, {}).ok);
}

TEST_CASE("compare: dimensions must equal exactly") {
  const auto exp = make_expected(OperandType::TENSOR_FLOAT32, {2, 1}, bytes_of<float>({1.0f, 2.0f}));
  const auto actual = bytes_of<float>({1.0f, 2.0f});
  for (const std::vector<std::uint32_t>& dims : {std::vector<std::uint32_t>{1, 2}, std::vector<std::uint32_t>{2},
                                                 std::vector<std::uint32_t>{2, 1, 1}, std::vector<std::uint32_t>{}}) {
    const auto r = compare_output(1, exp, std::as_bytes(std::span(actual)), dims, {});
    CHECK_FALSE(r.ok);
    CHECK(r.message.find("output 1: dimensions") != std::string::npos);
  }
  CHECK(compare_output(1, exp, std::as_bytes(std::span(actual)), std::vector<std::uint32_t>{2, 1}, {}).ok);
}

TEST_CASE("compare: NaN and unsupported types fail, messages name index, element, values, tolerance") {
  const auto exp = make_expected(OperandType::TENSOR_FLOAT32, {3}, bytes_of<float>({1.0f, 2.0f, 3.0f}));
  CHECK_FALSE(cmp(exp, bytes_of<float>({1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f})).ok);
  const auto r = cmp(exp, bytes_of<float>({1.0f, 2.5f, 3.0f}), {}, 2);
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("output 2 element 1: expected 2, actual 2.5") != std::string::npos);
  CHECK(r.message.find("tolerance 9.99999975e-06 + 5.96046448e-07*|e|") != std::string::npos);
  CHECK(r.message.find("1 of 3 elements differ") != std::string::npos);
  // Expected NaN never passes.
  const auto nan_exp = make_expected(OperandType::TENSOR_FLOAT32, {1}, bytes_of<float>({std::numeric_limits<float>::quiet_NaN()}));
  CHECK_FALSE(cmp(nan_exp, bytes_of<float>({std::numeric_limits<float>::quiet_NaN()})).ok);
  // FLOAT32 scalar: not comparable.
  const auto scalar = make_expected(OperandType::FLOAT32, {}, bytes_of<float>({1.0f}));
  CHECK_FALSE(cmp(scalar, bytes_of<float>({1.0f})).ok);
  // A buffer shorter than the expected data fails instead of reading past it.
  CHECK_FALSE(cmp(exp, bytes_of<float>({1.0f})).ok);
  // Zero-sized output: dims only.
  const auto empty = make_expected(OperandType::TENSOR_FLOAT32, {0, 3}, {});
  CHECK(cmp(empty, std::vector<std::uint8_t>(1)).ok);
}

TEST_CASE("compare_outputs: output shape count, all outputs") {
  test_model tm = load_one(file_json(add_model()));
  std::vector<std::vector<std::uint8_t>> buffers{tm.outputs[0].bytes, std::vector<std::uint8_t>(1)};
  std::vector<std::span<const std::byte>> actual;
  for (auto& b : buffers) actual.push_back(std::as_bytes(std::span(b)));
  std::vector<nnhal::types::OutputShape> shapes{{{2, 2}, true}, {{0}, true}};
  CHECK(compare_outputs(tm, actual, shapes).ok);
  CHECK_FALSE(compare_outputs(tm, actual, {shapes[0]}).ok);
  shapes[1].dimensions = {1};
  const auto r = compare_outputs(tm, actual, shapes);
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("output 1: dimensions [1], expected [0]") != std::string::npos);
}

TEST_CASE("compare: RANDOM_MULTINOMIAL distribution check") {
  const std::string ops = operand("TENSOR_FLOAT32", "[1,4]", "SUBGRAPH_INPUT", "float", "[0.0,0.0,0.0,0.0]") + "," +
                          operand("INT32", "[]", "CONSTANT_COPY", "int32_t", "[8]") + "," +
                          operand("TENSOR_INT32", "[2]", "CONSTANT_COPY", "int32_t", "[37,42]") + "," +
                          operand("TENSOR_INT32", "[1,8]", "SUBGRAPH_OUTPUT", "int32_t", "[0,0,0,0,0,0,0,0]");
  const test_model tm = load_one(file_json(model_json("random_multinomial", ops,
                                                      R"({"type":"RANDOM_MULTINOMIAL","inputs":[0,1,2],"outputs":[3]})",
                                                      "[0]", "[3]", "[]", R"("expectFailure":false,"isRelaxed":false)",
                                                      "0.025")));
  CHECK(tm.expectedMultinomialDistributionTolerance == 0.025f);
  auto run = [&](std::initializer_list<std::int32_t> v) {
    const auto b = bytes_of<std::int32_t>(v);
    return check_multinomial(tm, std::as_bytes(std::span(b)));
  };
  CHECK(run({0, 1, 2, 3, 3, 2, 1, 0}).ok);  // 2/8 each = softmax 0.25
  CHECK_FALSE(run({0, 0, 0, 0, 0, 0, 0, 0}).ok);
  CHECK_FALSE(run({0, 1, 2, 3, 3, 2, 1, 1}).ok);  // 0.125 vs 0.25
  const auto bad = run({0, 1, 2, 3, 4, 2, 1, 0});
  CHECK_FALSE(bad.ok);
  CHECK(bad.message.find("class index 4 out of range") != std::string::npos);
  // compare_outputs uses the distribution check instead of the values, and ignores the shapes.
  const auto b = bytes_of<std::int32_t>({3, 1, 2, 0, 3, 2, 1, 0});
  CHECK(compare_outputs(tm, {std::as_bytes(std::span(b))}, {}).ok);
}

// =================================================================================
// Loader.

TEST_CASE("loader: a good model round-trips into HAL types") {
  const test_model tm = load_one(file_json(add_model()));
  CHECK(tm.file == "t.json");
  CHECK(tm.name == "add");
  CHECK_FALSE(tm.expectFailure);
  CHECK_FALSE(tm.isRelaxed);
  CHECK(tm.minSupportedVersion == nnhal::types::HalVersion::V1_0);
  CHECK(tm.expectedMultinomialDistributionTolerance == 0.0f);
  const auto& m = tm.model;
  REQUIRE(m.main.operands.size() == 6);
  REQUIRE(m.main.operations.size() == 2);
  CHECK(m.main.operations[0].type == OperationType::ADD);
  CHECK(m.main.operations[1].inputs == std::vector<std::uint32_t>{4, 4, 2});
  CHECK(m.main.inputIndexes == std::vector<std::uint32_t>{0, 1});
  CHECK(m.main.outputIndexes == std::vector<std::uint32_t>{3, 5});
  CHECK(m.referenced.empty());
  CHECK_FALSE(m.relaxComputationFloat32toFloat16);

  const auto& in0 = m.main.operands[0];
  CHECK(in0.type == OperandType::TENSOR_FLOAT32);
  CHECK(in0.dimensions == std::vector<std::uint32_t>{2, 2});
  CHECK(in0.lifetime == OperandLifeTime::SUBGRAPH_INPUT);
  CHECK(in0.location.length == 0);
  CHECK(in0.numberOfConsumers == 1);

  const auto& act = m.main.operands[2];
  CHECK(act.lifetime == OperandLifeTime::CONSTANT_COPY);
  CHECK(act.location.length == 4);
  CHECK(act.location.offset % 8 == 0);
  CHECK(read_at<std::int32_t>(m.operandValues, act.location.offset) == 0);

  const auto& ref = m.main.operands[4];
  CHECK(ref.lifetime == OperandLifeTime::CONSTANT_REFERENCE);
  REQUIRE(m.pools.size() == 1);
  CHECK(ref.location.poolIndex == 0);
  CHECK(ref.location.length == 12);
  CHECK(ref.location.offset % 8 == 0);
  REQUIRE(ref.location.offset + 12 <= m.pools[0].size);
  float vals[3];
  std::memcpy(vals, m.pools[0].data + ref.location.offset, 12);
  CHECK(vals[0] == 0.5f);
  CHECK(std::isinf(vals[1]));
  CHECK(vals[1] > 0);
  CHECK(std::isinf(vals[2]));
  CHECK(vals[2] < 0);
  CHECK(reinterpret_cast<std::uintptr_t>(m.pools[0].data) % 8 == 0);

  REQUIRE(tm.inputs.size() == 2);
  CHECK_FALSE(tm.inputs[0].omitted);
  CHECK(tm.inputs[0].bytes.size() == 16);
  CHECK(read_at<float>(tm.inputs[0].bytes, 4) == 2.0f);
  CHECK(tm.inputs[1].omitted);  // empty data: omitted optional input
  CHECK(tm.inputs[1].dimensions == std::vector<std::uint32_t>{2, 2});

  REQUIRE(tm.outputs.size() == 2);
  CHECK(tm.outputs[0].type == OperandType::TENSOR_FLOAT32);
  CHECK(tm.outputs[0].dimensions == std::vector<std::uint32_t>{2, 2});
  CHECK(read_at<float>(tm.outputs[0].bytes, 8) == 8.0f);
  CHECK(tm.outputs[1].bytes.empty());
  CHECK(tm.outputs[1].dimensions == std::vector<std::uint32_t>{0});

  CHECK(operation_names(m) == std::vector<std::string>{"ADD"});
  CHECK(operand_type_names(m) == std::vector<std::string>{"INT32", "TENSOR_FLOAT32"});
}

TEST_CASE("loader: the sign of -0.0 is kept, in float32 and float16") {
  const test_model tm = load_one(file_json(add_model()));
  const float in3 = read_at<float>(tm.inputs[0].bytes, 12);
  CHECK(in3 == 0.0f);
  CHECK(std::signbit(in3));
  CHECK(std::signbit(read_at<float>(tm.outputs[0].bytes, 12)));

  const std::string ops = operand("TENSOR_FLOAT16", "[4]", "SUBGRAPH_INPUT", "_Float16", "[-0.0,0.0,0.1,65504.0]") + "," +
                          operand("TENSOR_FLOAT16", "[1]", "SUBGRAPH_OUTPUT", "_Float16", "[\"nan\"]");
  const test_model h = load_one(file_json(model_json("f16", ops, R"({"type":"ABS","inputs":[0],"outputs":[1]})", "[0]", "[1]")));
  CHECK(read_at<std::uint16_t>(h.inputs[0].bytes, 0) == 0x8000);
  CHECK(read_at<std::uint16_t>(h.inputs[0].bytes, 2) == 0x0000);
  CHECK(read_at<std::uint16_t>(h.inputs[0].bytes, 4) == nnhal::types::to_float16(static_cast<float>(0.1)).bits);
  CHECK(read_at<std::uint16_t>(h.inputs[0].bytes, 6) == 0x7BFF);
  CHECK(std::isnan(nnhal::types::to_float(nnhal::types::float16{read_at<std::uint16_t>(h.outputs[0].bytes, 0)})));
}

TEST_CASE("loader: every element type, range-checked") {
  const std::string ops =
      operand("TENSOR_QUANT8_ASYMM", "[2]", "SUBGRAPH_INPUT", "uint8_t", "[0,255]") + "," +
      operand("TENSOR_QUANT8_ASYMM_SIGNED", "[2]", "CONSTANT_COPY", "int8_t", "[-128,127]") + "," +
      operand("TENSOR_QUANT16_SYMM", "[2]", "CONSTANT_COPY", "int16_t", "[-32768,32767]") + "," +
      operand("TENSOR_QUANT16_ASYMM", "[2]", "CONSTANT_COPY", "uint16_t", "[0,65535]") + "," +
      operand("UINT32", "[]", "CONSTANT_COPY", "uint32_t", "[4294967295]") + "," +
      operand("BOOL", "[]", "CONSTANT_COPY", "bool8", "[true]") + "," +
      operand("TENSOR_BOOL8", "[2]", "SUBGRAPH_OUTPUT", "bool8", "[false,true]") + "," +
      operand("TENSOR_INT32", "[1]", "CONSTANT_COPY", "int32_t", "[-2147483648]") + "," +
      operand("TENSOR_QUANT8_SYMM_PER_CHANNEL", "[2,1]", "CONSTANT_COPY", "int8_t", "[-127,127]",
              R"(,"channelQuant":{"scales":[0.5,0.25],"channelDim":0})");
  // (the duplicate "channelQuant" key: the last one wins, as in nlohmann::json)
  const test_model tm = load_one(file_json(model_json(
      "types", ops, R"({"type":"CAST","inputs":[0,1,2,3,4,5,7,8],"outputs":[6]})", "[0]", "[6]")));
  const auto& m = tm.model;
  CHECK(tm.inputs[0].bytes == std::vector<std::uint8_t>{0, 255});
  auto value_bytes = [&](std::size_t i) {
    const auto& loc = m.main.operands[i].location;
    return std::vector<std::uint8_t>(m.operandValues.begin() + loc.offset, m.operandValues.begin() + loc.offset + loc.length);
  };
  CHECK(value_bytes(1) == std::vector<std::uint8_t>{0x80, 0x7F});
  CHECK(value_bytes(2) == bytes_of<std::int16_t>({-32768, 32767}));
  CHECK(value_bytes(3) == bytes_of<std::uint16_t>({0, 65535}));
  CHECK(value_bytes(4) == bytes_of<std::uint32_t>({4294967295u}));
  CHECK(value_bytes(5) == std::vector<std::uint8_t>{1});
  CHECK(tm.outputs[0].bytes == std::vector<std::uint8_t>{0, 1});
  CHECK(value_bytes(7) == bytes_of<std::int32_t>({INT32_MIN}));
  for (std::size_t i = 1; i <= 8; ++i)
    if (m.main.operands[i].lifetime == OperandLifeTime::CONSTANT_COPY) CHECK(m.main.operands[i].location.offset % 8 == 0);
  const auto* pc = std::get_if<nnhal::types::SymmPerChannelQuantParams>(&m.main.operands[8].extraParams);
  REQUIRE(pc != nullptr);
  CHECK(pc->scales == std::vector<float>{0.5f, 0.25f});
  CHECK(pc->channelDim == 0);
  // numberOfConsumers is taken from the file.
  CHECK(m.main.operands[0].numberOfConsumers == 1);
}

TEST_CASE("loader: control flow: SUBGRAPH operands and referenced subgraphs") {
  const std::string cond = R"({"name":"cond","operands":[)" +
                           operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_INPUT", "float", "[]") + "," +
                           operand("TENSOR_FLOAT32", "[1]", "CONSTANT_REFERENCE", "float", "[10.0]") + "," +
                           operand("TENSOR_BOOL8", "[1]", "SUBGRAPH_OUTPUT", "bool8", "[]") +
                           R"(],"operations":[{"type":"LESS","inputs":[0,1],"outputs":[2]}],"inputIndexes":[0],"outputIndexes":[2]})";
  const std::string body = R"({"name":"body","operands":[)" +
                           operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_INPUT", "float", "[]") + "," +
                           operand("TENSOR_FLOAT32", "[1]", "CONSTANT_COPY", "float", "[1.0]") + "," +
                           operand("INT32", "[]", "CONSTANT_COPY", "int32_t", "[0]") + "," +
                           operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_OUTPUT", "float", "[]") +
                           R"(],"operations":[{"type":"ADD","inputs":[0,1,2],"outputs":[3]}],"inputIndexes":[0],"outputIndexes":[3]})";
  const std::string ops = operand("SUBGRAPH", "[]", "SUBGRAPH", "uint32_t", "[0]") + "," +
                          operand("SUBGRAPH", "[]", "SUBGRAPH", "uint32_t", "[1]") + "," +
                          operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_INPUT", "float", "[1.0]") + "," +
                          operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_OUTPUT", "float", "[10.0]");
  const test_model tm = load_one(file_json(model_json(
      "while_loop", ops, R"({"type":"WHILE","inputs":[0,1,2],"outputs":[3]})", "[2]", "[3]", "[" + cond + "," + body + "]")));
  const auto& m = tm.model;
  REQUIRE(m.referenced.size() == 2);
  CHECK(m.main.operands[0].location.offset == 0);
  CHECK(m.main.operands[1].location.offset == 1);
  CHECK(m.main.operands[1].location.length == 0);
  CHECK(m.referenced[0].operations[0].type == OperationType::LESS);
  CHECK(m.referenced[0].operands[0].location.length == 0);
  REQUIRE(m.pools.size() == 1);
  const auto& c = m.referenced[0].operands[1];
  CHECK(c.lifetime == OperandLifeTime::CONSTANT_REFERENCE);
  float ten = 0;
  std::memcpy(&ten, m.pools[0].data + c.location.offset, 4);
  CHECK(ten == 10.0f);
  const auto& one = m.referenced[1].operands[1];
  CHECK(read_at<float>(m.operandValues, one.location.offset) == 1.0f);
  CHECK(one.location.offset % 8 == 0);
  CHECK(operation_names(m) == std::vector<std::string>{"ADD", "LESS", "WHILE"});
  CHECK(operand_type_names(m) == std::vector<std::string>{"INT32", "SUBGRAPH", "TENSOR_BOOL8", "TENSOR_FLOAT32"});
  CHECK(has_operation(m, OperationType::LESS));
  CHECK_FALSE(dynamic_output_shape_eligible(tm));
}

TEST_CASE("loader: make_request") {
  const test_model tm = load_one(file_json(add_model()));
  const request_buffers rb = make_request(tm);
  const auto& r = rb.request;
  REQUIRE(r.inputs.size() == 2);
  REQUIRE(r.outputs.size() == 2);
  REQUIRE(rb.outputs.size() == 2);
  CHECK_FALSE(r.inputs[0].hasNoValue);
  CHECK(r.inputs[0].location.length == 16);
  const auto& pool0 = std::get<nnhal::types::Memory>(r.pools[r.inputs[0].location.poolIndex]);
  CHECK(std::memcmp(pool0.data, tm.inputs[0].bytes.data(), 16) == 0);
  CHECK(r.inputs[1].hasNoValue);
  CHECK(r.inputs[1].location.poolIndex == 0);
  CHECK(r.inputs[1].location.length == 0);
  CHECK(r.inputs[1].dimensions.empty());
  CHECK(r.outputs[0].location.length == 16);
  CHECK(r.outputs[1].location.length == 1);  // zero-sized output: still a 1-byte buffer
  const auto& out1 = std::get<nnhal::types::Memory>(r.pools[r.outputs[1].location.poolIndex]);
  CHECK(out1.size >= 1);
  CHECK(out1.data == rb.outputs[1].data);
  CHECK(r.pools.size() == 3);
}

TEST_CASE("loader: malformed input gives an error naming file, model and field") {
  const std::string good = file_json(add_model());
  auto replaced = [&](const std::string& from, const std::string& to) { return replace_first(good, from, to); };

  CHECK(load_error(replaced("[4.0,6.0,8.0,-0.0]", "[4.0,6.0,8.0]")) ==
        "t.json: model \"add\": main.operands[3].data: expected 4 values, got 3");
  CHECK(load_error("{\"format\": ") .find("t.json: not valid JSON") == 0);
  CHECK(load_error("").find("t.json: not valid JSON") == 0);
  CHECK(load_error("[]") == "t.json: (top level): expected an object, got an array");
  CHECK(load_error(replaced("nnhal-cts-json/1", "other/2")) ==
        "t.json: format: expected \"nnhal-cts-json/1\", got \"other/2\"");
  CHECK(load_error(R"({"format":"nnhal-cts-json/1","models":{}})") == "t.json: models: expected an array, got an object");
  CHECK(load_error(R"({"format":"nnhal-cts-json/1"})") == "t.json: models: missing");
  CHECK(load_error(file_json("null")) == "t.json: model \"models[0]\": expected an object, got null");
  CHECK(load_error(replaced("\"name\":\"add\"", "\"name\":5")) == "t.json: model \"models[0]\": name: expected a string, got 5");
  CHECK(load_error(replaced("\"minSupportedVersion\":\"V1_0\"", "\"minSupportedVersion\":\"V9\"")) ==
        "t.json: model \"add\": minSupportedVersion: unknown HAL version \"V9\"");
  CHECK(load_error(replaced("\"expectFailure\":false", "\"expectFailure\":0")) ==
        "t.json: model \"add\": expectFailure: expected true or false, got 0");
  CHECK(load_error(replaced("\"type\":\"INT32\"", "\"type\":\"INT33\"")) ==
        "t.json: model \"add\": main.operands[2].type: unknown operand type \"INT33\"");
  CHECK(load_error(replaced("\"type\":\"INT32\"", "\"type\":1")) ==
        "t.json: model \"add\": main.operands[2].type: expected a string, got 1");
  CHECK(load_error(replaced("\"lifetime\":\"CONSTANT_COPY\"", "\"lifetime\":\"POINTER\"")) ==
        "t.json: model \"add\": main.operands[2].lifetime: unknown lifetime \"POINTER\"");
  CHECK(load_error(replaced("{\"type\":\"ADD\",\"inputs\":[0,1,2]", "{\"type\":\"ADDD\",\"inputs\":[0,1,2]")) ==
        "t.json: model \"add\": main.operations[0].type: unknown operation type \"ADDD\"");
  CHECK(load_error(replaced("\"inputs\":[0,1,2]", "\"inputs\":[0,1,6]")) ==
        "t.json: model \"add\": main.operations[0].inputs[2]: operand index 6 out of range (6 operands)");
  CHECK(load_error(replaced("\"inputIndexes\":[0,1]", "\"inputIndexes\":[0,-1]")) ==
        "t.json: model \"add\": main.inputIndexes[1]: value -1 out of range [0, 4294967295]");
  CHECK(load_error(replaced("\"inputIndexes\":[0,1]", "\"inputIndexes\":[0,2]")) ==
        "t.json: model \"add\": main.inputIndexes[1]: operand 2 has lifetime CONSTANT_COPY, expected SUBGRAPH_INPUT");
  CHECK(load_error(replaced("\"dimensions\":[2,2]", "\"dimensions\":[2,2.0]")) ==
        "t.json: model \"add\": main.operands[0].dimensions[1]: expected an integer, got 2.0");
  CHECK(load_error(replaced("\"dimensions\":[2,2]", "\"dimensions\":[2,4294967296]")) ==
        "t.json: model \"add\": main.operands[0].dimensions[1]: value 4294967296 out of range [0, 4294967295]");
  // Huge dims: the element count overflows 64 bits, or the tensor exceeds 4 GiB.
  CHECK(load_error(replaced("\"dimensions\":[2,2]", "\"dimensions\":[4294967295,4294967295,4294967295]")) ==
        "t.json: model \"add\": main.operands[0].dimensions: element count overflows");
  CHECK(load_error(replaced("\"dimensions\":[2,2]", "\"dimensions\":[65536,65536]")) ==
        "t.json: model \"add\": main.operands[0].dimensions: tensor of 4294967296 elements is too large");
  CHECK(load_error(replaced("\"dimensions\":[2,2]", "\"dimensions\":[2,3]")) ==
        "t.json: model \"add\": main.operands[0].data: expected 6 values, got 4");
  CHECK(load_error(replaced("[1.0,2.0,3.0,-0.0]", "[1.0,2.0,\"x\",-0.0]")) ==
        "t.json: model \"add\": main.operands[0].data[2]: expected a number or \"inf\", \"-inf\", \"nan\", got \"x\"");
  CHECK(load_error(replaced("[1.0,2.0,3.0,-0.0]", "[1.0,2.0,1e39,-0.0]")).find("main.operands[0].data[2]: value") !=
        std::string::npos);
  CHECK(load_error(replaced("[1.0,2.0,3.0,-0.0]", "[1.0,2.0,true,-0.0]")) ==
        "t.json: model \"add\": main.operands[0].data[2]: expected a number or \"inf\", \"-inf\", \"nan\", got true");
  CHECK(load_error(replaced("\"int32_t\",\"data\":[0]", "\"int32_t\",\"data\":[0.5]")) ==
        "t.json: model \"add\": main.operands[2].data[0]: expected an integer, got 0.5");
  CHECK(load_error(replaced("\"int32_t\",\"data\":[0]", "\"int32_t\",\"data\":[2147483648]")) ==
        "t.json: model \"add\": main.operands[2].data[0]: value 2147483648 out of range [-2147483648, 2147483647]");
  CHECK(load_error(replaced("\"int32_t\",\"data\":[0]", "\"float\",\"data\":[0]")) ==
        "t.json: model \"add\": main.operands[2].dataType: \"float\" does not match operand type INT32 (expected \"int32_t\")");
  CHECK(load_error(replaced("\"scale\":0.0", "\"scale\":\"big\"")).find("main.operands[0].scale: expected a number") !=
        std::string::npos);
  CHECK(load_error(replaced("\"channelQuant\":null", "\"channelQuant\":[1]")) ==
        "t.json: model \"add\": main.operands[0].channelQuant: expected an object, got an array");
  CHECK(load_error(replaced(",\"data\":[0]", "")) == "t.json: model \"add\": main.operands[2].data: missing");
  CHECK(load_error(replaced("\"data\":[0]", "\"data\":0")) == "t.json: model \"add\": main.operands[2].data: expected an array, got 0");
  CHECK(load_error(replaced("\"int32_t\",\"data\":[0]", "\"int32_t\",\"data\":[]")) ==
        "t.json: model \"add\": main.operands[2].data: expected 1 value, got 0");
  CHECK(load_error(replaced("[4.0,6.0,8.0,-0.0]", "[]")) == "t.json: model \"add\": main.operands[3].data: expected 4 values, got 0");
  CHECK(load_error(replaced("\"referenced\":[]", "\"referenced\":{}")) ==
        "t.json: model \"add\": referenced: expected an array, got an object");
  CHECK(load_error(replaced("\"main\":{", "\"mainx\":{")) == "t.json: model \"add\": main: missing");
  {
    // A temporary carrying data, a referenced input carrying data, a bad subgraph index.
    const std::string ops = operand("SUBGRAPH", "[]", "SUBGRAPH", "uint32_t", "[1]") + "," +
                            operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_INPUT", "float", "[1.0]") + "," +
                            operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_OUTPUT", "float", "[1.0]");
    const std::string ref = R"({"name":"g","operands":[)" + operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_INPUT", "float", "[]") +
                            "," + operand("TENSOR_FLOAT32", "[1]", "SUBGRAPH_OUTPUT", "float", "[]") +
                            R"(],"operations":[],"inputIndexes":[0],"outputIndexes":[1]})";
    const std::string m = model_json("cf", ops, R"({"type":"IF","inputs":[0,1],"outputs":[2]})", "[1]", "[2]", "[" + ref + "]");
    CHECK(load_error(file_json(m)) == "t.json: model \"cf\": main.operands[0].data[0]: subgraph index 1 out of range (1 referenced subgraph)");
    std::string m2 = replace_first(m, "\"float\",\"data\":[]", "\"float\",\"data\":[2.0]");
    m2 = replace_first(m2, "uint32_t\",\"data\":[1]", "uint32_t\",\"data\":[0]");
    CHECK(load_error(file_json(m2)) ==
          "t.json: model \"cf\": referenced[0].operands[0].data: a SUBGRAPH_INPUT operand of a referenced subgraph carries no data");
    std::string m3 = replace_first(m, "\"SUBGRAPH\",\"isIgnored\"", "\"TEMPORARY_VARIABLE\",\"isIgnored\"");
    m3 = replace_first(m3, "\"type\":\"SUBGRAPH\"", "\"type\":\"UINT32\"");
    CHECK(load_error(file_json(m3)) == "t.json: model \"cf\": main.operands[0].data: a TEMPORARY_VARIABLE operand carries no data");
  }
  // Out-of-range element values per type.
  {
    const std::string q8 = operand("TENSOR_QUANT8_ASYMM", "[1]", "SUBGRAPH_INPUT", "uint8_t", "[256]") + "," +
                           operand("TENSOR_QUANT8_ASYMM", "[1]", "SUBGRAPH_OUTPUT", "uint8_t", "[0]");
    CHECK(load_error(file_json(model_json("q", q8, R"({"type":"RELU","inputs":[0],"outputs":[1]})", "[0]", "[1]"))) ==
          "t.json: model \"q\": main.operands[0].data[0]: value 256 out of range [0, 255]");
    const std::string s8 = operand("TENSOR_QUANT8_ASYMM_SIGNED", "[1]", "SUBGRAPH_INPUT", "int8_t", "[-129]") + "," +
                           operand("TENSOR_QUANT8_ASYMM_SIGNED", "[1]", "SUBGRAPH_OUTPUT", "int8_t", "[0]");
    CHECK(load_error(file_json(model_json("s", s8, R"({"type":"RELU","inputs":[0],"outputs":[1]})", "[0]", "[1]"))) ==
          "t.json: model \"s\": main.operands[0].data[0]: value -129 out of range [-128, 127]");
    const std::string b8 = operand("TENSOR_BOOL8", "[1]", "SUBGRAPH_INPUT", "bool8", "[1]") + "," +
                           operand("TENSOR_BOOL8", "[1]", "SUBGRAPH_OUTPUT", "bool8", "[true]");
    CHECK(load_error(file_json(model_json("b", b8, R"({"type":"LOGICAL_NOT","inputs":[0],"outputs":[1]})", "[0]", "[1]"))) ==
          "t.json: model \"b\": main.operands[0].data[0]: expected true or false, got 1");
    const std::string h = operand("TENSOR_FLOAT16", "[1]", "SUBGRAPH_INPUT", "_Float16", "[70000.0]") + "," +
                          operand("TENSOR_FLOAT16", "[1]", "SUBGRAPH_OUTPUT", "_Float16", "[0.0]");
    CHECK(load_error(file_json(model_json("h", h, R"({"type":"ABS","inputs":[0],"outputs":[1]})", "[0]", "[1]"))) ==
          "t.json: model \"h\": main.operands[0].data[0]: value 70000.0 out of float16 range");
  }
}

TEST_CASE("loader: one malformed model does not spoil the others (lenient entries)") {
  const std::string bad = replace_first(add_model("bad"), "\"type\":\"INT32\"", "\"type\":\"NOPE\"");
  auto cf = parse_corpus_entries(file_json(add_model("first") + "," + bad + "," + add_model("third")), "t.json");
  REQUIRE(cf.ok());
  REQUIRE(cf->entries.size() == 3);
  CHECK(cf->entries[0].model.has_value());
  CHECK_FALSE(cf->entries[1].model.has_value());
  CHECK(cf->entries[1].name == "bad");
  CHECK(cf->entries[1].error == "t.json: model \"bad\": main.operands[2].type: unknown operand type \"NOPE\"");
  CHECK(cf->entries[2].model.has_value());
  CHECK(cf->spec == "t");
}

TEST_CASE("loader: truncated or corrupted input never crashes") {
  const std::string good = file_json(add_model());
  REQUIRE(parse_corpus(good, "t.json").ok());
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto r = parse_corpus(std::string_view(good).substr(0, n), "t.json");
    CHECK_FALSE(r.ok());
  }
  std::mt19937 rng(1234);
  const std::string alphabet = "{}[],:\"0123456789.-eE truefalsnul";
  int failures = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) s[rng() % s.size()] = alphabet[rng() % alphabet.size()];
    auto r = parse_corpus(s, "t.json");
    if (!r) {
      ++failures;
      CHECK(r.err().message.rfind("t.json: ", 0) == 0);
    }
  }
  CHECK(failures > 0);
}

TEST_CASE("load_corpus: a missing file is an error naming it") {
  auto r = load_corpus("/nonexistent/dir/x.json", "x.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.err().message.rfind("x.json: cannot open", 0) == 0);
}

// =================================================================================
// Variants.

TEST_CASE("variants: dynamic output shapes keep the rank, zero every extent") {
  const test_model tm = load_one(file_json(add_model()));
  REQUIRE(dynamic_output_shape_eligible(tm));
  const auto v = dynamic_output_shape_variant(tm);
  REQUIRE(v.has_value());
  CHECK(v->variant == "dynamic-output-shape");
  CHECK(v->model.main.operands[3].dimensions == std::vector<std::uint32_t>{0, 0});
  CHECK(v->model.main.operands[5].dimensions == std::vector<std::uint32_t>{0});
  CHECK(v->model.main.operands[0].dimensions == std::vector<std::uint32_t>{2, 2});  // inputs unchanged
  CHECK(v->outputs[0].dimensions == std::vector<std::uint32_t>{2, 2});              // expectations unchanged
  CHECK(tm.model.main.operands[3].dimensions == std::vector<std::uint32_t>{2, 2});  // original untouched

  test_model failing = tm;
  failing.expectFailure = true;
  CHECK_FALSE(dynamic_output_shape_variant(failing).has_value());
  for (auto op : {OperationType::RANK, OperationType::IF, OperationType::WHILE}) {
    test_model t = tm;
    t.model.main.operations[1].type = op;
    CHECK_FALSE(dynamic_output_shape_eligible(t));
  }
}

TEST_CASE("variants: quantisation coupling") {
  const std::string ops = operand("TENSOR_QUANT8_ASYMM", "[2]", "SUBGRAPH_INPUT", "uint8_t", "[0,255]",
                                  R"(,"scale":0.5,"zeroPoint":128)") + "," +
                          operand("TENSOR_QUANT8_ASYMM", "[2]", "CONSTANT_REFERENCE", "uint8_t", "[1,130]") + "," +
                          operand("INT32", "[]", "CONSTANT_COPY", "int32_t", "[0]") + "," +
                          operand("TENSOR_QUANT8_ASYMM", "[2]", "SUBGRAPH_OUTPUT", "uint8_t", "[128,200]",
                                  R"(,"zeroPoint":100)");
  // The extra "scale"/"zeroPoint" keys come after the defaults, so they win.
  const test_model tm = load_one(file_json(model_json("add_quant8", ops, R"({"type":"ADD","inputs":[0,1,2],"outputs":[3]})",
                                                      "[0]", "[3]")));
  REQUIRE(tm.model.main.operands[0].zeroPoint == 128);
  REQUIRE(quant_coupling_eligible(tm));
  const auto v = quant_coupling_variant(tm);
  REQUIRE(v.has_value());
  CHECK(v->variant == "quant-coupling");
  const auto& o = v->model.main.operands;
  CHECK(o[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK(o[0].zeroPoint == 0);
  CHECK(o[0].scale == 0.5f);
  CHECK(o[3].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK(o[3].zeroPoint == -28);
  CHECK(o[2].type == OperandType::INT32);
  CHECK(v->inputs[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK(v->inputs[0].bytes == std::vector<std::uint8_t>{0x80, 0x7F});  // -128, 127
  CHECK(v->outputs[0].type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK(v->outputs[0].zeroPoint == -28);
  CHECK(v->outputs[0].bytes == std::vector<std::uint8_t>{0x00, 0x48});  // 0, 72
  const auto& loc = o[1].location;
  std::int8_t c[2];
  std::memcpy(c, v->model.pools[0].data + loc.offset, 2);
  CHECK(c[0] == -127);
  CHECK(c[1] == 2);
  // The original model's shared pool is untouched.
  CHECK(tm.model.pools[0].data[loc.offset] == std::byte{1});
  CHECK(tm.model.main.operands[0].type == OperandType::TENSOR_QUANT8_ASYMM);

  // Not eligible: expectFailure, excluded operations, more than one operation, no quant8 operand.
  test_model t = tm;
  t.expectFailure = true;
  CHECK_FALSE(quant_coupling_eligible(t));
  for (auto op : {OperationType::HASHTABLE_LOOKUP, OperationType::LSH_PROJECTION, OperationType::PAD_V2, OperationType::CAST,
                  OperationType::QUANTIZED_16BIT_LSTM}) {
    t = tm;
    t.model.main.operations[0].type = op;
    CHECK_FALSE(quant_coupling_eligible(t));
  }
  t = tm;
  t.model.main.operations.push_back(t.model.main.operations[0]);
  CHECK_FALSE(quant_coupling_eligible(t));
  t = tm;
  t.model.referenced.emplace_back();
  CHECK_FALSE(quant_coupling_eligible(t));
  const test_model f = load_one(file_json(add_model()));
  CHECK_FALSE(quant_coupling_eligible(f));
  // The signed variant's expectations compare with the same tolerance.
  const auto exp = v->outputs[0];
  CHECK(compare_output(0, exp, std::as_bytes(std::span(exp.bytes)), exp.dimensions, flags_for(*v)).ok);
}
