// The vocabulary of operation signatures: one constexpr table of rows per operation
// (types/signatures/<op>.hpp), read by validation, by the support query and by kernel
// dispatch. A row lists the operand types of one accepted form, in HAL operand order,
// and the first HAL version that accepts it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "nnhal/types/element.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/hal_version.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operation_type.hpp"

namespace nnhal::types::sig {

using T = OperandType;
using V = HalVersion;

/// Matches any operand type (IF/WHILE data operands; checked by control-flow validation).
inline constexpr OperandType any_type = static_cast<OperandType>(-1);

/// A fixed-capacity list of operand types (BIDIRECTIONAL_SEQUENCE_LSTM has 61 inputs).
template <std::size_t Capacity>
struct type_list {
  std::array<OperandType, Capacity> types{};
  std::uint8_t count = 0;
  constexpr std::span<const OperandType> view() const noexcept { return {types.data(), count}; }
};

inline constexpr std::size_t max_row_inputs = 64;
inline constexpr std::size_t max_row_outputs = 8;

template <class... Ts>
constexpr type_list<max_row_inputs> ins(Ts... ts) noexcept {
  static_assert(sizeof...(Ts) <= max_row_inputs, "signature row: too many inputs");
  return {{ts...}, static_cast<std::uint8_t>(sizeof...(Ts))};
}
template <class... Ts>
constexpr type_list<max_row_outputs> outs(Ts... ts) noexcept {
  static_assert(sizeof...(Ts) <= max_row_outputs, "signature row: too many outputs");
  return {{ts...}, static_cast<std::uint8_t>(sizeof...(Ts))};
}

inline constexpr std::uint8_t all = 0xFF;
inline constexpr std::int8_t none = -1;

/// One accepted form of an operation.
///  - `inputs`/`outputs`: operand types in HAL order, the longest form of the row.
///  - `required`: how many leading inputs must be present; inputs after it are optional
///    trailing inputs that a model may leave out of the list (`all`: none optional).
///  - `repeat_in`/`repeat_out`: index of an input/output slot that may occur several
///    times in a row (CONCATENATION's tensors, SPLIT's outputs, IF/WHILE's data),
///    at least `repeat_in_min`/`repeat_out_min` times. `none`: fixed arity.
struct row {
  HalVersion since = HalVersion::V1_0;
  type_list<max_row_inputs> inputs;
  type_list<max_row_outputs> outputs;
  std::uint8_t required = all;
  std::int8_t repeat_in = none;
  std::uint8_t repeat_in_min = 1;
  std::int8_t repeat_out = none;
  std::uint8_t repeat_out_min = 1;
};

/// Bit k set: input k may be omitted (an operand of lifetime NO_VALUE, or a request
/// argument with hasNoValue). Operations declare `omittable`; without it none may be.
constexpr std::uint64_t bit(unsigned k) noexcept { return std::uint64_t{1} << k; }

/// The default value of a trailing optional input (BOOL: 0 is false). A model that
/// passes the default explicitly is valid at the version of the form without it, as
/// upstream computes a model's minimum version after removing default arguments.
struct trailing_default {
  OperandType type;
  std::int32_t value;
};

/// What an operation's shape inference sees of one operand. At validation time a
/// dimension of 0 is unknown and `value` is set only for constants; at execution every
/// dimension is known and every present operand has a value.
struct operand_desc {
  OperandType type = OperandType::FLOAT32;
  std::span<const std::uint32_t> dims;
  float scale = 0.0f;
  std::int32_t zero_point = 0;
  const SymmPerChannelQuantParams* channel_quant = nullptr;
  const std::byte* value = nullptr;  // constant (validation) or actual (execution) bytes
  std::size_t value_size = 0;
  bool omitted = false;  // an optional input given no value (NO_VALUE / hasNoValue)

  bool has_value() const noexcept { return value != nullptr && !omitted; }
  /// The scalar's value when known: the operand must be a scalar of the right size.
  template <class S>
  std::optional<S> scalar() const noexcept {
    if (!has_value() || value_size != sizeof(S)) return std::nullopt;
    S s;
    std::memcpy(&s, value, sizeof(S));
    return s;
  }
  /// Element i of a known constant tensor of S (caller checks the size).
  template <class S>
  S at(std::size_t i) const noexcept {
    S s;
    std::memcpy(&s, value + i * sizeof(S), sizeof(S));
    return s;
  }
  std::size_t element_count() const noexcept {
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  bool dims_known() const noexcept {
    for (auto d : dims)
      if (d == 0) return false;
    return true;
  }
};

/// Work an executing shape inference did that its operation's kernel can reuse (e.g.
/// BOX_WITH_NMS_LIMIT's selection, which fixes the output sizes), so it runs once per
/// execution. Each operation that uses it derives its own payload type.
struct infer_payload {
  virtual ~infer_payload() = default;
};

/// Per-operation scratch the executor owns and keeps between executions: infer fills the
/// payload (reusing its capacity) and marks it ready; the kernel reads it through
/// kernel_io::scratch. Kernels run without it too (tests, benches), recomputing the work.
struct infer_scratch {
  std::unique_ptr<infer_payload> payload;
  bool ready = false;  // set by this execution's infer of the operation; the executor clears it

