// Compilation-cache serializer: a Model to the model cache (GRAPH: subgraphs, operands
// with shapes, quantization and extraParams, operations, pool sizes, the relax flag and
// extension names; PLAN: operation order and kernel choices) and the data cache
// (OPERAND_VALUES, one POOL per model pool, PACKED_WEIGHTS for kernels), and back.
// File layout and header checks: cache/format.hpp. The decoder never trusts a count or
// offset: every one is bounds-checked, and the model it returns still has to pass
// types::validate_model before anything uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "nnhal/cache/format.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/types/model.hpp"

namespace nnhal::cache {

/// One step of the execution plan: which operation of main runs at this position and
/// which kernel variant runs it (0: chosen again at prepare, the only one so far).
struct plan_step {
  std::uint32_t operation = 0;
  std::uint32_t kernel = 0;
};
struct execution_plan {
  std::vector<plan_step> steps;
};

/// The plan prepare builds today: main's operations in model order, kernels bound at prepare.
inline execution_plan default_plan(const types::Model& m) {
  execution_plan p;
  p.steps.reserve(m.main.operations.size());
  for (std::size_t i = 0; i < m.main.operations.size(); ++i) p.steps.push_back({static_cast<std::uint32_t>(i), 0});
  return p;
}

struct encoded_cache {
  std::vector<std::byte> model_cache;  // security-sensitive: hashed, mapped to the token
  std::vector<std::byte> data_cache;   // constants: may be corrupted, must never crash us
};

namespace detail {

inline constexpr std::size_t max_name_length = 4096;  // an extension name
inline constexpr std::uint64_t max_rank = 1u << 16;
inline constexpr std::size_t min_operand_bytes = 37;  // fixed fields of one operand
inline constexpr std::size_t min_operation_bytes = 12;
inline constexpr std::size_t min_subgraph_bytes = 16;
enum class extra_tag : std::uint8_t { none = 0, per_channel = 1, extension = 2 };

inline void put_indexes(byte_writer& w, const std::vector<std::uint32_t>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (auto x : v) w.u32(x);
}

inline void put_subgraph(byte_writer& w, const types::Subgraph& g) {
  w.u32(static_cast<std::uint32_t>(g.operands.size()));
  for (const auto& o : g.operands) {
    w.i32(types::code(o.type));
    put_indexes(w, o.dimensions);
    w.u32(o.numberOfConsumers);
    w.f32(o.scale);
    w.i32(o.zeroPoint);
    w.i32(static_cast<std::int32_t>(o.lifetime));
    w.u32(o.location.poolIndex);
    w.u32(o.location.offset);
    w.u32(o.location.length);
    if (const auto* pc = std::get_if<types::SymmPerChannelQuantParams>(&o.extraParams)) {
      w.u8(static_cast<std::uint8_t>(extra_tag::per_channel));
      w.u32(pc->channelDim);
      w.u32(static_cast<std::uint32_t>(pc->scales.size()));
      for (float s : pc->scales) w.f32(s);
    } else if (const auto* ext = std::get_if<std::vector<std::uint8_t>>(&o.extraParams)) {
      w.u8(static_cast<std::uint8_t>(extra_tag::extension));
      w.u32(static_cast<std::uint32_t>(ext->size()));
      w.bytes(std::span(*ext));
    } else {
      w.u8(static_cast<std::uint8_t>(extra_tag::none));
    }
  }
  w.u32(static_cast<std::uint32_t>(g.operations.size()));
  for (const auto& op : g.operations) {
    w.i32(types::code(op.type));
    put_indexes(w, op.inputs);
    put_indexes(w, op.outputs);
  }
  put_indexes(w, g.inputIndexes);
  put_indexes(w, g.outputIndexes);
}

inline std::vector<std::byte> encode_graph(const types::Model& m) {
  byte_writer w;
  w.u8(m.relaxComputationFloat32toFloat16 ? 1 : 0);
  w.u32(static_cast<std::uint32_t>(m.extensionNameToPrefix.size()));
  for (const auto& e : m.extensionNameToPrefix) {
    w.u16(e.prefix);
    w.str16(std::string_view(e.name).substr(0, max_name_length));
  }
  w.u64(m.operandValues.size());
  w.u32(static_cast<std::uint32_t>(m.pools.size()));
  for (const auto& p : m.pools) w.u64(p.size);
  w.u32(static_cast<std::uint32_t>(1 + m.referenced.size()));
  put_subgraph(w, m.main);
  for (const auto& g : m.referenced) put_subgraph(w, g);
  return std::move(w.buffer());
}

inline std::vector<std::byte> encode_plan(const execution_plan& p) {
  byte_writer w;
  w.u32(static_cast<std::uint32_t>(p.steps.size()));
  for (const auto& s : p.steps) {
    w.u32(s.operation);
    w.u32(s.kernel);
  }
  return std::move(w.buffer());
}

inline std::vector<std::uint32_t> get_indexes(byte_reader& r, std::uint64_t cap, std::string_view field) {
  std::vector<std::uint32_t> v(r.count(4, cap, field));
  for (auto& x : v) x = r.u32(field);
  return v;
}

inline void get_subgraph(byte_reader& r, types::Subgraph& g) {
  g.operands.resize(r.count(min_operand_bytes, UINT32_MAX, "operand count"));
  for (auto& o : g.operands) {
    o.type = static_cast<types::OperandType>(r.i32("operand type"));
    o.dimensions = get_indexes(r, max_rank, "operand dimensions");
    o.numberOfConsumers = r.u32("numberOfConsumers");
    o.scale = r.f32("scale");
    o.zeroPoint = r.i32("zeroPoint");
    o.lifetime = static_cast<types::OperandLifeTime>(r.i32("lifetime"));
    o.location.poolIndex = r.u32("location.poolIndex");
    o.location.offset = r.u32("location.offset");
    o.location.length = r.u32("location.length");
    switch (static_cast<extra_tag>(r.u8("extraParams tag"))) {
      case extra_tag::none:
        break;
      case extra_tag::per_channel: {
        types::SymmPerChannelQuantParams pc;
        pc.channelDim = r.u32("channelDim");
        pc.scales.resize(r.count(4, UINT32_MAX, "per-channel scale count"));
        for (auto& s : pc.scales) s = r.f32("per-channel scale");
        o.extraParams = std::move(pc);
        break;
      }
      case extra_tag::extension: {
        const auto n = r.count(1, UINT32_MAX, "extension data size");
        auto b = r.bytes(n, "extension data");
        const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
        o.extraParams = std::vector<std::uint8_t>(p, p + b.size());
        break;
      }
      default:
        r.fail("extraParams tag", ": unknown value");
    }
    if (r.failed()) return;
  }
  g.operations.resize(r.count(min_operation_bytes, UINT32_MAX, "operation count"));
  for (auto& op : g.operations) {
    op.type = static_cast<types::OperationType>(r.i32("operation type"));
    op.inputs = get_indexes(r, UINT32_MAX, "operation inputs");
    op.outputs = get_indexes(r, UINT32_MAX, "operation outputs");
    if (r.failed()) return;
  }
  g.inputIndexes = get_indexes(r, UINT32_MAX, "inputIndexes");
  g.outputIndexes = get_indexes(r, UINT32_MAX, "outputIndexes");
}

/// The model structure of a GRAPH section: constants are sized but not filled yet.
struct graph_skeleton {
  types::Model model;
  std::uint64_t operand_values_size = 0;
  std::vector<std::uint64_t> pool_sizes;
};

inline result<graph_skeleton> decode_graph(std::span<const std::byte> bytes, const std::string& what) {
  byte_reader r(bytes, what + " GRAPH");
  graph_skeleton out;
  types::Model& m = out.model;
  const std::uint8_t relax = r.u8("relax flag");
  if (relax > 1) r.fail("relax flag", ": ", relax, " is not 0 or 1");
  m.relaxComputationFloat32toFloat16 = relax == 1;
  m.extensionNameToPrefix.resize(r.count(4, UINT32_MAX, "extension count"));
  for (auto& e : m.extensionNameToPrefix) {
    e.prefix = r.u16("extension prefix");
    e.name = r.str16(max_name_length, "extension name");
  }
  out.operand_values_size = r.u64("operandValues size");
  out.pool_sizes.resize(r.count(8, UINT32_MAX, "pool count"));
  for (auto& s : out.pool_sizes) s = r.u64("pool size");
  const std::uint32_t n_graphs = r.count(min_subgraph_bytes, UINT32_MAX, "subgraph count");
  if (!r.failed() && n_graphs == 0) r.fail("subgraph count", ": 0 (main is missing)");
  if (n_graphs > 0) {
    m.referenced.resize(n_graphs - 1);
    get_subgraph(r, m.main);
    for (auto& g : m.referenced) {
      if (r.failed()) break;
      get_subgraph(r, g);
    }
  }
  if (!r.failed() && !r.at_end()) r.fail("end", ": ", r.remaining(), " trailing bytes");
  if (r.failed()) return r.error();
  return out;
}

inline result<execution_plan> decode_plan(std::span<const std::byte> bytes, const types::Model& m,
                                          const std::string& what) {
  byte_reader r(bytes, what + " PLAN");
  execution_plan p;
  p.steps.resize(r.count(8, UINT32_MAX, "step count"));
  for (auto& s : p.steps) {
    s.operation = r.u32("step operation");
    s.kernel = r.u32("step kernel");
  }
  if (!r.failed() && !r.at_end()) r.fail("end", ": ", r.remaining(), " trailing bytes");
  if (r.failed()) return r.error();
  const std::size_t n = m.main.operations.size();
  NNHAL_CHECK(p.steps.size() == n, ErrorStatus::GENERAL_FAILURE, what, " PLAN: ", p.steps.size(), " steps for ", n,
              " operations");
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = p.steps[i];
    NNHAL_CHECK(s.operation < n && !seen[s.operation], ErrorStatus::GENERAL_FAILURE, what, " PLAN step ", i,
                ": operation ", s.operation, s.operation < n ? " appears twice" : " out of range");
    seen[s.operation] = true;
    // Operations run in model order; the only kernel choice so far is "bind at prepare".
    NNHAL_CHECK(s.operation == i && s.kernel == 0, ErrorStatus::GENERAL_FAILURE, what, " PLAN step ", i, ": operation ",
                s.operation, " kernel ", s.kernel, " is not a plan this nnhal version makes");
  }
  return p;
}

/// The one section of `id` in `f`; an error if it is missing or repeated.
inline result<section> only_section(const parsed_file& f, section_id id, std::string_view name,
                                    const std::string& what) {
  const section* found = nullptr;
  for (const auto& s : f.sections) {
    if (s.id != id) continue;
    NNHAL_CHECK(found == nullptr, ErrorStatus::GENERAL_FAILURE, what, ": section ", name, " appears twice");
    found = &s;
  }
  NNHAL_CHECK(found != nullptr, ErrorStatus::GENERAL_FAILURE, what, ": section ", name, " is missing");
  return *found;
}

}  // namespace detail

