// Typed model builder: operands carry their element tag in their C++ type (tensor<f32>,
// tensor<qu8>, scalar<std::int32_t>), and each typed operation checks at compile time that
// a row of the operation's signature table (types/signatures/<op>.hpp) takes those types.
// Output shapes come from the signature's infer(); build() validates the whole model.
//
//   builder b;
//   auto x = b.input<f32>({1, 8, 8, 3});
//   auto w = b.constant<f32>({4, 3, 3, 3}, weights);
//   auto bias = b.constant<f32>({4}, biases);
//   auto y = b.conv_2d(x, w, bias, {.padding = padding_code::same, .act = activation::RELU6});
//   b.output(b.softmax(b.reshape(y, {1, -1})));
//   result<Model> m = b.build();
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "nnhal/types/element.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operations.hpp"
#include "nnhal/types/shape.hpp"
#include "nnhal/types/validate.hpp"

namespace nnhal::types {

/// Per-tensor quantization of an operand; ignored (left 0) for float and int types.
struct quant {
  float scale = 0.0f;
  std::int32_t zero_point = 0;
};

using activation = FusedActivationFunc;

/// Implicit padding (types.hal PaddingCode).
enum class padding_code : std::int32_t { same = 1, valid = 2 };
/// Explicit padding in elements, per side.
struct explicit_padding {
  std::int32_t left = 0, right = 0, top = 0, bottom = 0;
};
using padding_spec = std::variant<padding_code, explicit_padding>;

struct conv_options {
  padding_spec padding = padding_code::same;
  std::int32_t stride_w = 1, stride_h = 1;
  activation act = activation::NONE;
  std::int32_t dilation_w = 1, dilation_h = 1;  // emitted (after layout NHWC) only when not 1
};

struct pool_options {
  padding_spec padding = padding_code::valid;
  std::int32_t stride_w = 1, stride_h = 1;
  std::int32_t filter_w = 1, filter_h = 1;
  activation act = activation::NONE;
};

class builder;

namespace detail {
/// The operand index behind the typed handles below; only the builder makes non-empty ones.
class handle {
 public:
  std::uint32_t index() const noexcept { return index_; }

 protected:
  handle() = default;
  explicit handle(std::uint32_t i) : index_(i) {}

 private:
  std::uint32_t index_ = UINT32_MAX;
};
}  // namespace detail

/// Handle of a tensor operand of element tag E in one builder's model. A default
/// handle refers to nothing; using it records an error that build() reports.
template <element E>
class tensor : public detail::handle {
 public:
  using element_type = E;
  tensor() = default;

 private:
  friend class builder;
  explicit tensor(std::uint32_t i) : handle(i) {}
};

namespace detail {
template <class S>
struct scalar_hal;
template <>
struct scalar_hal<float> {
  static constexpr OperandType type = OperandType::FLOAT32;
};
template <>
struct scalar_hal<std::int32_t> {
  static constexpr OperandType type = OperandType::INT32;
};
template <>
struct scalar_hal<std::uint32_t> {
  static constexpr OperandType type = OperandType::UINT32;
};
template <>
struct scalar_hal<bool> {
  static constexpr OperandType type = OperandType::BOOL;
};
template <>
struct scalar_hal<float16> {
  static constexpr OperandType type = OperandType::FLOAT16;
};
}  // namespace detail

/// The C++ types a HAL scalar operand can hold: float, int32, uint32, bool, float16.
template <class S>
concept scalar_value = requires { detail::scalar_hal<S>::type; };

/// Handle of a scalar operand holding an S.
template <scalar_value S>
class scalar : public detail::handle {
 public:
  using value_type = S;
  static constexpr OperandType hal = detail::scalar_hal<S>::type;
  scalar() = default;

