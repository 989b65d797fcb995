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

/// std::allocator with every block aligned to Align bytes (a power of 2).
template <class T, std::size_t Align = cache_line>
struct aligned_allocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = aligned_allocator<U, Align>;
  };
  aligned_allocator() = default;
  template <class U>
  aligned_allocator(const aligned_allocator<U, Align>&) noexcept {}  // NOLINT: rebinding
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{Align})); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{Align}); }
  template <class U>
  bool operator==(const aligned_allocator<U, Align>&) const noexcept {
    return true;
  }
};

/// A std::vector whose data() starts on a cache line.
template <class T>
using aligned_vector = std::vector<T, aligned_allocator<T>>;

}  // namespace nnhal::simd
