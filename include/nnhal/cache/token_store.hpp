// The token store: {cache token -> digest of the model cache} kept in a driver-owned
// directory, so a model cache rewritten by anyone but the driver is detected, across
// reboots. Several processes share it: every operation takes flock() on a lock file
// beside the store (opened per operation, so threads of one process exclude each other
// too), reads the store afresh, and an update replaces it atomically (temporary file,
// fsync, rename, fsync of the directory). The store records the driver version and the
// digest name; when either differs, the whole store is invalid and is started over.
//
// Store file (little-endian): magic "nnhal-ts", u16 endian marker, u16 reserved,
// u32 store format, u16 + driver version, u16 + digest name, u32 count,
// count x {token[32], digest[32]} (oldest first), and nothing after.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnhal/cache/digest.hpp"
#include "nnhal/cache/file_io.hpp"
#include "nnhal/cache/format.hpp"

namespace nnhal::cache {

class token_store {
 public:
  static constexpr std::string_view store_file_name = "nnhal-cache-tokens";
  static constexpr std::string_view lock_file_name = "nnhal-cache-tokens.lock";
  static constexpr std::uint32_t store_format = 1;
  static constexpr std::size_t default_capacity = 4096;

  struct entry {
    types::CacheToken token{};
    digest_value hash{};
  };

  /// Opens (creating the directory with mode 0700 if needed) the store in `dir` for
  /// `driver_version` and digest `digest_name`. A store left by another driver version
  /// or digest, or one that does not parse, is replaced by an empty one here. At most
  /// `capacity` tokens are kept; the least recently saved go first.
  static result<token_store> open(std::filesystem::path dir, std::string driver_version,
                                  std::string_view digest_name = default_digest::name,
                                  std::size_t capacity = default_capacity) {
    NNHAL_CHECK(driver_version.size() <= max_driver_version_length, ErrorStatus::INVALID_ARGUMENT,
                "token store: driver version longer than ", max_driver_version_length, " bytes");
    NNHAL_CHECK(capacity > 0, ErrorStatus::INVALID_ARGUMENT, "token store: capacity 0");
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return types::make_error(ErrorStatus::GENERAL_FAILURE, "token store: cannot create ", dir.string(), ": ",
                               ec.message());
    token_store s(std::move(dir), std::move(driver_version), std::string(digest_name), capacity);
    auto lock = s.lock(LOCK_EX);
    if (!lock) return std::move(lock).err();
    auto current = s.load();
    if (!current) NNHAL_TRY(s.store({}));  // another version, another digest, or damaged: start over
    return s;
  }

  /// The digest saved for `token`, or nullopt when there is none (or the store now
  /// belongs to another driver version).
  result<std::optional<digest_value>> find(const types::CacheToken& token) const {
    auto lock = this->lock(LOCK_SH);
    if (!lock) return std::move(lock).err();
    auto entries = load();
    if (!entries) return std::optional<digest_value>{};
    for (const auto& e : *entries)
      if (e.token == token) return std::optional<digest_value>{e.hash};
    return std::optional<digest_value>{};
  }

