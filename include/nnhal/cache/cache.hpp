// Compilation cache entry points (IDevice::getNumberOfCacheFilesNeeded, prepareModel_1_3
// with cache handles, prepareModelFromCache_1_3): how many cache files a driver wants,
// saving a prepared model, and preparing one from the cache. The model cache's digest is
// computed from our own buffers (the bytes we write, the bytes we read once into memory),
// never from the files again, and must match the token store before anything is parsed.
// Every failure is a clean miss: GENERAL_FAILURE (INVALID_ARGUMENT for descriptor counts
// that do not match), after which the caller compiles from scratch.
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nnhal/cache/data_mirror.hpp"
#include "nnhal/cache/digest.hpp"
#include "nnhal/cache/file_io.hpp"
#include "nnhal/cache/format.hpp"
#include "nnhal/cache/serializer.hpp"
#include "nnhal/cache/token_store.hpp"
#include "nnhal/exec/driver.hpp"
#include "nnhal/types/device.hpp"
#include "nnhal/types/validate.hpp"

namespace nnhal::cache {

/// getNumberOfCacheFilesNeeded: counts of model-cache and data-cache files. nnhal writes
/// everything to file 0 of each kind; further files are kept empty (room for drivers).
/// {0, 0} means the driver does not support caching.
struct cache_files {
  std::uint32_t model = 1;
  std::uint32_t data = 1;
};
inline constexpr cache_files default_cache_files{};

/// The driver's hook: pass its wish (or nothing for the defaults); checks the HAL limit.
inline result<cache_files> number_of_cache_files_needed(cache_files wanted = default_cache_files) {
  NNHAL_CHECK(wanted.model <= types::MAX_NUMBER_OF_CACHE_FILES && wanted.data <= types::MAX_NUMBER_OF_CACHE_FILES,
              ErrorStatus::GENERAL_FAILURE, "cache files: ", wanted.model, " model / ", wanted.data,
              " data exceeds MAX_NUMBER_OF_CACHE_FILES (", types::MAX_NUMBER_OF_CACHE_FILES, ")");
  return wanted;
}

struct cache_options {
  cache_files files = default_cache_files;           // what the driver reported
  std::uint64_t max_model_cache_bytes = 1ull << 28;  // 256 MiB: larger files are refused unread
  std::uint64_t max_data_cache_bytes = 1ull << 33;   // 8 GiB
  bool sync_files = false;                           // fdatasync cache files after writing
  std::chrono::milliseconds lock_patience = std::chrono::seconds(10);
  exec::prepare_options prepare;  // for prepare_from_cache
  /// The driver's private copies of the data caches it saves (cache/data_mirror.hpp):
  /// preparing from the cache maps the copy instead of reading the runtime's data cache.
  /// None: every preparation from the cache reads (copies) the data cache.
  std::shared_ptr<const data_mirror> mirror;
};

namespace detail {

inline status check_fds(std::span<const int> model_fds, std::span<const int> data_fds, const cache_options& o) {
  NNHAL_TRY(number_of_cache_files_needed(o.files));
  NNHAL_CHECK(o.files.model > 0 || o.files.data > 0, ErrorStatus::GENERAL_FAILURE,
              "compilation caching is not supported by this driver (0 cache files)");
  NNHAL_CHECK(o.files.model > 0 && o.files.data > 0, ErrorStatus::GENERAL_FAILURE,
              "nnhal's cache needs at least one model-cache and one data-cache file");
  NNHAL_CHECK(model_fds.size() == o.files.model, ErrorStatus::INVALID_ARGUMENT, model_fds.size(),
              " model-cache handles, the driver asked for ", o.files.model);
  NNHAL_CHECK(data_fds.size() == o.files.data, ErrorStatus::INVALID_ARGUMENT, data_fds.size(),
              " data-cache handles, the driver asked for ", o.files.data);
  // Two handles on one file would have our writes clobber each other: refuse.
  std::vector<std::pair<dev_t, ino_t>> seen;
  for (auto list : {model_fds, data_fds}) {
    for (int fd : list) {
      struct stat st {};
      NNHAL_CHECK(fd >= 0 && ::fstat(fd, &st) == 0, ErrorStatus::INVALID_ARGUMENT, "cache handle ", fd,
                  " is not an open file");
      const std::pair id{st.st_dev, st.st_ino};
      NNHAL_CHECK(std::find(seen.begin(), seen.end(), id) == seen.end(), ErrorStatus::INVALID_ARGUMENT, "cache handle ",
                  fd, " refers to a file already given as another cache handle");
      seen.push_back(id);
    }
  }
  return {};
}

/// Digest of the model cache: each file's size (u64, little-endian) then its bytes.
template <digest D>
result<digest_value> hash_model_cache(std::span<const std::span<const std::byte>> files) {
  D d;
  for (auto f : files) {
    std::array<std::byte, 8> size{};
    for (int i = 0; i < 8; ++i)
      size[static_cast<std::size_t>(i)] = static_cast<std::byte>(std::uint64_t{f.size()} >> (8 * i));
    d.update(size);
    d.update(f);
  }
  return d.final();
}

inline std::vector<int> concat(std::span<const int> a, std::span<const int> b) {
  std::vector<int> v(a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  return v;
}

inline pair_id random_pair_id() {
  std::random_device rd;
  pair_id id{};
  for (std::size_t i = 0; i < id.size(); i += 4) {
    const auto x = rd();
    for (std::size_t j = 0; j < 4; ++j) id[i + j] = static_cast<std::uint8_t>(x >> (8 * j));
  }
  return id;
}

/// Maps any error of a cache step to the cache-miss status, keeping the message.
inline types::error as_miss(types::error e) {
  if (e.status != ErrorStatus::INVALID_ARGUMENT && e.status != ErrorStatus::MISSED_DEADLINE_PERSISTENT &&
      e.status != ErrorStatus::MISSED_DEADLINE_TRANSIENT)
    e.status = ErrorStatus::GENERAL_FAILURE;
  return e;
}

}  // namespace detail

namespace detail {

/// save_to_cache with the packed weights to store beside the model (may be empty).
template <digest D>
status save(const types::Model& model, const ops::packed_table& packed, std::span<const int> model_fds,
            std::span<const int> data_fds, const types::CacheToken& token, token_store& store,
            const cache_options& options) {
  if constexpr (!D::available) return D{}.final().err();
  NNHAL_CHECK(store.digest_name() == D::name, ErrorStatus::GENERAL_FAILURE, "token store uses digest ",
              store.digest_name(), ", the cache ", D::name);
  NNHAL_TRY(detail::check_fds(model_fds, data_fds, options));
  if (auto v = types::validate_model(model); !v)
    return types::make_error(ErrorStatus::GENERAL_FAILURE, "not saving an invalid model: ", v.err().message);

  const file_identity id{token, detail::random_pair_id(), store.driver_version()};
  encoded_cache enc = encode(model, id, default_plan(model), encode_packed(packed));
  // Packed weights are an optimization: when they would push the data cache past its
  // limit, save without them (preparing from the cache then packs again).
  if (enc.data_cache.size() > options.max_data_cache_bytes && !packed.empty())
    enc = encode(model, id, default_plan(model));
  NNHAL_CHECK(enc.model_cache.size() <= options.max_model_cache_bytes, ErrorStatus::GENERAL_FAILURE, "model cache of ",
              enc.model_cache.size(), " bytes exceeds the limit");
  NNHAL_CHECK(enc.data_cache.size() <= options.max_data_cache_bytes, ErrorStatus::GENERAL_FAILURE, "data cache of ",
              enc.data_cache.size(), " bytes exceeds the limit");
  // Extra files are kept empty; the digest frames each file, so they count too.
  std::vector<std::span<const std::byte>> model_files(model_fds.size());
  model_files[0] = enc.model_cache;
  auto hash = detail::hash_model_cache<D>(model_files);
  if (!hash) return detail::as_miss(std::move(hash).err());

  // A crash mid-write leaves files whose digest matches no mapping (every save draws a
  // new pair id), so the old mapping needs no erasing first.
  {
    const auto all = detail::concat(model_fds, data_fds);
    auto lock = files_lock::acquire(all, true, options.lock_patience);
    if (!lock) return detail::as_miss(std::move(lock).err());
    for (std::size_t i = 0; i < model_fds.size(); ++i)
      NNHAL_TRY(
          write_whole_file(model_fds[i], model_files[i], options.sync_files, types::str_cat("model cache file ", i)));
    for (std::size_t i = 0; i < data_fds.size(); ++i)
      NNHAL_TRY(write_whole_file(data_fds[i],
                                 i == 0 ? std::span<const std::byte>(enc.data_cache) : std::span<const std::byte>{},
                                 options.sync_files, types::str_cat("data cache file ", i)));
  }
  NNHAL_TRY(store.put(token, *hash));
  // The copy only speeds up later preparations: without it they read the runtime's file.
  if (options.mirror) (void)options.mirror->keep(token, id.pair, enc.data_cache, options.lock_patience);
  return {};
}

}  // namespace detail

/// Saves `model` (valid) to the cache files and maps `token` to the digest of what was
/// written. On failure the store is left without a usable entry for the token (a later
/// prepare_from_cache misses).
template <digest D = default_digest>
status save_to_cache(const types::Model& model, std::span<const int> model_fds, std::span<const int> data_fds,
                     const types::CacheToken& token, token_store& store, const cache_options& options = {}) {
  return detail::save<D>(model, {}, model_fds, data_fds, token, store, options);
}

/// save_to_cache for a prepared model: its model, and the weights its kernels packed
/// (prepare_from_cache then uses them instead of packing again).
template <digest D = default_digest>
status save_to_cache(const exec::prepared_model& prepared, std::span<const int> model_fds,
                     std::span<const int> data_fds, const types::CacheToken& token, token_store& store,
                     const cache_options& options = {}) {
  return detail::save<D>(prepared.model(), prepared.packed(), model_fds, data_fds, token, store, options);
}

namespace detail {

/// The model and packed weights stored in the cache files, checked, the model validated.
template <digest D>
result<decoded_cache> load(std::span<const int> model_fds, std::span<const int> data_fds,
                           const types::CacheToken& token, const token_store& store, const cache_options& options) {
  if constexpr (!D::available) return D{}.final().err();
  NNHAL_CHECK(store.digest_name() == D::name, ErrorStatus::GENERAL_FAILURE, "token store uses digest ",
              store.digest_name(), ", the cache ", D::name);
  NNHAL_TRY(detail::check_fds(model_fds, data_fds, options));
  auto expected = store.find(token);
  if (!expected) return detail::as_miss(std::move(expected).err());
  NNHAL_CHECK(expected->has_value(), ErrorStatus::GENERAL_FAILURE, "no cache entry for this token");

  // Read every file once, under shared locks, into our own buffers; the data cache is
  // mapped from the driver's copy instead when there is one for this save.
  std::vector<std::pair<std::shared_ptr<std::byte[]>, std::size_t>> model_bufs, data_bufs;
  std::vector<std::span<const std::byte>> model_files;
  std::optional<pair_id> mirrored;  // the pair id of the copy mapped
  {
    const auto all = detail::concat(model_fds, data_fds);
    auto lock = files_lock::acquire(all, false, options.lock_patience);
    if (!lock) return detail::as_miss(std::move(lock).err());
    std::uint64_t budget = options.max_model_cache_bytes;
    for (std::size_t i = 0; i < model_fds.size(); ++i) {
      auto f = read_whole_file(model_fds[i], budget, types::str_cat("model cache file ", i));
      if (!f) return std::move(f).err();
      budget -= f->second;
      model_bufs.push_back(std::move(*f));
    }
    for (const auto& [buf, n] : model_bufs) model_files.emplace_back(buf.get(), n);
    auto hash = detail::hash_model_cache<D>(model_files);
    if (!hash) return detail::as_miss(std::move(hash).err());
    NNHAL_CHECK(*hash == **expected, ErrorStatus::GENERAL_FAILURE,
                "model cache digest does not match the one saved for this token (modified or stale)");
    if (options.mirror) {
      // decode() ties the copy to the model cache again by the pair id.
      auto header = parse_cache_file(model_files[0], model_cache_magic, {token, store.driver_version(), nullptr},
                                     "model cache");
      if (header) {
        auto copy = options.mirror->map(token, header->pair, options.max_data_cache_bytes);
        if (copy && *copy) {
          data_bufs.emplace_back(std::move((*copy)->bytes), (*copy)->size);
          mirrored = header->pair;
        }
      }
    }
    for (std::size_t i = 0; i < data_fds.size() && !mirrored; ++i) {
      auto f = read_whole_file(data_fds[i], i == 0 ? options.max_data_cache_bytes : 0,
                               types::str_cat("data cache file ", i));
      if (!f)
        return i == 0 ? std::move(f).err()
                      : types::make_error(ErrorStatus::GENERAL_FAILURE, "data cache file ", i, " should be empty");
      data_bufs.push_back(std::move(*f));
    }
  }
  for (std::size_t i = 1; i < model_files.size(); ++i)
    NNHAL_CHECK(model_files[i].empty(), ErrorStatus::GENERAL_FAILURE, "model cache file ", i, " should be empty");

  const expected_identity id{token, store.driver_version(), nullptr};
  auto decoded = decode(model_files[0], data_bufs[0].first, data_bufs[0].second, id);
  if (decoded) {
    if (auto v = types::validate_model(decoded->model); !v)
      decoded = types::make_error(ErrorStatus::GENERAL_FAILURE, "cached model does not validate: ", v.err().message);
  }
  if (!decoded && mirrored) {
    // A copy that does not decode is dropped; the runtime's files may still be good.
    options.mirror->drop(token, *mirrored);
    data_bufs.clear();  // unmapped before reading the files
    cache_options without = options;
    without.mirror = nullptr;
    auto again = load<D>(model_fds, data_fds, token, store, without);
    if (!again)
      return types::make_error(again.status(), again.err().message, " (the driver's copy of the data cache, dropped: ",
                               decoded.err().message, ")");
    return again;
  }
  return decoded;
}

}  // namespace detail

/// The model stored in the cache files, checked and validated but not prepared (what
/// prepare_from_cache prepares; also for drivers that compile further themselves).
template <digest D = default_digest>
result<types::Model> load_from_cache(std::span<const int> model_fds, std::span<const int> data_fds,
                                     const types::CacheToken& token, const token_store& store,
                                     const cache_options& options = {}) {
  auto loaded = detail::load<D>(model_fds, data_fds, token, store, options);
  if (!loaded) return std::move(loaded).err();
  return std::move(loaded->model);
}

/// prepareModelFromCache: read, hash, check the token mapping, decode, validate again,
/// prepare, with the kernels taking their packed weights from the data cache where it
/// has them at the right size. Any mismatch is GENERAL_FAILURE; the caller then
/// prepares from scratch.
template <digest D = default_digest>
result<std::shared_ptr<const exec::prepared_model>> prepare_from_cache(std::span<const int> model_fds,
                                                                       std::span<const int> data_fds,
                                                                       const types::CacheToken& token,
                                                                       const token_store& store,
                                                                       const cache_options& options = {}) {
  auto loaded = detail::load<D>(model_fds, data_fds, token, store, options);
  if (!loaded) return std::move(loaded).err();
  exec::prepare_options prep = options.prepare;
  prep.packed = &loaded->packed;  // the packed weights saved with the model
  auto prepared = exec::prepare(loaded->model, prep);
  if (!prepared) return detail::as_miss(std::move(prepared).err());
  return prepared;
}

/// Just-in-time and multi-stage compilation: owns duplicates of the runtime's cache
/// descriptors so the cache can be read or (re)written after the HAL call returned.
/// Reads and writes lock the files, so a later save never races a concurrent load.
template <digest D = default_digest>
class cache_session {
 public:
  static result<cache_session> open(std::span<const int> model_fds, std::span<const int> data_fds,
                                    const types::CacheToken& token, token_store store, cache_options options = {}) {
    NNHAL_TRY(detail::check_fds(model_fds, data_fds, options));
    auto m = dup_fds::of(model_fds);
    if (!m) return std::move(m).err();
    auto d = dup_fds::of(data_fds);
    if (!d) return std::move(d).err();
    return cache_session(std::move(*m), std::move(*d), token, std::move(store), std::move(options));
  }

  status save(const types::Model& model) {
    return save_to_cache<D>(model, model_.fds(), data_.fds(), token_, store_, options_);
  }
  status save(const exec::prepared_model& prepared) {
    return save_to_cache<D>(prepared, model_.fds(), data_.fds(), token_, store_, options_);
  }
  result<std::shared_ptr<const exec::prepared_model>> prepare() const {
    return prepare_from_cache<D>(model_.fds(), data_.fds(), token_, store_, options_);
  }

 private:
  cache_session(dup_fds m, dup_fds d, const types::CacheToken& t, token_store s, cache_options o)
      : model_(std::move(m)), data_(std::move(d)), token_(t), store_(std::move(s)), options_(std::move(o)) {}
  dup_fds model_, data_;
  types::CacheToken token_;
  token_store store_;
  cache_options options_;
};

}  // namespace nnhal::cache
