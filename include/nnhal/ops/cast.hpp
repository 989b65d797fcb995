// CAST kernels; contract in types/signatures/cast.hpp. Values convert as numbers, ignoring
// quantization parameters (a TENSOR_QUANT8_ASYMM element is its stored uint8), with the AOSP
// CPU path's rules:
//  - to float32: exact, or round to nearest for int32 beyond 2^24;
//  - to float16: round to nearest even once (overflow gives +-inf);
//  - to int32 from floats: truncation toward zero; out of range saturates and NaN gives 0
//    (undefined in the AOSP path; these are the ARM conversion results);
//  - to uint8 (TENSOR_QUANT8_ASYMM): below 0 gives 0, above 255 gives 255, otherwise
//    truncation toward zero; NaN gives 0;
//  - identity casts (every type the 1.3 table allows) copy the bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernels/unary.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::cast {

/// The number a stored value stands for, as float (int32 rounds to nearest beyond 2^24).
template <types::element E>
float as_float(typename E::storage v) noexcept {
  if constexpr (std::is_same_v<E, types::f16>)
    return types::to_float(v);
  else
    return static_cast<float>(v);
}

/// One element of In converted to Out's storage.
template <types::element In, types::element Out>
typename Out::storage convert(typename In::storage v) noexcept {
  using S = typename Out::storage;
  if constexpr (std::is_same_v<In, Out>) {
    return v;
  } else if constexpr (std::is_same_v<Out, types::f32>) {
    return as_float<In>(v);
  } else if constexpr (std::is_same_v<Out, types::f16>) {
    return types::to_float16(as_float<In>(v));  // int32: exact up to 2^24, beyond it +-inf anyway
  } else if constexpr (std::is_same_v<Out, types::i32>) {
    if constexpr (std::is_same_v<In, types::qu8>)
      return v;
    else
      return quant::saturating_int32(as_float<In>(v));
  } else {
    static_assert(std::is_same_v<Out, types::qu8>, "CAST: unexpected output type");
    if constexpr (std::is_same_v<In, types::i32>) {
      return static_cast<S>(v < 0 ? 0 : (v > 255 ? 255 : v));
    } else {
      const float x = as_float<In>(v);
      if (x < 0.0f) return 0;
      if (x > 255.0f) return 255;
      if (std::isnan(x)) return 0;
      return static_cast<S>(x);
    }
  }
}

/// Types (each of f16 f32 i32 qu8) to (each of f16 f32 i32 qu8).
template <types::element In, types::element Out>
void reference(const kernel_io& io) {
  kernels::vunary::map<In, Out>(io, convert<In, Out>);
}

/// Identity casts of any type: the bytes, unchanged.
inline void copy_bytes(const kernel_io& io) {
  const std::size_t n = io.out[0].element_count() * types::type_info(io.out[0].type).element_size;
  if (n != 0) std::memcpy(io.out_data[0], io.in[0].value, n);
}

namespace detail {
template <types::element In>
types::result<kernel> bind_from(const bind_context& c) {
  switch (c.out[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<In, types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<In, types::f16>};
    case OperandType::TENSOR_INT32: return kernel{reference<In, types::i32>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<In, types::qu8>};
    default: return unsupported(c);
  }
}
}  // namespace detail

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type == c.out[0].type && types::is_tensor(c.in[0].type)) return kernel{copy_bytes};
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return detail::bind_from<types::f32>(c);
    case OperandType::TENSOR_FLOAT16: return detail::bind_from<types::f16>(c);
    case OperandType::TENSOR_INT32: return detail::bind_from<types::i32>(c);
    case OperandType::TENSOR_QUANT8_ASYMM: return detail::bind_from<types::qu8>(c);
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::cast
