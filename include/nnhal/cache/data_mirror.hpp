// The driver's own copy of each data cache it saves, kept in a driver-private directory and
// mapped (not read) when preparing from the cache. Reading the runtime's data cache copies
// every byte of it, raw weights and packed weights alike, which costs about as much as
// packing the weights again; a mapping costs a few system calls, and only the pages the
// kernels touch (the packed weights, the constants they did not pack) are ever brought in.
//
// Why not map the runtime's file: it lives in the app's directory, and a file truncated
// while mapped turns every later access past the new end into SIGBUS, a crash an app could
// cause at will. The copies here are never truncated: each is written whole to a temporary
// file and renamed into place, and old copies are only ever unlinked, which leaves existing
// mappings intact. The directory must be private to the driver (mode 0700, as created
// here): nothing else may write into it. What a copy holds is not trusted more than the
// runtime's data cache: it goes through the same bounds-checked decoder, tied to the
// verified model cache by its pair id.
//
// Copies are named by the token and the pair id of the save (random per save): a re-saved
// model never meets its old copy, and saving drops the token's older copies. The
// directory holds at most `budget` bytes: saving drops the least recently used copies
// (mapping one marks it used) under an flock() on a lock file, so several processes can
// share the directory. The directory must be on a local file system (over NFS another
// host's unlink can still take a mapped file away).
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "nnhal/cache/file_io.hpp"
#include "nnhal/cache/format.hpp"
#include "nnhal/types/device.hpp"

namespace nnhal::cache {

class data_mirror {
 public:
  static constexpr std::string_view file_prefix = "nnhal-data-";
  static constexpr std::string_view temp_prefix = "nnhal-data.tmp.";
  static constexpr std::string_view lock_file_name = "nnhal-data.lock";
  /// Temporary files older than this are left by a process that died mid-write.
  static constexpr std::time_t stale_temp_seconds = 600;

  /// A copy mapped read-only: the bytes stay valid while `bytes` (the owner) lives.
  struct mapped {
    std::shared_ptr<std::byte[]> bytes;
    std::size_t size = 0;
  };

