// Validation of models and requests (HAL 1.3 rules). Every rule returns INVALID_ARGUMENT
// with a message naming the subgraph, operand or operation and the rule; nothing here
// reads outside the model's vectors or pools.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "nnhal/types/element.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operations.hpp"
#include "nnhal/types/request.hpp"
#include "nnhal/types/shape.hpp"

namespace nnhal::types {

/// Byte size of an operand of `type` with `dims`, or false when it is not knowable
/// (unknown extents, extension types) or overflows 32 bits.
inline bool operand_byte_size(OperandType type, std::span<const std::uint32_t> dims, std::uint64_t& bytes) noexcept {
  const auto info = type_info(type);
  if (!info.valid) return false;
  if (!info.is_tensor) {
    bytes = info.element_size;
    return true;
  }
  if (dims.empty()) return false;  // unknown rank
  std::uint64_t n = 0;  // a 0 extent gives 0 bytes: unknown at validation, zero-sized at execution
  if (!checked_element_count(dims, n)) return false;
  bytes = n * info.element_size;
  return bytes <= std::numeric_limits<std::uint32_t>::max();
}

namespace detail {

/// Which row of an operation's table accepts these operand types (nullptr: none).
/// Picks the row with the earliest version among those that match.
inline const sig::row* match_row(const op_entry& e, std::span<const OperandType> in,
                                 std::span<const OperandType> outp) noexcept {
  auto slot_type = [](std::span<const OperandType> row_types, std::int8_t repeat, std::size_t count,
                      std::size_t i) -> OperandType {
    if (repeat < 0) return row_types[i];
    const std::size_t k = static_cast<std::size_t>(repeat);
    const std::size_t reps = count - (row_types.size() - 1);
    if (i < k) return row_types[i];
    if (i < k + reps) return row_types[k];
    return row_types[i - reps + 1];
  };
  auto list_matches = [&](std::span<const OperandType> row_types, std::span<const OperandType> actual,
                          std::size_t min_count, std::int8_t repeat, std::size_t repeat_min) {
    if (repeat >= 0) {
      if (actual.size() + 1 < row_types.size() + repeat_min) return false;
    } else if (actual.size() < min_count || actual.size() > row_types.size()) {
      return false;
    }
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const OperandType want = slot_type(row_types, repeat, actual.size(), i);
      if (want != sig::any_type && want != actual[i]) return false;
    }
    return true;
  };
  const sig::row* best = nullptr;
  for (const auto& r : e.rows) {
    const auto rin = r.inputs.view();
    const auto rout = r.outputs.view();
    const std::size_t min_in = r.required == sig::all ? rin.size() : r.required;
    if (!list_matches(rin, in, min_in, r.repeat_in, r.repeat_in_min)) continue;
    if (!list_matches(rout, outp, rout.size(), r.repeat_out, r.repeat_out_min)) continue;
    if (!best || r.since < best->since) best = &r;
  }
  return best;
}

inline std::string format_types(std::span<const OperandType> t) {
  std::string s = "(";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + std::string(to_string(t[i]));
  return s + ")";
}

/// Validates one model; keeps the running minimum HAL version.
class model_validator {
 public:
  explicit model_validator(const Model& m) : m_(m) {}

  result<HalVersion> run() {
    if (m_.relaxComputationFloat32toFloat16) raise(HalVersion::V1_1);
    NNHAL_TRY(check_extensions());
    // Operands and input/output lists of every subgraph first: control-flow checks of
    // one subgraph read the operands of the others.
    NNHAL_TRY(check_structure(m_.main, "main", true));
    for (std::size_t i = 0; i < m_.referenced.size(); ++i) {
      raise(HalVersion::V1_3);
      NNHAL_TRY(check_structure(m_.referenced[i], str_cat("referenced[", i, "]"), false));
    }
    NNHAL_TRY(check_operations(m_.main, "main"));
    for (std::size_t i = 0; i < m_.referenced.size(); ++i)
      NNHAL_TRY(check_operations(m_.referenced[i], str_cat("referenced[", i, "]")));
    NNHAL_TRY(check_reference_cycles());
    return version_;
  }

 private:
  void raise(HalVersion v) { version_ = max_version(version_, v); }

  status check_extensions() {
    for (std::size_t i = 0; i < m_.extensionNameToPrefix.size(); ++i) {
      const auto& e = m_.extensionNameToPrefix[i];
      NNHAL_CHECK(!e.name.empty(), ErrorStatus::INVALID_ARGUMENT, "extensionNameToPrefix[", i, "]: empty name");
      for (std::size_t j = 0; j < i; ++j) {
        NNHAL_CHECK(m_.extensionNameToPrefix[j].name != e.name && m_.extensionNameToPrefix[j].prefix != e.prefix,
                    ErrorStatus::INVALID_ARGUMENT, "extensionNameToPrefix[", i, "]: name or prefix repeats entry ", j);
      }
    }
    if (!m_.extensionNameToPrefix.empty()) raise(HalVersion::V1_2);
    return {};
  }