 private:
  friend class builder;
  explicit scalar(std::uint32_t i) : handle(i) {}
};

/// Any handle, for the untyped `operation()` fallback; NO_VALUE stands for an omitted input.
struct operand_ref {
  std::uint32_t index = UINT32_MAX;
  template <element E>
  operand_ref(tensor<E> t) : index(t.index()) {}  // NOLINT: implicit by design
  template <scalar_value S>
  operand_ref(scalar<S> s) : index(s.index()) {}  // NOLINT
  explicit operand_ref(std::uint32_t i) : index(i) {}
};

/// One output of the untyped fallback: its type and quantization; dims are used only
/// when the operation has no shape inference (empty: unknown rank).
struct output_spec {
  OperandType type = OperandType::TENSOR_FLOAT32;
  quant q;
  dims_t dims;
};

namespace detail {

/// Whether some signature row of `op` takes exactly `in` (at least its required prefix)
/// and gives `out`. A repeated slot (CONCATENATION's tensors) counts as occurring once.
/// Evaluated at compile time by the typed operations below.
constexpr bool row_takes(OperationType op, std::initializer_list<OperandType> in,
                         std::initializer_list<OperandType> out) {
  if (!is_known(op)) return false;
  const op_entry& e = operation_table[static_cast<std::size_t>(code(op))];
  for (const sig::row& r : e.rows) {
    const std::size_t required = r.required == sig::all ? r.inputs.count : r.required;
    if (in.size() < required || in.size() > r.inputs.count || out.size() != r.outputs.count) continue;
    bool ok = true;
    std::size_t i = 0;
    for (OperandType t : in) {
      ok = ok && (r.inputs.types[i] == t || r.inputs.types[i] == sig::any_type);
      ++i;
    }
    i = 0;
    for (OperandType t : out) ok = ok && r.outputs.types[i++] == t;
    if (ok) return true;
  }
  return false;
}

/// Whether some row of `op` has `t` as input `slot` (for per-role diagnostics).
constexpr bool row_has_input(OperationType op, std::size_t slot, OperandType t) {
  if (!is_known(op)) return false;
  const op_entry& e = operation_table[static_cast<std::size_t>(code(op))];
  for (const sig::row& r : e.rows)
    if (slot < r.inputs.count && r.inputs.types[slot] == t) return true;
  return false;
}

inline constexpr OperandType i32_scalar = OperandType::INT32;

}  // namespace detail

/// Builds one model (its main subgraph) from typed operations. Not thread-safe; the
/// handles it returns are only meaningful with the builder that made them.
class builder {
 public:
  /// Constants up to this many bytes are CONSTANT_COPY, as the NNAPI runtime does
  /// (ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES); larger ones are
  /// CONSTANT_REFERENCE into one model pool.
  static constexpr std::size_t max_copied_bytes = 128;

  // --- operands -------------------------------------------------------------------

  /// A model input of shape `dims` (0: unknown extent).
  template <element E>
  tensor<E> input(dims_t dims, quant q = {}) {
    const auto i = add_operand(E::hal, std::move(dims), q, OperandLifeTime::SUBGRAPH_INPUT);
    m_.main.inputIndexes.push_back(i);
    return tensor<E>(i);
  }

  /// A scalar model input.
  template <scalar_value S>
  scalar<S> scalar_input() {
    const auto i = add_operand(scalar<S>::hal, {}, {}, OperandLifeTime::SUBGRAPH_INPUT);
    m_.main.inputIndexes.push_back(i);
    return scalar<S>(i);
  }

  /// A constant tensor; `values` must hold product(dims) elements.
  template <element E>
  tensor<E> constant(dims_t dims, std::span<const typename E::storage> values, quant q = {}) {
    std::uint64_t n = 0;
    if (!checked_element_count(dims, n) || n != values.size())
      fail(str_cat("constant ", to_string(E::hal), " ", format_dims(dims), ": ", values.size(), " values given"));
    return tensor<E>(add_constant(E::hal, std::move(dims), q, std::as_bytes(values)));
  }
  template <element E>
  tensor<E> constant(dims_t dims, const std::vector<typename E::storage>& values, quant q = {}) {
    return constant<E>(std::move(dims), std::span<const typename E::storage>(values), q);
  }

