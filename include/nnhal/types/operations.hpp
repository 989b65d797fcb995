// The registry of operation contracts: one entry per OperationType code, built at
// compile time from the signature structs in types/signatures/. Validation, the
// support query and kernel dispatch all read this one table.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/all.hpp"

namespace nnhal::types {

/// What the library knows of one operation type.
struct op_entry {
  bool known = false;
  OperationType type{};
  std::string_view name;
  std::span<const sig::row> rows;
  sig::infer_fn infer = nullptr;  // shape inference and semantic checks, when written
  HalVersion since = HalVersion::V1_0;  // the earliest row's version
  std::span<const sig::trailing_default> trailing_defaults;  // see sig::trailing_default
  std::uint64_t omittable = 0;  // see sig::bit
  sig::infer_into_fn infer_into = nullptr;  // the same inference into a reused list (execution)
};

namespace detail {
template <class S>
constexpr std::span<const sig::trailing_default> defaults_of() {
  if constexpr (requires { S::trailing_defaults; }) return S::trailing_defaults;
  else return {};
}
template <class S>
constexpr std::uint64_t omittable_of() {
  if constexpr (requires { S::omittable; }) return S::omittable;
  else return 0;
}
constexpr HalVersion earliest(std::span<const sig::row> rows) {
  HalVersion v = HalVersion::AIDL_V4;
  for (const auto& r : rows)
    if (r.since < v) v = r.since;
  return v;
}
// One entry per signature struct, placed at its operation code.
template <class... S>
constexpr std::array<op_entry, operation_type_count> build_table(sig::signature_list<S...>) {
  std::array<op_entry, operation_type_count> t{};
  ((t[static_cast<std::size_t>(code(S::op))] =
        op_entry{true, S::op, to_string(S::op), std::span<const sig::row>(S::rows), sig::infer_of<S>(), earliest(S::rows),
                 defaults_of<S>(), omittable_of<S>(), sig::infer_into_of<S>()}),
   ...);
  return t;
}
}  // namespace detail

inline constexpr std::array<op_entry, operation_type_count> operation_table = detail::build_table(sig::all_signatures{});

/// The contract of `t`, or nullptr for extension, OEM and unknown codes.
constexpr const op_entry* find_operation(OperationType t) noexcept {
  if (!is_known(t)) return nullptr;
  const op_entry& e = operation_table[static_cast<std::size_t>(code(t))];
  return e.known ? &e : nullptr;
}

/// Compile-time view of one operation's contract.
template <OperationType Op>
struct operation_traits {
  static constexpr const op_entry& entry = operation_table[static_cast<std::size_t>(code(Op))];
  static_assert(is_known(Op), "operation_traits: not a HAL operation code");
  static constexpr std::string_view name = to_string(Op);
  static constexpr HalVersion since = entry.since;
  static constexpr std::span<const sig::row> rows = entry.rows;
  /// Whether some row, at HAL version <= v, has exactly these input types.
  static constexpr bool accepts(std::span<const OperandType> inputs, HalVersion v = latest_hal_version) {
    for (const auto& r : rows) {
      if (r.since > v || r.inputs.count != inputs.size()) continue;
      bool ok = true;
      for (std::size_t i = 0; i < inputs.size(); ++i) ok = ok && r.inputs.types[i] == inputs[i];
      if (ok) return true;
    }
    return false;
  }
};

}  // namespace nnhal::types