  bool known_prefix(std::uint16_t p) const {
    return std::any_of(m_.extensionNameToPrefix.begin(), m_.extensionNameToPrefix.end(),
                       [&](const auto& e) { return e.prefix == p; });
  }

  status check_operand(const Operand& o, const std::string& where) {
    const bool ext = is_extension(o.type);
    if (ext) {
      NNHAL_CHECK(known_prefix(extension_prefix(o.type)), ErrorStatus::INVALID_ARGUMENT, where,
                  ": extension type prefix ", extension_prefix(o.type), " is not in extensionNameToPrefix");
    } else {
      NNHAL_CHECK(is_fundamental(o.type), ErrorStatus::INVALID_ARGUMENT, where, ": operand type ", code(o.type),
                  " is not a HAL operand type (OEM types were removed in HAL 1.2)");
    }
    const auto info = type_info(o.type);
    if (!ext && !info.is_tensor)
      NNHAL_CHECK(o.dimensions.empty(), ErrorStatus::INVALID_ARGUMENT, where, ": scalar ", o.type, " has dimensions ",
                  format_dims(o.dimensions));
    if (!ext && info.is_tensor) {
      std::uint64_t n = 0;
      NNHAL_CHECK(checked_element_count(o.dimensions, n, std::numeric_limits<std::uint32_t>::max() / info.element_size),
                  ErrorStatus::INVALID_ARGUMENT, where, ": dimensions ", format_dims(o.dimensions),
                  " describe more than 4 GiB");
    }
    NNHAL_TRY(check_quant(o, where));
    NNHAL_TRY(check_lifetime(o, where));
    return {};
  }

  status check_quant(const Operand& o, const std::string& where) {
    NNHAL_CHECK(std::isfinite(o.scale), ErrorStatus::INVALID_ARGUMENT, where, ": scale is not finite");
    const auto info = type_info(o.type);
    const bool per_channel = o.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
    if (is_extension(o.type)) {
      NNHAL_CHECK(!std::holds_alternative<SymmPerChannelQuantParams>(o.extraParams), ErrorStatus::INVALID_ARGUMENT,
                  where, ": per-channel parameters on an extension type");
      return {};
    }
    switch (info.quant) {
      case quant_kind::none:
        if (o.type == OperandType::TENSOR_INT32) {
          // Used as a bias: scale may be set (input scale x filter scale), zero point 0.
          NNHAL_CHECK(o.scale >= 0.0f && o.zeroPoint == 0, ErrorStatus::INVALID_ARGUMENT, where,
                      ": TENSOR_INT32 needs scale >= 0 and zeroPoint 0, got ", o.scale, " / ", o.zeroPoint);
        } else {
          NNHAL_CHECK(o.scale == 0.0f && o.zeroPoint == 0, ErrorStatus::INVALID_ARGUMENT, where, ": ", o.type,
                      " needs scale 0 and zeroPoint 0, got ", o.scale, " / ", o.zeroPoint);
        }
        break;
      case quant_kind::asymm:
        NNHAL_CHECK(o.scale > 0.0f, ErrorStatus::INVALID_ARGUMENT, where, ": ", o.type, " needs scale > 0, got ",
                    o.scale);
        NNHAL_CHECK(o.zeroPoint >= info.zero_point_min && o.zeroPoint <= info.zero_point_max,
                    ErrorStatus::INVALID_ARGUMENT, where, ": zeroPoint ", o.zeroPoint, " outside [",
                    info.zero_point_min, ", ", info.zero_point_max, "] for ", o.type);
        break;
      case quant_kind::symm:
        NNHAL_CHECK(o.scale > 0.0f && o.zeroPoint == 0, ErrorStatus::INVALID_ARGUMENT, where, ": ", o.type,
                    " needs scale > 0 and zeroPoint 0, got ", o.scale, " / ", o.zeroPoint);
        break;
      case quant_kind::symm_per_channel:
        NNHAL_CHECK(o.scale == 0.0f && o.zeroPoint == 0, ErrorStatus::INVALID_ARGUMENT, where,
                    ": TENSOR_QUANT8_SYMM_PER_CHANNEL needs scale 0 and zeroPoint 0 (scales are per channel)");
        break;
    }
    if (per_channel) {
      const auto* pc = std::get_if<SymmPerChannelQuantParams>(&o.extraParams);
      NNHAL_CHECK(pc != nullptr, ErrorStatus::INVALID_ARGUMENT, where,
                  ": TENSOR_QUANT8_SYMM_PER_CHANNEL without channelQuant parameters");
      NNHAL_CHECK(pc->channelDim < o.dimensions.size(), ErrorStatus::INVALID_ARGUMENT, where, ": channelDim ",
                  pc->channelDim, " outside rank ", o.dimensions.size());
      const std::uint32_t channels = o.dimensions[pc->channelDim];
      NNHAL_CHECK(channels == 0 ? !pc->scales.empty() : pc->scales.size() == channels, ErrorStatus::INVALID_ARGUMENT,
                  where, ": ", pc->scales.size(), " per-channel scales for ", channels, " channels");
      for (std::size_t i = 0; i < pc->scales.size(); ++i)
        NNHAL_CHECK(std::isfinite(pc->scales[i]) && pc->scales[i] > 0.0f, ErrorStatus::INVALID_ARGUMENT, where,
                    ": per-channel scale ", i, " is ", pc->scales[i], " (must be finite and > 0)");
    } else {
      NNHAL_CHECK(!std::holds_alternative<SymmPerChannelQuantParams>(o.extraParams), ErrorStatus::INVALID_ARGUMENT,
                  where, ": per-channel parameters on ", o.type);
      NNHAL_CHECK(!std::holds_alternative<std::vector<std::uint8_t>>(o.extraParams), ErrorStatus::INVALID_ARGUMENT,
                  where, ": extension parameters on non-extension type ", o.type);
    }
    return {};
  }

