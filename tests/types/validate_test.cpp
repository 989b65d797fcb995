// validate_model / validate_request: one test per rule. Each builds a valid model (or
// request), breaks one thing, and checks INVALID_ARGUMENT plus a message that names the
// culprit (the operand or operation index and the rule).
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "nnhal/types/validate.hpp"
#include "support/model_builder.hpp"

using namespace nnhal::types;
using nnhal::test::graph_builder;
using nnhal::test::make_add_model;
using nnhal::test::make_request;
using nnhal::test::model_builder;

namespace {

using T = OperandType;
using L = OperandLifeTime;
using Op = OperationType;

/// Empty when `r` failed with INVALID_ARGUMENT and a message holding every fragment;
/// otherwise what went wrong (doctest prints it).
template <class R>
std::string invalid_mismatch(const R& r, std::initializer_list<std::string_view> fragments) {
  if (r.ok()) return "accepted";
  const std::string& msg = r.err().message;
  if (r.status() != ErrorStatus::INVALID_ARGUMENT)
    return str_cat("status ", r.status(), " (message \"", msg, "\")");
  for (auto f : fragments)
    if (msg.find(f) == std::string::npos) return str_cat("message \"", msg, "\" lacks \"", f, "\"");
  return {};
}

/// Passes when the message is empty; on failure shows the rejection message.
template <class R>
std::string error_of(const R& r) {
  return r.ok() ? std::string{} : str_cat(r.status(), ": ", r.err().message);
}

#define CHECK_INVALID(expr, ...) CHECK_EQ(invalid_mismatch((expr), {__VA_ARGS__}), std::string{})
#define CHECK_VALID(expr) CHECK_EQ(error_of(expr), std::string{})

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

// make_add_model() operand indexes: z = ADD(x, y, act).
constexpr std::uint32_t add_x = 0, add_y = 1, add_z = 2, add_act = 3;

/// The ADD model plus one unused model input (operand 4) carrying `type` and the given
/// quantization: valid exactly when that operand is.
Model add_model_with_input(T type, dims_t dims, float scale = 0.0f, std::int32_t zero_point = 0,
                           ExtraParams extra = {}) {
  Model m = make_add_model();
  Operand o = graph_builder::make(type, std::move(dims), scale, zero_point, L::SUBGRAPH_INPUT);
  o.extraParams = std::move(extra);
  m.main.operands.push_back(std::move(o));
  m.main.inputIndexes.push_back(4);
  return m;
}

/// t = ADD(x, y); z = ADD(t, x). Operands: 0 x, 1 y, 2 t, 3 z, 4 act.
Model make_chain_model() {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2, 2});
  const auto y = g.input(T::TENSOR_FLOAT32, {2, 2});
  const auto t = g.temporary(T::TENSOR_FLOAT32, {2, 2});
  const auto z = g.output(T::TENSOR_FLOAT32, {2, 2});
  const auto act = g.i32(0);
  g.op(Op::ADD, {x, y, act}, {t}).op(Op::ADD, {t, x, act}, {z});
  return b.build();
}

/// z = ADD(x, c, act), c a CONSTANT_COPY [2, 2] float. Operands: 0 x, 1 c, 2 z, 3 act.
Model make_add_const_model() {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2, 2});
  const auto c = g.constant(T::TENSOR_FLOAT32, {2, 2}, std::vector<float>{1, 2, 3, 4});
  const auto z = g.output(T::TENSOR_FLOAT32, {2, 2});
  g.op(Op::ADD, {x, c, g.i32(0)}, {z});
  return b.build();
}

/// z = ADD(x, c, act), c a CONSTANT_REFERENCE to all 16 bytes of model pool 0.
/// Operands: 0 x, 1 c, 2 z, 3 act.
Model make_add_reference_model() {
  model_builder b;
  auto g = b.main();
  const auto pool = b.pool(16);
  const auto x = g.input(T::TENSOR_FLOAT32, {2, 2});
  const auto c = g.reference(T::TENSOR_FLOAT32, {2, 2}, pool, 0, 16);
  const auto z = g.output(T::TENSOR_FLOAT32, {2, 2});
  g.op(Op::ADD, {x, c, g.i32(0)}, {z});
  return b.build();
}

/// y = RELU(x) in referenced[index], x and y of `type` [2].
void add_relu_branch(model_builder& b, std::size_t index, T type = T::TENSOR_FLOAT32) {
  auto g = b.referenced(index);
  const auto x = g.input(type, {2});
  const auto y = g.output(type, {2});
  g.op(Op::RELU, {x}, {y});
}

/// out = IF(cond, referenced[0], referenced[1], x), both branches y = RELU(x), the else
/// branch on `else_type`. Main operands: 0 cond (TENSOR_BOOL8 [1]), 1 x, 2 then, 3 else, 4 out.
void build_if_model(model_builder& b, T else_type = T::TENSOR_FLOAT32) {
  add_relu_branch(b, 0);
  add_relu_branch(b, 1, else_type);
  auto g = b.main();
  const auto cond = g.input(T::TENSOR_BOOL8, {1});
  const auto x = g.input(T::TENSOR_FLOAT32, {2});
  const auto then_ref = g.subgraph_ref(0);
  const auto else_ref = g.subgraph_ref(1);
  const auto out = g.output(T::TENSOR_FLOAT32, {2});
  g.op(Op::IF, {cond, then_ref, else_ref, x}, {out});
}

/// out = WHILE(referenced[0], referenced[1], x): condition x < 10, body y = x + 1;
/// x, y, out are TENSOR_FLOAT32 [1].
void build_while_model(model_builder& b) {
  auto cond = b.referenced(0);
  {
    const auto x = cond.input(T::TENSOR_FLOAT32, {1});
    const auto limit = cond.constant(T::TENSOR_FLOAT32, {1}, std::vector<float>{10.0f});
    const auto keep_going = cond.output(T::TENSOR_BOOL8, {1});
    cond.op(Op::LESS, {x, limit}, {keep_going});
  }
  auto body = b.referenced(1);
  {
    const auto x = body.input(T::TENSOR_FLOAT32, {1});
    const auto one = body.constant(T::TENSOR_FLOAT32, {1}, std::vector<float>{1.0f});
    const auto y = body.output(T::TENSOR_FLOAT32, {1});
    body.op(Op::ADD, {x, one, body.i32(0)}, {y});
  }
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {1});
  const auto cond_ref = g.subgraph_ref(0);
  const auto body_ref = g.subgraph_ref(1);
  const auto out = g.output(T::TENSOR_FLOAT32, {1});
  g.op(Op::WHILE, {cond_ref, body_ref, x}, {out});
}

}  // namespace

// --- positive ------------------------------------------------------------------

