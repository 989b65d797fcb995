// TOPK_V2 kernels; contract in types/signatures/topk_v2.hpp. Each row of the last
// dimension is ranked with std::partial_sort on (value descending, index descending):
// equal values list the larger index first, as types.hal states and the AOSP reference
// does (it sorts (value, index) pairs ascending and reverses them). The comparison is a
// strict weak order even with NaN, which ranks above +infinity; -0 and +0 tie.
// Quantized values compare as stored (outputs keep the input's scale and zero point).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"  // load_float

namespace nnhal::ops::topk_v2 {

/// The ranking key of one element: float for float types, the stored integer otherwise.
template <types::element E>
using key_t = std::conditional_t<types::float_element<E>, float, std::int32_t>;

template <types::element E>
key_t<E> key_of(typename E::storage x) noexcept {
  if constexpr (types::float_element<E>) return kernels::load_float(x);
  else return x;
}

/// a ranks strictly above b by value alone (NaN above everything else).
template <class K>
bool value_above(K a, K b) noexcept {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const auto in = io.input<E>(0);
  auto values = io.output<E>(0);
  auto indices = io.output<types::i32>(1);
  const std::size_t n = in.dims.back();
  const auto k = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  const std::size_t rows = n == 0 ? 0 : in.size() / n;
  if (k == 0 || k > n) return;  // rejected by shape inference
  std::vector<key_t<E>> keys(n);
  std::vector<std::int32_t> order(n);
  for (std::size_t r = 0; r < rows; ++r) {
    const S* row = in.data + r * n;
    for (std::size_t i = 0; i < n; ++i) keys[i] = key_of<E>(row[i]);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&keys](std::int32_t a, std::int32_t b) {
                        const auto ka = keys[static_cast<std::size_t>(a)], kb = keys[static_cast<std::size_t>(b)];
                        if (value_above(ka, kb)) return true;
                        if (value_above(kb, ka)) return false;
                        return a > b;  // equal values: larger index first
                      });
    for (std::size_t j = 0; j < k; ++j) {
      values.data[r * k + j] = row[order[j]];
      indices.data[r * k + j] = order[j];
    }
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    case OperandType::TENSOR_INT32: return kernel{reference<types::i32>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return kernel{reference<types::qs8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::topk_v2