  /// A TENSOR_QUANT8_SYMM_PER_CHANNEL constant: one scale per slice along `channel_dim`.
  tensor<qc8> constant_per_channel(dims_t dims, std::span<const std::int8_t> values, std::vector<float> scales,
                                   std::uint32_t channel_dim) {
    auto t = constant<qc8>(std::move(dims), values);
    if (t.index() < m_.main.operands.size())
      m_.main.operands[t.index()].extraParams = SymmPerChannelQuantParams{std::move(scales), channel_dim};
    return t;
  }

  /// A 1-D TENSOR_INT32 constant (shapes, axes, paddings).
  tensor<i32> constant_i32(const std::vector<std::int32_t>& values) {
    return constant<i32>({static_cast<std::uint32_t>(values.size())}, std::span<const std::int32_t>(values));
  }

  /// A constant scalar.
  template <scalar_value S>
  scalar<S> constant_scalar(S value) {
    if constexpr (std::is_same_v<S, bool>) {
      const std::uint8_t b = value ? 1 : 0;
      return scalar<S>(add_constant(scalar<S>::hal, {}, {}, std::as_bytes(std::span<const std::uint8_t>(&b, 1))));
    } else {
      return scalar<S>(add_constant(scalar<S>::hal, {}, {}, std::as_bytes(std::span<const S>(&value, 1))));
    }
  }

  /// Makes `t` a model output (appended to outputIndexes). Only an operation's result
  /// can be an output; it may still feed later operations.
  template <element E>
  tensor<E> output(tensor<E> t) {
    if (!check_handle(t.index(), E::hal, "output")) return t;
    Operand& o = m_.main.operands[t.index()];
    if (o.lifetime != OperandLifeTime::TEMPORARY_VARIABLE) {
      fail(str_cat("output: operand ", t.index(), " is ", to_string(o.lifetime),
                   "; only an operation's result can be a model output"));
      return t;
    }
    o.lifetime = OperandLifeTime::SUBGRAPH_OUTPUT;
    m_.main.outputIndexes.push_back(t.index());
    return t;
  }

  /// relaxComputationFloat32toFloat16: float32 may be computed in float16 precision.
  builder& relaxed(bool on = true) {
    m_.relaxComputationFloat32toFloat16 = on;
    return *this;
  }

  /// The declared (or inferred) dimensions of a handle's operand; 0 = unknown extent.
  dims_t dims_of(operand_ref r) const {
    return r.index < m_.main.operands.size() ? m_.main.operands[r.index].dimensions : dims_t{};
  }
  /// Quantization of a handle's operand.
  quant quant_of(operand_ref r) const {
    if (r.index >= m_.main.operands.size()) return {};
    return {m_.main.operands[r.index].scale, m_.main.operands[r.index].zeroPoint};
  }

  // --- typed operations ------------------------------------------------------------
  // Each checks its element types against the operation's signature table at compile
  // time. Quantized outputs whose parameters the HAL leaves free take `out`; where the
  // HAL fixes them (pooling, RESHAPE, SOFTMAX, LOGISTIC) they are set for you.

  /// ADD (broadcasting), with a fused activation.
  template <element E>
  tensor<E> add(tensor<E> a, tensor<E> b, activation act = activation::NONE, quant out = {}) {
    static_assert(detail::row_takes(OperationType::ADD, {E::hal, E::hal, detail::i32_scalar}, {E::hal}),
                  "ADD: in::input0 and in::input1 must be f32, f16, qu8, qs8 or i32");
    return tensor<E>(unary_out(OperationType::ADD, {a.index(), b.index(), act_operand(act)}, E::hal, out));
  }