TEST_SUITE("validate_model") {

TEST_CASE("a valid float ADD model passes at HAL 1.0") {
  const Model m = make_add_model();
  const auto v = validate_model(m);
  CHECK_VALID(v);
  REQUIRE(v.ok());
  CHECK(*v == HalVersion::V1_0);
}

TEST_CASE("every signature row of ADD, SUB and MUL validates at its own version") {
  for (Op op : {Op::ADD, Op::SUB, Op::MUL}) {
    const op_entry* e = find_operation(op);
    REQUIRE(e != nullptr);
    for (const auto& row : e->rows) {
      const auto in = row.inputs.view();
      const auto out = row.outputs.view();
      REQUIRE(in.size() == 3);
      REQUIRE(out.size() == 1);
      auto quant = [](T t) { return is_quantized(t) ? 0.5f : 0.0f; };
      model_builder b;
      auto g = b.main();
      const auto x = g.input(in[0], {2, 2}, quant(in[0]));
      const auto y = g.input(in[1], {2, 2}, quant(in[1]));
      const auto z = g.output(out[0], {2, 2}, quant(out[0]));
      g.op(op, {x, y, g.i32(0)}, {z});
      const auto v = validate_model(b.build());
      CAPTURE(to_string(op));
      CAPTURE(to_string(in[0]));
      CHECK_VALID(v);
      if (v) CHECK(*v == row.since);
    }
  }
}

TEST_CASE("a chain of operations in execution order passes") {
  CHECK_VALID(validate_model(make_chain_model()));
}

TEST_CASE("CONSTANT_COPY and CONSTANT_REFERENCE operands pass") {
  CHECK_VALID(validate_model(make_add_const_model()));
  CHECK_VALID(validate_model(make_add_reference_model()));
}

TEST_CASE("each operand type family accepts its valid quantization") {
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_FLOAT16, {2})));
  CHECK_VALID(validate_model(add_model_with_input(T::FLOAT32, {})));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_INT32, {2}, 0.25f, 0)));  // a bias scale
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 255)));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, -128)));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM, {2}, 0.5f, 0)));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT16_SYMM, {2}, 0.5f, 0)));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT16_ASYMM, {2}, 0.5f, 65535)));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                  SymmPerChannelQuantParams{{0.5f, 0.25f, 1.0f}, 0})));
  CHECK_VALID(validate_model(add_model_with_input(T::TENSOR_BOOL8, {2})));
}

TEST_CASE("a per-channel DEQUANTIZE passes at HAL 1.2") {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 3});
  g.operand(x).extraParams = SymmPerChannelQuantParams{{0.5f, 0.25f, 2.0f}, 1};
  const auto y = g.output(T::TENSOR_FLOAT32, {2, 3});
  g.op(Op::DEQUANTIZE, {x}, {y});
  const auto v = validate_model(b.build());
  CHECK_VALID(v);
  if (v) CHECK(*v == HalVersion::V1_2);
}

// --- operand types -----------------------------------------------------------------

TEST_CASE("operand type 99 is not a HAL type") {
  Model m = make_add_model();
  m.main.operands[add_x].type = static_cast<T>(99);
  CHECK_INVALID(validate_model(m), "main operand 0", "operand type 99 is not a HAL operand type");
}

TEST_CASE("OEM operand types (10000, 10001) are rejected") {
  for (std::int32_t code : {OPERAND_TYPE_OEM_MIN, OPERAND_TYPE_OEM_MAX}) {
    Model m = make_add_model();
    m.main.operands[add_y].type = static_cast<T>(code);
    CHECK_INVALID(validate_model(m), "main operand 1", str_cat("operand type ", code, " is not a HAL operand type"));
  }
}

TEST_CASE("a negative operand type is an extension type (prefix 0xFFFF)") {
  Model m = make_add_model();
  m.main.operands[add_y].type = static_cast<T>(-1);
  CHECK_INVALID(validate_model(m), "main operand 1", "extension type prefix 65535 is not in extensionNameToPrefix");
}

TEST_CASE("extension operand type with an unknown prefix is rejected") {
  Model m = add_model_with_input(make_extension_type(5, 1), {2});
  CHECK_INVALID(validate_model(m), "main operand 4", "extension type prefix 5 is not in extensionNameToPrefix");
  m.extensionNameToPrefix.push_back({"com.example.ext", 6});
  CHECK_INVALID(validate_model(m), "main operand 4", "extension type prefix 5");
  m.extensionNameToPrefix.push_back({"com.example.other", 5});
  CHECK_VALID(validate_model(m));
}

TEST_CASE("extension operation and operand with a registered prefix pass at HAL 1.2") {
  model_builder b;
  b.extension("com.example.ext", 3);
  auto g = b.main();
  const auto x = g.input(make_extension_type(3, 1), {2});
  const auto y = g.output(make_extension_type(3, 1), {2});
  g.op(static_cast<Op>((3 << 16) | 7), {x}, {y});
  const auto v = validate_model(b.build());
  CHECK_VALID(v);
  if (v) CHECK(*v == HalVersion::V1_2);
}

TEST_CASE("a scalar operand with dimensions is rejected") {
  Model m = make_add_model();
  m.main.operands[add_act].dimensions = {1};
  CHECK_INVALID(validate_model(m), "main operand 3", "scalar INT32 has dimensions [1]");
}

TEST_CASE("dimensions whose byte size overflows 32 bits are rejected") {
  Model m = add_model_with_input(T::TENSOR_FLOAT32, {65536, 16384});  // 2^30 floats = 4 GiB
  CHECK_INVALID(validate_model(m), "main operand 4", "dimensions [65536, 16384] describe more than 4 GiB");
  Model q = add_model_with_input(T::TENSOR_QUANT8_ASYMM, {65536, 65536}, 0.5f);  // 2^32 bytes
  CHECK_INVALID(validate_model(q), "main operand 4", "describe more than 4 GiB");
  Model big = add_model_with_input(T::TENSOR_QUANT8_ASYMM, {65536, 65535}, 0.5f);  // just under
  CHECK_VALID(validate_model(big));
}

TEST_CASE("non-finite scale is rejected") {
  for (float s : {nan_f, inf_f, -inf_f}) {
    CAPTURE(s);
    CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, s)), "main operand 4",
                  "scale is not finite");
    CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_FLOAT32, {2}, s)), "main operand 4",
                  "scale is not finite");
  }
}

TEST_CASE("float and non-quantized types need scale 0 and zeroPoint 0") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_FLOAT32, {2}, 0.5f)), "main operand 4",
                "TENSOR_FLOAT32 needs scale 0 and zeroPoint 0, got 0.5 / 0");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_FLOAT16, {2}, 0.0f, 3)), "main operand 4",
                "TENSOR_FLOAT16 needs scale 0 and zeroPoint 0, got 0 / 3");
  CHECK_INVALID(validate_model(add_model_with_input(T::FLOAT32, {}, 1.0f)), "main operand 4",
                "FLOAT32 needs scale 0 and zeroPoint 0");
  CHECK_INVALID(validate_model(add_model_with_input(T::INT32, {}, 0.0f, 1)), "main operand 4",
                "INT32 needs scale 0 and zeroPoint 0");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_BOOL8, {2}, 1.0f)), "main operand 4",
                "TENSOR_BOOL8 needs scale 0 and zeroPoint 0");
}

TEST_CASE("TENSOR_INT32 needs zeroPoint 0 and a non-negative scale") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_INT32, {2}, 0.0f, 1)), "main operand 4",
                "TENSOR_INT32 needs scale >= 0 and zeroPoint 0, got 0 / 1");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_INT32, {2}, -0.5f, 0)), "main operand 4",
                "TENSOR_INT32 needs scale >= 0");
}

TEST_CASE("TENSOR_QUANT8_ASYMM needs scale > 0 and zeroPoint in [0, 255]") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, 0.0f)), "main operand 4",
                "TENSOR_QUANT8_ASYMM needs scale > 0, got 0");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, -1.0f)), "main operand 4",
                "needs scale > 0, got -1");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 256)), "main operand 4",
                "zeroPoint 256 outside [0, 255] for TENSOR_QUANT8_ASYMM");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f, -1)), "main operand 4",
                "zeroPoint -1 outside [0, 255]");
}

TEST_CASE("TENSOR_QUANT8_ASYMM_SIGNED needs zeroPoint in [-128, 127]") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, 128)),
                "main operand 4", "zeroPoint 128 outside [-128, 127] for TENSOR_QUANT8_ASYMM_SIGNED");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.5f, -129)),
                "main operand 4", "zeroPoint -129 outside [-128, 127]");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM_SIGNED, {2}, 0.0f, 0)),
                "main operand 4", "TENSOR_QUANT8_ASYMM_SIGNED needs scale > 0");
}

