// Memory planning for the temporaries of one subgraph: every temporary whose size is
// known at prepare gets an offset in one arena, and two temporaries share bytes only
// when their lifetimes (first write .. last read, in operation order) are disjoint. So
// the arena holds the largest live set, not the sum of all temporaries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

namespace nnhal::exec {

/// What prepare planned, summed over every subgraph of a prepared model.
struct memory_plan_stats {
  std::size_t arena_bytes = 0;        // per execution, for all planned temporaries
  std::size_t temporaries_bytes = 0;  // the planned temporaries' sizes added up
  std::size_t planned = 0;            // temporaries placed in an arena
  std::size_t dynamic = 0;            // temporaries sized at execution (unknown shape)
  std::size_t aliased = 0;            // RESHAPE / SQUEEZE / EXPAND_DIMS outputs sharing their input's buffer
};

namespace detail {

/// One buffer to place: its byte size and the operations (inclusive range, in execution
/// order) from the one that writes it to the last one that reads it.
struct buffer_lifetime {
  std::size_t size = 0;
  std::uint32_t first = 0;
  std::uint32_t last = 0;
};

struct arena_layout {
  std::vector<std::size_t> offsets;  // per buffer, multiples of the alignment
  std::size_t bytes = 0;             // arena size
};

inline constexpr std::size_t arena_alignment = 64;  // a cache line; covers every element type

constexpr std::size_t align_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }

/// Greedy by size with best fit: the largest buffers are placed first, each into the
/// smallest gap left by the already placed buffers whose lifetimes overlap its own.
inline arena_layout plan_arena(std::span<const buffer_lifetime> buffers, std::size_t alignment = arena_alignment) {
  arena_layout layout;
  layout.offsets.assign(buffers.size(), 0);
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return buffers[a].size > buffers[b].size; });
  std::vector<std::size_t> placed;  // indexes of placed buffers, sorted by offset
  std::vector<std::size_t> conflicts;
  for (std::size_t b : order) {
    const auto& me = buffers[b];
    const std::size_t size = align_up(std::max<std::size_t>(me.size, 1), alignment);
    conflicts.clear();
    for (std::size_t p : placed)
      if (buffers[p].first <= me.last && me.first <= buffers[p].last) conflicts.push_back(p);
    // Gaps between conflicting buffers (in offset order); keep the tightest that fits.
    std::size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (std::size_t p : conflicts) {
      const std::size_t start = layout.offsets[p];
      if (start >= cursor && start - cursor >= size && start - cursor < best_gap) {
        best = cursor;
        best_gap = start - cursor;
      }
      cursor = std::max(cursor, start + align_up(std::max<std::size_t>(buffers[p].size, 1), alignment));
    }
    if (best == SIZE_MAX) best = cursor;
    layout.offsets[b] = best;
    layout.bytes = std::max(layout.bytes, best + size);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), best,
                                   [&](std::size_t off, std::size_t p) { return off < layout.offsets[p]; }),
                  b);
  }
  return layout;
}

/// An uninitialized block of `n` bytes aligned to arena_alignment.
class aligned_block {
 public:
  aligned_block() = default;
  explicit aligned_block(std::size_t n) : raw_(new std::byte[n + arena_alignment]), size_(n) {
    const auto p = reinterpret_cast<std::uintptr_t>(raw_.get());
    data_ = raw_.get() + (align_up(p, arena_alignment) - p);
  }
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  std::unique_ptr<std::byte[]> raw_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace nnhal::exec
