// HAL vocabulary: float16 conversions, operand traits, result / NNHAL_TRY / NNHAL_CHECK,
// names of every enum value, and the completeness of the operation registry.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "nnhal/types/element.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/hal_version.hpp"
#include "nnhal/types/operand_type.hpp"
#include "nnhal/types/operation_type.hpp"
#include "nnhal/types/operations.hpp"

using namespace nnhal::types;

namespace {

std::uint16_t half_bits(float f) { return to_float16(f).bits; }
float from_bits(std::uint16_t b) { return to_float(float16{b}); }
bool is_half_nan(std::uint16_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x03FFu) != 0; }

}  // namespace

// --- float16 -------------------------------------------------------------------------

TEST_SUITE("float16") {

TEST_CASE("conversions are constexpr") {
  static_assert(to_float16(1.0f).bits == 0x3C00);
  static_assert(to_float(float16{0xC000}) == -2.0f);
  CHECK(true);
}

TEST_CASE("exact values: sign, exponent and mantissa from the IEEE binary16 layout") {
  // bits = sign << 15 | (exponent + 15) << 10 | mantissa
  CHECK(half_bits(0.0f) == 0x0000);
  CHECK(half_bits(-0.0f) == 0x8000);
  CHECK(half_bits(1.0f) == 0x3C00);   // 0 01111 0000000000
  CHECK(half_bits(-2.0f) == 0xC000);  // 1 10000 0000000000
  CHECK(half_bits(0.5f) == 0x3800);   // 0 01110 0000000000
  CHECK(half_bits(1.5f) == 0x3E00);   // 0 01111 1000000000
  CHECK(half_bits(65504.0f) == 0x7BFF);                  // largest finite: 2^15 * (2 - 2^-10)
  CHECK(half_bits(std::ldexp(1.0f, -14)) == 0x0400);     // smallest normal
  CHECK(half_bits(std::ldexp(1.0f, -24)) == 0x0001);     // smallest subnormal
  CHECK(half_bits(std::ldexp(1023.0f, -24)) == 0x03FF);  // largest subnormal
  CHECK(half_bits(-std::ldexp(1.0f, -24)) == 0x8001);
  CHECK(half_bits(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(half_bits(-std::numeric_limits<float>::infinity()) == 0xFC00);
}

TEST_CASE("rounding: to nearest") {
  // 1/3 lies between 0x3555 (0.333251953125) and 0x3556 (0.33349609375); nearer the first.
  CHECK(half_bits(1.0f / 3.0f) == 0x3555);
  CHECK(half_bits(3.14159265f) == 0x4248);  // 3.140625
  CHECK(half_bits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23)) == 0x3C01);  // just above half an ulp
  CHECK(half_bits(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -23)) == 0x3C00);  // just below
}