TEST_CASE("TENSOR_QUANT8_SYMM and TENSOR_QUANT16_SYMM need scale > 0 and zeroPoint 0") {
  for (T t : {T::TENSOR_QUANT8_SYMM, T::TENSOR_QUANT16_SYMM}) {
    CAPTURE(to_string(t));
    CHECK_INVALID(validate_model(add_model_with_input(t, {2}, 0.5f, 1)), "main operand 4",
                  str_cat(to_string(t), " needs scale > 0 and zeroPoint 0, got 0.5 / 1"));
    CHECK_INVALID(validate_model(add_model_with_input(t, {2}, 0.0f, 0)), "main operand 4",
                  str_cat(to_string(t), " needs scale > 0 and zeroPoint 0, got 0 / 0"));
  }
}

TEST_CASE("TENSOR_QUANT16_ASYMM needs zeroPoint in [0, 65535]") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT16_ASYMM, {2}, 0.5f, 65536)), "main operand 4",
                "zeroPoint 65536 outside [0, 65535] for TENSOR_QUANT16_ASYMM");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT16_ASYMM, {2}, 0.5f, -1)), "main operand 4",
                "zeroPoint -1 outside [0, 65535]");
}

TEST_CASE("per-channel: missing channelQuant parameters") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2})), "main operand 4",
                "TENSOR_QUANT8_SYMM_PER_CHANNEL without channelQuant parameters");
}

TEST_CASE("per-channel: channelDim must be below the rank") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f}, 2})),
                "main operand 4", "channelDim 2 outside rank 2");
}

TEST_CASE("per-channel: one scale per channel") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f}, 0})),
                "main operand 4", "1 per-channel scales for 3 channels");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f, 0.5f}, 1})),
                "main operand 4", "3 per-channel scales for 2 channels");
}

TEST_CASE("per-channel: every scale finite and positive") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.0f, 0.5f}, 0})),
                "main operand 4", "per-channel scale 1 is 0 (must be finite and > 0)");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f, -2.0f}, 0})),
                "main operand 4", "per-channel scale 2 is -2");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{nan_f, 0.5f, 0.5f}, 0})),
                "main operand 4", "per-channel scale 0 is");
}

TEST_CASE("per-channel: the operand's own scale and zeroPoint must be 0") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2}, 0.5f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f, 0.5f}, 0})),
                "main operand 4", "TENSOR_QUANT8_SYMM_PER_CHANNEL needs scale 0 and zeroPoint 0");
}

TEST_CASE("per-channel parameters on another type are rejected") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_QUANT8_ASYMM, {3, 2}, 0.5f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f, 0.5f}, 0})),
                "main operand 4", "per-channel parameters on TENSOR_QUANT8_ASYMM");
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_FLOAT32, {3}, 0.0f, 0,
                                                    SymmPerChannelQuantParams{{0.5f, 0.5f, 0.5f}, 0})),
                "main operand 4", "per-channel parameters on TENSOR_FLOAT32");
}

TEST_CASE("per-channel parameters on an extension type are rejected") {
  Model m = add_model_with_input(make_extension_type(2, 1), {3}, 0.0f, 0, SymmPerChannelQuantParams{{0.5f}, 0});
  m.extensionNameToPrefix.push_back({"com.example.ext", 2});
  CHECK_INVALID(validate_model(m), "main operand 4", "per-channel parameters on an extension type");
}

TEST_CASE("extension parameters on a non-extension type are rejected") {
  CHECK_INVALID(validate_model(add_model_with_input(T::TENSOR_FLOAT32, {2}, 0.0f, 0, std::vector<std::uint8_t>{1})),
                "main operand 4", "extension parameters on non-extension type TENSOR_FLOAT32");
}

// --- lifetimes -------------------------------------------------------------------------

TEST_CASE("TEMPORARY_VARIABLE, SUBGRAPH_INPUT, SUBGRAPH_OUTPUT and NO_VALUE must not have a location") {
  SUBCASE("SUBGRAPH_INPUT") {
    Model m = make_add_model();
    m.main.operands[add_x].location = {0, 0, 16};
    CHECK_INVALID(validate_model(m), "main operand 0", "lifetime SUBGRAPH_INPUT must not have a location");
  }
  SUBCASE("SUBGRAPH_OUTPUT") {
    Model m = make_add_model();
    m.main.operands[add_z].location = {1, 0, 0};
    CHECK_INVALID(validate_model(m), "main operand 2", "lifetime SUBGRAPH_OUTPUT must not have a location");
  }
  SUBCASE("TEMPORARY_VARIABLE") {
    Model m = make_chain_model();
    m.main.operands[2].location = {0, 4, 0};
    CHECK_INVALID(validate_model(m), "main operand 2", "lifetime TEMPORARY_VARIABLE must not have a location");
  }
  SUBCASE("NO_VALUE") {
    Model m = make_add_model();
    Operand o = graph_builder::make(T::TENSOR_FLOAT32, {2}, 0.0f, 0, L::NO_VALUE);
    o.location = {0, 0, 8};
    m.main.operands.push_back(o);
    CHECK_INVALID(validate_model(m), "main operand 4", "lifetime NO_VALUE must not have a location");
  }
}

TEST_CASE("CONSTANT_COPY needs poolIndex 0") {
  Model m = make_add_model();
  m.main.operands[add_act].location.poolIndex = 1;
  CHECK_INVALID(validate_model(m), "main operand 3", "CONSTANT_COPY with poolIndex 1 (must be 0)");
}

TEST_CASE("CONSTANT_COPY must lie inside operandValues") {
  Model m = make_add_model();
  REQUIRE(m.operandValues.size() == 4);
  m.main.operands[add_act].location.offset = 100;
  CHECK_INVALID(validate_model(m), "main operand 3", "CONSTANT_COPY [100, +4) outside operandValues (4 bytes)");
  m.main.operands[add_act].location.offset = std::numeric_limits<std::uint32_t>::max();  // no 32-bit wrap
  CHECK_INVALID(validate_model(m), "main operand 3", "outside operandValues");
}

TEST_CASE("CONSTANT_COPY length must equal the type's size") {
  Model m = make_add_model();
  m.main.operands[add_act].location.length = 2;
  CHECK_INVALID(validate_model(m), "main operand 3", "constant length 2 bytes, but INT32 [] needs 4");

  Model t = make_add_const_model();
  t.main.operands[1].location.length = 12;
  CHECK_INVALID(validate_model(t), "main operand 1", "constant length 12 bytes, but TENSOR_FLOAT32 [2, 2] needs 16");
}

TEST_CASE("a constant tensor needs fully specified dimensions") {
  Model m = make_add_const_model();
  m.main.operands[1].dimensions = {2, 0};
  CHECK_INVALID(validate_model(m), "main operand 1", "a constant needs fully specified dimensions, got [2, ?]");
  m.main.operands[1].dimensions = {};
  CHECK_INVALID(validate_model(m), "main operand 1", "a constant needs fully specified dimensions, got []");
}

TEST_CASE("CONSTANT_REFERENCE pool index out of range") {
  Model m = make_add_reference_model();
  m.main.operands[1].location.poolIndex = 1;
  CHECK_INVALID(validate_model(m), "main operand 1", "poolIndex 1 but the model has 1 pools");
}

TEST_CASE("CONSTANT_REFERENCE range outside the pool") {
  Model m = make_add_reference_model();
  m.main.operands[1].location.offset = 8;
  CHECK_INVALID(validate_model(m), "main operand 1", "CONSTANT_REFERENCE [8, +16) outside pool 0 (16 bytes)");
}