  status check_lifetime(const Operand& o, const std::string& where) {
    NNHAL_CHECK((o.type == OperandType::SUBGRAPH) == (o.lifetime == OperandLifeTime::SUBGRAPH),
                ErrorStatus::INVALID_ARGUMENT, where, ": type ", o.type, " with lifetime ", o.lifetime,
                " (SUBGRAPH operands, and only they, have lifetime SUBGRAPH)");
    const auto& loc = o.location;
    const bool no_location = loc.poolIndex == 0 && loc.offset == 0 && loc.length == 0;
    auto check_size = [&](std::uint64_t have) -> status {
      if (is_extension(o.type)) return {};
      NNHAL_CHECK(!is_tensor(o.type) || (!o.dimensions.empty() && all_known(o.dimensions)),
                  ErrorStatus::INVALID_ARGUMENT, where, ": a constant needs fully specified dimensions, got ",
                  format_dims(o.dimensions, true));
      std::uint64_t want = 0;
      NNHAL_CHECK(operand_byte_size(o.type, o.dimensions, want), ErrorStatus::INVALID_ARGUMENT, where,
                  ": constant size overflows");
      NNHAL_CHECK(have == want, ErrorStatus::INVALID_ARGUMENT, where, ": constant length ", have, " bytes, but ",
                  o.type, " ", format_dims(o.dimensions), " needs ", want);
      return {};
    };
    switch (o.lifetime) {
      case OperandLifeTime::TEMPORARY_VARIABLE:
      case OperandLifeTime::SUBGRAPH_INPUT:
      case OperandLifeTime::SUBGRAPH_OUTPUT:
      case OperandLifeTime::NO_VALUE:
        NNHAL_CHECK(no_location, ErrorStatus::INVALID_ARGUMENT, where, ": lifetime ", o.lifetime,
                    " must not have a location");
        return {};
      case OperandLifeTime::CONSTANT_COPY:
        NNHAL_CHECK(loc.poolIndex == 0, ErrorStatus::INVALID_ARGUMENT, where, ": CONSTANT_COPY with poolIndex ",
                    loc.poolIndex, " (must be 0)");
        NNHAL_CHECK(std::uint64_t{loc.offset} + loc.length <= m_.operandValues.size(), ErrorStatus::INVALID_ARGUMENT,
                    where, ": CONSTANT_COPY [", loc.offset, ", +", loc.length, ") outside operandValues (",
                    m_.operandValues.size(), " bytes)");
        return check_size(loc.length);
      case OperandLifeTime::CONSTANT_REFERENCE: {
        NNHAL_CHECK(loc.poolIndex < m_.pools.size(), ErrorStatus::INVALID_ARGUMENT, where, ": poolIndex ",
                    loc.poolIndex, " but the model has ", m_.pools.size(), " pools");
        const Memory& pool = m_.pools[loc.poolIndex];
        NNHAL_CHECK(pool.data != nullptr || pool.size == 0, ErrorStatus::INVALID_ARGUMENT, where, ": pool ",
                    loc.poolIndex, " is not mapped");
        NNHAL_CHECK(std::uint64_t{loc.offset} + loc.length <= pool.size, ErrorStatus::INVALID_ARGUMENT, where,
                    ": CONSTANT_REFERENCE [", loc.offset, ", +", loc.length, ") outside pool ", loc.poolIndex, " (",
                    pool.size, " bytes)");
        return check_size(loc.length);
      }
      case OperandLifeTime::SUBGRAPH:
        NNHAL_CHECK(loc.poolIndex == 0 && loc.length == 0, ErrorStatus::INVALID_ARGUMENT, where,
                    ": a SUBGRAPH reference uses only location.offset");
        NNHAL_CHECK(loc.offset < m_.referenced.size(), ErrorStatus::INVALID_ARGUMENT, where, ": refers to subgraph ",
                    loc.offset, " but the model has ", m_.referenced.size());
        return {};
      case OperandLifeTime::POINTER: break;
    }
    return make_error(ErrorStatus::INVALID_ARGUMENT, where, ": invalid lifetime ", static_cast<int>(o.lifetime));
  }

