// Tensor storage for benchmarks: 64-byte aligned, as a driver's tensors are (the executor's
// arena and the HAL's shared memory pools are at least that aligned). A plain
// std::vector<std::byte> of a few hundred KiB starts 16 bytes past a page boundary, which
// splits every 64-byte load across two cache lines and makes results depend on the heap.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace nnhal::bench {

template <class T>
struct aligned64_allocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{64};
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