TEST_CASE("CONSTANT_REFERENCE into an unmapped pool") {
  Model m = make_add_reference_model();
  m.pools[0].data = nullptr;
  CHECK_INVALID(validate_model(m), "main operand 1", "pool 0 is not mapped");
}

TEST_CASE("CONSTANT_REFERENCE length must equal the type's size") {
  Model m = make_add_reference_model();
  m.main.operands[1].location.length = 8;
  CHECK_INVALID(validate_model(m), "main operand 1", "constant length 8 bytes, but TENSOR_FLOAT32 [2, 2] needs 16");
}

TEST_CASE("lifetime SUBGRAPH needs type SUBGRAPH") {
  Model m = make_add_model();
  m.main.operands[add_act].lifetime = L::SUBGRAPH;
  m.main.operands[add_act].location = {};
  CHECK_INVALID(validate_model(m), "main operand 3", "type INT32 with lifetime SUBGRAPH");
}

TEST_CASE("type SUBGRAPH needs lifetime SUBGRAPH") {
  for (L lt : {L::TEMPORARY_VARIABLE, L::SUBGRAPH_INPUT, L::SUBGRAPH_OUTPUT, L::NO_VALUE}) {
    CAPTURE(to_string(lt));
    Model m = make_add_model();
    m.main.operands.push_back(graph_builder::make(T::SUBGRAPH, {}, 0.0f, 0, lt));
    CHECK_INVALID(validate_model(m), "main operand 4", "SUBGRAPH operands, and only they, have lifetime SUBGRAPH");
  }
}

// BUG: a SUBGRAPH-typed CONSTANT_COPY / CONSTANT_REFERENCE operand is accepted (types.hal:
// SUBGRAPH operands must have lifetime SUBGRAPH).
TEST_CASE("type SUBGRAPH as a constant is rejected") {
  model_builder b;
  build_if_model(b);
  auto g = b.main();
  g.constant(T::SUBGRAPH, {}, std::vector<std::uint32_t>{0});  // operand 5, unused
  CHECK_INVALID(validate_model(b.build()), "main operand 5", "SUBGRAPH");
}

TEST_CASE("a SUBGRAPH reference uses only location.offset") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.main.operands[2].location.length = 4;
  CHECK_INVALID(validate_model(m), "main operand 2", "a SUBGRAPH reference uses only location.offset");
}

TEST_CASE("a SUBGRAPH reference past the referenced subgraphs") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.main.operands[3].location.offset = 5;
  CHECK_INVALID(validate_model(m), "main operand 3", "refers to subgraph 5 but the model has 2");
}

TEST_CASE("an invalid lifetime value is rejected") {
  Model m = make_add_model();
  m.main.operands[add_act].lifetime = static_cast<L>(42);
  CHECK_INVALID(validate_model(m), "main operand 3", "invalid lifetime 42");
  m.main.operands[add_act].lifetime = L::POINTER;  // runtime-only, never in a HAL model
  CHECK_INVALID(validate_model(m), "main operand 3", "invalid lifetime 7");
}

// --- operations and graph structure ---------------------------------------------------------

TEST_CASE("operation input operand index out of range") {
  Model m = make_add_model();
  m.main.operations[0].inputs[1] = 9;
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)", "input operand 9 out of range (4 operands)");
}

TEST_CASE("operation output operand index out of range") {
  Model m = make_add_model();
  m.main.operations[0].outputs[0] = 4;
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)", "output operand 4 out of range (4 operands)");
}

TEST_CASE("reading an operand before it is written: operations out of order") {
  Model m = make_chain_model();
  std::swap(m.main.operations[0], m.main.operations[1]);
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)", "reads operand 2 before any operation writes it");
}

TEST_CASE("reading an operand before it is written: a cycle") {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2});
  const auto t = g.temporary(T::TENSOR_FLOAT32, {2});
  const auto u = g.temporary(T::TENSOR_FLOAT32, {2});
  const auto z = g.output(T::TENSOR_FLOAT32, {2});
  const auto act = g.i32(0);
  g.op(Op::ADD, {x, u, act}, {t}).op(Op::ADD, {t, x, act}, {u}).op(Op::ADD, {t, u, act}, {z});
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (ADD)", "reads operand 2 before any operation writes it");
}

TEST_CASE("an operation may not write a constant or a model input") {
  Model c = make_add_model();
  c.main.operations[0].outputs[0] = add_act;
  CHECK_INVALID(validate_model(c), "main operation 0 (ADD)", "writes operand 3 whose lifetime is CONSTANT_COPY");
  Model i = make_add_model();
  i.main.operations[0].outputs[0] = add_y;
  CHECK_INVALID(validate_model(i), "main operation 0 (ADD)", "writes operand 1 whose lifetime is SUBGRAPH_INPUT");
}

TEST_CASE("an operand written twice") {
  Model m = make_chain_model();
  m.main.operations[1].outputs[0] = 2;  // t again
  CHECK_INVALID(validate_model(m), "main operation 1 (ADD)", "operand 2 is written by more than one operation");
}

TEST_CASE("a temporary or output never written") {
  Model t = make_add_model();
  t.main.operands.push_back(graph_builder::make(T::TENSOR_FLOAT32, {2}, 0.0f, 0, L::TEMPORARY_VARIABLE));
  CHECK_INVALID(validate_model(t), "main operand 4", "TEMPORARY_VARIABLE is never written by an operation");
  Model o = make_add_model();
  o.main.operands.push_back(graph_builder::make(T::TENSOR_FLOAT32, {2}, 0.0f, 0, L::SUBGRAPH_OUTPUT));
  o.main.outputIndexes.push_back(4);
  CHECK_INVALID(validate_model(o), "main operand 4", "SUBGRAPH_OUTPUT is never written by an operation");
}

TEST_CASE("numberOfConsumers must match the operations' inputs") {
  Model m = make_add_model();
  m.main.operands[add_x].numberOfConsumers = 2;
  CHECK_INVALID(validate_model(m), "main operand 0", "numberOfConsumers is 2 but 1 operation inputs read it");
  Model c = make_chain_model();  // x is read twice
  c.main.operands[0].numberOfConsumers = 1;
  CHECK_INVALID(validate_model(c), "main operand 0", "numberOfConsumers is 1 but 2 operation inputs read it");
}

TEST_CASE("numberOfConsumers counts every listed input, repeats included") {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2});
  const auto z = g.output(T::TENSOR_FLOAT32, {2});
  g.op(Op::ADD, {x, x, g.i32(0)}, {z});
  Model m = b.build();
  CHECK(m.main.operands[x].numberOfConsumers == 2);
  CHECK_VALID(validate_model(m));
  m.main.operands[x].numberOfConsumers = 1;
  CHECK_INVALID(validate_model(m), "main operand 0", "numberOfConsumers is 1 but 2 operation inputs read it");
}

TEST_CASE("inputIndexes: out of range") {
  Model m = make_add_model();
  m.main.inputIndexes.push_back(42);
  CHECK_INVALID(validate_model(m), "main inputIndexes[2]", "operand 42 out of range");
}

TEST_CASE("inputIndexes: wrong lifetime") {
  Model m = make_add_model();
  m.main.inputIndexes.push_back(add_act);
  CHECK_INVALID(validate_model(m), "main inputIndexes[2]",
                "operand 3 has lifetime CONSTANT_COPY, expected SUBGRAPH_INPUT");
}

TEST_CASE("inputIndexes: duplicate") {
  Model m = make_add_model();
  m.main.inputIndexes = {add_x, add_x, add_y};
  CHECK_INVALID(validate_model(m), "main inputIndexes[1]", "operand 0 listed twice");
}