  /// Opens (creating it with mode 0700 if needed) the directory `dir`, which will hold at
  /// most `budget` bytes of copies. A budget of 0 keeps nothing (every keep() is a no-op).
  static result<std::shared_ptr<const data_mirror>> open(std::filesystem::path dir, std::uint64_t budget) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return types::make_error(ErrorStatus::GENERAL_FAILURE, "data-cache copies: cannot create ", dir.string(), ": ",
                               ec.message());
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);  // best effort
    return std::shared_ptr<const data_mirror>(new data_mirror(std::move(dir), budget));
  }

  /// Stores `bytes` as the copy of the data cache saved for `token` with pair id `id`,
  /// drops the token's older copies, then the least recently used copies beyond the
  /// budget. A copy larger than the budget is not kept. Waits at most `patience` for the
  /// directory's lock. Errors leave the directory as it was (no partial copy is visible).
  status keep(const types::CacheToken& token, const pair_id& id, std::span<const std::byte> bytes,
              std::chrono::milliseconds patience = std::chrono::seconds(10)) const {
    if (bytes.empty() || bytes.size() > budget_) return {};
    const std::string what = "data-cache copy in " + dir_.string();
    std::string tmp = (dir_ / temp_prefix).string() + "XXXXXX";
    status written;
    {
      fd_guard fd(::mkostemp(tmp.data(), O_CLOEXEC));
      if (fd.get() < 0) return detail::io_error(what, "mkstemp", errno);
      written = write_whole_file(fd.get(), bytes, false, what);
    }
    if (written) {
      auto lock = this->lock(patience);
      if (!lock) {
        written = std::move(lock).err();
      } else {
        const std::string name = name_of(token, id);
        if (::rename(tmp.c_str(), (dir_ / name).c_str()) != 0) written = detail::io_error(what, "rename", errno);
        else evict(name);
      }
    }
    if (!written) ::unlink(tmp.c_str());
    return written;
  }

  /// The copy for `token` and `id` mapped read-only, or nullopt when there is none. An
  /// entry that cannot serve (not a regular file, a symbolic link, empty, larger than
  /// `max_bytes`) is removed, and an error is returned only when mapping a usable one
  /// fails.
  result<std::optional<mapped>> map(const types::CacheToken& token, const pair_id& id,
                                    std::uint64_t max_bytes) const {
    const auto path = dir_ / name_of(token, id);
    fd_guard fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) {
      if (errno != ENOENT) drop(token, id);  // ELOOP (a link) or anything else unusable
      return std::optional<mapped>{};
    }
    struct stat st {};
    const bool usable = ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                        static_cast<std::uint64_t>(st.st_size) <= max_bytes;
    if (!usable) {
      drop(token, id);
      return std::optional<mapped>{};
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    const int map_errno = errno;
    (void)::futimens(fd.get(), nullptr);  // marks the copy used, for eviction; harmless if refused
    if (p == MAP_FAILED) return detail::io_error("data-cache copy " + path.string(), "mmap", map_errno);
    // The mapping keeps the file once the descriptor is closed.
    auto owner = std::shared_ptr<std::byte[]>(static_cast<std::byte*>(p), [size](std::byte* q) { ::munmap(q, size); });
    return std::optional<mapped>{mapped{std::move(owner), size}};
  }

  /// Removes the copy for `token` and `id` (one that did not decode). Mappings of it stay valid.
  void drop(const types::CacheToken& token, const pair_id& id) const { ::unlink((dir_ / name_of(token, id)).c_str()); }

  /// Bytes the copies in the directory take now (tests, tools).
  std::uint64_t bytes_held() const {
    std::uint64_t total = 0;
    for (const auto& f : list()) total += f.size;
    return total;
  }

  const std::filesystem::path& directory() const noexcept { return dir_; }
  std::uint64_t budget() const noexcept { return budget_; }

 private:
  data_mirror(std::filesystem::path dir, std::uint64_t budget) : dir_(std::move(dir)), budget_(budget) {}

  using fd_guard = detail::fd_guard;

  template <std::size_t N>
  static void put_hex(std::string& s, const std::array<std::uint8_t, N>& bytes) {
    static constexpr char hex[] = "0123456789abcdef";
    for (auto b : bytes) {
      s.push_back(hex[b >> 4]);
      s.push_back(hex[b & 15]);
    }
  }
  /// "nnhal-data-<token hex>-": every copy of the token starts so.
  static std::string token_prefix(const types::CacheToken& token) {
    std::string name(file_prefix);
    put_hex(name, token);
    name.push_back('-');
    return name;
  }
  static std::string name_of(const types::CacheToken& token, const pair_id& id) {
    std::string name = token_prefix(token);
    put_hex(name, id);
    return name;
  }

  /// The lock file, locked exclusively (released with the guard); waits at most `patience`.
  result<fd_guard> lock(std::chrono::milliseconds patience) const {
    const auto path = dir_ / lock_file_name;
    const std::string what = "data-cache copies lock " + path.string();
    fd_guard fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (fd.get() < 0) return detail::io_error(what, "open", errno);
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      if (e == EINTR) continue;
      if (e != EWOULDBLOCK || std::chrono::steady_clock::now() >= give_up) return detail::io_error(what, "flock", e);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return fd;
  }

  struct file_entry {
    std::string name;
    std::uint64_t size = 0;
    struct timespec used {};
    bool temp = false;
  };

  std::vector<file_entry> list() const {
    std::vector<file_entry> out;
    const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(dir_.c_str()), &::closedir);
    DIR* d = dir.get();
    if (!d) return out;
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      const bool temp = name.starts_with(temp_prefix);
      if (!temp && !name.starts_with(file_prefix)) continue;
      struct stat st {};
      if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      out.push_back({std::string(name), static_cast<std::uint64_t>(st.st_size), st.st_mtim, temp});
    }
    return out;
  }

  /// Under the lock: removes dead temporary files and the other copies of `keep_name`'s
  /// token (saved before it, never to be used again), then the least recently used
  /// copies (never `keep_name`) until the copies fit the budget.
  void evict(const std::string& keep_name) const {
    auto files = list();
    const std::time_t now = std::time(nullptr);
    const std::string_view same_token = std::string_view(keep_name).substr(0, file_prefix.size() + 65);
    std::erase_if(files, [&](const file_entry& f) {
      if (f.temp) {
        if (now - f.used.tv_sec > stale_temp_seconds) ::unlink((dir_ / f.name).c_str());
        return true;
      }
      if (f.name != keep_name && f.name.starts_with(same_token)) {
        ::unlink((dir_ / f.name).c_str());
        return true;
      }
      return false;
    });
    std::uint64_t total = 0;
    for (const auto& f : files) total += f.size;
    std::sort(files.begin(), files.end(), [](const file_entry& a, const file_entry& b) {
      return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec : a.used.tv_nsec < b.used.tv_nsec;
    });
    for (const auto& f : files) {
      if (total <= budget_) break;
      if (f.name == keep_name) continue;
      if (::unlink((dir_ / f.name).c_str()) == 0 || errno == ENOENT) total -= f.size;
    }
  }

  std::filesystem::path dir_;
  std::uint64_t budget_;
};

}  // namespace nnhal::cache
