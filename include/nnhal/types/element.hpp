// Operand traits: per OperandType the C++ element type, tensor-or-scalar, quantization
// kind, zero-point range and element size, as a runtime table and as compile-time traits;
// element tags (f32, qu8, ...) that make typed tensor views distinct types.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>

#include "nnhal/types/operand_type.hpp"

namespace nnhal::types {

/// IEEE binary16 storage. Arithmetic happens in float; conversions round to nearest even.
struct float16 {
  std::uint16_t bits = 0;
  friend constexpr bool operator==(float16 a, float16 b) noexcept { return a.bits == b.bits; }
};

/// binary16 -> binary32, exact (every half is a float).
constexpr float to_float(float16 h) noexcept {
  const std::uint32_t sign = std::uint32_t{h.bits & 0x8000u} << 16;
  std::uint32_t exp = (h.bits >> 10) & 0x1Fu;
  std::uint32_t man = h.bits & 0x3FFu;
  std::uint32_t out;
  if (exp == 0x1F) {
    out = sign | 0x7F800000u | (man << 13);  // inf / nan (payload kept)
  } else if (exp != 0) {
    out = sign | ((exp + 112u) << 23) | (man << 13);  // rebias 15 -> 127
  } else if (man == 0) {
    out = sign;
  } else {
    // Subnormal half: normalise into a float.
    int shift = 0;
    while ((man & 0x400u) == 0) {
      man <<= 1;
      ++shift;
    }
    man &= 0x3FFu;
    out = sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (man << 13);
  }
  return std::bit_cast<float>(out);
}

/// binary32 -> binary16, round to nearest, ties to even; overflow gives infinity.
constexpr float16 to_float16(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t man = x & 0x7FFFFFu;
  if (exp == 0xFF) {  // inf or nan; keep nan quiet and non-zero
    return {static_cast<std::uint16_t>(sign | 0x7C00u | (man ? (0x200u | (man >> 13)) : 0u))};
  }
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1F) return {static_cast<std::uint16_t>(sign | 0x7C00u)};
  if (e <= 0) {
    if (e < -10) return {sign};  // rounds to zero (below half the smallest subnormal)
    man |= 0x800000u;
    const unsigned shift = static_cast<unsigned>(14 - e);
    std::uint32_t half_man = man >> shift;
    const std::uint32_t rem = man & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_man & 1u))) ++half_man;
    return {static_cast<std::uint16_t>(sign | half_man)};
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exponent: correct
  return {static_cast<std::uint16_t>(sign | h)};
}

/// bool8 storage: one byte, zero is false, anything else true.
using bool8 = std::uint8_t;

enum class quant_kind : std::uint8_t { none, asymm, symm, symm_per_channel };

/// Runtime description of a fundamental operand type.
struct operand_type_info {
  bool valid = false;
  bool is_tensor = false;
  bool is_float = false;
  quant_kind quant = quant_kind::none;
  std::uint32_t element_size = 0;  // bytes per element (tensors) or of the scalar
  std::int32_t zero_point_min = 0;  // allowed zeroPoint range (quantized asymm types)
  std::int32_t zero_point_max = 0;
};

namespace detail {
/// T, named through U: `typename same_as_first<T, U>::type` depends on U, so in a generic
/// lambda's discarded `if constexpr` branch its members are left unchecked (clang 14
/// checks the names there that do not depend on the lambda's parameters).
template <class T, class U>
struct same_as_first {
  using type = T;
};

inline constexpr std::array<operand_type_info, 16> operand_type_table{{
    /* FLOAT32 */ {true, false, true, quant_kind::none, 4, 0, 0},
    /* INT32 */ {true, false, false, quant_kind::none, 4, 0, 0},
    /* UINT32 */ {true, false, false, quant_kind::none, 4, 0, 0},
    /* TENSOR_FLOAT32 */ {true, true, true, quant_kind::none, 4, 0, 0},
    /* TENSOR_INT32 */ {true, true, false, quant_kind::none, 4, 0, 0},
    /* TENSOR_QUANT8_ASYMM */ {true, true, false, quant_kind::asymm, 1, 0, 255},
    /* BOOL */ {true, false, false, quant_kind::none, 1, 0, 0},
    /* TENSOR_QUANT16_SYMM */ {true, true, false, quant_kind::symm, 2, 0, 0},
    /* TENSOR_FLOAT16 */ {true, true, true, quant_kind::none, 2, 0, 0},
    /* TENSOR_BOOL8 */ {true, true, false, quant_kind::none, 1, 0, 0},
    /* FLOAT16 */ {true, false, true, quant_kind::none, 2, 0, 0},
    /* TENSOR_QUANT8_SYMM_PER_CHANNEL */ {true, true, false, quant_kind::symm_per_channel, 1, 0, 0},
    /* TENSOR_QUANT16_ASYMM */ {true, true, false, quant_kind::asymm, 2, 0, 65535},
    /* TENSOR_QUANT8_SYMM */ {true, true, false, quant_kind::symm, 1, 0, 0},
    /* TENSOR_QUANT8_ASYMM_SIGNED */ {true, true, false, quant_kind::asymm, 1, -128, 127},
    /* SUBGRAPH */ {true, false, false, quant_kind::none, 4, 0, 0},
}};
}  // namespace detail

