// File-descriptor I/O for cache files handed in by the runtime: whole-file reads and
// writes with pread/pwrite at absolute offsets (a descriptor may come with any offset),
// truncation to what was written, and locking so that a write never races a read.
//
// Locking is two-level: open-file-description locks (F_OFD_SETLK) order readers and
// writers of different processes or different opens of a file; descriptors dup'ed from
// one open share a description, so a process-wide shared_mutex orders the threads of
// this process as well (cache I/O is rare; one mutex for all files is enough). POSIX.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nnhal/types/error.hpp"
#include "nnhal/types/large_bytes.hpp"

namespace nnhal::cache {

namespace detail {

inline std::shared_mutex& process_cache_mutex() {
  static std::shared_mutex m;
  return m;
}

/// Owns a file descriptor (-1: none) and closes it, which also drops an flock() on it.
class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  fd_guard(fd_guard&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  fd_guard& operator=(fd_guard&&) = delete;
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

inline types::error io_error(std::string_view what, std::string_view call, int err) {
  return types::make_error(types::ErrorStatus::GENERAL_FAILURE, what, ": ", call, " failed: ", std::strerror(err));
}

/// Applies or drops an OFD lock on the whole file; retries a busy lock for `patience`
/// (a bounded wait: two opens of one file in a single call must fail, not hang).
inline types::status ofd_lock(int fd, short type, std::chrono::milliseconds patience, std::string_view what) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // to the end, however the file grows
  const auto give_up = std::chrono::steady_clock::now() + patience;
  for (;;) {
    if (::fcntl(fd, F_OFD_SETLK, &fl) == 0) return {};
    const int e = errno;
    if (e == EINTR) continue;
    if ((e != EAGAIN && e != EACCES) || std::chrono::steady_clock::now() >= give_up)
      return io_error(what, type == F_UNLCK ? "unlock" : "lock", e);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace detail

/// Holds shared (read) or exclusive (write) locks on a set of cache files for its
/// lifetime, plus the process-wide mutex. Movable, released on destruction.
class files_lock {
 public:
  /// Locks every descriptor in `fds` (in order). Fails with GENERAL_FAILURE when a lock
  /// is not granted within `patience`.
  static types::result<files_lock> acquire(std::span<const int> fds, bool exclusive,
                                           std::chrono::milliseconds patience = std::chrono::seconds(10)) {
    files_lock l;
    if (exclusive)
      l.unique_ = std::unique_lock(detail::process_cache_mutex());
    else
      l.shared_ = std::shared_lock(detail::process_cache_mutex());
    for (std::size_t i = 0; i < fds.size(); ++i) {
      auto st = detail::ofd_lock(fds[i], exclusive ? F_WRLCK : F_RDLCK, patience,
                                 types::str_cat("cache file descriptor ", fds[i]));
      if (!st) return std::move(st).err();  // ~files_lock releases the ones taken
      l.fds_.push_back(fds[i]);
    }
    return l;
  }
  files_lock(files_lock&&) noexcept = default;
  files_lock& operator=(files_lock&&) = delete;
  ~files_lock() {
    for (int fd : fds_) (void)detail::ofd_lock(fd, F_UNLCK, std::chrono::milliseconds(0), "");
  }

 private:
  files_lock() = default;
  std::vector<int> fds_;
  std::unique_lock<std::shared_mutex> unique_;
  std::shared_lock<std::shared_mutex> shared_;
};

/// The whole content of `fd`, read with pread from offset 0 into a new buffer. Files
/// larger than `max_bytes` are refused before anything is allocated.
inline types::result<std::pair<std::shared_ptr<std::byte[]>, std::size_t>> read_whole_file(int fd,
                                                                                           std::uint64_t max_bytes,
                                                                                           std::string_view what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return detail::io_error(what, "fstat", errno);
  NNHAL_CHECK(S_ISREG(st.st_mode), types::ErrorStatus::GENERAL_FAILURE, what, ": not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  NNHAL_CHECK(st.st_size >= 0 && size <= max_bytes, types::ErrorStatus::GENERAL_FAILURE, what, ": ", size,
              " bytes exceeds the limit of ", max_bytes);
  const auto n = static_cast<std::size_t>(size);
  std::shared_ptr<std::byte[]> buf = types::large_bytes(n, false);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd, buf.get() + done, n - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return detail::io_error(what, "pread", errno);
    NNHAL_CHECK(got > 0, types::ErrorStatus::GENERAL_FAILURE, what, ": file shrank while reading (", done, " of ", n,
                " bytes)");
    done += static_cast<std::size_t>(got);
  }
  return std::pair{std::move(buf), n};
}

/// Replaces the content of `fd` with `bytes`: truncate to 0 (the HAL asks for it before
/// writing), pwrite from offset 0, optionally fdatasync.
inline types::status write_whole_file(int fd, std::span<const std::byte> bytes, bool sync, std::string_view what) {
  if (::ftruncate(fd, 0) != 0) return detail::io_error(what, "ftruncate", errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return detail::io_error(what, "pwrite", put < 0 ? errno : EIO);
    done += static_cast<std::size_t>(put);
  }
  if (sync && ::fdatasync(fd) != 0) return detail::io_error(what, "fdatasync", errno);
  return {};
}

/// Owned duplicates of the runtime's descriptors, for just-in-time or multi-stage
/// compilation that reads or updates the cache after the HAL call returned.
class dup_fds {
 public:
  dup_fds() = default;
  static types::result<dup_fds> of(std::span<const int> fds) {
    dup_fds d;
    for (int fd : fds) {
      const int c = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (c < 0) return detail::io_error(types::str_cat("cache file descriptor ", fd), "dup", errno);
      d.fds_.push_back(c);
    }
    return d;
  }
  dup_fds(dup_fds&& o) noexcept : fds_(std::exchange(o.fds_, {})) {}
  dup_fds& operator=(dup_fds&& o) noexcept {
    if (this != &o) {
      close_all();
      fds_ = std::exchange(o.fds_, {});
    }
    return *this;
  }
  ~dup_fds() { close_all(); }
  std::span<const int> fds() const noexcept { return fds_; }

 private:
  void close_all() noexcept {
    for (int fd : fds_) ::close(fd);
    fds_.clear();
  }
  std::vector<int> fds_;
};

}  // namespace nnhal::cache
