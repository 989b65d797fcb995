// Test requests over one shared-memory pool: inputs given as values, outputs as byte
// sizes, each output followed by a guard region the driver must never write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <variant>
#include <vector>

#include "nnhal/types/request.hpp"

namespace nnhal::test {

inline constexpr std::size_t guard_bytes = 16;
inline constexpr std::byte guard_value{0xCD};

class request_builder {
 public:
  template <class V>
  request_builder& in(const std::vector<V>& v, std::vector<std::uint32_t> d = {}, std::uint32_t misalign = 0) {
    const auto loc = place(v.size() * sizeof(V), misalign);
    if (loc.length) std::memcpy(bytes_.data() + loc.offset, v.data(), loc.length);
    req_.inputs.push_back({false, loc, std::move(d)});
    return *this;
  }
  request_builder& omitted_in() {
    req_.inputs.push_back({true, {}, {}});
    return *this;
  }
  request_builder& out(std::size_t bytes, std::uint32_t misalign = 0, std::vector<std::uint32_t> d = {}) {
    const auto loc = place(bytes, misalign);
    bytes_.resize(bytes_.size() + guard_bytes, guard_value);
    guards_.push_back(loc.offset + loc.length);
    req_.outputs.push_back({false, loc, std::move(d)});
    return *this;
  }
  request_builder& omitted_out() {
    req_.outputs.push_back({true, {}, {}});
    return *this;
  }
  types::Request build() const {
    types::Request r = req_;
    auto mem = types::Memory::allocate(bytes_.size());
    if (!bytes_.empty()) std::memcpy(mem.data, bytes_.data(), bytes_.size());
    r.pools.push_back(mem);
    return r;
  }
  /// The guard regions after every output are untouched in `r`'s pool.
  bool guards_intact(const types::Request& r) const {
    const auto& mem = std::get<types::Memory>(r.pools[0]);
    for (auto g : guards_)
      for (std::size_t i = 0; i < guard_bytes; ++i)
        if (mem.data[g + i] != guard_value) return false;
    return true;
  }

 private:
  types::DataLocation place(std::size_t n, std::uint32_t misalign) {
    const std::size_t off = (bytes_.size() + 15) / 16 * 16 + misalign;
    bytes_.resize(off + n, std::byte{0});
    return {0, static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(n)};
  }

  types::Request req_;
  std::vector<std::byte> bytes_;
  std::vector<std::size_t> guards_;
};

}  // namespace nnhal::test
