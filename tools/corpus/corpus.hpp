// nnhal_corpus: loader for the NNAPI conformance corpus (format "nnhal-cts-json/1", see
// shared/cts/README.md). Converts every test model of a corpus file into a HAL
// `nnhal::types::Model` plus the inputs to feed and the expected outputs, builds the
// Request of one execution, and derives the two re-run variants upstream applies
// (dynamic output shapes, quantisation coupling).
//
// Malformed input never crashes the loader: every problem comes back as a result<>
// error naming the file, the model and the JSON field, e.g.
//   V1_0/add.json: model "add": main.operands[3].data: expected 4 values, got 3
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nnhal/types/error.hpp"
#include "nnhal/types/hal_version.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/operand_type.hpp"
#include "nnhal/types/operation_type.hpp"
#include "nnhal/types/request.hpp"

namespace nnhal::corpus {

/// Value of the "format" field of every corpus file.
inline constexpr std::string_view corpus_format = "nnhal-cts-json/1";

/// One input of `main`, in `main.inputIndexes` order.
struct test_input {
  bool omitted = false;  // data was empty: passed with hasNoValue (omitted optional input)
  types::OperandType type = types::OperandType::TENSOR_FLOAT32;
  std::vector<std::uint32_t> dimensions;
  std::vector<std::uint8_t> bytes;  // element bytes, native layout of the operand type
};

/// One output of `main`, in `main.outputIndexes` order, with the expected result.
struct expected_output {
  types::OperandType type = types::OperandType::TENSOR_FLOAT32;
  std::vector<std::uint32_t> dimensions;  // the dimensions the execution must report
  float scale = 0.0f;
  std::int32_t zeroPoint = 0;
  bool isIgnored = false;           // neither values nor dimensions are checked
  std::vector<std::uint8_t> bytes;  // expected element bytes; empty for zero-sized outputs
};

/// One test model of a corpus file, converted.
struct test_model {
  std::string file;  // the file name used in messages (as given by the caller)
  std::string name;  // the upstream test name
  bool expectFailure = false;
  bool isRelaxed = false;
  types::HalVersion minSupportedVersion = types::HalVersion::UNKNOWN;
  float expectedMultinomialDistributionTolerance = 0.0f;
  types::Model model;
  std::vector<test_input> inputs;
  std::vector<expected_output> outputs;
  /// "" for the model as loaded; "dynamic-output-shape" or "quant-coupling" for a variant.
  std::string variant;
};

/// A corpus file loaded leniently: file-level problems are the result's error, a
/// malformed model only spoils its own entry.
struct model_entry {
  std::string name;                 // the model's name, or "models[i]" if it has none
  std::optional<test_model> model;  // set when the model converted
  std::string error;                // the full message when it did not
};
struct corpus_file {
  std::string file;
  std::string spec;
  std::vector<model_entry> entries;
};

/// Parses corpus JSON text; `file` is the name used in messages.
types::result<corpus_file> parse_corpus_entries(std::string_view json_text, std::string_view file);
/// Reads and parses a corpus file; `display` (default: the path) is the name used in messages.
types::result<corpus_file> load_corpus_entries(const std::filesystem::path& path, std::string_view display = {});

/// Strict forms: the first problem anywhere in the file is the error.
types::result<std::vector<test_model>> parse_corpus(std::string_view json_text, std::string_view file);
types::result<std::vector<test_model>> load_corpus(const std::filesystem::path& path, std::string_view display = {});

/// The Request of one execution: one memory pool per input with a value and one per
/// output (sized from the expected data, at least 1 byte). Omitted inputs get
/// hasNoValue. `outputs[i]` is the pool that receives output i.
struct request_buffers {
  types::Request request;
  std::vector<types::Memory> outputs;
};
request_buffers make_request(const test_model& tm);

/// True if the model (main or any referenced subgraph) contains an operation of `type`.
bool has_operation(const types::Model& model, types::OperationType type);
/// True if the model (main or any referenced subgraph) has an operand of `type`.
bool has_operand_type(const types::Model& model, types::OperandType type);
/// Operation / operand type names of main and referenced subgraphs, sorted, unique.
std::vector<std::string> operation_names(const types::Model& model);
std::vector<std::string> operand_type_names(const types::Model& model);

/// Dynamic output shapes: eligible when not expectFailure and no RANK, IF or WHILE
/// operation. The variant declares every SUBGRAPH_OUTPUT operand of main with its rank
/// but all extents 0; inputs and expected outputs are unchanged.
bool dynamic_output_shape_eligible(const test_model& tm);
std::optional<test_model> dynamic_output_shape_variant(const test_model& tm);

/// Quantisation coupling: eligible when not expectFailure, no referenced subgraphs,
/// exactly one operation, which is not HASHTABLE_LOOKUP, LSH_PROJECTION, PAD_V2, CAST or
/// QUANTIZED_16BIT_LSTM and reads or writes a TENSOR_QUANT8_ASYMM operand. The variant
/// turns every TENSOR_QUANT8_ASYMM operand of main into TENSOR_QUANT8_ASYMM_SIGNED with
/// zeroPoint - 128 and data - 128 (constants, inputs and expected outputs).
bool quant_coupling_eligible(const test_model& tm);
std::optional<test_model> quant_coupling_variant(const test_model& tm);

/// Element count of `dims` (1 for a scalar); nullopt if the product overflows 64 bits.
std::optional<std::uint64_t> element_count(const std::vector<std::uint32_t>& dims);

}  // namespace nnhal::corpus