  /// MUL (broadcasting), with a fused activation.
  template <element E>
  tensor<E> mul(tensor<E> a, tensor<E> b, activation act = activation::NONE, quant out = {}) {
    static_assert(detail::row_takes(OperationType::MUL, {E::hal, E::hal, detail::i32_scalar}, {E::hal}),
                  "MUL: in::input0 and in::input1 must be f32, f16, qu8, qs8 or i32");
    return tensor<E>(unary_out(OperationType::MUL, {a.index(), b.index(), act_operand(act)}, E::hal, out));
  }

  /// CONV_2D (NHWC). Filter [depth_out, h, w, depth_in]; bias [depth_out].
  template <element E, element W, element B>
  tensor<E> conv_2d(tensor<E> x, tensor<W> filter, tensor<B> bias, const conv_options& o = {}, quant out = {}) {
    static_assert(detail::row_has_input(OperationType::CONV_2D, 0, E::hal),
                  "CONV_2D: in::input must be f32, f16, qu8 or qs8");
    static_assert(detail::row_takes(OperationType::CONV_2D,
                                    {E::hal, W::hal, B::hal, detail::i32_scalar, detail::i32_scalar,
                                     detail::i32_scalar, detail::i32_scalar},
                                    {E::hal}),
                  "CONV_2D: in::filter / in::bias element types do not fit in::input "
                  "(f32: f32, f32; f16: f16, f16; qu8: qu8 or qc8, i32; qs8: qs8 or qc8, i32)");
    std::vector<std::uint32_t> in{x.index(), filter.index(), bias.index()};
    append_padding_and_strides(in, o.padding, o.stride_w, o.stride_h);
    in.push_back(act_operand(o.act));
    append_dilation(in, o.dilation_w, o.dilation_h);
    return tensor<E>(unary_out(OperationType::CONV_2D, std::move(in), E::hal, out));
  }

  /// DEPTHWISE_CONV_2D (NHWC). Filter [1, h, w, depth_in * multiplier].
  template <element E, element W, element B>
  tensor<E> depthwise_conv_2d(tensor<E> x, tensor<W> filter, tensor<B> bias, const conv_options& o = {},
                              std::int32_t depth_multiplier = 1, quant out = {}) {
    static_assert(detail::row_has_input(OperationType::DEPTHWISE_CONV_2D, 0, E::hal),
                  "DEPTHWISE_CONV_2D: in::input must be f32, f16, qu8 or qs8");
    static_assert(detail::row_takes(OperationType::DEPTHWISE_CONV_2D,
                                    {E::hal, W::hal, B::hal, detail::i32_scalar, detail::i32_scalar,
                                     detail::i32_scalar, detail::i32_scalar, detail::i32_scalar},
                                    {E::hal}),
                  "DEPTHWISE_CONV_2D: in::filter / in::bias element types do not fit in::input "
                  "(f32: f32, f32; f16: f16, f16; qu8: qu8 or qc8, i32; qs8: qs8 or qc8, i32)");
    std::vector<std::uint32_t> in{x.index(), filter.index(), bias.index()};
    append_padding_and_strides(in, o.padding, o.stride_w, o.stride_h);
    in.push_back(int_scalar(depth_multiplier));
    in.push_back(act_operand(o.act));
    append_dilation(in, o.dilation_w, o.dilation_h);
    return tensor<E>(unary_out(OperationType::DEPTHWISE_CONV_2D, std::move(in), E::hal, out));
  }

  /// FULLY_CONNECTED: input flattened to [batch, input_size]; weights [units, input_size].
  template <element E, element W, element B>
  tensor<E> fully_connected(tensor<E> x, tensor<W> weights, tensor<B> bias, activation act = activation::NONE,
                            quant out = {}) {
    static_assert(detail::row_takes(OperationType::FULLY_CONNECTED, {E::hal, W::hal, B::hal, detail::i32_scalar},
                                    {E::hal}),
                  "FULLY_CONNECTED: in::input, in::weights, in::bias must be (f32, f32, f32), (f16, f16, f16), "
                  "(qu8, qu8, i32) or (qs8, qs8, i32)");
    return tensor<E>(
        unary_out(OperationType::FULLY_CONNECTED, {x.index(), weights.index(), bias.index(), act_operand(act)},
                  E::hal, out));
  }