TEST_CASE("inputIndexes: a SUBGRAPH_INPUT operand not listed") {
  Model m = make_add_model();
  m.main.inputIndexes = {add_x};
  CHECK_INVALID(validate_model(m), "main operand 1", "lifetime SUBGRAPH_INPUT but not in inputIndexes");
}

TEST_CASE("outputIndexes: out of range, wrong lifetime, duplicate, not listed") {
  SUBCASE("out of range") {
    Model m = make_add_model();
    m.main.outputIndexes = {7};
    CHECK_INVALID(validate_model(m), "main outputIndexes[0]", "operand 7 out of range");
  }
  SUBCASE("wrong lifetime") {
    Model m = make_add_model();
    m.main.outputIndexes = {add_z, add_x};
    CHECK_INVALID(validate_model(m), "main outputIndexes[1]",
                  "operand 0 has lifetime SUBGRAPH_INPUT, expected SUBGRAPH_OUTPUT");
  }
  SUBCASE("duplicate") {
    Model m = make_add_model();
    m.main.outputIndexes = {add_z, add_z};
    CHECK_INVALID(validate_model(m), "main outputIndexes[1]", "operand 2 listed twice");
  }
  SUBCASE("not listed") {
    Model m = make_add_model();
    m.main.operands.push_back(graph_builder::make(T::TENSOR_FLOAT32, {2}, 0.0f, 0, L::SUBGRAPH_OUTPUT));
    CHECK_INVALID(validate_model(m), "main operand 4", "lifetime SUBGRAPH_OUTPUT but not in outputIndexes");
  }
}

TEST_CASE("a subgraph without outputs") {
  Model m = make_add_model();
  m.main.operands[add_z].lifetime = L::TEMPORARY_VARIABLE;
  m.main.outputIndexes.clear();
  CHECK_INVALID(validate_model(m), "main: no outputs");
}

TEST_CASE("main without operations") {
  Model m = make_add_model();
  m.main.operations.clear();
  CHECK_INVALID(validate_model(m), "main: no operations");
}

TEST_CASE("unknown operation types") {
  Model m = make_add_model();
  m.main.operations[0].type = static_cast<Op>(200);
  CHECK_INVALID(validate_model(m), "main operation 0", "unknown operation type 200");
  m.main.operations[0].type = static_cast<Op>(operation_type_count);  // one past REVERSE
  CHECK_INVALID(validate_model(m), "main operation 0", "unknown operation type 106");
  m.main.operations[0].type = Op::OEM_OPERATION;
  CHECK_INVALID(validate_model(m), "main operation 0 (OEM_OPERATION)", "unknown operation type 10000");
  m.main.operations[0].type = static_cast<Op>(OPERATION_TYPE_BASE_MAX);  // in the base range, not defined
  CHECK_INVALID(validate_model(m), "main operation 0 (INVALID_OPERATION)", "unknown operation type 65535");
}

TEST_CASE("extension operation with an unknown prefix") {
  Model m = make_add_model();
  m.main.operations[0].type = static_cast<Op>((9 << 16) | 1);
  CHECK_INVALID(validate_model(m), "main operation 0 (EXTENSION_OPERATION)",
                "extension prefix not in extensionNameToPrefix");
}

TEST_CASE("signature mismatch: wrong input type") {
  Model m = make_add_model();
  m.main.operands[add_y].type = T::TENSOR_INT32;
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)",
                "no signature accepts inputs (TENSOR_FLOAT32, TENSOR_INT32, INT32) and outputs (TENSOR_FLOAT32)");
  Model s = make_add_model();
  s.main.operands[add_act].type = T::FLOAT32;  // activation must be INT32
  CHECK_INVALID(validate_model(s), "main operation 0 (ADD)", "inputs (TENSOR_FLOAT32, TENSOR_FLOAT32, FLOAT32)");
}

TEST_CASE("signature mismatch: wrong arity") {
  Model m = make_add_model();
  m.main.operations[0].inputs.pop_back();
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)",
                "no signature accepts inputs (TENSOR_FLOAT32, TENSOR_FLOAT32) and outputs (TENSOR_FLOAT32)");
  Model o = make_add_model();
  o.main.operands.push_back(graph_builder::make(T::TENSOR_FLOAT32, {2, 2}, 0.0f, 0, L::TEMPORARY_VARIABLE));
  o.main.operations[0].outputs.push_back(4);
  CHECK_INVALID(validate_model(o), "main operation 0 (ADD)",
                "inputs (TENSOR_FLOAT32, TENSOR_FLOAT32, INT32) and outputs (TENSOR_FLOAT32, TENSOR_FLOAT32)");
}

TEST_CASE("signature mismatch: wrong output type") {
  Model m = make_add_model();
  m.main.operands[add_z].type = T::TENSOR_FLOAT16;
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)",
                "inputs (TENSOR_FLOAT32, TENSOR_FLOAT32, INT32) and outputs (TENSOR_FLOAT16)");
}

// BUG?: NO_VALUE marks an omitted *optional* input; ADD's input1 is required.
TEST_CASE("NO_VALUE for a required input is rejected") {
  Model m = make_add_model();
  m.main.operands[add_y].lifetime = L::NO_VALUE;
  m.main.inputIndexes = {add_x};
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)");
}

// --- versions -----------------------------------------------------------------------------

TEST_CASE("minimum HAL version") {
  auto version = [](const Model& m) {
    const auto v = validate_model(m);
    return v ? *v : HalVersion::UNKNOWN;
  };
  CHECK(version(make_add_model(T::TENSOR_FLOAT32)) == HalVersion::V1_0);
  CHECK(version(make_add_model(T::TENSOR_QUANT8_ASYMM)) == HalVersion::V1_0);
  CHECK(version(make_add_model(T::TENSOR_FLOAT16)) == HalVersion::V1_2);
  CHECK(version(make_add_model(T::TENSOR_QUANT8_ASYMM_SIGNED)) == HalVersion::V1_3);
  CHECK(version(make_add_model(T::TENSOR_INT32)) == HalVersion::V1_3);

  Model relaxed = make_add_model();
  relaxed.relaxComputationFloat32toFloat16 = true;
  CHECK(version(relaxed) == HalVersion::V1_1);
  Model relaxed_qs8 = make_add_model(T::TENSOR_QUANT8_ASYMM_SIGNED);
  relaxed_qs8.relaxComputationFloat32toFloat16 = true;
  CHECK(version(relaxed_qs8) == HalVersion::V1_3);

  Model dynamic = make_add_model();  // an output of unknown extent: dynamic shapes (1.2)
  dynamic.main.operands[add_z].dimensions = {2, 0};
  CHECK(version(dynamic) == HalVersion::V1_2);
  Model unknown_rank = make_add_model();
  unknown_rank.main.operands[add_z].dimensions = {};
  CHECK(version(unknown_rank) == HalVersion::V1_2);

  Model ext = make_add_model();
  ext.extensionNameToPrefix.push_back({"com.example.ext", 1});
  CHECK(version(ext) == HalVersion::V1_2);

  model_builder b;
  build_if_model(b);
  CHECK(version(b.build()) == HalVersion::V1_3);
}

TEST_CASE("CONCATENATION of QUANT8_ASYMM with differing quantization needs HAL 1.2") {
  auto concat = [](float scale_b) {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(T::TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f);
    const auto y = g.input(T::TENSOR_QUANT8_ASYMM, {2, 4}, scale_b);
    const auto z = g.output(T::TENSOR_QUANT8_ASYMM, {2, 7}, 0.5f);
    g.op(Op::CONCATENATION, {x, y, g.i32(1)}, {z});
    const auto v = validate_model(b.build());
    return v ? *v : HalVersion::UNKNOWN;
  };
  CHECK(concat(0.5f) == HalVersion::V1_0);
  CHECK(concat(0.25f) == HalVersion::V1_2);
}

