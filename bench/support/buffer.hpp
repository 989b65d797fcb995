// Tensor storage for benchmarks: page aligned, so every implementation in a run sees its
// tensors at the same offsets within a page. A plain std::vector<std::byte> of a few hundred
// KiB starts 16 bytes past a page boundary, which splits every 64-byte load across two cache
// lines; and with only 64-byte alignment the distance between an input and an output modulo
// 4 KiB (which decides how often a load waits on an unrelated store with the same low
// address bits) is left to the heap: the same DEQUANTIZE loop measured 1.48 or 1.90 us on
// 65536 bytes depending on it.
#pragma once

#include <cstddef>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "nnhal/ops/simd/aligned.hpp"

namespace nnhal::bench {

/// Page-aligned storage for benchmark tensors.
template <class T>
using page_aligned_allocator = simd::aligned_allocator<T, 4096>;

/// Bytes of one benchmark tensor.
using byte_buffer = std::vector<std::byte, page_aligned_allocator<std::byte>>;

/// Fills an input tensor with random values, the same for every implementation given the
/// same seed: floats uniform in [-1, 1] (f32), else uniform bytes. Never constant bytes: as
/// float32, 0x01010101 is 2.4e-38, and products of it are subnormal, which some CPUs
/// compute a hundred times slower (oneDNN's float32 1x1 conv took 154 ms instead of 0.67).
inline void fill_random(std::span<std::byte> data, bool f32, unsigned seed) {
  std::mt19937 rng(seed);
  if (f32) {
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    for (std::size_t i = 0; i + 4 <= data.size(); i += 4) {
      const float v = real(rng);
      std::memcpy(data.data() + i, &v, 4);
    }
  } else {
    for (std::byte& b : data) b = static_cast<std::byte>(rng());
  }
}

}  // namespace nnhal::bench
