// The compilation-cache round trip (tools/corpus/cache_roundtrip.hpp) over the V1_0
// conformance corpus: every supported model prepared directly and prepared from the
// cache must give bit-identical outputs and the same status, and pass the corpus check
// whenever the direct run does. NNHAL_CTS_DIR names the corpus (set by CMake);
// NNHAL_CACHE_CORPUS_DIRS="V1_0 V1_1 V1_2 V1_3" picks other directories.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/cache_roundtrip.hpp"
#include "corpus/compare.hpp"
#include "corpus/corpus.hpp"
#include "nnhal/exec/driver.hpp"

namespace co = nnhal::corpus;
namespace ex = nnhal::exec;
namespace fs = std::filesystem;
using nnhal::types::ErrorStatus;

namespace {

struct outcome {
  ex::execution_outcome result;
  std::vector<std::vector<std::byte>> outputs;
};

template <class R>
std::string why(const R& r) {
  return r.ok() ? std::string() : r.err().message;
}

outcome execute(const ex::prepared_model& pm, const co::test_model& tm) {
  co::request_buffers rb = co::make_request(tm);
  outcome o;
  o.result = ex::execute(pm, rb.request);
  for (const auto& m : rb.outputs) o.outputs.emplace_back(m.data, m.data + m.size);
  return o;
}

}  // namespace

TEST_CASE("cache round trip over the corpus matches direct preparation") {
  const char* env = std::getenv("NNHAL_CTS_DIR");
  if (!env || !fs::is_directory(env)) {
    MESSAGE("corpus not found (NNHAL_CTS_DIR): skipped");
    return;
  }
  const char* dirs_env = std::getenv("NNHAL_CACHE_CORPUS_DIRS");
  std::istringstream dirs(dirs_env ? dirs_env : "V1_0");
  auto rt = co::cache_roundtrip::create();
  REQUIRE(rt.ok());
  int compared = 0, passed = 0, skipped = 0;
  std::vector<fs::path> files;
  for (std::string sub; dirs >> sub;) {
    REQUIRE(fs::is_directory(fs::path(env) / sub));
    for (const auto& e : fs::directory_iterator(fs::path(env) / sub))
      if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    auto file = co::load_corpus_entries(path);
    REQUIRE(file.ok());
    for (const auto& entry : file->entries) {
      if (!entry.model || entry.model->expectFailure) continue;
      const co::test_model& tm = *entry.model;
      CAPTURE(tm.file);
      CAPTURE(tm.name);
      auto supported = ex::supported_operations(tm.model);
      bool all = supported.ok();
      for (std::size_t i = 0; all && i < supported->size(); ++i) all = (*supported)[i];
      if (!all) {
        ++skipped;
        continue;
      }
      auto direct = ex::prepare(tm.model);
      if (!direct.ok()) {
        ++skipped;
        continue;
      }
      auto cached = rt->run(tm.model);
      INFO(why(cached));
      REQUIRE(cached.ok());
      const outcome a = execute(**direct, tm);
      const outcome b = execute(**cached, tm);
      CHECK(a.result.status == b.result.status);
      REQUIRE(a.outputs.size() == b.outputs.size());
      for (std::size_t i = 0; i < a.outputs.size(); ++i) CHECK(a.outputs[i] == b.outputs[i]);
      ++compared;
      if (a.result.status != ErrorStatus::NONE) continue;
      std::vector<std::span<const std::byte>> actual_a, actual_b;
      for (const auto& o : a.outputs) actual_a.emplace_back(o);
      for (const auto& o : b.outputs) actual_b.emplace_back(o);
      const bool pass_a = co::compare_outputs(tm, actual_a, a.result.outputShapes).ok;
      const bool pass_b = co::compare_outputs(tm, actual_b, b.result.outputShapes).ok;
      if (pass_a) CHECK(pass_b);
      if (pass_a && pass_b) ++passed;
    }
  }
  const std::string label = dirs_env ? dirs_env : "V1_0";
  MESSAGE(label, ": ", compared, " models compared (", passed, " pass the corpus check both ways), ", skipped,
          " skipped as unsupported");
  CHECK(compared > 100);
}
