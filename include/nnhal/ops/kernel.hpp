// How a prepared step calls a kernel: bind() picks the typed kernel once, at prepare,
// from the operation's operand types; the resulting callable gets a kernel_io per
// execution, whose views the kernel reads with the element tag it was bound for.
#pragma once

#include <cassert>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>

#include "nnhal/exec/parallel.hpp"
#include "nnhal/types/element.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/signature.hpp"

namespace nnhal::ops {

using types::OperandType;
using types::sig::operand_desc;

/// One execution's operands for one operation. Input descs carry their data in `value`;
/// output descs carry the shapes inference produced, their bytes are `out_data[i]`.
struct kernel_io {
  std::span<const operand_desc> in;
  std::span<const operand_desc> out;
  std::span<std::byte* const> out_data;
  exec::parallel_context* par = nullptr;
  /// What this execution's shape inference left for the kernel (see infer_scratch), or
  /// nullptr; a kernel that finds nothing there recomputes it.
  const types::sig::infer_scratch* scratch = nullptr;

  template <types::element E>
  types::tensor_view<const E> input(std::size_t i) const noexcept {
    assert(in[i].type == E::hal);
    return {reinterpret_cast<const typename E::storage*>(in[i].value), in[i].dims, in[i].scale, in[i].zero_point};
  }
  template <types::element E>
  types::tensor_view<E> output(std::size_t i) const noexcept {
    assert(out[i].type == E::hal);
    return {reinterpret_cast<typename E::storage*>(out_data[i]), out[i].dims, out[i].scale, out[i].zero_point};
  }
  /// A scalar input's value (the HAL guarantees its presence for mandatory scalars).
  template <class S>
  S scalar(std::size_t i, S fallback = S{}) const noexcept {
    return in[i].template scalar<S>().value_or(fallback);
  }
};

/// Runs body(begin, end) over [0, n): in chunks of at least `grain` on the executor's
/// parallel context when it has more than one thread and n spans two grains or more,
/// else as one chunk on this thread. Memory-bound loops pass a grain large enough that a
/// chunk outweighs waking a worker.
template <class F>
void for_chunks(const kernel_io& io, std::size_t n, std::size_t grain, F&& body) {
  if (io.par && io.par->concurrency() > 1 && n >= 2 * grain) io.par->parallel_for(n, grain, body);
  else if (n) body(std::size_t{0}, n);
}

/// Elements per chunk of a memory-bound element-wise loop (about 1 MiB of float32).
inline constexpr std::size_t elementwise_grain = std::size_t{1} << 18;

/// A bound kernel. Kernels cannot fail: everything they rely on was validated before.
using kernel = std::function<void(const kernel_io&)>;

/// What bind() sees at prepare: operand types, static quantization and constants.
struct bind_context {
  const types::Operation& op;
  std::span<const operand_desc> in;
  std::span<const operand_desc> out;
  bool relaxed = false;  // relaxComputationFloat32toFloat16
};

/// The error bind() returns for a type combination it has no kernel for.
inline types::error unsupported(const bind_context& c) {
  return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, to_string(c.op.type), ": no kernel for input type ",
                           c.in.empty() ? types::OperandType::FLOAT32 : c.in[0].type);
}

/// The usual last step of a bind(): picks, among the element tags `Es...`, the one whose
/// HAL type is `t` and returns `make(E{})` (a kernel, or a result<kernel> when making it
/// can fail); unsupported(c) when `t` is none of them. Replaces a switch over operand
/// types in every operation:
///
///   return bind_for<types::f32, types::f16, types::qu8, types::qs8>(
///       c, c.in[0].type, []<class E>(E) { return kernel{reference<E>}; });
template <types::element... Es, class Make>
types::result<kernel> bind_for(const bind_context& c, OperandType t, Make&& make) {
  std::optional<types::result<kernel>> bound;
  const auto try_one = [&]<class E>(E tag) {
    if (bound || t != E::hal) return;
    if constexpr (std::is_same_v<std::invoke_result_t<Make&, E>, kernel>) bound.emplace(kernel(make(tag)));
    else bound.emplace(make(tag));
  };
  (try_one(Es{}), ...);
  if (bound) return std::move(*bound);
  return unsupported(c);
}

}  // namespace nnhal::ops