  /// AVERAGE_POOL_2D (NHWC); a quantized output keeps the input's parameters.
  template <element E>
  tensor<E> average_pool_2d(tensor<E> x, const pool_options& o) {
    return pool<E>(OperationType::AVERAGE_POOL_2D, x, o);
  }
  /// MAX_POOL_2D (NHWC); a quantized output keeps the input's parameters.
  template <element E>
  tensor<E> max_pool_2d(tensor<E> x, const pool_options& o) {
    return pool<E>(OperationType::MAX_POOL_2D, x, o);
  }

  /// RESHAPE to `shape` (one entry may be -1); quantization is kept.
  template <element E>
  tensor<E> reshape(tensor<E> x, const std::vector<std::int32_t>& shape) {
    static_assert(detail::row_takes(OperationType::RESHAPE, {E::hal, OperandType::TENSOR_INT32}, {E::hal}),
                  "RESHAPE: in::input must be f32, f16, qu8, qs8 or i32");
    const auto s = constant_i32(shape);
    return tensor<E>(unary_out(OperationType::RESHAPE, {x.index(), s.index()}, E::hal, quant_of(x)));
  }

  /// SOFTMAX along `axis` (default: the last). Quantized outputs get the HAL's fixed
  /// parameters: scale 1/256 and zero point 0 (qu8) or -128 (qs8).
  template <element E>
  tensor<E> softmax(tensor<E> x, float beta = 1.0f, std::optional<std::int32_t> axis = std::nullopt) {
    static_assert(detail::row_has_input(OperationType::SOFTMAX, 0, E::hal),
                  "SOFTMAX: in::input must be f32, f16, qu8 or qs8");
    std::vector<std::uint32_t> in{x.index()};
    if constexpr (std::is_same_v<E, f16>) in.push_back(constant_scalar(to_float16(beta)).index());
    else in.push_back(constant_scalar(beta).index());
    if (axis) in.push_back(int_scalar(*axis));
    return tensor<E>(unary_out(OperationType::SOFTMAX, std::move(in), E::hal, fixed_unit_quant<E>()));
  }

  /// LOGISTIC; quantized outputs get scale 1/256 (zero point 0 or -128).
  template <element E>
  tensor<E> logistic(tensor<E> x) {
    static_assert(detail::row_takes(OperationType::LOGISTIC, {E::hal}, {E::hal}),
                  "LOGISTIC: in::input must be f32, f16, qu8 or qs8");
    return tensor<E>(unary_out(OperationType::LOGISTIC, {x.index()}, E::hal, fixed_unit_quant<E>()));
  }

  /// RELU / RELU1 / RELU6 as separate operations; quantization is kept.
  template <element E>
  tensor<E> relu(tensor<E> x) {
    return same_quant_unary<OperationType::RELU>(x);
  }
  template <element E>
  tensor<E> relu1(tensor<E> x) {
    return same_quant_unary<OperationType::RELU1>(x);
  }
  template <element E>
  tensor<E> relu6(tensor<E> x) {
    return same_quant_unary<OperationType::RELU6>(x);
  }

  /// CONCATENATION along `axis`. Quantized outputs take `out` (HAL 1.2+ lets the inputs
  /// differ from it); the default is the first input's parameters.
  template <element E>
  tensor<E> concatenation(std::initializer_list<tensor<E>> xs, std::int32_t axis, std::optional<quant> out = {}) {
    static_assert(detail::row_takes(OperationType::CONCATENATION, {E::hal, detail::i32_scalar}, {E::hal}),
                  "CONCATENATION: in::input0 must be f32, f16, qu8 or qs8");
    std::vector<std::uint32_t> in;
    for (const auto& t : xs) in.push_back(t.index());
    const quant q = out ? *out : (xs.size() ? quant_of(*xs.begin()) : quant{});
    in.push_back(int_scalar(axis));
    return tensor<E>(unary_out(OperationType::CONCATENATION, std::move(in), E::hal, q));
  }

