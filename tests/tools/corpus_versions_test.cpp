// Checks the signature tables against the whole public CTS corpus: every model that is
// not an expected failure validates, and the minimum HAL version computed from the
// tables equals the one upstream records (where it records one).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "corpus/corpus.hpp"
#include "nnhal/types/validate.hpp"

namespace fs = std::filesystem;
using namespace nnhal;

TEST_CASE("every valid corpus model validates, at upstream's minimum HAL version" * doctest::timeout(600)) {
  const char* dir = std::getenv("NNHAL_CTS_DIR");
  if (!dir || !fs::is_directory(dir)) {
    MESSAGE("NNHAL_CTS_DIR not set: skipped");
    return;
  }
  std::size_t models = 0, version_checked = 0;
  // "want -> got ops" counts. Too high would reject valid models for older clients: an
  // error. Too low misses a value-dependent rule of some operation (e.g. NCHW layout
  // needs 1.2): reported until every family's shape inference states it.
  std::map<std::string, std::size_t> too_high, too_low;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (f.path().extension() != ".json" || f.path().filename() == "index.json") continue;
    auto file = corpus::load_corpus(f.path());
    REQUIRE_MESSAGE(file.ok(), f.path().string());
    for (const auto& tm : *file) {
      if (tm.expectFailure) continue;
      ++models;
      auto v = types::validate_model(tm.model);
      CHECK_MESSAGE(v.ok(), tm.name, ": ", v.ok() ? "" : v.err().message);
      if (!v.ok() || tm.minSupportedVersion == types::HalVersion::UNKNOWN) continue;
      ++version_checked;
      if (*v != tm.minSupportedVersion) {
        std::string key = std::string(to_string(tm.minSupportedVersion)) + " -> " + std::string(to_string(*v));
        for (const auto& n : corpus::operation_names(tm.model)) key += " " + n;
        ++(*v > tm.minSupportedVersion ? too_high : too_low)[key];
      }
    }
  }
  std::size_t high = 0, low = 0;
  for (const auto& [k, n] : too_high) {
    MESSAGE("version too high: ", n, " x ", k);
    high += n;
  }
  for (const auto& [k, n] : too_low) {
    MESSAGE("version too low: ", n, " x ", k);
    low += n;
  }
  MESSAGE(models, " valid models, ", version_checked, " with a recorded version; ", high, " too high, ", low,
          " too low");
  CHECK(models > 6000);
  CHECK(high == 0);
}
