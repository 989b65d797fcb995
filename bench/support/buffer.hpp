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
#include <new>
#include <random>
#include <span>
#include <vector>

namespace nnhal::bench {

template <class T>
struct aligned64_allocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{4096};
  aligned64_allocator() = default;
  template <class U>
  aligned64_allocator(const aligned64_allocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), alignment)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, alignment); }
  template <class U>
  bool operator==(const aligned64_allocator<U>&) const noexcept {
    return true;
  }
};

/// Bytes of one benchmark tensor.
using byte_buffer = std::vector<std::byte, aligned64_allocator<std::byte>>;

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