  /// QUANTIZE a float tensor to Out (qu8 or qs8) with parameters `q`.
  template <element Out, element E>
  tensor<Out> quantize(tensor<E> x, quant q) {
    static_assert(detail::row_takes(OperationType::QUANTIZE, {E::hal}, {Out::hal}),
                  "QUANTIZE: in::input must be f32 or f16 and out::output qu8 or qs8");
    return tensor<Out>(unary_out(OperationType::QUANTIZE, {x.index()}, Out::hal, q));
  }

  /// DEQUANTIZE a quantized tensor to Out (f32 by default, or f16).
  template <element Out = f32, element E>
  tensor<Out> dequantize(tensor<E> x) {
    static_assert(detail::row_takes(OperationType::DEQUANTIZE, {E::hal}, {Out::hal}),
                  "DEQUANTIZE: in::input must be qu8, qs8, qsym8 or qc8 and out::output f32 or f16");
    return tensor<Out>(unary_out(OperationType::DEQUANTIZE, {x.index()}, Out::hal, {}));
  }

  // --- untyped fallback ------------------------------------------------------------

  /// Any operation with one output of tag Out. Types are checked by build().
  template <element Out>
  tensor<Out> operation(OperationType op, std::initializer_list<operand_ref> inputs, quant out = {}) {
    std::vector<std::uint32_t> in;
    for (const auto& r : inputs) in.push_back(r.index);
    return tensor<Out>(unary_out(op, std::move(in), Out::hal, out));
  }

  /// Any operation, any outputs; returns the new output operands' indexes.
  std::vector<std::uint32_t> operation(OperationType op, std::vector<operand_ref> inputs,
                                       std::vector<output_spec> outputs) {
    std::vector<std::uint32_t> in;
    for (const auto& r : inputs) in.push_back(r.index);
    return add_operation(op, std::move(in), std::move(outputs));
  }

  /// An omitted optional input (lifetime NO_VALUE) of type `t`.
  operand_ref no_value(OperandType t) {
    return operand_ref(add_operand(t, {}, {}, OperandLifeTime::NO_VALUE));
  }

  // --- result ----------------------------------------------------------------------

  /// The first problem met while building, if any.
  const std::optional<error>& first_error() const noexcept { return error_; }

  /// The model: numberOfConsumers filled in, large constants in pool 0, then validated
  /// (validate_model). The builder can go on and build again.
  result<Model> build() const {
    if (error_) return *error_;
    NNHAL_CHECK(!m_.main.outputIndexes.empty(), ErrorStatus::INVALID_ARGUMENT, "builder: the model has no outputs");
    Model out = m_;
    for (auto& o : out.main.operands) o.numberOfConsumers = 0;
    for (const auto& op : out.main.operations)
      for (auto i : op.inputs)
        if (i < out.main.operands.size()) ++out.main.operands[i].numberOfConsumers;
    if (!pool_.empty()) {
      Memory mem = Memory::allocate(pool_.size());
      std::memcpy(mem.data, pool_.data(), pool_.size());
      out.pools.push_back(std::move(mem));
    }
    auto v = validate_model(out);
    if (!v) return std::move(v).err();
    return out;
  }

 private:
  template <element E>
  static constexpr quant fixed_unit_quant() {
    if constexpr (std::is_same_v<E, qu8>) return {1.0f / 256.0f, 0};
    else if constexpr (std::is_same_v<E, qs8>) return {1.0f / 256.0f, -128};
    else return {};
  }