  /// What shape inference sees of operand `i` during validation.
  sig::operand_desc describe(const Subgraph& g, std::uint32_t i, const std::vector<dims_t>& dims) const {
    const Operand& o = g.operands[i];
    sig::operand_desc d;
    d.type = o.type;
    d.dims = dims[i];
    d.scale = o.scale;
    d.zero_point = o.zeroPoint;
    d.channel_quant = std::get_if<SymmPerChannelQuantParams>(&o.extraParams);
    d.omitted = o.lifetime == OperandLifeTime::NO_VALUE;
    d.value = constant_bytes(o);
    d.value_size = d.value ? o.location.length : 0;
    return d;
  }

  /// A (validated) constant's bytes; nullptr for operands that are not constants.
  const std::byte* constant_bytes(const Operand& o) const {
    static constexpr std::byte empty{};
    const std::byte* p = nullptr;
    if (o.lifetime == OperandLifeTime::CONSTANT_COPY)
      p = reinterpret_cast<const std::byte*>(m_.operandValues.data()) + o.location.offset;
    else if (o.lifetime == OperandLifeTime::CONSTANT_REFERENCE)
      p = m_.pools[o.location.poolIndex].data + o.location.offset;
    else
      return nullptr;
    return p ? p : &empty;  // a zero-length constant in an empty buffer is still a constant
  }

  status check_structure(const Subgraph& g, const std::string& gname, bool is_main) {
    const std::size_t n = g.operands.size();
    NNHAL_CHECK(n <= std::numeric_limits<std::uint32_t>::max(), ErrorStatus::INVALID_ARGUMENT, gname,
                ": too many operands");
    for (std::size_t i = 0; i < n; ++i) NNHAL_TRY(check_operand(g.operands[i], str_cat(gname, " operand ", i)));
    // Model inputs and outputs: listed once each, with the matching lifetime.
    NNHAL_TRY(check_io_list(g, gname, g.inputIndexes, OperandLifeTime::SUBGRAPH_INPUT, "inputIndexes"));
    NNHAL_TRY(check_io_list(g, gname, g.outputIndexes, OperandLifeTime::SUBGRAPH_OUTPUT, "outputIndexes"));
    NNHAL_CHECK(!g.outputIndexes.empty(), ErrorStatus::INVALID_ARGUMENT, gname, ": no outputs");
    if (is_main) NNHAL_CHECK(!g.operations.empty(), ErrorStatus::INVALID_ARGUMENT, gname, ": no operations");
    return {};
  }

  status check_operations(const Subgraph& g, const std::string& gname) {
    const std::size_t n = g.operands.size();
    std::vector<std::uint32_t> consumers(n, 0);
    std::vector<bool> written(n, false);
    std::vector<dims_t> dims(n);
    for (std::size_t i = 0; i < n; ++i) {
      dims[i] = g.operands[i].dimensions;
      const auto lt = g.operands[i].lifetime;
      if (lt != OperandLifeTime::TEMPORARY_VARIABLE && lt != OperandLifeTime::SUBGRAPH_OUTPUT) written[i] = true;
      if ((lt == OperandLifeTime::TEMPORARY_VARIABLE || lt == OperandLifeTime::SUBGRAPH_OUTPUT) &&
          is_tensor(g.operands[i].type) && (dims[i].empty() || !all_known(dims[i])))
        raise(HalVersion::V1_2);  // dynamic output shapes arrived in 1.2
    }

    for (std::size_t k = 0; k < g.operations.size(); ++k) {
      const Operation& op = g.operations[k];
      const std::string where = str_cat(gname, " operation ", k, " (", to_string(op.type), ")");
      for (auto i : op.inputs) {
        NNHAL_CHECK(i < n, ErrorStatus::INVALID_ARGUMENT, where, ": input operand ", i, " out of range (", n,
                    " operands)");
        NNHAL_CHECK(written[i], ErrorStatus::INVALID_ARGUMENT, where, ": reads operand ", i,
                    " before any operation writes it (operations must be in execution order, without cycles)");
        ++consumers[i];
      }
      for (auto o : op.outputs) {
        NNHAL_CHECK(o < n, ErrorStatus::INVALID_ARGUMENT, where, ": output operand ", o, " out of range (", n,
                    " operands)");
        const auto lt = g.operands[o].lifetime;
        NNHAL_CHECK(lt == OperandLifeTime::TEMPORARY_VARIABLE || lt == OperandLifeTime::SUBGRAPH_OUTPUT,
                    ErrorStatus::INVALID_ARGUMENT, where, ": writes operand ", o, " whose lifetime is ", lt);
        NNHAL_CHECK(!written[o], ErrorStatus::INVALID_ARGUMENT, where, ": operand ", o,
                    " is written by more than one operation");
        written[o] = true;
      }
      NNHAL_TRY(check_operation(g, op, where, dims));
    }
    for (std::size_t i = 0; i < n; ++i) {
      NNHAL_CHECK(written[i], ErrorStatus::INVALID_ARGUMENT, gname, " operand ", i, ": ", g.operands[i].lifetime,
                  " is never written by an operation");
      NNHAL_CHECK(consumers[i] == g.operands[i].numberOfConsumers, ErrorStatus::INVALID_ARGUMENT, gname, " operand ", i,
                  ": numberOfConsumers is ", g.operands[i].numberOfConsumers, " but ", consumers[i],
                  " operation inputs read it");
    }
    return {};
  }