/// Traits of a fundamental type; `valid == false` for extension or unknown codes.
constexpr operand_type_info type_info(OperandType t) noexcept {
  if (!is_fundamental(t)) return {};
  return detail::operand_type_table[static_cast<std::size_t>(code(t))];
}
constexpr bool is_tensor(OperandType t) noexcept { return type_info(t).is_tensor; }
constexpr bool is_scalar(OperandType t) noexcept { return type_info(t).valid && !type_info(t).is_tensor; }
constexpr bool is_quantized(OperandType t) noexcept { return type_info(t).quant != quant_kind::none; }
constexpr bool is_float(OperandType t) noexcept { return type_info(t).is_float; }

/// Compile-time traits of one fundamental operand type.
template <OperandType Type>
struct operand_traits;

#define NNHAL_OPERAND_TRAITS(TYPE, STORAGE)                                   \
  template <>                                                                \
  struct operand_traits<OperandType::TYPE> {                                 \
    using storage = STORAGE;                                                 \
    static constexpr OperandType type = OperandType::TYPE;                   \
    static constexpr operand_type_info info = type_info(OperandType::TYPE); \
    static constexpr bool is_tensor = info.is_tensor;                        \
    static constexpr quant_kind quant = info.quant;                          \
    static constexpr std::int32_t zero_point_min = info.zero_point_min;      \
    static constexpr std::int32_t zero_point_max = info.zero_point_max;      \
    static_assert(sizeof(storage) == info.element_size);                     \
  };
NNHAL_OPERAND_TRAITS(FLOAT32, float)
NNHAL_OPERAND_TRAITS(INT32, std::int32_t)
NNHAL_OPERAND_TRAITS(UINT32, std::uint32_t)
NNHAL_OPERAND_TRAITS(TENSOR_FLOAT32, float)
NNHAL_OPERAND_TRAITS(TENSOR_INT32, std::int32_t)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT8_ASYMM, std::uint8_t)
NNHAL_OPERAND_TRAITS(BOOL, bool8)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT16_SYMM, std::int16_t)
NNHAL_OPERAND_TRAITS(TENSOR_FLOAT16, float16)
NNHAL_OPERAND_TRAITS(TENSOR_BOOL8, bool8)
NNHAL_OPERAND_TRAITS(FLOAT16, float16)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT8_SYMM_PER_CHANNEL, std::int8_t)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT16_ASYMM, std::uint16_t)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT8_SYMM, std::int8_t)
NNHAL_OPERAND_TRAITS(TENSOR_QUANT8_ASYMM_SIGNED, std::int8_t)
NNHAL_OPERAND_TRAITS(SUBGRAPH, std::uint32_t)
#undef NNHAL_OPERAND_TRAITS

/// Element tag: the storage type plus the HAL tensor type it stands for. Two tags with
/// the same storage (qs8 and qc8) are still different types, so views do not mix.
template <OperandType Hal>
struct tag {
  using storage = typename operand_traits<Hal>::storage;
  static constexpr OperandType hal = Hal;
};
using f32 = tag<OperandType::TENSOR_FLOAT32>;
using f16 = tag<OperandType::TENSOR_FLOAT16>;
using i32 = tag<OperandType::TENSOR_INT32>;
using qu8 = tag<OperandType::TENSOR_QUANT8_ASYMM>;
using qs8 = tag<OperandType::TENSOR_QUANT8_ASYMM_SIGNED>;
using qc8 = tag<OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL>;
using qsym8 = tag<OperandType::TENSOR_QUANT8_SYMM>;
using qs16 = tag<OperandType::TENSOR_QUANT16_SYMM>;
using qu16 = tag<OperandType::TENSOR_QUANT16_ASYMM>;
using b8 = tag<OperandType::TENSOR_BOOL8>;

template <class E>
concept element = requires {
  typename std::remove_const_t<E>::storage;
  std::remove_const_t<E>::hal;
} && is_tensor(std::remove_const_t<E>::hal);

template <class E>
concept quantized_element = element<E> && is_quantized(std::remove_const_t<E>::hal);

template <class E>
concept float_element = element<E> && is_float(std::remove_const_t<E>::hal);

/// Storage of tag E, const when E is const.
template <element E>
using storage_t = std::conditional_t<std::is_const_v<E>, const typename std::remove_const_t<E>::storage,
                                     typename std::remove_const_t<E>::storage>;

/// A typed view of one tensor: data, extents and quantization. `tensor_view<const f32>`
/// and `tensor_view<qu8>` are unrelated types, so passing the wrong one does not compile.
template <element E>
struct tensor_view {
  storage_t<E>* data = nullptr;
  std::span<const std::uint32_t> dims;
  float scale = 0.0f;
  std::int32_t zero_point = 0;

  constexpr std::size_t rank() const noexcept { return dims.size(); }
  constexpr std::size_t size() const noexcept {
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  constexpr std::uint32_t dim(std::size_t i) const noexcept { return dims[i]; }
  /// The same view, read-only.
  constexpr operator tensor_view<const std::remove_const_t<E>>() const noexcept
    requires(!std::is_const_v<E>)
  {
    return {data, dims, scale, zero_point};
  }
};

}  // namespace nnhal::types