/// The PACKED_WEIGHTS section: empty, or u32 count; per entry a str16 key, u64 offset
/// (from the section's start, a multiple of section_alignment) and u64 size; then the
/// blobs at their offsets, zero-padded between.
inline std::vector<std::byte> encode_packed(const ops::packed_table& t) {
  if (t.empty()) return {};  // no section content at all, as decode_packed reads it
  detail::byte_writer w;
  w.u32(static_cast<std::uint32_t>(t.size()));
  std::size_t table = 4;
  for (const auto& [key, blob] : t) table += 2 + key.size() + 16;
  std::uint64_t offset = (table + section_alignment - 1) / section_alignment * section_alignment;
  for (const auto& [key, blob] : t) {
    w.str16(key);
    w.u64(offset);
    w.u64(blob.bytes.size());
    offset = (offset + blob.bytes.size() + section_alignment - 1) / section_alignment * section_alignment;
  }
  w.reserve(static_cast<std::size_t>(offset));
  for (const auto& [key, blob] : t) {
    w.pad_to(section_alignment);
    w.bytes(blob.bytes);
  }
  return std::move(w.buffer());
}

/// Parses a PACKED_WEIGHTS section whose bytes `owner` keeps alive. Every offset and size
/// is checked against the section; keys must be unique. What the blobs hold is not (the
/// data cache has no digest): kernels take a blob only at its exact expected size.
inline result<ops::packed_table> decode_packed(std::span<const std::byte> section, const std::shared_ptr<const void>& owner) {
  ops::packed_table t;
  if (section.empty()) return t;
  detail::byte_reader r(section, "data cache: PACKED_WEIGHTS");
  const std::uint32_t n = r.count(2 + 16, 1u << 20, "entry count");
  for (std::uint32_t i = 0; i < n && !r.failed(); ++i) {
    std::string key = r.str16(1024, "key");
    const std::uint64_t offset = r.u64("offset"), size = r.u64("size");
    if (r.failed()) break;
    if (offset % section_alignment != 0 || offset > section.size() || size > section.size() - offset)
      r.fail("entry ", i, ": bytes [", offset, ", +", size, ") outside the section of ", section.size(), " bytes");
    else if (!t.emplace(std::move(key), ops::packed_blob{owner, section.subspan(offset, size)}).second)
      r.fail("entry ", i, ": key given twice");
  }
  if (r.failed()) return r.error();
  return t;
}

