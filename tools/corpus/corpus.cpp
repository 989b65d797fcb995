// nnhal_corpus: corpus JSON -> nnhal::types::Model, inputs, expected outputs, variants.
#include "corpus.hpp"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "nnhal/types/element.hpp"

namespace nnhal::corpus {
namespace {

using json = nlohmann::json;
using types::DataLocation;
using types::ErrorStatus;
using types::Model;
using types::Operand;
using types::OperandLifeTime;
using types::OperandType;
using types::Operation;
using types::OperationType;
using types::Subgraph;

// ---------------------------------------------------------------------------------
// Field errors: thrown by the JSON helpers below and caught per model / per file,
// so that every problem becomes a message "path: what". Nothing escapes this file.
struct field_error {
  std::string path;
  std::string what;
};

[[noreturn]] void fail(std::string path, std::string what) { throw field_error{std::move(path), std::move(what)}; }

std::string member(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// Short description of a JSON value for messages ("a string \"abc\"", "the number 3.5").
std::string describe(const json& j) {
  std::string text;
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return j.get<bool>() ? "true" : "false";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: text = "\"" + j.get<std::string>() + "\""; break;
    default: text = j.dump(); break;
  }
  if (text.size() > 48) text = text.substr(0, 45) + "...";
  return text;
}

const json& require(const json& obj, const std::string& path, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(member(path, key), "missing");
  return *it;
}
const json* optional_field(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

void expect_object(const json& j, const std::string& path) {
  if (!j.is_object()) fail(path, "expected an object, got " + describe(j));
}
void expect_array(const json& j, const std::string& path) {
  if (!j.is_array()) fail(path, "expected an array, got " + describe(j));
}

bool as_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) fail(path, "expected true or false, got " + describe(j));
  return j.get<bool>();
}

std::string as_string(const json& j, const std::string& path) {
  if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
  return j.get<std::string>();
}

std::int64_t as_integer(const json& j, const std::string& path, std::int64_t lo, std::int64_t hi) {
  if (j.is_number_unsigned()) {
    const std::uint64_t v = j.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(hi))
      fail(path, "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<std::int64_t>(v);
  }
  if (j.is_number_integer()) {
    const std::int64_t v = j.get<std::int64_t>();
    if (v < lo || v > hi)
      fail(path, "value " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  fail(path, "expected an integer, got " + describe(j));
}

std::uint32_t as_uint32(const json& j, const std::string& path) {
  return static_cast<std::uint32_t>(as_integer(j, path, 0, std::numeric_limits<std::uint32_t>::max()));
}

/// A float value: a JSON number or one of the strings "inf", "-inf", "nan".
double as_double(const json& j, const std::string& path) {
  if (j.is_number()) {
    const double d = j.get<double>();
    if (!std::isfinite(d)) fail(path, "number " + describe(j) + " out of range");
    return d;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  fail(path, "expected a number or \"inf\", \"-inf\", \"nan\", got " + describe(j));
}

/// double -> float as the corpus README specifies (the cast reproduces the harness value);
/// finite values that would round to infinity are an error. Keeps the sign of -0.0.
float to_float_checked(double d, const std::string& path) {
  if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
  if (std::isinf(d)) return d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  // Midpoint between FLT_MAX and 2^128: at or above it the value rounds to infinity.
  constexpr double overflow_limit = 0x1.ffffffp127;
  const double mag = std::fabs(d);
  if (mag >= overflow_limit) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", d);
    fail(path, "value " + std::string(buf) + " out of float32 range");
  }
  if (mag > static_cast<double>(FLT_MAX)) return d > 0 ? FLT_MAX : -FLT_MAX;
  return static_cast<float>(d);
}

float as_float(const json& j, const std::string& path) { return to_float_checked(as_double(j, path), path); }

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  const std::size_t n = out.size();
  out.resize(n + sizeof(T));
  std::memcpy(out.data() + n, &v, sizeof(T));
}

/// The `dataType` string the corpus uses for each operand type.
std::string_view data_type_name(OperandType t) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32: return "float";
    case OperandType::INT32:
    case OperandType::TENSOR_INT32: return "int32_t";
    case OperandType::UINT32:
    case OperandType::SUBGRAPH: return "uint32_t";
    case OperandType::TENSOR_QUANT8_ASYMM: return "uint8_t";
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8: return "bool8";
    case OperandType::TENSOR_QUANT16_SYMM: return "int16_t";
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16: return "_Float16";
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return "int8_t";
    case OperandType::TENSOR_QUANT16_ASYMM: return "uint16_t";
  }
  return "?";
}