  /// Maps `token` to `hash` (replacing an older mapping).
  status put(const types::CacheToken& token, const digest_value& hash) {
    return update([&](std::vector<entry>& v) {
      std::erase_if(v, [&](const entry& e) { return e.token == token; });
      v.push_back({token, hash});
      if (v.size() > capacity_) v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() - capacity_));
    });
  }

  /// Forgets `token`.
  status erase(const types::CacheToken& token) {
    return update([&](std::vector<entry>& v) { std::erase_if(v, [&](const entry& e) { return e.token == token; }); });
  }

  /// Number of tokens in the store (tests, tools).
  result<std::size_t> size() const {
    auto lock = this->lock(LOCK_SH);
    if (!lock) return std::move(lock).err();
    auto entries = load();
    return entries ? entries->size() : std::size_t{0};
  }

  const std::filesystem::path& directory() const noexcept { return dir_; }
  const std::string& driver_version() const noexcept { return driver_version_; }
  const std::string& digest_name() const noexcept { return digest_name_; }

 private:
  token_store(std::filesystem::path dir, std::string version, std::string digest, std::size_t capacity)
      : dir_(std::move(dir)),
        driver_version_(std::move(version)),
        digest_name_(std::move(digest)),
        capacity_(capacity) {}

  using fd_guard = detail::fd_guard;

  result<fd_guard> lock(int how) const {
    const auto path = dir_ / lock_file_name;
    fd_guard fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (fd.get() < 0) return detail::io_error("token store lock " + path.string(), "open", errno);
    while (::flock(fd.get(), how) != 0)
      if (errno != EINTR) return detail::io_error("token store lock " + path.string(), "flock", errno);
    return fd;
  }

  /// The entries on disk; an error when the file is missing, damaged, or written for
  /// another driver version or digest.
  result<std::vector<entry>> load() const {
    const auto path = dir_ / store_file_name;
    fd_guard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return detail::io_error("token store " + path.string(), "open", errno);
    const std::uint64_t max_bytes = 4096 + capacity_ * 64;
    auto file = read_whole_file(fd.get(), max_bytes, "token store " + path.string());
    if (!file) return std::move(file).err();
    detail::byte_reader r(std::span<const std::byte>(file->first.get(), file->second), "token store");
    auto magic = r.bytes(8, "magic");
    if (!r.failed() && std::memcmp(magic.data(), "nnhal-ts", 8) != 0) r.fail("magic", ": not a token store");
    if (r.u16("endian marker") != endian_marker) r.fail("endian marker", ": wrong");
    if (r.u16("reserved") != 0) r.fail("reserved", ": not 0");
    if (r.u32("format") != store_format) r.fail("format", ": unknown");
    if (r.str16(max_driver_version_length, "driver version") != driver_version_)
      r.fail("driver version", ": another driver version wrote it");
    if (r.str16(256, "digest name") != digest_name_) r.fail("digest name", ": another digest");
    std::vector<entry> v(r.count(64, capacity_, "count"));
    for (auto& e : v) {
      auto t = r.bytes(32, "token");
      auto h = r.bytes(32, "digest");
      if (r.failed()) break;
      std::memcpy(e.token.data(), t.data(), 32);
      std::memcpy(e.hash.data(), h.data(), 32);
    }
    if (!r.failed() && !r.at_end()) r.fail("end", ": trailing bytes");
    if (r.failed()) return r.error();
    return v;
  }

  /// Replaces the store file atomically with `entries`.
  status store(const std::vector<entry>& entries) const {
    detail::byte_writer w;
    w.bytes(std::as_bytes(std::span("nnhal-ts", 8)));
    w.u16(endian_marker);
    w.u16(0);
    w.u32(store_format);
    w.str16(driver_version_);
    w.str16(digest_name_);
    w.u32(static_cast<std::uint32_t>(entries.size()));
    for (const auto& e : entries) {
      w.bytes(std::span(e.token));
      w.bytes(std::span(e.hash));
    }
    const auto final_path = dir_ / store_file_name;
    std::string tmp = (dir_ / store_file_name).string() + ".XXXXXX";
    const std::string what = "token store " + final_path.string();
    fd_guard fd(::mkostemp(tmp.data(), O_CLOEXEC));
    if (fd.get() < 0) return detail::io_error(what, "mkstemp", errno);
    auto written = write_whole_file(fd.get(), w.buffer(), false, what);
    if (written && ::fsync(fd.get()) != 0) written = detail::io_error(what, "fsync", errno);
    if (written && ::rename(tmp.c_str(), final_path.c_str()) != 0) written = detail::io_error(what, "rename", errno);
    if (!written) {
      ::unlink(tmp.c_str());
      return written;
    }
    fd_guard dir(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0 || ::fsync(dir.get()) != 0) return detail::io_error(what, "fsync of the directory", errno);
    return {};
  }

  template <class Change>
  status update(Change change) {
    auto lock = this->lock(LOCK_EX);
    if (!lock) return std::move(lock).err();
    auto entries = load();
    std::vector<entry> v = entries ? std::move(*entries) : std::vector<entry>{};
    change(v);
    return store(v);
  }

  std::filesystem::path dir_;
  std::string driver_version_;
  std::string digest_name_;
  std::size_t capacity_;
};

}  // namespace nnhal::cache