/// Serializes `m` (already validated by the caller) with its plan. `packed_weights` (from
/// encode_packed) is stored as is in the data cache.
inline encoded_cache encode(const types::Model& m, const file_identity& id, const execution_plan& plan,
                            std::span<const std::byte> packed_weights = {}) {
  const auto graph = detail::encode_graph(m);
  const auto plan_bytes = detail::encode_plan(plan);
  const std::pair<section_id, std::span<const std::byte>> model_sections[] = {{section_id::graph, graph},
                                                                              {section_id::plan, plan_bytes}};
  encoded_cache out;
  out.model_cache = write_cache_file(model_cache_magic, id, model_sections);

  std::vector<std::pair<section_id, std::span<const std::byte>>> data_sections;
  data_sections.emplace_back(section_id::operand_values, std::as_bytes(std::span(m.operandValues)));
  for (const auto& p : m.pools)
    data_sections.emplace_back(section_id::pool, std::span<const std::byte>(p.data, p.size));
  data_sections.emplace_back(section_id::packed_weights, packed_weights);
  out.data_cache = write_cache_file(data_cache_magic, id, data_sections);
  return out;
}

/// What decode() gives back. `packed` points into the data buffer (and keeps it alive).
struct decoded_cache {
  types::Model model;
  execution_plan plan;
  ops::packed_table packed;
};