/// Appends one JSON value as an element of type `t`, range-checked.
void append_element(OperandType t, const json& v, const std::string& path, std::vector<std::uint8_t>& out) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32: put(out, as_float(v, path)); return;
    case OperandType::INT32:
    case OperandType::TENSOR_INT32:
      put(out, static_cast<std::int32_t>(as_integer(v, path, INT32_MIN, INT32_MAX)));
      return;
    case OperandType::UINT32:
    case OperandType::SUBGRAPH: put(out, as_uint32(v, path)); return;
    case OperandType::TENSOR_QUANT8_ASYMM: put(out, static_cast<std::uint8_t>(as_integer(v, path, 0, 255))); return;
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8: put(out, static_cast<std::uint8_t>(as_bool(v, path) ? 1 : 0)); return;
    case OperandType::TENSOR_QUANT16_SYMM:
      put(out, static_cast<std::int16_t>(as_integer(v, path, INT16_MIN, INT16_MAX)));
      return;
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16: {
      const float f = as_float(v, path);
      const types::float16 h = types::to_float16(f);
      if (std::isfinite(f) && !std::isfinite(types::to_float(h)))
        fail(path, "value " + describe(v) + " out of float16 range");
      put(out, h.bits);
      return;
    }
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      put(out, static_cast<std::int8_t>(as_integer(v, path, INT8_MIN, INT8_MAX)));
      return;
    case OperandType::TENSOR_QUANT16_ASYMM: put(out, static_cast<std::uint16_t>(as_integer(v, path, 0, 65535))); return;
  }
  fail(path, "operand type has no element encoding");
}

// ---------------------------------------------------------------------------------
// Operands and subgraphs.

struct parsed_operand {
  Operand operand;  // location not yet set
  std::vector<std::uint8_t> bytes;
  bool has_data = false;
  bool isIgnored = false;
  bool has_consumer_count = false;
};

struct parsed_subgraph {
  Subgraph subgraph;
  std::vector<parsed_operand> operands;
};

std::vector<std::uint32_t> parse_index_list(const json& j, const std::string& path, std::size_t limit,
                                            std::string_view what) {
  expect_array(j, path);
  std::vector<std::uint32_t> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::uint32_t v = as_uint32(j[i], item(path, i));
    if (v >= limit)
      fail(item(path, i), std::string(what) + " index " + std::to_string(v) + " out of range (" + std::to_string(limit) +
                              " " + std::string(what) + (limit == 1 ? "" : "s") + ")");
    out.push_back(v);
  }
  return out;
}