  template <OperationType Op, element E>
  tensor<E> same_quant_unary(tensor<E> x) {
    static_assert(detail::row_takes(Op, {E::hal}, {E::hal}), "RELU / RELU1 / RELU6: in::input must be f32, f16, qu8 or qs8");
    return tensor<E>(unary_out(Op, {x.index()}, E::hal, quant_of(x)));
  }

  template <element E>
  tensor<E> pool(OperationType op, tensor<E> x, const pool_options& o) {
    static_assert(detail::row_takes(OperationType::AVERAGE_POOL_2D,
                                    {E::hal, detail::i32_scalar, detail::i32_scalar, detail::i32_scalar,
                                     detail::i32_scalar, detail::i32_scalar, detail::i32_scalar},
                                    {E::hal}),
                  "AVERAGE_POOL_2D / MAX_POOL_2D: in::input must be f32, f16, qu8 or qs8");
    std::vector<std::uint32_t> in{x.index()};
    append_padding_and_strides(in, o.padding, o.stride_w, o.stride_h);
    in.push_back(int_scalar(o.filter_w));
    in.push_back(int_scalar(o.filter_h));
    in.push_back(act_operand(o.act));
    return tensor<E>(unary_out(op, std::move(in), E::hal, quant_of(x)));
  }

  void fail(std::string message) {
    if (!error_) error_ = error{ErrorStatus::INVALID_ARGUMENT, "builder: " + std::move(message)};
  }

  bool check_handle(std::uint32_t i, OperandType t, std::string_view where) {
    if (i >= m_.main.operands.size()) {
      fail(str_cat(where, ": a handle that refers to no operand of this builder"));
      return false;
    }
    if (m_.main.operands[i].type != t) {
      fail(str_cat(where, ": operand ", i, " is ", to_string(m_.main.operands[i].type), ", not ", to_string(t)));
      return false;
    }
    return true;
  }

  std::uint32_t add_operand(OperandType t, dims_t dims, quant q, OperandLifeTime lifetime) {
    Operand o;
    o.type = t;
    o.dimensions = std::move(dims);
    // TENSOR_INT32 biases carry a scale too; per-channel scales live in extraParams.
    if (is_tensor(t) && type_info(t).quant != quant_kind::symm_per_channel) {
      o.scale = q.scale;
      o.zeroPoint = q.zero_point;
    }
    o.lifetime = lifetime;
    m_.main.operands.push_back(std::move(o));
    return static_cast<std::uint32_t>(m_.main.operands.size() - 1);
  }

  std::uint32_t add_constant(OperandType t, dims_t dims, quant q, std::span<const std::byte> bytes) {
    const bool copy = bytes.size() <= max_copied_bytes;
    const auto i = add_operand(t, std::move(dims), q, copy ? OperandLifeTime::CONSTANT_COPY
                                                           : OperandLifeTime::CONSTANT_REFERENCE);
    auto& store = copy ? m_.operandValues : pool_;
    // 4-byte alignment for copied values; 64 for pooled tensors (cache lines, SIMD loads).
    const std::size_t align = copy ? 4 : 64;
    store.resize((store.size() + align - 1) / align * align);
    Operand& o = m_.main.operands[i];
    o.location = {0, static_cast<std::uint32_t>(store.size()), static_cast<std::uint32_t>(bytes.size())};
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    store.insert(store.end(), p, p + bytes.size());
    return i;
  }

  std::uint32_t int_scalar(std::int32_t v) { return constant_scalar(v).index(); }
  std::uint32_t act_operand(activation a) { return int_scalar(static_cast<std::int32_t>(a)); }

