// LSH_PROJECTION kernel; contract in types/signatures/lsh_projection.hpp. Each hash bit
// is the sign of sum_i weight[i] * fingerprint(seed, input item i), with the seed taken
// from the hash tensor as a float and each input item (its row of dimension 0) as raw
// bytes, hashed with FarmHash Fingerprint64 as the AOSP path does. Sparse output packs
// a hash function's bits into one integer (plus i << num_bits for SPARSE); dense writes
// one bit per element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/types/signatures/lsh_projection.hpp"

namespace nnhal::ops::lsh_projection {

namespace detail {

// FarmHash's farmhashna::Hash64 (= Fingerprint64), written from its published
// definition: little-endian 64/32-bit loads, rotations right, three 64-bit primes.
inline constexpr std::uint64_t k0 = 0xc3a5c85c97cb3127ULL;
inline constexpr std::uint64_t k1 = 0xb492b66fbe98f273ULL;
inline constexpr std::uint64_t k2 = 0x9ae16a3b2f90404fULL;

inline std::uint64_t load64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline std::uint64_t load32(const unsigned char* p) noexcept {
  return std::uint64_t{p[0]} | (std::uint64_t{p[1]} << 8) | (std::uint64_t{p[2]} << 16) | (std::uint64_t{p[3]} << 24);
}
constexpr std::uint64_t rotr(std::uint64_t v, int s) noexcept { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
constexpr std::uint64_t shift_mix(std::uint64_t v) noexcept { return v ^ (v >> 47); }

constexpr std::uint64_t hash16(std::uint64_t u, std::uint64_t v, std::uint64_t mul) noexcept {
  std::uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  std::uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

inline std::uint64_t hash_0_to_16(const unsigned char* s, std::size_t len) noexcept {
  if (len >= 8) {
    const std::uint64_t mul = k2 + len * 2;
    const std::uint64_t a = load64(s) + k2, b = load64(s + len - 8);
    const std::uint64_t c = rotr(b, 37) * mul + a, d = (rotr(a, 25) + b) * mul;
    return hash16(c, d, mul);
  }
  if (len >= 4) {
    const std::uint64_t mul = k2 + len * 2;
    return hash16(len + (load32(s) << 3), load32(s + len - 4), mul);
  }
  if (len > 0) {
    const std::uint32_t y = std::uint32_t{s[0]} + (std::uint32_t{s[len >> 1]} << 8);
    const std::uint32_t z = static_cast<std::uint32_t>(len) + (std::uint32_t{s[len - 1]} << 2);
    return shift_mix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

inline std::uint64_t hash_17_to_32(const unsigned char* s, std::size_t len) noexcept {
  const std::uint64_t mul = k2 + len * 2;
  const std::uint64_t a = load64(s) * k1, b = load64(s + 8);
  const std::uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
  return hash16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + k2, 18) + c, mul);
}

inline std::uint64_t hash_33_to_64(const unsigned char* s, std::size_t len) noexcept {
  const std::uint64_t mul = k2 + len * 2;
  const std::uint64_t a = load64(s) * k2, b = load64(s + 8);
  const std::uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
  const std::uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
  const std::uint64_t z = hash16(y, a + rotr(b + k2, 18) + c, mul);
  const std::uint64_t e = load64(s + 16) * mul, f = load64(s + 24);
  const std::uint64_t g = (y + load64(s + len - 32)) * mul, h = (z + load64(s + len - 24)) * mul;
  return hash16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

struct pair64 {
  std::uint64_t first, second;
};
/// 16 bytes of state from 32 input bytes and two seeds.
inline pair64 weak_hash_32(const unsigned char* s, std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const std::uint64_t c = a;
  a += x;
  a += y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

/// FarmHash Fingerprint64 of len bytes.
inline std::uint64_t fingerprint64(const unsigned char* s, std::size_t len) noexcept {
  if (len <= 16) return hash_0_to_16(s, len);
  if (len <= 32) return hash_17_to_32(s, len);
  if (len <= 64) return hash_33_to_64(s, len);
  // Longer inputs: 64-byte blocks over 56 bytes of state, then the last 64 bytes.
  constexpr std::uint64_t seed = 81;
  std::uint64_t x = seed, y = seed * k1 + 113, z = shift_mix(y * k2 + 113) * k2;
  pair64 v{0, 0}, w{0, 0};
  x = x * k2 + load64(s);
  const unsigned char* end = s + ((len - 1) / 64) * 64;
  const unsigned char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rotr(x + y + v.first + load64(s + 8), 37) * k1;
    y = rotr(y + v.second + load64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotr(z + w.first, 33) * k1;
    v = weak_hash_32(s, v.second * k1, x + w.first);
    w = weak_hash_32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const std::uint64_t mul = k1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
  y = rotr(y + v.second + load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + load64(s + 40);
  z = rotr(z + w.first, 33) * mul;
  v = weak_hash_32(s, v.second * mul, x + w.first);
  w = weak_hash_32(s + 32, z + w.second, y + load64(s + 16));
  std::swap(z, x);
  return hash16(hash16(v.first, w.first, mul) + shift_mix(y) * k0 + z, hash16(v.second, w.second, mul) + x, mul);
}

}  // namespace detail

/// Hash and weight elements (f32 or f16) as float.
template <class S>
float load(const std::byte* p, std::size_t i) noexcept {
  S s;
  std::memcpy(&s, p + i * sizeof(S), sizeof(S));
  if constexpr (std::is_same_v<S, types::float16>) return types::to_float(s);
  else return s;
}

/// 1 when sum_i weight[i] * (double)(int64)fingerprint(seed bytes ++ item i) > 0.
template <class S>
int sign_bit(float seed, const std::byte* input, std::size_t items, std::size_t item_bytes, const std::byte* weight,
             std::vector<unsigned char>& key) noexcept {
  double score = 0.0;
  std::memcpy(key.data(), &seed, sizeof seed);
  for (std::size_t i = 0; i < items; ++i) {
    if (item_bytes) std::memcpy(key.data() + sizeof seed, input + i * item_bytes, item_bytes);
    const auto h = static_cast<std::int64_t>(detail::fingerprint64(key.data(), key.size()));
    const double running = static_cast<double>(h);
    score += weight ? static_cast<double>(load<S>(weight, i)) * running : running;
  }
  return score > 0 ? 1 : 0;
}

/// S: the hash/weight element type (float or float16).
template <class S>
void reference(const kernel_io& io) {
  const auto& hash = io.in[0];
  const auto& input = io.in[1];
  const auto& weight = io.in[2];
  const std::int32_t type = io.scalar<std::int32_t>(3);
  const std::size_t num_hash = hash.dims[0], num_bits = hash.dims[1];
  const std::size_t items = input.dims[0];
  const std::size_t item_bytes = items ? input.value_size / items : 0;
  std::vector<unsigned char> key(sizeof(float) + item_bytes);
  const std::byte* w = weight.has_value() ? weight.value : nullptr;
  auto* out = reinterpret_cast<std::int32_t*>(io.out_data[0]);
  for (std::size_t i = 0; i < num_hash; ++i) {
    std::uint32_t signature = 0;
    for (std::size_t j = 0; j < num_bits; ++j) {
      const float seed = load<S>(hash.value, i * num_bits + j);
      const int bit = sign_bit<S>(seed, input.value, items, item_bytes, w, key);
      if (type == types::sig::lsh_projection::dense) *out++ = bit;
      else signature = (signature << 1) | static_cast<std::uint32_t>(bit);
    }
    if (type == types::sig::lsh_projection::sparse_deprecated) *out++ = static_cast<std::int32_t>(signature);
    else if (type == types::sig::lsh_projection::sparse)  // bucket i offset by i * 2^num_bits (wrapping)
      *out++ = static_cast<std::int32_t>(signature + static_cast<std::uint32_t>((std::uint64_t{i} << num_bits)));
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{[](const kernel_io& io) { reference<float>(io); }};
    case OperandType::TENSOR_FLOAT16: return kernel{[](const kernel_io& io) { reference<types::float16>(io); }};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::lsh_projection