TEST_CASE("rounding: ties go to the even mantissa") {
  CHECK(half_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);      // between 0x3C00 and 0x3C01
  CHECK(half_bits(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);      // between 0x3C01 and 0x3C02
  CHECK(half_bits(2.0f - std::ldexp(1.0f, -11)) == 0x4000);      // 0x3FFF is odd: carries into the exponent
  CHECK(half_bits(std::ldexp(1.0f, -25)) == 0x0000);             // half the smallest subnormal: to 0
  CHECK(half_bits(std::ldexp(3.0f, -25)) == 0x0002);             // 1.5 subnormal ulps: to 2
  CHECK(half_bits(std::ldexp(5.0f, -25)) == 0x0002);             // 2.5 subnormal ulps: to 2
  CHECK(half_bits(std::ldexp(2047.0f, -25)) == 0x0400);          // between 0x03FF and 0x0400
  CHECK(half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  CHECK(half_bits(std::ldexp(1.0f, -26)) == 0x0000);
  CHECK(half_bits(-std::ldexp(1.0f, -26)) == 0x8000);  // keeps the sign
}

TEST_CASE("rounding: overflow to infinity") {
  CHECK(half_bits(65519.0f) == 0x7BFF);  // below the midpoint of 65504 and 65536
  CHECK(half_bits(65520.0f) == 0x7C00);  // the midpoint: ties to even, which is infinity
  CHECK(half_bits(1.0e6f) == 0x7C00);
  CHECK(half_bits(-1.0e6f) == 0xFC00);
  CHECK(half_bits(std::numeric_limits<float>::max()) == 0x7C00);
}

TEST_CASE("NaN stays NaN") {
  CHECK(is_half_nan(half_bits(std::numeric_limits<float>::quiet_NaN())));
  CHECK(is_half_nan(half_bits(std::bit_cast<float>(0x7F800001u))));  // payload only in low bits
  CHECK((half_bits(std::bit_cast<float>(0xFFC00000u)) & 0x8000) != 0);  // negative NaN keeps the sign
  CHECK(std::isnan(from_bits(0x7E00)));
  CHECK(std::isnan(from_bits(0x7C01)));
}

TEST_CASE("to_float of hand-computed patterns") {
  CHECK(from_bits(0x3C00) == 1.0f);
  CHECK(from_bits(0x3555) == 0.333251953125f);
  CHECK(from_bits(0x7BFF) == 65504.0f);
  CHECK(from_bits(0x0400) == std::ldexp(1.0f, -14));
  CHECK(from_bits(0x0001) == std::ldexp(1.0f, -24));
  CHECK(from_bits(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(from_bits(0x8001) == -std::ldexp(1.0f, -24));
  CHECK(from_bits(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(from_bits(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::signbit(from_bits(0x8000)));
  CHECK(from_bits(0x8000) == 0.0f);
}

TEST_CASE("every non-NaN half survives half -> float -> half") {
  int mismatches = 0;
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const std::uint16_t back = half_bits(from_bits(h));
    if (is_half_nan(h)) {
      if (!is_half_nan(back) || (back & 0x8000) != (h & 0x8000)) ++mismatches;
    } else if (back != h) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("to_float16 is monotonic between neighbouring halves") {
  // The midpoint between two consecutive positive finite halves rounds to the even one;
  // anything strictly inside rounds to the nearer one.
  int wrong = 0;
  for (std::uint16_t h = 0; h < 0x7BFF; ++h) {
    const float lo = from_bits(h), hi = from_bits(static_cast<std::uint16_t>(h + 1));
    const float mid = lo + (hi - lo) / 2;  // exact in float
    const std::uint16_t even = (h & 1) ? static_cast<std::uint16_t>(h + 1) : h;
    if (half_bits(mid) != even) ++wrong;
    if (half_bits(std::nextafter(mid, 0.0f)) != h) ++wrong;
    if (half_bits(std::nextafter(mid, 1e9f)) != h + 1) ++wrong;
  }
  CHECK(wrong == 0);
}

}  // TEST_SUITE("float16")

// --- operand traits ----------------------------------------------------------------------

TEST_CASE("operand type traits: spot checks") {
  constexpr auto q8 = type_info(OperandType::TENSOR_QUANT8_ASYMM);
  static_assert(q8.valid && q8.is_tensor && q8.quant == quant_kind::asymm);
  CHECK(q8.element_size == 1);
  CHECK(q8.zero_point_min == 0);
  CHECK(q8.zero_point_max == 255);

  const auto s8 = type_info(OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  CHECK(s8.zero_point_min == -128);
  CHECK(s8.zero_point_max == 127);
  CHECK(type_info(OperandType::TENSOR_QUANT16_ASYMM).zero_point_max == 65535);
  CHECK(type_info(OperandType::TENSOR_QUANT16_ASYMM).element_size == 2);
  CHECK(type_info(OperandType::TENSOR_QUANT16_SYMM).quant == quant_kind::symm);
  CHECK(type_info(OperandType::TENSOR_QUANT8_SYMM).quant == quant_kind::symm);
  CHECK(type_info(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL).quant == quant_kind::symm_per_channel);

  CHECK(type_info(OperandType::TENSOR_FLOAT16).element_size == 2);
  CHECK(is_float(OperandType::TENSOR_FLOAT16));
  CHECK(is_float(OperandType::FLOAT16));
  CHECK(is_float(OperandType::FLOAT32));
  CHECK_FALSE(is_float(OperandType::TENSOR_INT32));
  CHECK(type_info(OperandType::BOOL).element_size == 1);
  CHECK(type_info(OperandType::TENSOR_BOOL8).element_size == 1);
  CHECK(type_info(OperandType::TENSOR_INT32).element_size == 4);

  CHECK(is_scalar(OperandType::INT32));
  CHECK(is_scalar(OperandType::UINT32));
  CHECK(is_scalar(OperandType::FLOAT16));
  CHECK(is_scalar(OperandType::SUBGRAPH));
  CHECK_FALSE(is_tensor(OperandType::BOOL));
  CHECK(is_tensor(OperandType::TENSOR_BOOL8));
  CHECK(is_quantized(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL));
  CHECK_FALSE(is_quantized(OperandType::TENSOR_INT32));
  CHECK_FALSE(is_quantized(OperandType::TENSOR_FLOAT32));

  // Not fundamental: no traits.
  CHECK_FALSE(type_info(static_cast<OperandType>(16)).valid);
  CHECK_FALSE(type_info(static_cast<OperandType>(OPERAND_TYPE_OEM_MIN)).valid);
  CHECK_FALSE(type_info(make_extension_type(1, 0)).valid);
  CHECK_FALSE(is_tensor(make_extension_type(1, 0)));
  CHECK_FALSE(is_scalar(static_cast<OperandType>(99)));

  // Compile-time traits agree with the table and carry the storage type.
  static_assert(std::is_same_v<operand_traits<OperandType::TENSOR_QUANT16_ASYMM>::storage, std::uint16_t>);
  static_assert(std::is_same_v<operand_traits<OperandType::TENSOR_QUANT8_ASYMM_SIGNED>::storage, std::int8_t>);
  static_assert(std::is_same_v<operand_traits<OperandType::TENSOR_FLOAT16>::storage, float16>);
  static_assert(operand_traits<OperandType::TENSOR_QUANT8_ASYMM_SIGNED>::zero_point_min == -128);
  static_assert(!operand_traits<OperandType::INT32>::is_tensor);
  static_assert(std::is_same_v<qs8::storage, qc8::storage> && !std::is_same_v<qs8, qc8>);
  static_assert(element<f32> && element<const qu8> && quantized_element<qu8> && !quantized_element<f32>);
  static_assert(float_element<f16> && !float_element<i32>);
}

TEST_CASE("extension type encoding") {
  constexpr OperandType t = make_extension_type(3, 7);
  static_assert(is_extension(t));
  CHECK(extension_prefix(t) == 3);
  CHECK(extension_type_within(t) == 7);
  CHECK(code(t) == (3 << 16 | 7));
  CHECK_FALSE(is_fundamental(t));
  CHECK(is_extension(make_extension_type(0xFFFF, 0xFFFF)));
  CHECK(extension_prefix(make_extension_type(0xFFFF, 1)) == 0xFFFF);
  CHECK_FALSE(is_extension(OperandType::SUBGRAPH));
  CHECK_FALSE(is_extension(static_cast<OperandType>(OPERAND_TYPE_BASE_MAX)));
  CHECK(is_extension(static_cast<OperationType>(0x10000)));
  CHECK_FALSE(is_extension(OperationType::OEM_OPERATION));
}

// --- result, NNHAL_TRY, NNHAL_CHECK ---------------------------------------------------------

namespace {

result<int> half_of(int x) {
  NNHAL_CHECK(x % 2 == 0, ErrorStatus::INVALID_ARGUMENT, "half_of: ", x, " is odd");
  return x / 2;
}

int evaluations = 0;
result<int> counted(int x) {
  ++evaluations;
  return half_of(x);
}

status needs_even(int x) {
  NNHAL_TRY(counted(x));
  return {};
}

result<int> quarter_of(int x) {
  auto h = half_of(x);
  NNHAL_TRY(h);
  return half_of(*h);
}

}  // namespace

TEST_CASE("result holds a value or an error") {
  result<int> ok = 42;
  CHECK(ok.ok());
  CHECK(static_cast<bool>(ok));
  CHECK(*ok == 42);
  CHECK(ok.value() == 42);
  CHECK(ok.status() == ErrorStatus::NONE);

  result<int> bad = make_error(ErrorStatus::GENERAL_FAILURE, "broken ", 3);
  CHECK_FALSE(bad.ok());
  CHECK(bad.status() == ErrorStatus::GENERAL_FAILURE);
  CHECK(bad.err().message == "broken 3");

  result<std::string> converted = "abc";  // converting constructor
  REQUIRE(converted.ok());
  CHECK(converted->size() == 3);

  result<std::unique_ptr<int>> move_only = std::make_unique<int>(5);
  std::unique_ptr<int> p = std::move(move_only).value();
  CHECK(*p == 5);

  status fine;
  CHECK(fine.ok());
  CHECK(fine.status() == ErrorStatus::NONE);
  status failed = error{ErrorStatus::DEAD_OBJECT, "gone"};
  CHECK_FALSE(failed);
  CHECK(failed.status() == ErrorStatus::DEAD_OBJECT);
  CHECK(failed.err().message == "gone");
}

TEST_CASE("NNHAL_CHECK returns an error with the message parts") {
  CHECK(*half_of(8) == 4);
  const auto r = half_of(7);
  CHECK(r.status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(r.err().message == "half_of: 7 is odd");
}

TEST_CASE("NNHAL_TRY propagates the error and evaluates its argument once") {
  evaluations = 0;
  CHECK(needs_even(4).ok());
  CHECK(evaluations == 1);
  const auto s = needs_even(5);
  CHECK(evaluations == 2);
  CHECK(s.status() == ErrorStatus::INVALID_ARGUMENT);
  CHECK(s.err().message == "half_of: 5 is odd");

  CHECK(*quarter_of(8) == 2);
  CHECK(quarter_of(6).err().message == "half_of: 3 is odd");
  CHECK(quarter_of(5).err().message == "half_of: 5 is odd");
}

TEST_CASE("str_cat formats strings, numbers, booleans and HAL enums") {
  CHECK(str_cat("a", 1, ' ', 2.5, true, std::string("x"), std::string_view("y")) == "a1 2.5truexy");
  CHECK(str_cat(-5, " ", std::uint8_t{7}, " ", 0.25f, " ", std::uint64_t{1} << 40) == "-5 7 0.25 1099511627776");
  CHECK(str_cat(HalVersion::V1_2, " ", OperandType::TENSOR_INT32, " ", OperationType::ADD, " ",
                OperandLifeTime::CONSTANT_COPY, " ", ErrorStatus::INVALID_ARGUMENT) ==
        "V1_2 TENSOR_INT32 ADD CONSTANT_COPY INVALID_ARGUMENT");
}

// --- names ------------------------------------------------------------------------------

TEST_CASE("OperandType names round-trip") {
  std::set<std::string_view> names;
  for (std::int32_t c = OPERAND_TYPE_FUNDAMENTAL_MIN; c <= OPERAND_TYPE_FUNDAMENTAL_MAX; ++c) {
    const auto t = static_cast<OperandType>(c);
    const auto name = to_string(t);
    CAPTURE(c);
    CHECK(name != "INVALID_OPERAND_TYPE");
    names.insert(name);
    OperandType back{};
    REQUIRE(parse_operand_type(name, back));
    CHECK(back == t);
  }
  CHECK(names.size() == 16);
  CHECK(to_string(OperandType::TENSOR_QUANT8_ASYMM_SIGNED) == "TENSOR_QUANT8_ASYMM_SIGNED");
  CHECK(to_string(static_cast<OperandType>(99)) == "INVALID_OPERAND_TYPE");
  CHECK(to_string(make_extension_type(2, 1)) == "EXTENSION");
  OperandType out = OperandType::INT32;
  CHECK_FALSE(parse_operand_type("tensor_float32", out));
  CHECK_FALSE(parse_operand_type("", out));
  CHECK_FALSE(parse_operand_type("EXTENSION", out));
  CHECK(out == OperandType::INT32);  // untouched on failure
}

TEST_CASE("OperationType names round-trip") {
  std::set<std::string_view> names;
  for (std::int32_t c = 0; c < operation_type_count; ++c) {
    const auto t = static_cast<OperationType>(c);
    const auto name = to_string(t);
    CAPTURE(c);
    CHECK(name != "INVALID_OPERATION");
    names.insert(name);
    OperationType back{};
    REQUIRE(parse_operation_type(name, back));
    CHECK(back == t);
  }
  CHECK(names.size() == static_cast<std::size_t>(operation_type_count));
  CHECK(to_string(OperationType::ADD) == "ADD");
  CHECK(to_string(OperationType::RESIZE_NEAREST_NEIGHBOR) == "RESIZE_NEAREST_NEIGHBOR");
  CHECK(to_string(OperationType::REVERSE) == "REVERSE");
  CHECK(to_string(OperationType::OEM_OPERATION) == "OEM_OPERATION");
  CHECK(to_string(static_cast<OperationType>(operation_type_count)) == "INVALID_OPERATION");
  CHECK(to_string(static_cast<OperationType>(0x30001)) == "EXTENSION_OPERATION");
  OperationType out{};
  CHECK_FALSE(parse_operation_type("add", out));
  CHECK_FALSE(parse_operation_type("ADD ", out));
}

TEST_CASE("HalVersion names round-trip and order") {
  const HalVersion all[] = {HalVersion::V1_0,    HalVersion::V1_1,    HalVersion::V1_2,    HalVersion::V1_3,
                            HalVersion::AIDL_V1, HalVersion::AIDL_V2, HalVersion::AIDL_V3, HalVersion::AIDL_V4,
                            HalVersion::UNKNOWN};
  std::set<std::string_view> names;
  for (HalVersion v : all) {
    const auto name = to_string(v);
    names.insert(name);
    HalVersion back{};
    REQUIRE(parse_hal_version(name, back));
    CHECK(back == v);
  }
  CHECK(names.size() == 9);
  CHECK(to_string(HalVersion::V1_3) == "V1_3");
  CHECK(to_string(HalVersion::AIDL_V2) == "AIDL_V2");
  HalVersion out{};
  CHECK_FALSE(parse_hal_version("1.3", out));
  for (std::size_t i = 0; i + 2 < std::size(all); ++i) CHECK(all[i] < all[i + 1]);
  CHECK(latest_hal_version == HalVersion::AIDL_V4);
  CHECK(max_version(HalVersion::V1_1, HalVersion::V1_3) == HalVersion::V1_3);
  CHECK(max_version(HalVersion::AIDL_V1, HalVersion::V1_0) == HalVersion::AIDL_V1);
  CHECK(max_version(HalVersion::UNKNOWN, HalVersion::V1_2) == HalVersion::V1_2);
  CHECK(max_version(HalVersion::V1_2, HalVersion::UNKNOWN) == HalVersion::V1_2);
}

TEST_CASE("OperandLifeTime and ErrorStatus names") {
  for (std::int32_t c = 0; c <= 7; ++c) {
    const auto l = static_cast<OperandLifeTime>(c);
    OperandLifeTime back{};
    CAPTURE(c);
    REQUIRE(parse_lifetime(to_string(l), back));
    CHECK(back == l);
  }
  CHECK(to_string(static_cast<OperandLifeTime>(8)) == "INVALID_LIFETIME");
  CHECK(to_string(ErrorStatus::NONE) == "NONE");
  CHECK(to_string(ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) == "OUTPUT_INSUFFICIENT_SIZE");
  CHECK(to_string(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT) == "RESOURCE_EXHAUSTED_PERSISTENT");
  CHECK(to_string(ErrorStatus::DEAD_OBJECT) == "DEAD_OBJECT");
  CHECK(to_string(static_cast<ErrorStatus>(9)) == "UNKNOWN_ERROR_STATUS");
}

// --- the operation registry -----------------------------------------------------------------

TEST_CASE("registry: every operation code 0..105 has an entry with rows") {
  for (std::int32_t c = 0; c < operation_type_count; ++c) {
    const auto op = static_cast<OperationType>(c);
    CAPTURE(to_string(op));
    const op_entry* e = find_operation(op);
    REQUIRE(e != nullptr);
    CHECK(e->known);
    CHECK(e->type == op);
    CHECK(e->name == to_string(op));
    CHECK_FALSE(e->rows.empty());
  }
  CHECK(find_operation(OperationType::OEM_OPERATION) == nullptr);
  CHECK(find_operation(static_cast<OperationType>(operation_type_count)) == nullptr);
  CHECK(find_operation(static_cast<OperationType>(0x10001)) == nullptr);
}

TEST_CASE("registry: every row is well formed") {
  int bad_types = 0, bad_shape = 0;
  for (std::int32_t c = 0; c < operation_type_count; ++c) {
    const op_entry* e = find_operation(static_cast<OperationType>(c));
    REQUIRE(e != nullptr);
    CAPTURE(e->name);
    HalVersion earliest = HalVersion::AIDL_V4;
    for (const auto& r : e->rows) {
      earliest = r.since < earliest ? r.since : earliest;
      for (auto list : {r.inputs.view(), r.outputs.view()})
        for (OperandType t : list)
          if (!is_fundamental(t) && t != sig::any_type) ++bad_types;
      // any_type stands only for IF / WHILE data operands.
      if (e->type != OperationType::IF && e->type != OperationType::WHILE)
        for (auto list : {r.inputs.view(), r.outputs.view()})
          for (OperandType t : list)
            if (t == sig::any_type) ++bad_types;
      if (r.outputs.count == 0 || r.inputs.count == 0) ++bad_shape;
      if (r.required != sig::all && r.required > r.inputs.count) ++bad_shape;
      if (r.repeat_in != sig::none && r.repeat_in >= r.inputs.count) ++bad_shape;
      if (r.repeat_out != sig::none && r.repeat_out >= r.outputs.count) ++bad_shape;
      if (r.since == HalVersion::UNKNOWN || r.since > latest_hal_version) ++bad_shape;
    }
    CHECK(e->since == earliest);
  }
  CHECK(bad_types == 0);
  CHECK(bad_shape == 0);
}

TEST_CASE("registry: each operation's earliest row is the HAL version that introduced it") {
  auto since = [](OperationType op) { return find_operation(op)->since; };
  CHECK(since(OperationType::ADD) == HalVersion::V1_0);
  CHECK(since(OperationType::MUL) == HalVersion::V1_0);
  CHECK(since(OperationType::SUB) == HalVersion::V1_1);
  CHECK(since(OperationType::DIV) == HalVersion::V1_1);
  CHECK(since(OperationType::CAST) == HalVersion::V1_2);
  CHECK(since(OperationType::ABS) == HalVersion::V1_2);
  CHECK(since(OperationType::HARD_SWISH) == HalVersion::V1_3);
  CHECK(since(OperationType::IF) == HalVersion::V1_3);
  CHECK(since(OperationType::WHILE) == HalVersion::V1_3);
  CHECK(since(OperationType::BATCH_MATMUL) == HalVersion::AIDL_V2);
  static_assert(operation_traits<OperationType::ADD>::since == HalVersion::V1_0);
  static_assert(operation_traits<OperationType::HARD_SWISH>::since == HalVersion::V1_3);

  // types.hal numbers operations by release: 0..28 in 1.0, 29..37 in 1.1, 38..94 in 1.2,
  // 95..101 in 1.3; the AIDL HAL added 102 onwards.
  for (std::int32_t c = 0; c < operation_type_count; ++c) {
    const auto op = static_cast<OperationType>(c);
    CAPTURE(to_string(op));
    const HalVersion v = since(op);
    if (c <= 28) CHECK(v == HalVersion::V1_0);
    else if (c <= 37) CHECK(v == HalVersion::V1_1);
    else if (c <= 94) CHECK(v == HalVersion::V1_2);
    else if (c <= 101) CHECK(v == HalVersion::V1_3);
    else CHECK(v >= HalVersion::AIDL_V1);
  }
}

TEST_CASE("registry: operation_traits::accepts") {
  using T = OperandType;
  const T f32_add[] = {T::TENSOR_FLOAT32, T::TENSOR_FLOAT32, T::INT32};
  const T qs8_add[] = {T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_ASYMM_SIGNED, T::INT32};
  const T mixed[] = {T::TENSOR_FLOAT32, T::TENSOR_INT32, T::INT32};
  using add = operation_traits<OperationType::ADD>;
  CHECK(add::accepts(f32_add, HalVersion::V1_0));
  CHECK(add::accepts(qs8_add));
  CHECK_FALSE(add::accepts(qs8_add, HalVersion::V1_2));
  CHECK_FALSE(add::accepts(mixed));
  CHECK_FALSE(add::accepts(std::span<const T>(f32_add, 2)));
}
