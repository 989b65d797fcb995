// HalVersion: the HAL releases nnhal knows, in order (1.0 .. 1.3, then the AIDL HAL's
// versions). Used for signature rows, a model's minimum version and the support query.
#pragma once

#include <cstdint>
#include <string_view>

namespace nnhal::types {

enum class HalVersion : std::uint8_t {
  V1_0 = 0,
  V1_1,
  V1_2,
  V1_3,
  AIDL_V1,  // Android 12 (feature level 5)
  AIDL_V2,  // Android 13 (feature level 6)
  AIDL_V3,  // Android 14 (feature level 7)
  AIDL_V4,
  UNKNOWN = 0xFF,  // the corpus' marker for "no version-compliance check"
};

constexpr HalVersion latest_hal_version = HalVersion::AIDL_V4;

constexpr std::string_view to_string(HalVersion v) noexcept {
  switch (v) {
    case HalVersion::V1_0: return "V1_0";
    case HalVersion::V1_1: return "V1_1";
    case HalVersion::V1_2: return "V1_2";
    case HalVersion::V1_3: return "V1_3";
    case HalVersion::AIDL_V1: return "AIDL_V1";
    case HalVersion::AIDL_V2: return "AIDL_V2";
    case HalVersion::AIDL_V3: return "AIDL_V3";
    case HalVersion::AIDL_V4: return "AIDL_V4";
    case HalVersion::UNKNOWN: return "UNKNOWN";
  }
  return "UNKNOWN";
}

/// Parses "V1_0" .. "AIDL_V4" / "UNKNOWN"; returns false on any other text.
constexpr bool parse_hal_version(std::string_view s, HalVersion& out) noexcept {
  for (auto v : {HalVersion::V1_0, HalVersion::V1_1, HalVersion::V1_2, HalVersion::V1_3,
                 HalVersion::AIDL_V1, HalVersion::AIDL_V2, HalVersion::AIDL_V3, HalVersion::AIDL_V4,
                 HalVersion::UNKNOWN}) {
    if (to_string(v) == s) {
      out = v;
      return true;
    }
  }
  return false;
}

constexpr HalVersion max_version(HalVersion a, HalVersion b) noexcept {
  if (a == HalVersion::UNKNOWN) return b;
  if (b == HalVersion::UNKNOWN) return a;
  return a < b ? b : a;
}

}  // namespace nnhal::types