  status check_io_list(const Subgraph& g, const std::string& gname, const std::vector<std::uint32_t>& list,
                       OperandLifeTime want, const char* what) {
    std::vector<bool> seen(g.operands.size(), false);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const auto i = list[k];
      NNHAL_CHECK(i < g.operands.size(), ErrorStatus::INVALID_ARGUMENT, gname, " ", what, "[", k, "]: operand ", i,
                  " out of range");
      NNHAL_CHECK(g.operands[i].lifetime == want, ErrorStatus::INVALID_ARGUMENT, gname, " ", what, "[", k,
                  "]: operand ", i, " has lifetime ", g.operands[i].lifetime, ", expected ", want);
      NNHAL_CHECK(!seen[i], ErrorStatus::INVALID_ARGUMENT, gname, " ", what, "[", k, "]: operand ", i,
                  " listed twice");
      seen[i] = true;
    }
    for (std::size_t i = 0; i < g.operands.size(); ++i)
      NNHAL_CHECK(g.operands[i].lifetime != want || seen[i], ErrorStatus::INVALID_ARGUMENT, gname, " operand ", i,
                  ": lifetime ", want, " but not in ", what);
    return {};
  }

  status check_operation(const Subgraph& g, const Operation& op, const std::string& where, std::vector<dims_t>& dims) {
    if (is_extension(op.type)) {
      NNHAL_CHECK(known_prefix(static_cast<std::uint16_t>(static_cast<std::uint32_t>(code(op.type)) >> 16)),
                  ErrorStatus::INVALID_ARGUMENT, where, ": extension prefix not in extensionNameToPrefix");
      raise(HalVersion::V1_2);
      return {};  // the extension's vendor validates its own operations
    }
    const op_entry* e = find_operation(op.type);
    NNHAL_CHECK(e != nullptr, ErrorStatus::INVALID_ARGUMENT, where, ": unknown operation type ", code(op.type));
    std::vector<OperandType> in_t, out_t;
    for (auto i : op.inputs) in_t.push_back(g.operands[i].type);
    for (auto o : op.outputs) out_t.push_back(g.operands[o].type);
    const sig::row* r = match_row(*e, in_t, out_t);
    NNHAL_CHECK(r != nullptr, ErrorStatus::INVALID_ARGUMENT, where, ": no signature accepts inputs ",
                format_types(in_t), " and outputs ", format_types(out_t));
    raise(version_without_defaults(g, op, *e, *r, in_t, out_t));
    for (std::size_t k = 0; k < op.inputs.size(); ++k)
      NNHAL_CHECK(g.operands[op.inputs[k]].lifetime != OperandLifeTime::NO_VALUE || (k < 64 && (e->omittable >> k) & 1u),
                  ErrorStatus::INVALID_ARGUMENT, where, ": input ", k, " (operand ", op.inputs[k],
                  ") is required but has no value");

    if (op.type == OperationType::IF || op.type == OperationType::WHILE) return check_control_flow(g, op, where);
    if (!e->infer) return {};
    std::vector<sig::operand_desc> ins, outs;
    for (auto i : op.inputs) ins.push_back(describe(g, i, dims));
    for (auto o : op.outputs) outs.push_back(describe(g, o, dims));
    sig::infer_context ctx{op.type, ins, outs, false, &version_};
    auto inferred = e->infer(ctx);
    if (!inferred) return make_error(ErrorStatus::INVALID_ARGUMENT, where, ": ", inferred.err().message);
    NNHAL_CHECK(inferred->size() == op.outputs.size(), ErrorStatus::GENERAL_FAILURE, where,
                ": shape inference returned ", inferred->size(), " shapes for ", op.outputs.size(), " outputs");
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const dims_t& got = (*inferred)[k];
      dims_t& have = dims[op.outputs[k]];
      if (got.empty()) continue;  // rank unknown
      if (have.empty()) {
        have = got;
        continue;
      }
      NNHAL_CHECK(have.size() == got.size(), ErrorStatus::INVALID_ARGUMENT, where, ": output ", k, " declared ",
                  format_dims(have, true), " but the inputs give ", format_dims(got, true));
      for (std::size_t d = 0; d < got.size(); ++d) {
        NNHAL_CHECK(have[d] == 0 || got[d] == 0 || have[d] == got[d], ErrorStatus::INVALID_ARGUMENT, where,
                    ": output ", k, " declared ", format_dims(have, true), " but the inputs give ",
                    format_dims(got, true));
        if (have[d] == 0) have[d] = got[d];
      }
    }
    return {};
  }

  /// The version of the form left when trailing inputs holding their default value are
  /// removed (at most three: layout and the dilation pair), or the matched row's.
  HalVersion version_without_defaults(const Subgraph& g, const Operation& op, const op_entry& e, const sig::row& r,
                                      std::span<const OperandType> in_t, std::span<const OperandType> out_t) const {
    HalVersion best = r.since;
    for (std::size_t depth = 1; depth <= 3 && depth < in_t.size() && best > HalVersion::V1_0; ++depth) {
      const Operand& o = g.operands[op.inputs[in_t.size() - depth]];
      // Defaults are BOOL or INT32 scalars; anything else ends the trailing run.
      const std::byte* v = constant_bytes(o);
      const bool readable = (o.type == OperandType::BOOL && o.location.length == 1) ||
                            (o.type == OperandType::INT32 && o.location.length == sizeof(std::int32_t));
      if (!v || !readable) break;
      std::int32_t value = 0;
      if (o.type == OperandType::BOOL) value = std::to_integer<std::uint8_t>(*v) != 0;
      else std::memcpy(&value, v, sizeof value);
      const bool is_default = std::any_of(e.trailing_defaults.begin(), e.trailing_defaults.end(),
                                          [&](const sig::trailing_default& d) { return d.type == o.type && d.value == value; });
      if (!is_default) break;
      if (const sig::row* shorter = match_row(e, in_t.first(in_t.size() - depth), out_t); shorter && shorter->since < best)
        best = shorter->since;
    }
    return best;
  }

  /// Types of a referenced subgraph's inputs or outputs must equal the operands passed.
  status check_passing(const Subgraph& g, const Subgraph& callee, std::span<const std::uint32_t> outer,
                       std::span<const std::uint32_t> inner, const std::string& where, const char* what) {
    NNHAL_CHECK(outer.size() == inner.size(), ErrorStatus::INVALID_ARGUMENT, where, ": ", what, " count ",
                inner.size(), " differs from the ", outer.size(), " operands passed");
    for (std::size_t i = 0; i < outer.size(); ++i) {
      const Operand& a = g.operands[outer[i]];
      const Operand& b = callee.operands[inner[i]];
      NNHAL_CHECK(a.type == b.type, ErrorStatus::INVALID_ARGUMENT, where, ": ", what, " ", i, " is ", b.type,
                  " but the operand passed is ", a.type);
      if (is_quantized(a.type))
        NNHAL_CHECK(a.scale == b.scale && a.zeroPoint == b.zeroPoint, ErrorStatus::INVALID_ARGUMENT, where, ": ",
                    what, " ", i, " quantization differs from the operand passed");
      if (!a.dimensions.empty() && !b.dimensions.empty()) {
        NNHAL_CHECK(a.dimensions.size() == b.dimensions.size(), ErrorStatus::INVALID_ARGUMENT, where, ": ", what,
                    " ", i, " rank differs from the operand passed");
        for (std::size_t d = 0; d < a.dimensions.size(); ++d)
          NNHAL_CHECK(a.dimensions[d] == 0 || b.dimensions[d] == 0 || a.dimensions[d] == b.dimensions[d],
                      ErrorStatus::INVALID_ARGUMENT, where, ": ", what, " ", i, " dimensions ",
                      format_dims(b.dimensions, true), " differ from the operand passed ",
                      format_dims(a.dimensions, true));
      }
    }
    return {};
  }

  const Subgraph* subgraph_of(const Subgraph& g, std::uint32_t operand) const {
    const Operand& o = g.operands[operand];
    if (o.lifetime != OperandLifeTime::SUBGRAPH) return nullptr;
    return &m_.referenced[o.location.offset];
  }

  status check_control_flow(const Subgraph& g, const Operation& op, const std::string& where) {
    const std::span<const std::uint32_t> ins(op.inputs);
    if (op.type == OperationType::IF) {
      const Operand& cond = g.operands[ins[0]];
      std::uint64_t count = 1;
      if (all_known(cond.dimensions) && checked_element_count(cond.dimensions, count))
        NNHAL_CHECK(count == 1, ErrorStatus::INVALID_ARGUMENT, where, ": condition must hold one element, has ", count);
      const Subgraph* then_g = subgraph_of(g, ins[1]);
      const Subgraph* else_g = subgraph_of(g, ins[2]);
      NNHAL_CHECK(then_g && else_g, ErrorStatus::INVALID_ARGUMENT, where,
                  ": then/else operands must have lifetime SUBGRAPH");
      for (const Subgraph* b : {then_g, else_g}) {
        NNHAL_TRY(check_passing(g, *b, ins.subspan(3), b->inputIndexes, where, "branch input"));
        NNHAL_TRY(check_passing(g, *b, op.outputs, b->outputIndexes, where, "branch output"));
      }
      return {};
    }
    const Subgraph* cond_g = subgraph_of(g, ins[0]);
    const Subgraph* body_g = subgraph_of(g, ins[1]);
    NNHAL_CHECK(cond_g && body_g, ErrorStatus::INVALID_ARGUMENT, where,
                ": condition/body operands must have lifetime SUBGRAPH");
    const auto data = ins.subspan(2);
    NNHAL_TRY(check_passing(g, *cond_g, data, cond_g->inputIndexes, where, "condition input"));
    NNHAL_CHECK(cond_g->outputIndexes.size() == 1 &&
                    cond_g->operands[cond_g->outputIndexes[0]].type == OperandType::TENSOR_BOOL8,
                ErrorStatus::INVALID_ARGUMENT, where, ": the condition must have one TENSOR_BOOL8 output");
    NNHAL_TRY(check_passing(g, *body_g, data, body_g->inputIndexes, where, "body input"));
    const std::size_t m = op.outputs.size();
    NNHAL_CHECK(body_g->outputIndexes.size() >= m && body_g->outputIndexes.size() <= data.size(),
                ErrorStatus::INVALID_ARGUMENT, where, ": body has ", body_g->outputIndexes.size(),
                " outputs; needs between ", m, " (loop outputs) and ", data.size(), " (loop inputs)");
    // Body outputs feed the next iteration's first inputs, and the first m are the loop's outputs.
    NNHAL_TRY(check_passing(g, *body_g, data.subspan(0, body_g->outputIndexes.size()), body_g->outputIndexes, where,
                            "body output"));
    NNHAL_TRY(check_passing(g, *body_g, op.outputs, std::span(body_g->outputIndexes).subspan(0, m), where,
                            "loop output"));
    return {};
  }

  status check_reference_cycles() {
    // Colour the subgraph reference graph: 0 unvisited, 1 on the stack, 2 done.
    std::vector<std::uint8_t> state(m_.referenced.size(), 0);
    std::vector<std::pair<std::size_t, std::size_t>> stack;  // (subgraph, next operand)
    auto refs_of = [&](std::size_t s) -> const Subgraph& { return m_.referenced[s]; };
    auto visit_roots = [&](const Subgraph& g) -> status {
      for (const auto& o : g.operands) {
        if (o.lifetime != OperandLifeTime::SUBGRAPH) continue;
        const std::size_t root = o.location.offset;
        if (state[root] == 2) continue;
        stack.push_back({root, 0});
        state[root] = 1;
        while (!stack.empty()) {
          auto& [s, next] = stack.back();
          const Subgraph& sg = refs_of(s);
          if (next == sg.operands.size()) {
            state[s] = 2;
            stack.pop_back();
            continue;
          }
          const Operand& so = sg.operands[next++];
          if (so.lifetime != OperandLifeTime::SUBGRAPH) continue;
          const std::size_t child = so.location.offset;
          NNHAL_CHECK(state[child] != 1, ErrorStatus::INVALID_ARGUMENT, "referenced[", child,
                      "]: subgraph references form a cycle");
          if (state[child] == 0) {
            state[child] = 1;
            stack.push_back({child, 0});
          }
        }
      }
      return {};
    };
    return visit_roots(m_.main);
  }

  const Model& m_;
  HalVersion version_ = HalVersion::V1_0;
};

}  // namespace detail