parsed_operand parse_operand(const json& j, const std::string& path, bool is_main, std::size_t referenced_count) {
  expect_object(j, path);
  parsed_operand p;
  Operand& op = p.operand;

  {
    const std::string tp = member(path, "type");
    const std::string name = as_string(require(j, path, "type"), tp);
    if (!types::parse_operand_type(name, op.type)) fail(tp, "unknown operand type \"" + name + "\"");
  }
  {
    const std::string dp = member(path, "dimensions");
    const json& d = require(j, path, "dimensions");
    expect_array(d, dp);
    op.dimensions.reserve(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) op.dimensions.push_back(as_uint32(d[i], item(dp, i)));
  }
  {
    const std::string lp = member(path, "lifetime");
    const std::string name = as_string(require(j, path, "lifetime"), lp);
    if (!types::parse_lifetime(name, op.lifetime) || op.lifetime == OperandLifeTime::POINTER)
      fail(lp, "unknown lifetime \"" + name + "\"");
  }
  if (const json* s = optional_field(j, "scale")) op.scale = as_float(*s, member(path, "scale"));
  if (const json* z = optional_field(j, "zeroPoint"))
    op.zeroPoint = static_cast<std::int32_t>(as_integer(*z, member(path, "zeroPoint"), INT32_MIN, INT32_MAX));
  if (const json* ig = optional_field(j, "isIgnored")) p.isIgnored = as_bool(*ig, member(path, "isIgnored"));
  if (const json* nc = optional_field(j, "numberOfConsumers")) {
    op.numberOfConsumers = as_uint32(*nc, member(path, "numberOfConsumers"));
    p.has_consumer_count = true;
  }
  if (const json* name = optional_field(j, "name"); name && !name->is_null() && !name->is_string())
    fail(member(path, "name"), "expected a string or null, got " + describe(*name));
  if (const json* cq = optional_field(j, "channelQuant"); cq && !cq->is_null()) {
    const std::string cp = member(path, "channelQuant");
    expect_object(*cq, cp);
    types::SymmPerChannelQuantParams params;
    const std::string sp = member(cp, "scales");
    const json& scales = require(*cq, cp, "scales");
    expect_array(scales, sp);
    for (std::size_t i = 0; i < scales.size(); ++i) params.scales.push_back(as_float(scales[i], item(sp, i)));
    params.channelDim = as_uint32(require(*cq, cp, "channelDim"), member(cp, "channelDim"));
    op.extraParams = std::move(params);
  }
  if (const json* dt = optional_field(j, "dataType")) {
    const std::string dtp = member(path, "dataType");
    const std::string name = as_string(*dt, dtp);
    if (name != data_type_name(op.type))
      fail(dtp, "\"" + name + "\" does not match operand type " + std::string(types::to_string(op.type)) + " (expected \"" +
                    std::string(data_type_name(op.type)) + "\")");
  }

  const std::string datap = member(path, "data");
  const json& data = require(j, path, "data");
  expect_array(data, datap);
  p.has_data = !data.empty();

  const auto count = element_count(op.dimensions);
  const std::uint32_t elem_size = types::type_info(op.type).element_size;
  auto expected_values = [&]() -> std::uint64_t {
    if (!count) fail(member(path, "dimensions"), "element count overflows");
    if (*count > std::numeric_limits<std::uint32_t>::max() / elem_size)
      fail(member(path, "dimensions"), "tensor of " + std::to_string(*count) + " elements is too large");
    return *count;
  };
  auto check_length = [&]() {
    const std::uint64_t n = expected_values();
    if (n != data.size())
      fail(datap, "expected " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", got " + std::to_string(data.size()));
  };
  const std::string lifetime_name(types::to_string(op.lifetime));
  auto no_data = [&](std::string_view where) {
    if (p.has_data) fail(datap, "a " + lifetime_name + " operand" + std::string(where) + " carries no data");
  };

  switch (op.lifetime) {
    case OperandLifeTime::TEMPORARY_VARIABLE:
    case OperandLifeTime::NO_VALUE: no_data(""); break;
    case OperandLifeTime::CONSTANT_COPY:
    case OperandLifeTime::CONSTANT_REFERENCE: check_length(); break;
    case OperandLifeTime::SUBGRAPH:
      if (op.type != OperandType::SUBGRAPH)
        fail(member(path, "type"), "a SUBGRAPH operand must have type SUBGRAPH, not " + std::string(types::to_string(op.type)));
      if (data.size() != 1)
        fail(datap, "expected one index into referenced, got " + std::to_string(data.size()) + " values");
      break;
    case OperandLifeTime::SUBGRAPH_INPUT:
      if (!is_main) no_data(" of a referenced subgraph");
      else if (p.has_data) check_length();  // empty data: omitted optional input
      break;
    case OperandLifeTime::SUBGRAPH_OUTPUT:
      if (!is_main) no_data(" of a referenced subgraph");
      else check_length();  // empty data only for zero-sized outputs
      break;
    case OperandLifeTime::POINTER: break;  // rejected above
  }

  if (p.has_data) {
    p.bytes.reserve(data.size() * elem_size);
    for (std::size_t i = 0; i < data.size(); ++i) append_element(op.type, data[i], item(datap, i), p.bytes);
  }
  if (op.lifetime == OperandLifeTime::SUBGRAPH) {
    std::uint32_t index = 0;
    std::memcpy(&index, p.bytes.data(), sizeof index);
    if (index >= referenced_count)
      fail(item(datap, 0), "subgraph index " + std::to_string(index) + " out of range (" + std::to_string(referenced_count) +
                               " referenced subgraph" + (referenced_count == 1 ? "" : "s") + ")");
  }
  return p;
}