TEST_CASE("validate_model(model, max) rejects a model that needs a newer HAL") {
  const Model qs8 = make_add_model(T::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK_INVALID(validate_model(qs8, HalVersion::V1_2), "the model needs HAL V1_3, newer than V1_2");
  const auto at13 = validate_model(qs8, HalVersion::V1_3);
  CHECK_VALID(at13);
  if (at13) CHECK(*at13 == HalVersion::V1_3);
  const auto latest = validate_model(qs8, latest_hal_version);
  CHECK_VALID(latest);
  if (latest) CHECK(*latest == HalVersion::V1_3);

  const Model f32 = make_add_model();
  CHECK_VALID(validate_model(f32, HalVersion::V1_0));
  Model relaxed = make_add_model();
  relaxed.relaxComputationFloat32toFloat16 = true;
  CHECK_INVALID(validate_model(relaxed, HalVersion::V1_0), "the model needs HAL V1_1, newer than V1_0");
}

// --- shape inference errors surfaced -------------------------------------------------------------

TEST_CASE("ADD inputs that do not broadcast") {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2, 3});
  const auto y = g.input(T::TENSOR_FLOAT32, {2, 4});
  const auto z = g.output(T::TENSOR_FLOAT32, {2, 3});
  g.op(Op::ADD, {x, y, g.i32(0)}, {z});
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (ADD): ", "dimensions [2, 3] and [2, 4] do not broadcast");
}

TEST_CASE("ADD broadcasting passes and the declared output must agree") {
  auto add = [](dims_t out) {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(T::TENSOR_FLOAT32, {2, 1, 3});
    const auto y = g.input(T::TENSOR_FLOAT32, {4, 1});
    const auto z = g.output(T::TENSOR_FLOAT32, std::move(out));
    g.op(Op::ADD, {x, y, g.i32(0)}, {z});
    return b.build();
  };
  CHECK_VALID(validate_model(add({2, 4, 3})));
  CHECK_VALID(validate_model(add({0, 4, 0})));
  CHECK_INVALID(validate_model(add({2, 4, 4})), "main operation 0 (ADD)",
                "output 0 declared [2, 4, 4] but the inputs give [2, 4, 3]");
  CHECK_INVALID(validate_model(add({2, 12})), "main operation 0 (ADD)",
                "output 0 declared [2, 12] but the inputs give [2, 4, 3]");
}

TEST_CASE("ADD activation outside FusedActivationFunc") {
  CHECK_INVALID(validate_model(make_add_model(T::TENSOR_FLOAT32, {2, 2}, 7)), "main operation 0 (ADD)",
                "activation: 7 is not a FusedActivationFunc (0..3)");
  CHECK_INVALID(validate_model(make_add_model(T::TENSOR_FLOAT32, {2, 2}, -1)), "main operation 0 (ADD)",
                "activation: -1 is not a FusedActivationFunc");
  CHECK_VALID(validate_model(make_add_model(T::TENSOR_FLOAT32, {2, 2}, 3)));
}

TEST_CASE("TENSOR_INT32 ADD needs activation NONE") {
  CHECK_VALID(validate_model(make_add_model(T::TENSOR_INT32, {2, 2}, 0)));
  CHECK_INVALID(validate_model(make_add_model(T::TENSOR_INT32, {2, 2}, 1)), "main operation 0 (ADD)",
                "activation: must be NONE for TENSOR_INT32");
}

TEST_CASE("ADD input of rank 5") {
  CHECK_INVALID(validate_model(make_add_model(T::TENSOR_FLOAT32, {1, 1, 1, 2, 2})), "main operation 0 (ADD)",
                "input0: rank 5 exceeds the supported 4");
}

namespace {
/// out = RESHAPE(x [2, 3], shape) with the shape a constant.
Model make_reshape_model(const std::vector<std::int32_t>& shape, dims_t out_dims) {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2, 3});
  const auto s = g.i32_tensor(shape);
  const auto out = g.output(T::TENSOR_FLOAT32, std::move(out_dims));
  g.op(Op::RESHAPE, {x, s}, {out});
  return b.build();
}
}  // namespace

TEST_CASE("RESHAPE: valid, two -1 entries, wrong element count") {
  CHECK_VALID(validate_model(make_reshape_model({3, -1}, {3, 2})));
  CHECK_INVALID(validate_model(make_reshape_model({3, -1}, {3, 3})), "main operation 0 (RESHAPE)",
                "output 0 declared [3, 3] but the inputs give [3, 2]");
  CHECK_INVALID(validate_model(make_reshape_model({-1, -1}, {})), "main operation 0 (RESHAPE)",
                "shape: more than one -1 entry");
  CHECK_INVALID(validate_model(make_reshape_model({3, 3}, {3, 3})), "main operation 0 (RESHAPE)",
                "shape: [3, 3] has 9 elements, the input has 6");
  CHECK_INVALID(validate_model(make_reshape_model({4, -1}, {})), "main operation 0 (RESHAPE)",
                "6 elements cannot be reshaped");
  CHECK_INVALID(validate_model(make_reshape_model({3, -2}, {})), "main operation 0 (RESHAPE)",
                "shape: entry 1 is -2");
}

namespace {
/// out = CONCATENATION(a, b, axis).
Model make_concat_model(dims_t a_dims, dims_t b_dims, std::int32_t axis, dims_t out_dims) {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, std::move(a_dims));
  const auto y = g.input(T::TENSOR_FLOAT32, std::move(b_dims));
  const auto out = g.output(T::TENSOR_FLOAT32, std::move(out_dims));
  g.op(Op::CONCATENATION, {x, y, g.i32(axis)}, {out});
  return b.build();
}
}  // namespace

TEST_CASE("CONCATENATION: axis out of range, mismatched extents, rank 5") {
  CHECK_VALID(validate_model(make_concat_model({2, 3}, {2, 4}, 1, {2, 7})));
  CHECK_INVALID(validate_model(make_concat_model({2, 3}, {2, 4}, 1, {2, 6})), "main operation 0 (CONCATENATION)",
                "output 0 declared [2, 6] but the inputs give [2, 7]");
  CHECK_INVALID(validate_model(make_concat_model({2, 3}, {2, 4}, 2, {})), "main operation 0 (CONCATENATION)",
                "axis: 2 outside [0, 2)");
  CHECK_INVALID(validate_model(make_concat_model({2, 3}, {2, 4}, -1, {})), "main operation 0 (CONCATENATION)",
                "axis: -1 outside [0, 2)");
  CHECK_INVALID(validate_model(make_concat_model({2, 3}, {3, 3}, 1, {})), "main operation 0 (CONCATENATION)",
                "input1: extent 3 of dimension 0 differs from the other inputs' 2");
  CHECK_INVALID(validate_model(make_concat_model({2, 3}, {2, 3, 1}, 1, {})), "main operation 0 (CONCATENATION)",
                "input1: rank 3 differs from input0's 2");
  CHECK_INVALID(validate_model(make_concat_model({1, 1, 1, 1, 2}, {1, 1, 1, 1, 2}, 4, {})),
                "main operation 0 (CONCATENATION)", "rank 5 exceeds the supported 4");
}

