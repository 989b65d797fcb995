// Memory domains (HAL 1.3 IDevice::allocate, IBuffer, Request::MemoryPool::token):
// driver-managed buffers that a request names by token instead of shared memory, so that
// an output of one execution feeds the next without a copy through the client.
//
// A device_buffer holds one operand's worth of bytes for the roles it was allocated for
// (inputs and outputs of prepared models), and the state the HAL defines for it: it
// starts uninitialized; copyFrom or an execution that writes it successfully makes it
// initialized (with the dimensions written); an execution that fails while writing it
// makes it uninitialized again. Reading an uninitialized buffer (copyTo, or a request
// input) is GENERAL_FAILURE. A buffer_registry hands out the tokens of one device; the
// executor resolves them when execute_options::buffers points at it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "nnhal/exec/prepared_model.hpp"
#include "nnhal/types/request.hpp"
#include "nnhal/types/shape.hpp"
#include "nnhal/types/validate.hpp"

namespace nnhal::exec {

class buffer_registry;

/// One use a buffer is allocated for: input or output `index` of `model`'s main subgraph
/// (HAL BufferRole, with the model resolved from BufferRole::modelIndex).
struct buffer_role {
  std::shared_ptr<const prepared_model> model;
  std::uint32_t index = 0;
  float frequency = 1.0f;  // (0, 1]
};

namespace detail {

/// The HAL's combination of two shapes (each empty for unknown rank, 0 for an unknown
/// extent): the most specific shape compatible with both, or nothing when they conflict.
inline std::optional<types::dims_t> combine_dims(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  if (a.empty()) return types::dims_t(b.begin(), b.end());
  if (b.empty()) return types::dims_t(a.begin(), a.end());
  if (a.size() != b.size()) return std::nullopt;
  types::dims_t out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != 0 && b[i] != 0 && a[i] != b[i]) return std::nullopt;
    out[i] = a[i] != 0 ? a[i] : b[i];
  }
  return out;
}

/// Whether two operands of one type hold values alike: scale, zero point and extra
/// parameters (per-channel scales and channel dimension, extension data) all equal.
inline bool same_quantization(const types::Operand& a, const types::Operand& b) {
  if (a.scale != b.scale || a.zeroPoint != b.zeroPoint || a.extraParams.index() != b.extraParams.index()) return false;
  if (const auto* pa = std::get_if<types::SymmPerChannelQuantParams>(&a.extraParams)) {
    const auto& pb = std::get<types::SymmPerChannelQuantParams>(b.extraParams);
    return pa->channelDim == pb.channelDim && pa->scales == pb.scales;
  }
  if (const auto* ea = std::get_if<std::vector<std::uint8_t>>(&a.extraParams))
    return *ea == std::get<std::vector<std::uint8_t>>(b.extraParams);
  return true;
}

}  // namespace detail

/// IBuffer. Thread-safe: its state is guarded; the bytes themselves follow the HAL's
/// rule that a client must not use a buffer in two overlapping executions when one writes it.
class device_buffer {
 public:
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer();

  /// IBuffer::copyTo: INVALID_ARGUMENT unless `dst` is exactly the buffer's size (and
  /// mapped, and writable); GENERAL_FAILURE while the buffer is uninitialized.
  types::status copy_to(const types::Memory& dst) const {
    NNHAL_CHECK(dst.size == size_ && (size_ == 0 || dst.data != nullptr) && dst.writable,
                ErrorStatus::INVALID_ARGUMENT, "copyTo: destination of ", dst.size, " bytes",
                dst.writable ? "" : " (read-only)", ", the buffer holds ", size_);
    std::lock_guard lk(mu_);
    NNHAL_CHECK(initialized_, ErrorStatus::GENERAL_FAILURE, "copyTo: buffer ", token_, " is uninitialized");
    if (size_) std::memcpy(dst.data, bytes_.get(), size_);
    return {};
  }

  /// IBuffer::copyFrom: `src` must be exactly the buffer's size; `dims` (empty: the
  /// allocated shape) must be fully specified and agree with the allocated shape, and be
  /// empty for a scalar. The buffer is then initialized with those dimensions; after a
  /// failed copy it is uninitialized.
  types::status copy_from(const types::Memory& src, std::span<const std::uint32_t> dims) {
    auto combined = check_copy_from(src, dims);
    std::lock_guard lk(mu_);
    if (!combined) {
      initialized_ = false;  // as the HAL's reference does: a failed copy leaves no valid contents
      return std::move(combined).err();
    }
    if (size_) std::memcpy(bytes_.get(), src.data, size_);
    dims_ = std::move(*combined);
    initialized_ = true;
    return {};
  }