  /// The payload as P, created on first use (or if another type was stored); marks it ready.
  template <class P>
  P& fill() {
    if (!dynamic_cast<P*>(payload.get())) payload = std::make_unique<P>();
    ready = true;
    return static_cast<P&>(*payload);
  }
  /// The payload this execution's infer stored as P, or nullptr.
  template <class P>
  const P* get() const noexcept {
    return ready ? dynamic_cast<const P*>(payload.get()) : nullptr;
  }
};

/// Input of an operation's shape inference.
struct infer_context {
  OperationType op;
  std::span<const operand_desc> inputs;
  std::span<const operand_desc> outputs;  // as declared by the model (type, quant, dims)
  bool executing = false;                 // true at execution: every shape is known
  HalVersion* min_version = nullptr;      // validation: raise it when a rule needs a newer HAL
  infer_scratch* scratch = nullptr;       // execution only, and optional: see infer_scratch
};

/// Output of shape inference: one dimension list per output (0 = unknown at validation).
using shapes = std::vector<std::vector<std::uint32_t>>;
using infer_fn = result<shapes> (*)(const infer_context&);
/// Shape inference into a caller-owned list: the executor keeps `out` between operations
/// and executions, so an infer_into that assigns into it allocates nothing once warm. A
/// signature may define `static status infer_into(const infer_context&, shapes&)` next
/// to (or instead of) infer(); the registry adapts whichever exists (see infer_into_of).
using infer_into_fn = status (*)(const infer_context&, shapes& out);

/// Sets `out` to these dimension lists, reusing its storage.
inline void assign_shapes(shapes& out, std::initializer_list<std::span<const std::uint32_t>> lists) {
  out.resize(lists.size());
  std::size_t k = 0;
  for (const auto& l : lists) out[k++].assign(l.begin(), l.end());
}

namespace detail {
template <class S>
status infer_by_value(const infer_context& c, shapes& out) {
  auto r = S::infer(c);
  if (!r) return std::move(r).err();
  out = std::move(*r);
  return {};
}
template <class S>
result<shapes> infer_by_ref(const infer_context& c) {
  shapes out;
  NNHAL_TRY(S::infer_into(c, out));
  return out;
}
}  // namespace detail

/// Signature S's own infer_into, or its infer() adapted (which still allocates the list
/// it returns), or nullptr.
template <class S>
constexpr infer_into_fn direct_infer_into_of() {
  if constexpr (requires { &S::infer_into; }) return &S::infer_into;
  else if constexpr (requires { &S::infer; }) return &detail::infer_by_value<S>;
  else return nullptr;
}
/// Signature S's own infer, or its infer_into adapted, or nullptr.
template <class S>
constexpr infer_fn direct_infer_of() {
  if constexpr (requires { &S::infer; }) return &S::infer;
  else if constexpr (requires { &S::infer_into; }) return &detail::infer_by_ref<S>;
  else return nullptr;
}
template <class S>
inline constexpr bool has_inference = requires { &S::infer; } || requires { &S::infer_into; };

#if defined(NNHAL_PRECOMPILED_FAMILIES)
// Shape inference compiled once (see ops/precompiled.hpp): the registry's table takes the
// addresses of every signature's inference, so without this each TU that validates or
// prepares a model compiles all of them again (~400 KB of code, a third of such a TU's
// build time). Here they are only declared; NNHAL_DEFINE_PRECOMPILED_SIGNATURES, in one
// TU, defines them as calls of the direct functions above.
namespace precompiled {
template <class S>
struct inference {
  static result<shapes> infer(const infer_context& c);
  static status infer_into(const infer_context& c, shapes& out);
};
}  // namespace precompiled
#endif

/// The registry's infer_into for signature S (see direct_infer_into_of).
template <class S>
constexpr infer_into_fn infer_into_of() {
#if defined(NNHAL_PRECOMPILED_FAMILIES)
  if constexpr (has_inference<S>) return &precompiled::inference<S>::infer_into;
  else return nullptr;
#else
  return direct_infer_into_of<S>();
#endif
}
/// The registry's by-value infer for S (see direct_infer_of).
template <class S>
constexpr infer_fn infer_of() {
#if defined(NNHAL_PRECOMPILED_FAMILIES)
  if constexpr (has_inference<S>) return &precompiled::inference<S>::infer;
  else return nullptr;
#else
  return direct_infer_of<S>();
#endif
}

}  // namespace nnhal::types::sig
