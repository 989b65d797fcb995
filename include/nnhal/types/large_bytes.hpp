// Memory for large, long-lived byte blocks: compilation-cache files read into memory and
// the weights kernels pack at prepare. Blocks of 2 MiB and more are 2 MiB aligned and, on
// Linux, offered to transparent huge pages, so filling one takes a page fault per 2 MiB
// rather than per 4 KiB: where faults are costly (virtual machines) that makes reading a
// 32 MiB cache file about 10x faster. Smaller blocks are 64-byte aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace nnhal::types {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

/// Offers the whole 2 MiB pages inside [p, p + n) to transparent huge pages (a hint: a
/// failure, or a system without them, changes nothing). Call before the memory is touched.
inline void offer_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto lo = (at + huge_page_bytes - 1) & ~std::uintptr_t{huge_page_bytes - 1};
  const auto hi = (at + n) & ~std::uintptr_t{huge_page_bytes - 1};
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#endif
}

/// A block of at least `n` bytes (zero-filled when `zero`), freed with its last owner.
inline std::shared_ptr<std::byte[]> large_bytes(std::size_t n, bool zero) {
  const std::size_t align = n >= huge_page_bytes ? huge_page_bytes : 64;
  const std::size_t size = n == 0 ? align : (n + align - 1) / align * align;
  auto* p = static_cast<std::byte*>(::operator new(size, std::align_val_t{align}));
  if (align == huge_page_bytes) offer_huge_pages(p, size);
  if (zero) std::memset(p, 0, size);
  return std::shared_ptr<std::byte[]>(p, [align](std::byte* q) { ::operator delete(q, std::align_val_t{align}); });
}

}  // namespace nnhal::types