TEST_CASE("RELU output quantization must equal the input's") {
  auto relu = [](float out_scale, std::int32_t out_zp) {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 10);
    const auto y = g.output(T::TENSOR_QUANT8_ASYMM, {2}, out_scale, out_zp);
    g.op(Op::RELU, {x}, {y});
    return b.build();
  };
  CHECK_VALID(validate_model(relu(0.5f, 10)));
  CHECK_INVALID(validate_model(relu(0.25f, 10)), "main operation 0 (RELU)",
                "output: scale 0.25 / zeroPoint 10 must equal the input's 0.5 / 10");
  CHECK_INVALID(validate_model(relu(0.5f, 11)), "main operation 0 (RELU)", "output: scale 0.5 / zeroPoint 11");
}

TEST_CASE("declared output dims conflicting with inferred ones") {
  Model m = make_add_model();
  m.main.operands[add_z].dimensions = {3, 2};
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)", "output 0 declared [3, 2] but the inputs give [2, 2]");
  m.main.operands[add_z].dimensions = {4};
  CHECK_INVALID(validate_model(m), "main operation 0 (ADD)", "output 0 declared [4] but the inputs give [2, 2]");
  m.main.operands[add_z].dimensions = {0, 2};  // unknown extent: fine
  CHECK_VALID(validate_model(m));
}

TEST_CASE("inferred shapes flow through temporaries of unknown shape") {
  Model m = make_chain_model();
  m.main.operands[2].dimensions = {};      // t: unknown rank, inferred [2, 2]
  m.main.operands[3].dimensions = {2, 3};  // z conflicts with t + x
  CHECK_INVALID(validate_model(m), "main operation 1 (ADD)", "output 0 declared [2, 3] but the inputs give [2, 2]");
}

// --- control flow ----------------------------------------------------------------------

TEST_CASE("a valid IF model passes at HAL 1.3") {
  model_builder b;
  build_if_model(b);
  const auto v = validate_model(b.build());
  CHECK_VALID(v);
  if (v) CHECK(*v == HalVersion::V1_3);
}

TEST_CASE("a valid WHILE model passes at HAL 1.3") {
  model_builder b;
  build_while_model(b);
  const auto v = validate_model(b.build());
  CHECK_VALID(v);
  if (v) CHECK(*v == HalVersion::V1_3);
}

TEST_CASE("IF: branch input count mismatch") {
  model_builder b;
  build_if_model(b);
  b.referenced(1).input(T::TENSOR_FLOAT32, {2});  // the else branch takes a second input
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (IF)",
                "branch input count 2 differs from the 1 operands passed");
}

TEST_CASE("IF: branch input type mismatch") {
  model_builder b;
  build_if_model(b, T::TENSOR_FLOAT16);
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (IF)",
                "branch input 0 is TENSOR_FLOAT16 but the operand passed is TENSOR_FLOAT32");
}

TEST_CASE("IF: branch output shape mismatch") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.main.operands[4].dimensions = {3};  // the IF's output
  CHECK_INVALID(validate_model(m), "main operation 0 (IF)",
                "branch output 0 dimensions [2] differ from the operand passed [3]");
}

TEST_CASE("IF: branch quantization mismatch") {
  model_builder b;
  add_relu_branch(b, 0, T::TENSOR_QUANT8_ASYMM);
  add_relu_branch(b, 1, T::TENSOR_QUANT8_ASYMM);
  for (std::size_t k : {0u, 1u})
    for (auto& o : b.referenced(k).subgraph().operands) o.scale = 0.5f;
  auto g = b.main();
  const auto cond = g.input(T::TENSOR_BOOL8, {1});
  const auto x = g.input(T::TENSOR_QUANT8_ASYMM, {2}, 0.25f);
  const auto then_ref = g.subgraph_ref(0);
  const auto else_ref = g.subgraph_ref(1);
  const auto out = g.output(T::TENSOR_QUANT8_ASYMM, {2}, 0.5f);
  g.op(Op::IF, {cond, then_ref, else_ref, x}, {out});
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (IF)",
                "branch input 0 quantization differs from the operand passed");
}

TEST_CASE("IF: the condition must hold one element") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.main.operands[0].dimensions = {2};
  CHECK_INVALID(validate_model(m), "main operation 0 (IF)", "condition must hold one element, has 2");
}

TEST_CASE("IF: the condition must be TENSOR_BOOL8") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.main.operands[0].type = T::TENSOR_INT32;
  CHECK_INVALID(validate_model(m), "main operation 0 (IF)", "no signature accepts inputs (TENSOR_INT32, SUBGRAPH");
}

TEST_CASE("WHILE: the condition must have one TENSOR_BOOL8 output") {
  model_builder b;
  build_while_model(b);
  Model m = b.build();
  m.referenced[0].operands[m.referenced[0].outputIndexes[0]].type = T::TENSOR_FLOAT32;
  CHECK_INVALID(validate_model(m), "main operation 0 (WHILE)", "the condition must have one TENSOR_BOOL8 output");
}

TEST_CASE("WHILE: body input count mismatch") {
  model_builder b;
  build_while_model(b);
  b.referenced(1).input(T::TENSOR_FLOAT32, {1});
  CHECK_INVALID(validate_model(b.build()), "main operation 0 (WHILE)",
                "body input count 2 differs from the 1 operands passed");
}

TEST_CASE("subgraph reference cycle: a referenced body whose WHILE refers to itself") {
  model_builder b;
  build_while_model(b);
  // The body (referenced[1]) now loops over itself: y = WHILE(cond, body, x).
  auto body = b.referenced(1);
  body.subgraph() = {};
  const auto x = body.input(T::TENSOR_FLOAT32, {1});
  const auto cond_ref = body.subgraph_ref(0);
  const auto body_ref = body.subgraph_ref(1);
  const auto y = body.output(T::TENSOR_FLOAT32, {1});
  body.op(Op::WHILE, {cond_ref, body_ref, x}, {y});
  CHECK_INVALID(validate_model(b.build()), "referenced[1]", "subgraph references form a cycle");
}

TEST_CASE("referenced subgraph errors name the subgraph") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.referenced[1].operands[0].numberOfConsumers = 3;
  CHECK_INVALID(validate_model(m), "referenced[1] operand 0", "numberOfConsumers is 3 but 1 operation inputs read it");
}

// BUG: the IF in main is checked against referenced[0] before referenced[0] itself is
// validated, so its out-of-range inputIndexes are dereferenced (out-of-bounds read; today
// the message reads "branch input 0 is INVALID_OPERAND_TYPE ..."). Skipped by default
// because the read is undefined behaviour (ASan aborts); run with --no-skip.
TEST_CASE("IF: a branch with an out-of-range inputIndexes entry") {
  model_builder b;
  build_if_model(b);
  Model m = b.build();
  m.referenced[0].inputIndexes = {7};
  CHECK_INVALID(validate_model(m), "referenced[0] inputIndexes[0]", "operand 7 out of range");
}

// --- extensions ---------------------------------------------------------------------------

TEST_CASE("extensionNameToPrefix: duplicate name or prefix, empty name") {
  Model name = make_add_model();
  name.extensionNameToPrefix = {{"com.example.a", 1}, {"com.example.a", 2}};
  CHECK_INVALID(validate_model(name), "extensionNameToPrefix[1]: name or prefix repeats entry 0");
  Model prefix = make_add_model();
  prefix.extensionNameToPrefix = {{"com.example.a", 1}, {"com.example.b", 2}, {"com.example.c", 1}};
  CHECK_INVALID(validate_model(prefix), "extensionNameToPrefix[2]: name or prefix repeats entry 0");
  Model empty = make_add_model();
  empty.extensionNameToPrefix = {{"", 1}};
  CHECK_INVALID(validate_model(empty), "extensionNameToPrefix[0]: empty name");
  Model ok = make_add_model();
  ok.extensionNameToPrefix = {{"com.example.a", 1}, {"com.example.b", 2}};
  CHECK_VALID(validate_model(ok));
}

}  // TEST_SUITE("validate_model")

