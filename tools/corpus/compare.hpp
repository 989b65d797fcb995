// nnhal_corpus: the comparison rules of the upstream generated-test harness (default
// criteria), as pure functions. See shared/cts/README.md, "Comparison rules".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "nnhal/types/operand_type.hpp"
#include "nnhal/types/request.hpp"

namespace nnhal::corpus {

/// The model properties the criteria depend on.
struct compare_flags {
  bool isRelaxed = false;          // relaxed float32 computation
  bool hasFloat16Operand = false;  // main or a referenced subgraph has a TENSOR_FLOAT16 operand
  bool isMobilenet = false;        // the test name contains "mobilenet"
};
compare_flags flags_for(const test_model& tm);

/// |a - e| <= atol + rtol * |e|, in double.
struct tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

enum class compare_kind : std::uint8_t {
  tolerance,       // numeric comparison with `tol`
  boolean,         // TENSOR_BOOL8: exact, as booleans (non-zero is true)
  not_comparable,  // the upstream check fails for this output type
};
struct criterion {
  compare_kind kind = compare_kind::not_comparable;
  tolerance tol;
};

/// The criterion for an output of type `type`.
criterion criterion_for(types::OperandType type, const compare_flags& flags);

/// Tolerance constants of the default criteria.
inline constexpr double float32_atol = static_cast<double>(1e-5f);  // 9.999999747378752e-06
inline constexpr double float32_rtol = 5.0 / 8388608.0;            // 5 * 2^-23
inline constexpr double float16_tol = 5.0 / 1024.0;                // 5 * 2^-10, atol and rtol

struct check_result {
  bool ok = true;
  std::string message;  // empty when ok
};

/// Compares one output (index `output_index` in main.outputIndexes order) against its
/// expected value: dimensions must equal exactly, then every one of product(expected
/// dims) elements must pass. Ignored outputs always pass.
check_result compare_output(std::size_t output_index, const expected_output& expected, std::span<const std::byte> actual,
                            std::span<const std::uint32_t> actual_dims, const compare_flags& flags);

/// RANDOM_MULTINOMIAL distribution check (replaces the value comparison when
/// tm.expectedMultinomialDistributionTolerance > 0). `output` is the buffer of output 0.
check_result check_multinomial(const test_model& tm, std::span<const std::byte> output);

/// All outputs of one execution: `actual[i]` is the buffer of output i and `shapes` the
/// OutputShapes the execution reported. Uses the multinomial check when applicable.
check_result compare_outputs(const test_model& tm, const std::vector<std::span<const std::byte>>& actual,
                             const std::vector<types::OutputShape>& shapes);

}  // namespace nnhal::corpus