/// Validates `model` against the HAL rules. On success returns the oldest HAL version
/// the model is valid for; INVALID_ARGUMENT with a message naming the culprit otherwise.
inline result<HalVersion> validate_model(const Model& model) { return detail::model_validator(model).run(); }

/// Validates `model` and requires it to be valid at HAL version `max`.
inline result<HalVersion> validate_model(const Model& model, HalVersion max) {
  auto v = validate_model(model);
  if (!v) return v;
  NNHAL_CHECK(*v <= max, ErrorStatus::INVALID_ARGUMENT, "the model needs HAL ", *v, ", newer than ", max);
  return v;
}

/// Validates a request against a validated model: argument counts, pools, locations in
/// bounds, dimensions compatible with the model and fully specified for inputs.
inline status validate_request(const Request& request, const Model& model) {
  const Subgraph& g = model.main;
  NNHAL_CHECK(request.inputs.size() == g.inputIndexes.size(), ErrorStatus::INVALID_ARGUMENT, "request has ",
              request.inputs.size(), " inputs, the model ", g.inputIndexes.size());
  NNHAL_CHECK(request.outputs.size() == g.outputIndexes.size(), ErrorStatus::INVALID_ARGUMENT, "request has ",
              request.outputs.size(), " outputs, the model ", g.outputIndexes.size());
  for (std::size_t p = 0; p < request.pools.size(); ++p) {
    const auto* mem = std::get_if<Memory>(&request.pools[p]);
    NNHAL_CHECK(mem != nullptr, ErrorStatus::INVALID_ARGUMENT, "request pool ", p,
                ": a driver-managed buffer token, but no buffer registry was given to resolve it");
    NNHAL_CHECK(mem->data != nullptr || mem->size == 0, ErrorStatus::INVALID_ARGUMENT, "request pool ", p,
                ": not mapped");
  }
  auto check_arg = [&](const RequestArgument& a, const Operand& o, const char* kind, std::size_t k) -> status {
    if (a.hasNoValue) {
      NNHAL_CHECK(a.location.poolIndex == 0 && a.location.offset == 0 && a.location.length == 0 &&
                      a.dimensions.empty(),
                  ErrorStatus::INVALID_ARGUMENT, kind, " ", k, ": hasNoValue with a location or dimensions");
      return {};
    }
    NNHAL_CHECK(a.location.poolIndex < request.pools.size(), ErrorStatus::INVALID_ARGUMENT, kind, " ", k,
                ": poolIndex ", a.location.poolIndex, " but the request has ", request.pools.size(), " pools");
    const Memory& mem = std::get<Memory>(request.pools[a.location.poolIndex]);
    NNHAL_CHECK(std::uint64_t{a.location.offset} + a.location.length <= mem.size, ErrorStatus::INVALID_ARGUMENT, kind,
                " ", k, ": [", a.location.offset, ", +", a.location.length, ") outside pool ", a.location.poolIndex,
                " (", mem.size, " bytes)");
    if (!a.dimensions.empty()) {
      NNHAL_CHECK(is_tensor(o.type), ErrorStatus::INVALID_ARGUMENT, kind, " ", k, ": dimensions given for scalar ",
                  o.type);
      NNHAL_CHECK(o.dimensions.empty() || o.dimensions.size() == a.dimensions.size(), ErrorStatus::INVALID_ARGUMENT,
                  kind, " ", k, ": rank ", a.dimensions.size(), " differs from the model's ", o.dimensions.size());
      for (std::size_t d = 0; d < o.dimensions.size(); ++d)
        NNHAL_CHECK(o.dimensions[d] == 0 || a.dimensions[d] == 0 || o.dimensions[d] == a.dimensions[d],
                    ErrorStatus::INVALID_ARGUMENT, kind, " ", k, ": dimensions ", format_dims(a.dimensions),
                    " conflict with the model's ", format_dims(o.dimensions, true));
    }
    return {};
  };
  for (std::size_t k = 0; k < request.inputs.size(); ++k) {
    const auto& a = request.inputs[k];
    const Operand& o = g.operands[g.inputIndexes[k]];
    NNHAL_TRY(check_arg(a, o, "input", k));
    if (a.hasNoValue) continue;
    dims_t d = a.dimensions.empty() ? o.dimensions : a.dimensions;
    if (is_tensor(o.type)) {
      NNHAL_CHECK(!d.empty() && all_known(d), ErrorStatus::INVALID_ARGUMENT, "input ", k, ": dimensions ",
                  format_dims(d, true), " are not fully specified");
    }
    std::uint64_t need = 0;
    NNHAL_CHECK(operand_byte_size(o.type, d, need) || is_extension(o.type), ErrorStatus::INVALID_ARGUMENT, "input ", k,
                ": dimensions ", format_dims(d), " describe more than 4 GiB");
    if (!is_extension(o.type))
      NNHAL_CHECK(a.location.length >= need, ErrorStatus::INVALID_ARGUMENT, "input ", k, ": ", a.location.length,
                  " bytes given, ", o.type, " ", format_dims(d), " needs ", need);
  }
  for (std::size_t k = 0; k < request.outputs.size(); ++k)
    NNHAL_TRY(check_arg(request.outputs[k], g.operands[g.outputIndexes[k]], "output", k));
  // An omitted input may only feed inputs its operations declare optional.
  for (std::size_t k = 0; k < request.inputs.size(); ++k) {
    if (!request.inputs[k].hasNoValue) continue;
    for (const auto& op : g.operations) {
      const op_entry* e = find_operation(op.type);
      const std::uint64_t mask = e ? e->omittable : 0;
      for (std::size_t j = 0; j < op.inputs.size(); ++j)
        NNHAL_CHECK(op.inputs[j] != g.inputIndexes[k] || (j < 64 && (mask >> j) & 1u), ErrorStatus::INVALID_ARGUMENT,
                    "input ", k, ": hasNoValue, but ", to_string(op.type), " input ", j, " is required");
    }
  }
  return {};
}

}  // namespace nnhal::types
