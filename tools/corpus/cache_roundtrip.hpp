// nnhal_corpus: the compilation-cache round trip behind `nnhal-cts --mode cache`: prepare
// a model, save it to scratch cache files (token store in a scratch directory), prepare
// it again from those files, and hand back the prepared model that came from the cache.
// Every other round trip prepares from the driver's mapped copy of the data cache
// (cache/data_mirror.hpp) rather than from the runtime's file.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "nnhal/exec/driver.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/model.hpp"

namespace nnhal::corpus {

/// A scratch directory holding one token store and one model-cache / data-cache file
/// pair, removed on destruction. One instance serves any number of round trips (each
/// overwrites the files); not for concurrent use.
class cache_roundtrip {
 public:
  /// Creates the scratch directory under `parent` (default: the system temp directory).
  static types::result<cache_roundtrip> create(std::filesystem::path parent = {});
  cache_roundtrip(cache_roundtrip&& o) noexcept;
  cache_roundtrip& operator=(cache_roundtrip&&) = delete;
  ~cache_roundtrip();

  /// prepare(model) -> save to cache -> prepare_from_cache. Errors name the stage
  /// ("prepare: ...", "save_to_cache: ...", "prepare_from_cache: ..."); the status is
  /// the failing stage's.
  types::result<std::shared_ptr<const exec::prepared_model>> run(const types::Model& model,
                                                                 const exec::prepare_options& options = {});

  const std::filesystem::path& directory() const noexcept { return dir_; }

 private:
  explicit cache_roundtrip(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path dir_;
  unsigned counter_ = 0;  // varies the token from one round trip to the next
};

}  // namespace nnhal::corpus
