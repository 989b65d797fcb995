// nnhal_corpus: comparison rules of the upstream generated-test harness.
#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "nnhal/types/element.hpp"

namespace nnhal::corpus {
namespace {

using types::OperandLifeTime;
using types::OperandType;

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

bool is_integer_type(OperandType t) {
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16: return false;
    default: return true;
  }
}

/// Element i of a buffer of type t, as double. The caller checked the bounds.
double element_as_double(OperandType t, const std::byte* base, std::size_t i) {
  const std::size_t size = types::type_info(t).element_size;
  const std::byte* p = base + i * size;
  switch (t) {
    case OperandType::FLOAT32:
    case OperandType::TENSOR_FLOAT32: return load<float>(p);
    case OperandType::INT32:
    case OperandType::TENSOR_INT32: return load<std::int32_t>(p);
    case OperandType::UINT32:
    case OperandType::SUBGRAPH: return load<std::uint32_t>(p);
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8: return load<std::uint8_t>(p);
    case OperandType::TENSOR_QUANT16_SYMM: return load<std::int16_t>(p);
    case OperandType::FLOAT16:
    case OperandType::TENSOR_FLOAT16: return types::to_float(types::float16{load<std::uint16_t>(p)});
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return load<std::int8_t>(p);
    case OperandType::TENSOR_QUANT16_ASYMM: return load<std::uint16_t>(p);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string format_number(double v, bool integer) {
  char buf[64];
  if (integer && std::isfinite(v))
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string format_dims(std::span<const std::uint32_t> dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string output_label(std::size_t index) { return "output " + std::to_string(index); }

check_result failure(std::string message) { return check_result{false, std::move(message)}; }

/// The bytes of main operand `index` as the test feeds them: a main input's data or a
/// constant's value. Empty if neither.
std::span<const std::byte> operand_value(const test_model& tm, std::uint32_t index) {
  const auto& main = tm.model.main;
  for (std::size_t k = 0; k < main.inputIndexes.size() && k < tm.inputs.size(); ++k)
    if (main.inputIndexes[k] == index) return std::as_bytes(std::span(tm.inputs[k].bytes));
  if (index >= main.operands.size()) return {};
  const auto& op = main.operands[index];
  const auto& loc = op.location;
  if (op.lifetime == OperandLifeTime::CONSTANT_COPY) {
    if (std::size_t{loc.offset} + loc.length <= tm.model.operandValues.size())
      return std::as_bytes(std::span(tm.model.operandValues)).subspan(loc.offset, loc.length);
  } else if (op.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
    if (loc.poolIndex < tm.model.pools.size() && std::size_t{loc.offset} + loc.length <= tm.model.pools[loc.poolIndex].size)
      return tm.model.pools[loc.poolIndex].bytes().subspan(loc.offset, loc.length);
  }
  return {};
}

}  // namespace

compare_flags flags_for(const test_model& tm) {
  compare_flags f;
  f.isRelaxed = tm.isRelaxed;
  f.hasFloat16Operand = has_operand_type(tm.model, OperandType::TENSOR_FLOAT16);
  f.isMobilenet = tm.name.find("mobilenet") != std::string::npos;
  return f;
}

criterion criterion_for(OperandType type, const compare_flags& flags) {
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
      if (flags.isRelaxed || flags.hasFloat16Operand) return {compare_kind::tolerance, {float16_tol, float16_tol}};
      return {compare_kind::tolerance, {float32_atol, float32_rtol}};
    case OperandType::TENSOR_FLOAT16: return {compare_kind::tolerance, {float16_tol, float16_tol}};
    case OperandType::TENSOR_INT32:
    case OperandType::INT32: return {compare_kind::tolerance, {1.0, 0.0}};
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM: return {compare_kind::tolerance, {flags.isMobilenet ? 3.0 : 1.0, 0.0}};
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM: return {compare_kind::tolerance, {1.0, 0.0}};
    case OperandType::TENSOR_BOOL8: return {compare_kind::boolean, {}};
    default: return {compare_kind::not_comparable, {}};
  }
}

check_result compare_output(std::size_t output_index, const expected_output& expected, std::span<const std::byte> actual,
                            std::span<const std::uint32_t> actual_dims, const compare_flags& flags) {
  if (expected.isIgnored) return {};
  const std::string label = output_label(output_index);
  if (!std::equal(actual_dims.begin(), actual_dims.end(), expected.dimensions.begin(), expected.dimensions.end()))
    return failure(label + ": dimensions " + format_dims(actual_dims) + ", expected " + format_dims(expected.dimensions));

  const criterion crit = criterion_for(expected.type, flags);
  if (crit.kind == compare_kind::not_comparable)
    return failure(label + ": type " + std::string(types::to_string(expected.type)) + " cannot be compared");

  const auto count = element_count(expected.dimensions);
  const std::size_t elem = types::type_info(expected.type).element_size;
  if (!count || *count > std::numeric_limits<std::size_t>::max() / elem)
    return failure(label + ": element count of " + format_dims(expected.dimensions) + " overflows");
  const std::size_t bytes = static_cast<std::size_t>(*count) * elem;
  if (expected.bytes.size() < bytes)
    return failure(label + ": expected data has " + std::to_string(expected.bytes.size()) + " bytes, need " +
                   std::to_string(bytes));
  if (actual.size() < bytes)
    return failure(label + ": output buffer has " + std::to_string(actual.size()) + " bytes, need " + std::to_string(bytes));

  const std::byte* exp = reinterpret_cast<const std::byte*>(expected.bytes.data());
  const bool integer = is_integer_type(expected.type);
  std::size_t mismatches = 0;
  std::string first;
  for (std::size_t i = 0; i < *count; ++i) {
    const double e = element_as_double(expected.type, exp, i);
    const double a = element_as_double(expected.type, actual.data(), i);
    if (crit.kind == compare_kind::boolean) {
      if ((e != 0.0) == (a != 0.0)) continue;
      if (mismatches++ == 0)
        first = label + " element " + std::to_string(i) + ": expected " + (e != 0.0 ? "true" : "false") + ", actual " +
                (a != 0.0 ? "true" : "false") + " (exact boolean comparison)";
      continue;
    }
    const double limit = crit.tol.atol + crit.tol.rtol * std::fabs(e);
    const double diff = std::fabs(a - e);
    if (diff <= limit) continue;  // false for NaN in either value
    if (mismatches++ == 0) {
      first = label + " element " + std::to_string(i) + ": expected " + format_number(e, integer) + ", actual " +
              format_number(a, integer) + ", |diff| " + format_number(diff, false) + " > tolerance " +
              format_number(crit.tol.atol, false);
      if (crit.tol.rtol != 0.0)
        first += " + " + format_number(crit.tol.rtol, false) + "*|e| = " + format_number(limit, false);
    }
  }
  if (mismatches == 0) return {};
  return failure(first + " (" + std::to_string(mismatches) + " of " + std::to_string(*count) + " elements differ)");
}

check_result check_multinomial(const test_model& tm, std::span<const std::byte> output) {
  const auto& main = tm.model.main;
  const float tol = tm.expectedMultinomialDistributionTolerance;
  if (main.operations.size() != 1 || main.operations[0].type != types::OperationType::RANDOM_MULTINOMIAL)
    return failure("multinomial check: the model is not a single RANDOM_MULTINOMIAL operation");
  const auto& op = main.operations[0];
  if (op.inputs.empty() || op.outputs.size() != 1 || main.outputIndexes.size() != 1 || tm.outputs.size() != 1)
    return failure("multinomial check: expected one logits input and one output");
  if (op.inputs[0] >= main.operands.size()) return failure("multinomial check: logits operand out of range");
  const auto& input = main.operands[op.inputs[0]];
  const auto& out = tm.outputs[0];
  if (input.dimensions.size() != 2 || out.dimensions.size() != 2)
    return failure("multinomial check: logits and output must be 2-D");
  if (out.type != OperandType::TENSOR_INT32) return failure("multinomial check: output must be TENSOR_INT32");
  if (input.type != OperandType::TENSOR_FLOAT32 && input.type != OperandType::TENSOR_FLOAT16)
    return failure("multinomial check: logits must be TENSOR_FLOAT32 or TENSOR_FLOAT16");

  const std::uint64_t batches = input.dimensions[0];
  const std::uint64_t classes = input.dimensions[1];
  const std::uint64_t samples = out.dimensions[1];
  const std::uint64_t out_count = std::uint64_t{out.dimensions[0]} * samples;
  const auto logits = operand_value(tm, op.inputs[0]);
  const std::size_t lsize = types::type_info(input.type).element_size;
  if (logits.size() < batches * classes * lsize) return failure("multinomial check: logits data is missing");
  if (output.size() < out_count * sizeof(std::int32_t))
    return failure("multinomial check: output buffer has " + std::to_string(output.size()) + " bytes, need " +
                   std::to_string(out_count * sizeof(std::int32_t)));
  if (samples == 0) return failure("multinomial check: no samples");

  // Class frequencies over the whole output buffer, as upstream counts them.
  std::vector<std::uint64_t> counts(classes, 0);
  for (std::uint64_t i = 0; i < out_count; ++i) {
    const auto c = load<std::int32_t>(output.data() + i * sizeof(std::int32_t));
    if (c < 0 || static_cast<std::uint64_t>(c) >= classes)
      return failure("output 0 element " + std::to_string(i) + ": class index " + std::to_string(c) + " out of range [0, " +
                     std::to_string(classes) + ")");
    ++counts[static_cast<std::size_t>(c)];
  }
  auto logit = [&](std::uint64_t flat) {
    return static_cast<float>(element_as_double(input.type, logits.data(), static_cast<std::size_t>(flat)));
  };
  for (std::uint64_t b = 0; b < batches; ++b) {
    const std::uint64_t row = batches * b;  // upstream's row start (a quirk for B > 1)
    if (row + classes > batches * classes)
      return failure("multinomial check: logits row of batch " + std::to_string(b) + " starts at flat index " +
                     std::to_string(row) + ", past the end of the logits");
    float sum = 0.0f;
    for (std::uint64_t i = 0; i < classes; ++i) sum += std::exp(logit(row + i));
    for (std::uint64_t i = 0; i < classes; ++i) {
      const float probability = static_cast<float>(counts[i]) / static_cast<float>(samples);
      const float expected = std::exp(logit(row + i)) / sum;
      if (!(std::fabs(probability - expected) <= tol))  // float, as upstream's FloatNear
        return failure("output 0 batch " + std::to_string(b) + " class " + std::to_string(i) + ": frequency " +
                       format_number(probability, false) + ", softmax probability " + format_number(expected, false) +
                       ", tolerance " + format_number(tol, false));
    }
  }
  return {};
}

check_result compare_outputs(const test_model& tm, const std::vector<std::span<const std::byte>>& actual,
                             const std::vector<types::OutputShape>& shapes) {
  if (actual.size() != tm.outputs.size())
    return failure("got " + std::to_string(actual.size()) + " output buffers for " + std::to_string(tm.outputs.size()) +
                   " outputs");
  if (tm.expectedMultinomialDistributionTolerance > 0.0f) {
    if (actual.empty()) return failure("multinomial check: no output");
    return check_multinomial(tm, actual[0]);
  }
  const bool all_ignored =
      std::all_of(tm.outputs.begin(), tm.outputs.end(), [](const expected_output& o) { return o.isIgnored; });
  if (shapes.size() != tm.outputs.size() && !all_ignored)
    return failure("execution reported " + std::to_string(shapes.size()) + " output shapes for " +
                   std::to_string(tm.outputs.size()) + " outputs");
  const compare_flags flags = flags_for(tm);
  std::size_t failed = 0;
  std::string first;
  for (std::size_t i = 0; i < tm.outputs.size(); ++i) {
    if (tm.outputs[i].isIgnored) continue;
    auto r = compare_output(i, tm.outputs[i], actual[i], shapes[i].dimensions, flags);
    if (!r.ok && failed++ == 0) first = std::move(r.message);
  }
  if (failed == 0) return {};
  if (failed > 1) first += "; " + std::to_string(failed) + " of " + std::to_string(tm.outputs.size()) + " outputs differ";
  return failure(std::move(first));
}

}  // namespace nnhal::corpus