parsed_subgraph parse_subgraph(const json& j, const std::string& path, bool is_main, std::size_t referenced_count) {
  expect_object(j, path);
  parsed_subgraph ps;
  Subgraph& sg = ps.subgraph;

  const std::string op_path = member(path, "operands");
  const json& operands = require(j, path, "operands");
  expect_array(operands, op_path);
  ps.operands.reserve(operands.size());
  for (std::size_t i = 0; i < operands.size(); ++i)
    ps.operands.push_back(parse_operand(operands[i], item(op_path, i), is_main, referenced_count));
  const std::size_t n = ps.operands.size();

  const std::string ops_path = member(path, "operations");
  const json& operations = require(j, path, "operations");
  expect_array(operations, ops_path);
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const std::string p = item(ops_path, i);
    const json& o = operations[i];
    expect_object(o, p);
    Operation operation;
    const std::string name = as_string(require(o, p, "type"), member(p, "type"));
    if (!types::parse_operation_type(name, operation.type))
      fail(member(p, "type"), "unknown operation type \"" + name + "\"");
    operation.inputs = parse_index_list(require(o, p, "inputs"), member(p, "inputs"), n, "operand");
    operation.outputs = parse_index_list(require(o, p, "outputs"), member(p, "outputs"), n, "operand");
    sg.operations.push_back(std::move(operation));
  }
  sg.inputIndexes = parse_index_list(require(j, path, "inputIndexes"), member(path, "inputIndexes"), n, "operand");
  sg.outputIndexes = parse_index_list(require(j, path, "outputIndexes"), member(path, "outputIndexes"), n, "operand");

  // numberOfConsumers: taken from the file; computed when the field is absent.
  std::vector<std::uint32_t> consumers(n, 0);
  for (const auto& operation : sg.operations)
    for (auto in : operation.inputs) ++consumers[in];
  for (std::size_t i = 0; i < n; ++i)
    if (!ps.operands[i].has_consumer_count) ps.operands[i].operand.numberOfConsumers = consumers[i];

  auto check_lifetime = [&](const std::vector<std::uint32_t>& list, const char* field, OperandLifeTime want) {
    for (std::size_t k = 0; k < list.size(); ++k) {
      const auto& op = ps.operands[list[k]].operand;
      if (op.lifetime != want)
        fail(item(member(path, field), k), "operand " + std::to_string(list[k]) + " has lifetime " +
                                               std::string(types::to_string(op.lifetime)) + ", expected " +
                                               std::string(types::to_string(want)));
    }
  };
  check_lifetime(sg.inputIndexes, "inputIndexes", OperandLifeTime::SUBGRAPH_INPUT);
  check_lifetime(sg.outputIndexes, "outputIndexes", OperandLifeTime::SUBGRAPH_OUTPUT);
  return ps;
}

constexpr std::size_t constant_alignment = 8;

std::size_t align_up(std::size_t n) { return (n + constant_alignment - 1) / constant_alignment * constant_alignment; }

/// Moves parsed operands into the Subgraph, placing constants: CONSTANT_COPY into
/// `values`, CONSTANT_REFERENCE into the staging buffer of the single shared pool 0.
void place_operands(parsed_subgraph& ps, std::vector<std::uint8_t>& values, std::vector<std::uint8_t>& pool,
                    bool& uses_pool) {
  Subgraph& sg = ps.subgraph;
  sg.operands.reserve(ps.operands.size());
  for (auto& p : ps.operands) {
    Operand op = std::move(p.operand);
    switch (op.lifetime) {
      case OperandLifeTime::CONSTANT_COPY:
      case OperandLifeTime::CONSTANT_REFERENCE: {
        const bool copy = op.lifetime == OperandLifeTime::CONSTANT_COPY;
        auto& buf = copy ? values : pool;
        const std::size_t offset = align_up(buf.size());
        buf.resize(offset, 0);
        buf.insert(buf.end(), p.bytes.begin(), p.bytes.end());
        op.location = DataLocation{0, static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(p.bytes.size())};
        if (!copy) uses_pool = true;
        break;
      }
      case OperandLifeTime::SUBGRAPH: {
        std::uint32_t index = 0;
        std::memcpy(&index, p.bytes.data(), sizeof index);
        op.location = DataLocation{0, index, 0};  // HAL 1.3: offset is the index into referenced
        break;
      }
      default: op.location = DataLocation{}; break;
    }
    sg.operands.push_back(std::move(op));
  }
}

