// Tensor storage for benchmarks: page aligned, so every implementation in a run sees its
// tensors at the same offsets within a page. A plain std::vector<std::byte> of a few hundred
// KiB starts 16 bytes past a page boundary, which splits every 64-byte load across two cache
// lines; and with only 64-byte alignment the distance between an input and an output modulo
// 4 KiB (which decides how often a load waits on an unrelated store with the same low
// address bits) is left to the heap: the same DEQUANTIZE loop measured 1.48 or 1.90 us on
// 65536 bytes depending on it.
#pragma once

#include <cstddef>
#include <new>
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

}  // namespace nnhal::bench