  void append_padding_and_strides(std::vector<std::uint32_t>& in, const padding_spec& p, std::int32_t sw,
                                  std::int32_t sh) {
    if (const auto* e = std::get_if<explicit_padding>(&p)) {
      for (std::int32_t v : {e->left, e->right, e->top, e->bottom}) in.push_back(int_scalar(v));
    } else {
      in.push_back(int_scalar(static_cast<std::int32_t>(std::get<padding_code>(p))));
    }
    in.push_back(int_scalar(sw));
    in.push_back(int_scalar(sh));
  }
  void append_dilation(std::vector<std::uint32_t>& in, std::int32_t dw, std::int32_t dh) {
    if (dw == 1 && dh == 1) return;
    in.push_back(constant_scalar(false).index());  // layout: NHWC
    in.push_back(int_scalar(dw));
    in.push_back(int_scalar(dh));
  }

  std::uint32_t unary_out(OperationType op, std::vector<std::uint32_t> in, OperandType out_type, quant q) {
    return add_operation(op, std::move(in), {output_spec{out_type, q, {}}})[0];
  }

  /// The constant bytes of operand `i`, for shape inference (nullptr if not constant).
  const std::byte* value_of(const Operand& o) const {
    const auto& store = o.lifetime == OperandLifeTime::CONSTANT_COPY ? m_.operandValues : pool_;
    if (o.lifetime != OperandLifeTime::CONSTANT_COPY && o.lifetime != OperandLifeTime::CONSTANT_REFERENCE)
      return nullptr;
    return reinterpret_cast<const std::byte*>(store.data()) + o.location.offset;
  }

  /// Appends the operation and its output operands; output dimensions come from the
  /// operation's shape inference when it has one and the inputs allow it.
  std::vector<std::uint32_t> add_operation(OperationType op, std::vector<std::uint32_t> in,
                                           std::vector<output_spec> outs) {
    const auto& operands = m_.main.operands;
    bool handles_ok = true;
    for (std::size_t k = 0; k < in.size(); ++k)
      if (in[k] >= operands.size()) {
        fail(str_cat(to_string(op), " input ", k, ": a handle that refers to no operand of this builder"));
        handles_ok = false;
      }
    std::vector<dims_t> out_dims;
    for (const auto& s : outs) out_dims.push_back(s.dims);
    const op_entry* e = find_operation(op);
    if (handles_ok && e && e->infer) {
      std::vector<sig::operand_desc> in_desc(in.size()), out_desc(outs.size());
      for (std::size_t k = 0; k < in.size(); ++k) {
        const Operand& o = operands[in[k]];
        auto& d = in_desc[k];
        d.type = o.type;
        d.dims = o.dimensions;
        d.scale = o.scale;
        d.zero_point = o.zeroPoint;
        d.channel_quant = std::get_if<SymmPerChannelQuantParams>(&o.extraParams);
        d.omitted = o.lifetime == OperandLifeTime::NO_VALUE;
        d.value = value_of(o);
        d.value_size = d.value ? o.location.length : 0;
      }
      for (std::size_t k = 0; k < outs.size(); ++k) {
        out_desc[k].type = outs[k].type;
        out_desc[k].scale = outs[k].q.scale;
        out_desc[k].zero_point = outs[k].q.zero_point;
      }
      HalVersion version = HalVersion::V1_0;
      auto inferred = e->infer(sig::infer_context{op, in_desc, out_desc, false, &version});
      if (!inferred) {
        fail(str_cat(to_string(op), " (operation ", m_.main.operations.size(), "): ", inferred.err().message));
      } else {
        for (std::size_t k = 0; k < outs.size() && k < inferred->size(); ++k) out_dims[k] = (*inferred)[k];
      }
    }
    std::vector<std::uint32_t> out_idx;
    for (std::size_t k = 0; k < outs.size(); ++k)
      out_idx.push_back(add_operand(outs[k].type, std::move(out_dims[k]), outs[k].q, OperandLifeTime::TEMPORARY_VARIABLE));
    m_.main.operations.push_back(Operation{op, std::move(in), out_idx});
    return out_idx;
  }

  Model m_;
  std::vector<std::uint8_t> pool_;  // CONSTANT_REFERENCE bytes, pool 0 of the built model
  std::optional<error> error_;
};

}  // namespace nnhal::types