/// Parses a model cache and its data cache. The pools of the returned model alias
/// `data` (kept alive by their Memory::owner); operandValues is copied. The model is
/// NOT validated here: callers must run types::validate_model on it.
inline result<decoded_cache> decode(std::span<const std::byte> model_cache, std::shared_ptr<std::byte[]> data,
                                    std::size_t data_size, const expected_identity& expected) {
  const std::string mwhat = "model cache";
  auto mf = parse_cache_file(model_cache, model_cache_magic, expected, mwhat);
  if (!mf) return std::move(mf).err();
  for (const auto& s : mf->sections)
    NNHAL_CHECK(s.id == section_id::graph || s.id == section_id::plan, ErrorStatus::GENERAL_FAILURE, mwhat,
                ": unknown section id ", static_cast<std::uint32_t>(s.id));
  auto gs = detail::only_section(*mf, section_id::graph, "GRAPH", mwhat);
  if (!gs) return std::move(gs).err();
  auto ps = detail::only_section(*mf, section_id::plan, "PLAN", mwhat);
  if (!ps) return std::move(ps).err();
  auto sub = [](std::span<const std::byte> f, const section& s) {
    return f.subspan(static_cast<std::size_t>(s.offset), static_cast<std::size_t>(s.size));
  };
  auto skeleton = detail::decode_graph(sub(model_cache, *gs), mwhat);
  if (!skeleton) return std::move(skeleton).err();
  auto plan = detail::decode_plan(sub(model_cache, *ps), skeleton->model, mwhat);
  if (!plan) return std::move(plan).err();

  const std::string dwhat = "data cache";
  const std::span<const std::byte> dbytes(data.get(), data_size);
  const expected_identity dexpected{expected.token, expected.driver_version, &mf->pair};
  auto df = parse_cache_file(dbytes, data_cache_magic, dexpected, dwhat);
  if (!df) return std::move(df).err();

  decoded_cache out;
  types::Model& m = skeleton->model;
  std::size_t pool = 0;
  bool values_seen = false, packed_seen = false;
  m.pools.reserve(skeleton->pool_sizes.size());
  for (const auto& s : df->sections) {
    switch (s.id) {
      case section_id::operand_values: {
        NNHAL_CHECK(!values_seen, ErrorStatus::GENERAL_FAILURE, dwhat, ": section OPERAND_VALUES appears twice");
        values_seen = true;
        NNHAL_CHECK(s.size == skeleton->operand_values_size, ErrorStatus::GENERAL_FAILURE, dwhat,
                    ": OPERAND_VALUES has ", s.size, " bytes, the model cache says ", skeleton->operand_values_size);
        auto b = sub(dbytes, s);
        const auto* p = reinterpret_cast<const std::uint8_t*>(b.data());
        m.operandValues.assign(p, p + b.size());
        break;
      }
      case section_id::pool: {
        NNHAL_CHECK(pool < skeleton->pool_sizes.size(), ErrorStatus::GENERAL_FAILURE, dwhat, ": ", pool + 1,
                    " POOL sections, the model has ", skeleton->pool_sizes.size(), " pools");
        NNHAL_CHECK(s.size == skeleton->pool_sizes[pool], ErrorStatus::GENERAL_FAILURE, dwhat, ": POOL ", pool, " has ",
                    s.size, " bytes, the model cache says ", skeleton->pool_sizes[pool]);
        types::Memory mem;
        mem.owner = data;
        mem.data = data.get() + s.offset;
        mem.size = static_cast<std::size_t>(s.size);
        mem.writable = false;  // constants only, and `data` may be a read-only mapping
        m.pools.push_back(std::move(mem));
        ++pool;
        break;
      }
      case section_id::packed_weights: {
        NNHAL_CHECK(!packed_seen, ErrorStatus::GENERAL_FAILURE, dwhat, ": section PACKED_WEIGHTS appears twice");
        packed_seen = true;
        auto packed = decode_packed(sub(dbytes, s), data);
        if (!packed) return std::move(packed).err();
        out.packed = std::move(*packed);
        break;
      }
      default:
        return types::make_error(ErrorStatus::GENERAL_FAILURE, dwhat, ": unexpected section id ",
                                 static_cast<std::uint32_t>(s.id));
    }
  }
  NNHAL_CHECK(values_seen, ErrorStatus::GENERAL_FAILURE, dwhat, ": section OPERAND_VALUES is missing");
  NNHAL_CHECK(pool == skeleton->pool_sizes.size(), ErrorStatus::GENERAL_FAILURE, dwhat, ": ", pool,
              " POOL sections, the model has ", skeleton->pool_sizes.size(), " pools");
  out.model = std::move(m);
  out.plan = std::move(*plan);
  return out;
}

}  // namespace nnhal::cache