  std::uint32_t token() const noexcept { return token_; }
  std::size_t size() const noexcept { return size_; }
  types::OperandType type() const noexcept { return type_; }
  /// The shape given at allocation (roles and BufferDesc combined).
  const types::dims_t& allocated_dims() const noexcept { return initial_dims_; }
  bool initialized() const {
    std::lock_guard lk(mu_);
    return initialized_;
  }
  /// The shape of the current contents (the allocated shape until something is written).
  types::dims_t dims() const {
    std::lock_guard lk(mu_);
    return dims_;
  }
  /// Whether `model` may use the buffer as its input (or output) `index`.
  bool has_role(const prepared_model& model, bool input, std::uint32_t index) const noexcept {
    // A role whose model is gone names no model: another one may since live at its address.
    return std::any_of(roles_.begin(), roles_.end(), [&](const role& r) {
      return r.model == &model && r.input == input && r.index == index && !r.alive.expired();
    });
  }

 private:
  friend class buffer_registry;
  friend class execution;

  /// The shape a copyFrom of `src` with `dims` gives the buffer, or why it is refused.
  result<types::dims_t> check_copy_from(const types::Memory& src, std::span<const std::uint32_t> dims) const {
    NNHAL_CHECK(src.size == size_ && (size_ == 0 || src.data != nullptr), ErrorStatus::INVALID_ARGUMENT,
                "copyFrom: source of ", src.size, " bytes, the buffer holds ", size_);
    NNHAL_CHECK(types::is_tensor(type_) || dims.empty(), ErrorStatus::INVALID_ARGUMENT,
                "copyFrom: dimensions ", types::format_dims(dims), " given for a scalar buffer");
    NNHAL_CHECK(dims.empty() || types::all_known(dims), ErrorStatus::INVALID_ARGUMENT, "copyFrom: dimensions ",
                types::format_dims(dims, true), " are not fully specified");
    auto combined = detail::combine_dims(initial_dims_, dims);
    NNHAL_CHECK(combined.has_value(), ErrorStatus::INVALID_ARGUMENT, "copyFrom: dimensions ",
                types::format_dims(dims), " conflict with the buffer's ", types::format_dims(initial_dims_, true));
    std::uint64_t need = 0;
    NNHAL_CHECK(types::operand_byte_size(type_, *combined, need) && need == size_, ErrorStatus::INVALID_ARGUMENT,
                "copyFrom: dimensions ", types::format_dims(*combined), " do not describe ", size_, " bytes");
    return std::move(*combined);
  }
  struct role {
    const prepared_model* model;  // compared only, while `alive` says it is still that model
    std::weak_ptr<const prepared_model> alive;
    bool input;
    std::uint32_t index;
  };
  device_buffer() = default;

  /// The pool the executor reads and writes. It keeps the bytes alive, not the buffer:
  /// the token dies with the client's last reference, whatever executions still hold.
  types::Memory as_pool() const {
    types::Memory m;
    m.owner = bytes_;
    m.data = bytes_.get();
    m.size = size_;
    return m;
  }
  /// After an execution that used the buffer as an output: initialized with the shape
  /// written, or uninitialized when the execution failed.
  void settle(bool written, std::span<const std::uint32_t> dims) {
    std::lock_guard lk(mu_);
    initialized_ = written;
    if (written) dims_.assign(dims.begin(), dims.end());
  }

  std::shared_ptr<std::byte[]> bytes_;
  std::size_t size_ = 0;
  types::OperandType type_ = types::OperandType::FLOAT32;
  types::dims_t initial_dims_;
  std::vector<role> roles_;
  std::uint32_t token_ = 0;
  std::weak_ptr<void> registry_;  // the registry's token table, to give the token back

  mutable std::mutex mu_;
  types::dims_t dims_;
  bool initialized_ = false;
};

/// The tokens of one device's buffers (IDevice::allocate). Tokens are positive, unique
/// among live buffers, and given back when a buffer is destroyed.
class buffer_registry {
 public:
  buffer_registry() : table_(std::make_shared<table>()) {}

  /// IDevice::allocate. `desc_dims` is BufferDesc::dimensions (empty: from the roles).
  /// INVALID_ARGUMENT for no roles, a role without a model or naming an input or output
  /// the model does not have, a role given twice, a frequency outside (0, 1], roles of
  /// different operand types, quantization parameters or conflicting shapes. GENERAL_FAILURE when the combined
  /// shape is not fully specified (this executor does not grow buffers at execution) or
  /// the operand type is an extension type.
  result<std::shared_ptr<device_buffer>> allocate(std::span<const std::uint32_t> desc_dims,
                                                  std::span<const buffer_role> input_roles,
                                                  std::span<const buffer_role> output_roles);

  /// The live buffer holding `token`, or nullptr.
  std::shared_ptr<device_buffer> find(std::uint32_t token) const {
    std::lock_guard lk(table_->mu);
    auto it = table_->live.find(token);
    return it == table_->live.end() ? nullptr : it->second.lock();
  }

  /// Number of live buffers.
  std::size_t size() const {
    std::lock_guard lk(table_->mu);
    return table_->live.size();
  }

