// Vectors whose storage starts on a cache line, for kernel buffers read by full-width
// vector loads. With the heap's 16-byte alignment a 64-byte load from such a buffer
// spans two cache lines, and whether it does depends on what the process allocated
// before: the same kernel then runs at two speeds from one process to the next.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace nnhal::simd {

inline constexpr std::size_t cache_line = 64;

/// std::allocator with every block aligned to a cache line.
template <class T>
struct cache_aligned_allocator {
  using value_type = T;
  cache_aligned_allocator() = default;
  template <class U>
  cache_aligned_allocator(const cache_aligned_allocator<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{cache_line}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{cache_line}); }
  template <class U>
  bool operator==(const cache_aligned_allocator<U>&) const noexcept {
    return true;
  }
};

/// A std::vector whose data() starts on a cache line.
template <class T>
using aligned_vector = std::vector<T, cache_aligned_allocator<T>>;

}  // namespace nnhal::simd
