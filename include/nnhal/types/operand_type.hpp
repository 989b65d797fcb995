// OperandType and OperandLifeTime (HAL 1.3 types.hal), including the extension type
// encoding: a type value above OPERAND_TYPE_BASE_MAX carries an extension prefix in its
// high 16 bits and the extension's own type in the low 16.
#pragma once

#include <cstdint>
#include <string_view>

namespace nnhal::types {

enum class OperandType : std::int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
};

/// Constants of the OperandTypeRange / OperationTypeRange enums and the extension encoding.
inline constexpr std::int32_t OPERAND_TYPE_BASE_MIN = 0;
inline constexpr std::int32_t OPERAND_TYPE_FUNDAMENTAL_MIN = 0;
inline constexpr std::int32_t OPERAND_TYPE_FUNDAMENTAL_MAX = 15;
inline constexpr std::int32_t OPERAND_TYPE_OEM_MIN = 10000;  // OEM / TENSOR_OEM_BYTE (1.0, removed in 1.2)
inline constexpr std::int32_t OPERAND_TYPE_OEM_MAX = 10001;
inline constexpr std::int32_t OPERAND_TYPE_BASE_MAX = 0xFFFF;
inline constexpr std::int32_t OPERATION_TYPE_BASE_MAX = 0xFFFF;
inline constexpr unsigned extension_type_low_bits = 16;     // Model::ExtensionTypeEncoding::LOW_BITS_TYPE
inline constexpr unsigned extension_prefix_bits = 16;       // Model::ExtensionTypeEncoding::HIGH_BITS_PREFIX

constexpr std::int32_t code(OperandType t) noexcept { return static_cast<std::int32_t>(t); }
constexpr bool is_extension(OperandType t) noexcept {
  return static_cast<std::uint32_t>(code(t)) > static_cast<std::uint32_t>(OPERAND_TYPE_BASE_MAX);
}
constexpr std::uint16_t extension_prefix(OperandType t) noexcept {
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(code(t)) >> extension_type_low_bits);
}
constexpr std::uint16_t extension_type_within(OperandType t) noexcept {
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(code(t)) & 0xFFFFu);
}
constexpr OperandType make_extension_type(std::uint16_t prefix, std::uint16_t type_within) noexcept {
  return static_cast<OperandType>(static_cast<std::int32_t>((std::uint32_t{prefix} << extension_type_low_bits) | type_within));
}
constexpr bool is_fundamental(OperandType t) noexcept {
  return code(t) >= OPERAND_TYPE_FUNDAMENTAL_MIN && code(t) <= OPERAND_TYPE_FUNDAMENTAL_MAX;
}

constexpr std::string_view to_string(OperandType t) noexcept {
  switch (t) {
    case OperandType::FLOAT32: return "FLOAT32";
    case OperandType::INT32: return "INT32";
    case OperandType::UINT32: return "UINT32";
    case OperandType::TENSOR_FLOAT32: return "TENSOR_FLOAT32";
    case OperandType::TENSOR_INT32: return "TENSOR_INT32";
    case OperandType::TENSOR_QUANT8_ASYMM: return "TENSOR_QUANT8_ASYMM";
    case OperandType::BOOL: return "BOOL";
    case OperandType::TENSOR_QUANT16_SYMM: return "TENSOR_QUANT16_SYMM";
    case OperandType::TENSOR_FLOAT16: return "TENSOR_FLOAT16";
    case OperandType::TENSOR_BOOL8: return "TENSOR_BOOL8";
    case OperandType::FLOAT16: return "FLOAT16";
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: return "TENSOR_QUANT8_SYMM_PER_CHANNEL";
    case OperandType::TENSOR_QUANT16_ASYMM: return "TENSOR_QUANT16_ASYMM";
    case OperandType::TENSOR_QUANT8_SYMM: return "TENSOR_QUANT8_SYMM";
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return "TENSOR_QUANT8_ASYMM_SIGNED";
    case OperandType::SUBGRAPH: return "SUBGRAPH";
  }
  return is_extension(t) ? "EXTENSION" : "INVALID_OPERAND_TYPE";
}

/// Parses a fundamental type name; returns false for anything else.
constexpr bool parse_operand_type(std::string_view s, OperandType& out) noexcept {
  for (std::int32_t c = OPERAND_TYPE_FUNDAMENTAL_MIN; c <= OPERAND_TYPE_FUNDAMENTAL_MAX; ++c) {
    if (to_string(static_cast<OperandType>(c)) == s) {
      out = static_cast<OperandType>(c);
      return true;
    }
  }
  return false;
}

enum class OperandLifeTime : std::int32_t {
  TEMPORARY_VARIABLE = 0,
  SUBGRAPH_INPUT = 1,
  SUBGRAPH_OUTPUT = 2,
  CONSTANT_COPY = 3,
  CONSTANT_REFERENCE = 4,
  NO_VALUE = 5,
  SUBGRAPH = 6,
  POINTER = 7,  // canonical (runtime-side) lifetime: constant held by pointer; drivers never see it
};

constexpr std::string_view to_string(OperandLifeTime l) noexcept {
  switch (l) {
    case OperandLifeTime::TEMPORARY_VARIABLE: return "TEMPORARY_VARIABLE";
    case OperandLifeTime::SUBGRAPH_INPUT: return "SUBGRAPH_INPUT";
    case OperandLifeTime::SUBGRAPH_OUTPUT: return "SUBGRAPH_OUTPUT";
    case OperandLifeTime::CONSTANT_COPY: return "CONSTANT_COPY";
    case OperandLifeTime::CONSTANT_REFERENCE: return "CONSTANT_REFERENCE";
    case OperandLifeTime::NO_VALUE: return "NO_VALUE";
    case OperandLifeTime::SUBGRAPH: return "SUBGRAPH";
    case OperandLifeTime::POINTER: return "POINTER";
  }
  return "INVALID_LIFETIME";
}

constexpr bool parse_lifetime(std::string_view s, OperandLifeTime& out) noexcept {
  for (std::int32_t c = 0; c <= 7; ++c) {
    if (to_string(static_cast<OperandLifeTime>(c)) == s) {
      out = static_cast<OperandLifeTime>(c);
      return true;
    }
  }
  return false;
}

}  // namespace nnhal::types
