// Shape vocabulary shared by shape inference: element counts with overflow checks,
// numpy-style broadcasting (HAL ADD/MUL/... rule) and dims formatting for messages.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "nnhal/types/error.hpp"

namespace nnhal::types {

using dims_t = std::vector<std::uint32_t>;

/// FusedActivationFunc (HAL 1.0 types.hal).
enum class FusedActivationFunc : std::int32_t { NONE = 0, RELU = 1, RELU1 = 2, RELU6 = 3 };
constexpr bool is_valid_activation(std::int32_t a) noexcept { return a >= 0 && a <= 3; }

/// "[2, 3, 4]"; unknown extents print as "?" when `zero_is_unknown`.
inline std::string format_dims(std::span<const std::uint32_t> d, bool zero_is_unknown = false) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) s += ", ";
    s += (zero_is_unknown && d[i] == 0) ? std::string("?") : std::to_string(d[i]);
  }
  return s + "]";
}

/// Product of the extents, or false if it overflows `limit` (default: what a
/// uint32 byte length can describe).
inline bool checked_element_count(std::span<const std::uint32_t> d, std::uint64_t& n,
                                  std::uint64_t limit = std::numeric_limits<std::uint32_t>::max()) noexcept {
  n = 1;
  for (auto e : d) {
    if (e == 0) {
      n = 0;
      return true;
    }
    if (n > limit / e) return false;
    n *= e;
  }
  return true;
}

inline bool all_known(std::span<const std::uint32_t> d) noexcept {
  for (auto e : d)
    if (e == 0) return false;
  return true;
}

/// Broadcasts two shapes, aligning trailing extents. At execution (`executing`) a 0
/// extent is a zero-sized dimension (compatible with 0 and 1 only); at validation it is
/// unknown and the result keeps what can be known.
inline result<dims_t> broadcast_shapes(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                       bool executing) {
  const std::size_t rank = a.size() > b.size() ? a.size() : b.size();
  dims_t outd(rank, 0);
  for (std::size_t i = 0; i < rank; ++i) {
    const bool has_a = i < a.size(), has_b = i < b.size();
    const std::uint32_t da = has_a ? a[a.size() - 1 - i] : 1;
    const std::uint32_t db = has_b ? b[b.size() - 1 - i] : 1;
    std::uint32_t r;
    if (executing) {
      if (da == db) r = da;
      else if (da == 1) r = db;
      else if (db == 1) r = da;
      else
        return make_error(ErrorStatus::INVALID_ARGUMENT, "dimensions ", format_dims(a), " and ", format_dims(b),
                          " do not broadcast");
    } else {
      if (da == 0 || db == 0) r = (da > 1) ? da : (db > 1 ? db : 0);
      else if (da == db) r = da;
      else if (da == 1) r = db;
      else if (db == 1) r = da;
      else
        return make_error(ErrorStatus::INVALID_ARGUMENT, "dimensions ", format_dims(a, true), " and ",
                          format_dims(b, true), " do not broadcast");
    }
    outd[rank - 1 - i] = r;
  }
  return outd;
}

}  // namespace nnhal::types