 private:
  friend class device_buffer;
  struct table {
    std::mutex mu;
    std::map<std::uint32_t, std::weak_ptr<device_buffer>> live;
    std::uint32_t next = 1;
  };
  std::shared_ptr<table> table_;
};

inline result<std::shared_ptr<device_buffer>> buffer_registry::allocate(std::span<const std::uint32_t> desc_dims,
                                                                        std::span<const buffer_role> input_roles,
                                                                        std::span<const buffer_role> output_roles) {
  NNHAL_CHECK(!input_roles.empty() || !output_roles.empty(), ErrorStatus::INVALID_ARGUMENT, "allocate: no roles");
  std::shared_ptr<device_buffer> buf(new device_buffer());
  std::optional<types::OperandType> type;
  const types::Operand* first = nullptr;  // the first role's operand: the others must quantize alike
  types::dims_t dims(desc_dims.begin(), desc_dims.end());
  auto add = [&](std::span<const buffer_role> roles, bool input) -> types::status {
    const char* kind = input ? "input" : "output";
    for (const buffer_role& r : roles) {
      NNHAL_CHECK(r.model != nullptr, ErrorStatus::INVALID_ARGUMENT, "allocate: an ", kind, " role without a model");
      NNHAL_CHECK(r.frequency > 0.0f && r.frequency <= 1.0f, ErrorStatus::INVALID_ARGUMENT, "allocate: ", kind,
                  " role frequency ", r.frequency, " is not in (0, 1]");
      const types::Subgraph& g = r.model->model().main;
      const auto& io = input ? g.inputIndexes : g.outputIndexes;
      NNHAL_CHECK(r.index < io.size(), ErrorStatus::INVALID_ARGUMENT, "allocate: the model has no ", kind, " ",
                  r.index);
      NNHAL_CHECK(!buf->has_role(*r.model, input, r.index), ErrorStatus::INVALID_ARGUMENT, "allocate: ", kind, " ",
                  r.index, " of one model is given twice");
      const types::Operand& o = g.operands[io[r.index]];
      NNHAL_CHECK(!type || *type == o.type, ErrorStatus::INVALID_ARGUMENT, "allocate: ", kind, " ", r.index, " is ",
                  o.type, ", another role is ", *type);
      NNHAL_CHECK(!first || detail::same_quantization(*first, o), ErrorStatus::INVALID_ARGUMENT, "allocate: ", kind, " ",
                  r.index, " has other quantization parameters (scale, zeroPoint or per-channel scales) than another role");
      type = o.type;
      if (!first) first = &o;
      auto combined = detail::combine_dims(dims, o.dimensions);
      NNHAL_CHECK(combined.has_value(), ErrorStatus::INVALID_ARGUMENT, "allocate: ", kind, " ", r.index, " of shape ",
                  types::format_dims(o.dimensions, true), " conflicts with ", types::format_dims(dims, true));
      dims = std::move(*combined);
      buf->roles_.push_back({r.model.get(), r.model, input, r.index});
    }
    return {};
  };
  NNHAL_TRY(add(input_roles, true));
  NNHAL_TRY(add(output_roles, false));
  NNHAL_CHECK(!types::is_extension(*type), ErrorStatus::GENERAL_FAILURE, "allocate: extension operand type ", *type);
  NNHAL_CHECK(types::is_tensor(*type) || dims.empty(), ErrorStatus::INVALID_ARGUMENT, "allocate: dimensions ",
              types::format_dims(dims), " for a scalar");
  std::uint64_t bytes = 0;
  // The HAL lets a driver refuse a buffer whose size it cannot know; this executor does.
  NNHAL_CHECK((!types::is_tensor(*type) || (!dims.empty() && types::all_known(dims))) &&
                  types::operand_byte_size(*type, dims, bytes),
              ErrorStatus::GENERAL_FAILURE, "allocate: the shape ", types::format_dims(dims, true),
              " is not fully specified or too large");
  buf->bytes_ = std::shared_ptr<std::byte[]>(new std::byte[bytes == 0 ? 1 : bytes]());
  buf->size_ = static_cast<std::size_t>(bytes);
  buf->type_ = *type;
  buf->initial_dims_ = dims;
  buf->dims_ = std::move(dims);
  buf->registry_ = table_;
  std::lock_guard lk(table_->mu);
  // Next free positive token (wrapping past UINT32_MAX skips 0 and live ones).
  NNHAL_CHECK(table_->live.size() < std::numeric_limits<std::uint32_t>::max(), ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT,
              "allocate: no free token");
  while (table_->next == 0 || table_->live.count(table_->next)) ++table_->next;
  buf->token_ = table_->next++;
  table_->live.emplace(buf->token_, buf);
  return buf;
}

inline device_buffer::~device_buffer() {
  if (auto t = std::static_pointer_cast<buffer_registry::table>(registry_.lock())) {
    std::lock_guard lk(t->mu);
    t->live.erase(token_);
  }
}

}  // namespace nnhal::exec
