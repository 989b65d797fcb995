// nnhal_corpus: compilation-cache round trip (see cache_roundtrip.hpp).
#include "cache_roundtrip.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include "nnhal/cache/cache.hpp"

namespace nnhal::corpus {

namespace {

struct fd_closer {
  int fd = -1;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

types::result<cache_roundtrip> cache_roundtrip::create(std::filesystem::path parent) {
  std::error_code ec;
  if (parent.empty()) parent = std::filesystem::temp_directory_path(ec);
  if (ec) return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "no temp directory: ", ec.message());
  std::string tmpl = (parent / "nnhal-cache-roundtrip.XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "mkdtemp ", tmpl, " failed");
  return cache_roundtrip(std::filesystem::path(tmpl));
}

cache_roundtrip::cache_roundtrip(cache_roundtrip&& o) noexcept
    : dir_(std::exchange(o.dir_, {})), counter_(o.counter_) {}

cache_roundtrip::~cache_roundtrip() {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

types::result<std::shared_ptr<const exec::prepared_model>> cache_roundtrip::run(const types::Model& model,
                                                                                const exec::prepare_options& options) {
  auto stage = [](std::string_view name, types::error e) {
    e.message = std::string(name) + ": " + e.message;
    return e;
  };
  auto prepared = exec::prepare(model, options);
  if (!prepared) return stage("prepare", std::move(prepared).err());

  auto store = cache::token_store::open(dir_ / "store", "nnhal-cache-roundtrip");
  if (!store) return stage("token store", std::move(store).err());
  fd_closer mfd{::open((dir_ / "model.cache").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
  fd_closer dfd{::open((dir_ / "data.cache").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
  if (mfd.fd < 0 || dfd.fd < 0)
    return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "cannot create cache files in ", dir_.string());
  const int model_fds[] = {mfd.fd};
  const int data_fds[] = {dfd.fd};
  types::CacheToken token{};
  ++counter_;
  for (std::size_t i = 0; i < 4; ++i) token[i] = static_cast<std::uint8_t>(counter_ >> (8 * i));

  cache::cache_options copts;
  copts.prepare = options;
  // Every other round trip maps the driver's copy of the data cache instead of reading the
  // runtime's file, so the corpus runs through both ways of loading it. The copy is
  // unlinked once mapped (the mapping keeps it), so copies do not pile up over a corpus.
  if (counter_ % 2 == 0) {
    auto copies = cache::data_mirror::open(dir_ / "copies", std::uint64_t{1} << 32);
    if (!copies) return stage("data-cache copies", std::move(copies).err());
    copts.mirror = std::move(*copies);
  }
  if (auto saved = cache::save_to_cache(**prepared, model_fds, data_fds, token, *store, copts); !saved)
    return stage("save_to_cache", std::move(saved).err());
  auto loaded = cache::prepare_from_cache(model_fds, data_fds, token, *store, copts);
  if (copts.mirror) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(copts.mirror->directory(), ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().starts_with(cache::data_mirror::file_prefix)) {
        std::error_code ignored;
        std::filesystem::remove(it->path(), ignored);
      }
  }
  if (!loaded) return stage("prepare_from_cache", std::move(loaded).err());
  return loaded;
}

}  // namespace nnhal::corpus