std::string model_label(const json& m, std::size_t i) {
  if (m.is_object()) {
    auto it = m.find("name");
    if (it != m.end() && it->is_string()) return it->get<std::string>();
  }
  return "models[" + std::to_string(i) + "]";
}

test_model convert_model(const json& m, std::string_view file) {
  expect_object(m, "");
  test_model tm;
  tm.file = std::string(file);
  tm.name = as_string(require(m, "", "name"), "name");
  if (const json* v = optional_field(m, "expectFailure")) tm.expectFailure = as_bool(*v, "expectFailure");
  if (const json* v = optional_field(m, "isRelaxed")) tm.isRelaxed = as_bool(*v, "isRelaxed");
  if (const json* v = optional_field(m, "expectedMultinomialDistributionTolerance"))
    tm.expectedMultinomialDistributionTolerance = as_float(*v, "expectedMultinomialDistributionTolerance");
  {
    const std::string name = as_string(require(m, "", "minSupportedVersion"), "minSupportedVersion");
    if (!types::parse_hal_version(name, tm.minSupportedVersion))
      fail("minSupportedVersion", "unknown HAL version \"" + name + "\"");
  }

  std::size_t referenced_count = 0;
  const json* referenced = optional_field(m, "referenced");
  if (referenced) {
    expect_array(*referenced, "referenced");
    referenced_count = referenced->size();
  }
  parsed_subgraph main = parse_subgraph(require(m, "", "main"), "main", true, referenced_count);
  std::vector<parsed_subgraph> refs;
  refs.reserve(referenced_count);
  for (std::size_t i = 0; i < referenced_count; ++i)
    refs.push_back(parse_subgraph((*referenced)[i], item("referenced", i), false, referenced_count));

  // Inputs and expected outputs of main, before the operand bytes move into the model.
  for (auto index : main.subgraph.inputIndexes) {
    const parsed_operand& p = main.operands[index];
    test_input in;
    in.omitted = !p.has_data;
    in.type = p.operand.type;
    in.dimensions = p.operand.dimensions;
    in.bytes = p.bytes;
    tm.inputs.push_back(std::move(in));
  }
  for (auto index : main.subgraph.outputIndexes) {
    const parsed_operand& p = main.operands[index];
    expected_output out;
    out.type = p.operand.type;
    out.dimensions = p.operand.dimensions;
    out.scale = p.operand.scale;
    out.zeroPoint = p.operand.zeroPoint;
    out.isIgnored = p.isIgnored;
    out.bytes = p.bytes;
    tm.outputs.push_back(std::move(out));
  }

  Model& model = tm.model;
  model.relaxComputationFloat32toFloat16 = tm.isRelaxed;
  std::vector<std::uint8_t> pool;
  bool uses_pool = false;
  place_operands(main, model.operandValues, pool, uses_pool);
  model.main = std::move(main.subgraph);
  for (auto& r : refs) {
    place_operands(r, model.operandValues, pool, uses_pool);
    model.referenced.push_back(std::move(r.subgraph));
  }
  if (uses_pool) {
    types::Memory mem = types::Memory::allocate(std::max<std::size_t>(pool.size(), 1));
    if (!pool.empty()) std::memcpy(mem.data, pool.data(), pool.size());
    model.pools.push_back(std::move(mem));
  }
  return tm;
}

types::error make_load_error(std::string_view file, const std::string* model, const field_error& e) {
  std::string msg(file);
  msg += ": ";
  if (model) msg += "model \"" + *model + "\": ";
  if (!e.path.empty()) msg += e.path + ": ";
  msg += e.what;
  return types::error{ErrorStatus::INVALID_ARGUMENT, std::move(msg)};
}

types::result<std::string> read_file(const std::filesystem::path& path, std::string_view display) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return types::make_error(ErrorStatus::INVALID_ARGUMENT, display, ": cannot open: ", std::strerror(err));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return types::make_error(ErrorStatus::INVALID_ARGUMENT, display, ": read error");
  return ss.str();
}

}  // namespace