// --- requests -------------------------------------------------------------------------------

TEST_SUITE("validate_request") {

TEST_CASE("a valid request passes") {
  const Model m = make_add_model();
  const Request r = make_request(m);
  CHECK_VALID(validate_request(r, m));
}

TEST_CASE("request: wrong input or output count") {
  const Model m = make_add_model();
  Request in = make_request(m);
  in.inputs.pop_back();
  CHECK_INVALID(validate_request(in, m), "request has 1 inputs, the model 2");
  Request out = make_request(m);
  out.outputs.push_back(out.outputs[0]);
  CHECK_INVALID(validate_request(out, m), "request has 2 outputs, the model 1");
}

TEST_CASE("request: pool index out of range") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.inputs[1].location.poolIndex = 3;
  CHECK_INVALID(validate_request(r, m), "input 1: poolIndex 3 but the request has 1 pools");
  Request o = make_request(m);
  o.outputs[0].location.poolIndex = 1;
  CHECK_INVALID(validate_request(o, m), "output 0: poolIndex 1 but the request has 1 pools");
}

TEST_CASE("request: argument range outside the pool") {
  const Model m = make_add_model();
  Request r = make_request(m);
  REQUIRE(std::get<Memory>(r.pools[0]).size == 48);
  r.outputs[0].location.offset = 40;
  CHECK_INVALID(validate_request(r, m), "output 0: [40, +16) outside pool 0 (48 bytes)");
  Request w = make_request(m);
  w.inputs[0].location.offset = std::numeric_limits<std::uint32_t>::max();  // no 32-bit wrap
  CHECK_INVALID(validate_request(w, m), "input 0: [4294967295, +16) outside pool 0");
}

TEST_CASE("request: driver-managed buffer tokens are rejected unless resolved first") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.pools.emplace_back(std::uint32_t{7});
  CHECK_INVALID(validate_request(r, m), "request pool 1: a driver-managed buffer token, but no buffer registry");
}

TEST_CASE("request: an unmapped pool") {
  const Model m = make_add_model();
  Request r = make_request(m);
  std::get<Memory>(r.pools[0]).data = nullptr;
  CHECK_INVALID(validate_request(r, m), "request pool 0: not mapped");
}

TEST_CASE("request: hasNoValue with a location or dimensions") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.inputs[1].hasNoValue = true;  // location still set
  CHECK_INVALID(validate_request(r, m), "input 1: hasNoValue with a location or dimensions");
  Request d = make_request(m);
  d.outputs[0] = RequestArgument{true, {}, {2, 2}};
  CHECK_INVALID(validate_request(d, m), "output 0: hasNoValue with a location or dimensions");
  Request ok = make_request(m);
  ok.outputs[0] = RequestArgument{true, {}, {}};
  CHECK_VALID(validate_request(ok, m));
}

TEST_CASE("request: dimensions of another rank") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.inputs[0].dimensions = {2, 2, 1};
  CHECK_INVALID(validate_request(r, m), "input 0: rank 3 differs from the model's 2");
}

TEST_CASE("request: dimensions conflicting with the model") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.inputs[1].dimensions = {2, 3};
  CHECK_INVALID(validate_request(r, m), "input 1: dimensions [2, 3] conflict with the model's [2, 2]");
  Request o = make_request(m);
  o.outputs[0].dimensions = {1, 2};
  CHECK_INVALID(validate_request(o, m), "output 0: dimensions [1, 2] conflict with the model's [2, 2]");
}

TEST_CASE("request: dimensions given for a scalar input") {
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT32, {2});
  const auto y = g.input(T::TENSOR_FLOAT32, {2});
  const auto act = g.input(T::INT32);
  const auto z = g.output(T::TENSOR_FLOAT32, {2});
  g.op(Op::ADD, {x, y, act}, {z});
  const Model m = b.build();
  REQUIRE(validate_model(m).ok());
  Request r = make_request(m);
  CHECK_VALID(validate_request(r, m));
  r.inputs[2].dimensions = {1};
  CHECK_INVALID(validate_request(r, m), "input 2: dimensions given for scalar INT32");
}

TEST_CASE("request: input dimensions not fully specified") {
  Model m = make_add_model();
  m.main.operands[add_x].dimensions = {0, 2};
  m.main.operands[add_z].dimensions = {0, 2};
  REQUIRE(validate_model(m).ok());
  Request r = make_request(m, 2);  // gives dimensions [2, 2] for input 0
  CHECK_VALID(validate_request(r, m));
  r.inputs[0].dimensions.clear();
  CHECK_INVALID(validate_request(r, m), "input 0: dimensions [?, 2] are not fully specified");
  r.inputs[0].dimensions = {0, 2};
  CHECK_INVALID(validate_request(r, m), "input 0: dimensions [?, 2] are not fully specified");

  Model unknown_rank = make_add_model();
  unknown_rank.main.operands[add_y].dimensions = {};
  Request u = make_request(unknown_rank);
  CHECK_INVALID(validate_request(u, unknown_rank), "input 1: dimensions [] are not fully specified");
}

TEST_CASE("request: input buffer too small") {
  const Model m = make_add_model();
  Request r = make_request(m);
  r.inputs[0].location.length = 8;
  CHECK_INVALID(validate_request(r, m), "input 0: 8 bytes given, TENSOR_FLOAT32 [2, 2] needs 16");
  const Model dm = make_add_model(T::TENSOR_FLOAT32, {0, 0});
  Request d = make_request(dm);  // 1 x 1 arguments
  d.inputs[1].dimensions = {3, 3};
  CHECK_INVALID(validate_request(d, dm), "input 1: 4 bytes given, TENSOR_FLOAT32 [3, 3] needs 36");
}

// BUG: request dimensions whose byte size does not fit 32 bits skip the buffer-size check
// (operand_byte_size fails, and the failure is taken as "size unknown").
TEST_CASE("request: input dimensions whose size overflows are rejected") {
  const Model m = make_add_model(T::TENSOR_FLOAT32, {0, 0});
  Request r = make_request(m);
  r.inputs[0].dimensions = {65536, 65536};
  CHECK_INVALID(validate_request(r, m), "input 0");
}

}  // TEST_SUITE("validate_request")

TEST_CASE("trailing default arguments do not raise the minimum version") {
  auto version = [](const Model& m) {
    const auto v = validate_model(m);
    return v ? *v : HalVersion::UNKNOWN;
  };
  // SOFTMAX(x, beta, axis): the axis input arrived in 1.2; axis -1 is its default.
  auto softmax = [](std::int32_t axis) {
    model_builder b;
    auto g = b.main();
    const auto x = g.input(T::TENSOR_FLOAT32, {2, 3});
    const auto y = g.output(T::TENSOR_FLOAT32, {2, 3});
    g.op(OperationType::SOFTMAX, {x, g.f32(1.0f), g.i32(axis)}, {y});
    return b.build();
  };
  CHECK(version(softmax(-1)) == HalVersion::V1_0);
  CHECK(version(softmax(0)) == HalVersion::V1_2);

  // A FLOAT16 scalar last (SOFTMAX on float16, no axis): 2 bytes, never read as an int32.
  model_builder b;
  auto g = b.main();
  const auto x = g.input(T::TENSOR_FLOAT16, {2, 3});
  const auto y = g.output(T::TENSOR_FLOAT16, {2, 3});
  const auto beta = g.constant(T::FLOAT16, {}, std::vector<std::uint16_t>{0x3C00});
  g.op(OperationType::SOFTMAX, {x, beta}, {y});
  CHECK(version(b.build()) == HalVersion::V1_2);
}
