// How a prepared step calls a kernel: bind() picks the typed kernel once, at prepare,
// from the operation's operand types; the resulting callable gets a kernel_io per
// execution, whose views the kernel reads with the element tag it was bound for.
#pragma once

#include <atomic>
#include <cassert>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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
  if (io.par && io.par->concurrency() > 1 && n / 2 >= grain) io.par->parallel_for(n, grain, body);
  else if (n) body(std::size_t{0}, n);
}

/// Elements per chunk of a memory-bound element-wise loop (about 1 MiB of float32).
inline constexpr std::size_t elementwise_grain = std::size_t{1} << 18;

/// Element-wise outputs of at least this many bytes are written with streaming stores
/// (simd/stream_avx512.hpp, on AVX-512 CPUs): too large to be read back from the caches by
/// the next operation, so writing around them saves the line reads. A tuning knob for drivers (and
/// tests, which lower it); read at every execution.
inline std::atomic<std::size_t> streaming_output_bytes{std::size_t{32} << 20};
/// Whether an element-wise output of `bytes` is written with streaming stores.
inline bool streamed_output(std::size_t bytes) noexcept {
  return bytes >= streaming_output_bytes.load(std::memory_order_relaxed);
}

/// A bound kernel. Kernels cannot fail: everything they rely on was validated before.
using kernel = std::function<void(const kernel_io&)>;

/// Bytes a kernel packed from constant weights at bind, kept alive by `owner`.
struct packed_blob {
  std::shared_ptr<const void> owner;
  std::span<const std::byte> bytes;
};

/// Packed weights by key: what one preparation packed, to save in the compilation cache's
/// data cache, or what a cache gave back for the next preparation.
using packed_table = std::map<std::string, packed_blob, std::less<>>;

/// Where bind() finds weights packed by an earlier preparation and records what it packs.
/// A kernel names its packing with a key (the operation's place in the model, the packed
/// layout and its sizes) and uses bytes found under it only when their size is exactly what
/// it would pack itself: a corrupted data cache then gives wrong values, never an
/// out-of-bounds read. Kernels never write to found bytes.
class packed_weights {
 public:
  virtual ~packed_weights() = default;
  /// The bytes kept under `key` by an earlier preparation (empty bytes when none).
  virtual packed_blob find(std::string_view key) const = 0;
  /// Records what this preparation packed under `key`.
  virtual void keep(std::string key, packed_blob blob) = 0;
};

/// What bind() sees at prepare: operand types, static quantization and constants.
struct bind_context {
  const types::Operation& op;
  std::span<const operand_desc> in;
  std::span<const operand_desc> out;
  bool relaxed = false;  // relaxComputationFloat32toFloat16
  packed_weights* packs = nullptr;  // none: pack without looking or recording
  std::string_view site;            // the operation's place in the model, for packing keys
};

/// Part of every packing key: bump it when any kernel changes the layout it packs, so a
/// cache written by an older nnhal is packed again rather than misread.
inline constexpr std::string_view packed_layout_version = "p1";

/// A constant packed once: the bytes an earlier preparation kept under `site/p1/what` when
/// they are exactly `bytes` long, given to `view(blob)`; else `pack()`, whose result (a
/// shared_ptr<const T>) is recorded through `blob_of(T)`. Without a store, just pack().
template <class T, class Pack, class View, class BlobOf>
std::shared_ptr<const T> packed_constant(const bind_context& c, std::string_view what, std::size_t bytes, Pack&& pack,
                                         View&& view, BlobOf&& blob_of) {
  if (!c.packs) return pack();
  std::string key;
  key.reserve(c.site.size() + packed_layout_version.size() + what.size() + 2);
  key.append(c.site).append("/").append(packed_layout_version).append("/").append(what);
  const packed_blob found = c.packs->find(key);
  std::shared_ptr<const T> t;
  if (found.owner && found.bytes.size() == bytes) t = view(found);
  if (!t) t = pack();
  c.packs->keep(std::move(key), blob_of(t));
  return t;
}

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