std::optional<std::uint64_t> element_count(const std::vector<std::uint32_t>& dims) {
  for (auto d : dims)
    if (d == 0) return 0;
  std::uint64_t n = 1;
  for (auto d : dims) {
    if (n > std::numeric_limits<std::uint64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

types::result<corpus_file> parse_corpus_entries(std::string_view json_text, std::string_view file) {
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {
    return types::make_error(ErrorStatus::INVALID_ARGUMENT, file, ": not valid JSON: ", e.what());
  }
  corpus_file cf;
  cf.file = std::string(file);
  try {
    expect_object(doc, "(top level)");
    const std::string format = as_string(require(doc, "", "format"), "format");
    if (format != corpus_format) fail("format", "expected \"" + std::string(corpus_format) + "\", got \"" + format + "\"");
    if (const json* spec = optional_field(doc, "spec")) cf.spec = as_string(*spec, "spec");
    const json& models = require(doc, "", "models");
    expect_array(models, "models");
    cf.entries.reserve(models.size());
    for (std::size_t i = 0; i < models.size(); ++i) {
      model_entry entry;
      entry.name = model_label(models[i], i);
      try {
        entry.model = convert_model(models[i], file);
      } catch (const field_error& e) {
        entry.error = make_load_error(file, &entry.name, e).message;
      } catch (const std::exception& e) {  // bad_alloc and the like: still no crash
        entry.error = make_load_error(file, &entry.name, field_error{"", e.what()}).message;
      }
      cf.entries.push_back(std::move(entry));
    }
  } catch (const field_error& e) {
    return make_load_error(file, nullptr, e);
  } catch (const std::exception& e) {
    return make_load_error(file, nullptr, field_error{"", e.what()});
  }
  return cf;
}

types::result<corpus_file> load_corpus_entries(const std::filesystem::path& path, std::string_view display) {
  const std::string shown = display.empty() ? path.string() : std::string(display);
  auto text = read_file(path, shown);
  if (!text) return std::move(text).err();
  return parse_corpus_entries(*text, shown);
}

types::result<std::vector<test_model>> parse_corpus(std::string_view json_text, std::string_view file) {
  auto cf = parse_corpus_entries(json_text, file);
  if (!cf) return std::move(cf).err();
  std::vector<test_model> out;
  out.reserve(cf->entries.size());
  for (auto& e : cf->entries) {
    if (!e.model) return types::error{ErrorStatus::INVALID_ARGUMENT, e.error};
    out.push_back(std::move(*e.model));
  }
  return out;
}

types::result<std::vector<test_model>> load_corpus(const std::filesystem::path& path, std::string_view display) {
  const std::string shown = display.empty() ? path.string() : std::string(display);
  auto text = read_file(path, shown);
  if (!text) return std::move(text).err();
  return parse_corpus(*text, shown);
}

request_buffers make_request(const test_model& tm) {
  request_buffers rb;
  types::Request& r = rb.request;
  for (const auto& in : tm.inputs) {
    types::RequestArgument arg;
    if (in.omitted) {
      arg.hasNoValue = true;  // location and dimensions stay empty, as the HAL requires
    } else {
      types::Memory mem = types::Memory::allocate(std::max<std::size_t>(in.bytes.size(), 1));
      if (!in.bytes.empty()) std::memcpy(mem.data, in.bytes.data(), in.bytes.size());
      arg.location = DataLocation{static_cast<std::uint32_t>(r.pools.size()), 0, static_cast<std::uint32_t>(in.bytes.size())};
      r.pools.emplace_back(std::move(mem));
    }
    r.inputs.push_back(std::move(arg));
  }
  for (const auto& out : tm.outputs) {
    const std::size_t size = std::max<std::size_t>(out.bytes.size(), 1);
    types::Memory mem = types::Memory::allocate(size);
    types::RequestArgument arg;
    arg.location = DataLocation{static_cast<std::uint32_t>(r.pools.size()), 0, static_cast<std::uint32_t>(size)};
    r.pools.emplace_back(mem);
    rb.outputs.push_back(std::move(mem));
    r.outputs.push_back(std::move(arg));
  }
  return rb;
}

namespace {
template <class F>
void for_each_subgraph(const Model& model, F&& f) {
  f(model.main);
  for (const auto& sg : model.referenced) f(sg);
}
}  // namespace

bool has_operation(const Model& model, OperationType type) {
  bool found = false;
  for_each_subgraph(model, [&](const Subgraph& sg) {
    for (const auto& op : sg.operations) found = found || op.type == type;
  });
  return found;
}

bool has_operand_type(const Model& model, OperandType type) {
  bool found = false;
  for_each_subgraph(model, [&](const Subgraph& sg) {
    for (const auto& op : sg.operands) found = found || op.type == type;
  });
  return found;
}

std::vector<std::string> operation_names(const Model& model) {
  std::set<std::string> names;
  for_each_subgraph(model, [&](const Subgraph& sg) {
    for (const auto& op : sg.operations) names.emplace(types::to_string(op.type));
  });
  return {names.begin(), names.end()};
}

std::vector<std::string> operand_type_names(const Model& model) {
  std::set<std::string> names;
  for_each_subgraph(model, [&](const Subgraph& sg) {
    for (const auto& op : sg.operands) names.emplace(types::to_string(op.type));
  });
  return {names.begin(), names.end()};
}

bool dynamic_output_shape_eligible(const test_model& tm) {
  return !tm.expectFailure && !has_operation(tm.model, OperationType::RANK) &&
         !has_operation(tm.model, OperationType::IF) && !has_operation(tm.model, OperationType::WHILE);
}

std::optional<test_model> dynamic_output_shape_variant(const test_model& tm) {
  if (!dynamic_output_shape_eligible(tm)) return std::nullopt;
  test_model v = tm;
  v.variant = "dynamic-output-shape";
  for (auto& op : v.model.main.operands)
    if (op.lifetime == OperandLifeTime::SUBGRAPH_OUTPUT) std::fill(op.dimensions.begin(), op.dimensions.end(), 0u);
  return v;
}

bool quant_coupling_eligible(const test_model& tm) {
  if (tm.expectFailure || !tm.model.referenced.empty() || tm.model.main.operations.size() != 1) return false;
  const Operation& op = tm.model.main.operations[0];
  switch (op.type) {
    case OperationType::HASHTABLE_LOOKUP:
    case OperationType::LSH_PROJECTION:
    case OperationType::PAD_V2:
    case OperationType::CAST:
    case OperationType::QUANTIZED_16BIT_LSTM: return false;
    default: break;
  }
  const auto& operands = tm.model.main.operands;
  auto is_q8 = [&](std::uint32_t i) { return i < operands.size() && operands[i].type == OperandType::TENSOR_QUANT8_ASYMM; };
  return std::any_of(op.inputs.begin(), op.inputs.end(), is_q8) || std::any_of(op.outputs.begin(), op.outputs.end(), is_q8);
}

namespace {
void shift_to_signed(std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const auto s = static_cast<std::int8_t>(static_cast<std::int32_t>(p[i]) - 128);
    std::memcpy(p + i, &s, 1);
  }
}
}  // namespace

std::optional<test_model> quant_coupling_variant(const test_model& tm) {
  if (!quant_coupling_eligible(tm)) return std::nullopt;
  test_model v = tm;
  v.variant = "quant-coupling";
  // The pools are shared with the original model: give the variant its own copies.
  for (auto& pool : v.model.pools) {
    types::Memory copy = types::Memory::allocate(pool.size);
    if (pool.size) std::memcpy(copy.data, pool.data, pool.size);
    pool = std::move(copy);
  }
  Subgraph& main = v.model.main;
  for (auto& op : main.operands) {
    if (op.type != OperandType::TENSOR_QUANT8_ASYMM) continue;
    op.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    op.zeroPoint -= 128;
    const auto& loc = op.location;
    if (op.lifetime == OperandLifeTime::CONSTANT_COPY) {
      if (std::size_t{loc.offset} + loc.length <= v.model.operandValues.size())
        shift_to_signed(v.model.operandValues.data() + loc.offset, loc.length);
    } else if (op.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
      if (loc.poolIndex < v.model.pools.size() && std::size_t{loc.offset} + loc.length <= v.model.pools[loc.poolIndex].size)
        shift_to_signed(reinterpret_cast<std::uint8_t*>(v.model.pools[loc.poolIndex].data) + loc.offset, loc.length);
    }
  }
  for (auto& in : v.inputs) {
    if (in.type != OperandType::TENSOR_QUANT8_ASYMM) continue;
    in.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    shift_to_signed(in.bytes.data(), in.bytes.size());
  }
  for (auto& out : v.outputs) {
    if (out.type != OperandType::TENSOR_QUANT8_ASYMM) continue;
    out.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    out.zeroPoint -= 128;
    shift_to_signed(out.bytes.data(), out.bytes.size());
  }
  return v;
}

}  // namespace nnhal::corpus
