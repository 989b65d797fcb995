// HASHTABLE_LOOKUP kernel; contract in types/signatures/hashtable_lookup.hpp. For each
// lookup, the values row of the matching key (hit = 1) or a row of zero bytes (hit = 0),
// as AOSP writes a miss: raw zeros, also for a quantized output whose zeroPoint is not 0.
// Keys should be sorted (spec); binary search when they are, a linear scan otherwise, so
// unsorted keys still find their first match.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"

namespace nnhal::ops::hashtable_lookup {

template <types::element E>
void reference(const kernel_io& io) {
  const auto& lookups = io.in[0];
  const auto& keys = io.in[1];
  const auto& values = io.in[2];
  const std::size_t k = lookups.element_count();
  const std::size_t n = keys.element_count();
  const std::size_t row = kernels::product(values.dims, 1) * kernels::element_bytes<E>;
  std::vector<std::int32_t> key(n);
  for (std::size_t j = 0; j < n; ++j) key[j] = keys.at<std::int32_t>(j);
  const bool sorted = std::is_sorted(key.begin(), key.end());
  std::byte* out = io.out_data[0];
  std::byte* hits = io.out_data[1];
  for (std::size_t i = 0; i < k; ++i, out += row) {
    const std::int32_t want = lookups.at<std::int32_t>(i);
    const auto it = sorted ? std::lower_bound(key.begin(), key.end(), want) : std::find(key.begin(), key.end(), want);
    const bool hit = it != key.end() && *it == want;
    if (row != 0) {
      if (hit) std::memcpy(out, values.value + static_cast<std::size_t>(it - key.begin()) * row, row);
      else std::memset(out, 0, row);
    }
    hits[i] = std::byte{hit ? std::uint8_t{1} : std::uint8_t{0}};
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in.size() < 3 || c.out.size() < 2 || c.out[1].type != OperandType::TENSOR_QUANT8_ASYMM) return unsupported(c);
  switch (c.in[2].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<types::f32>};
    case OperandType::TENSOR_INT32: return kernel{reference<types::i32>};
    case OperandType::TENSOR_QUANT8_ASYMM: return kernel{reference<types::qu8>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::hashtable_lookup
