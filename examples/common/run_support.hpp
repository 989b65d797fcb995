// What nnhal-run and nnhal-demo share on the runtime's side of the HAL: cache tokens
// and cache files in a directory, requests over heap memory, output decoding, top-k,
// latency percentiles, the per-operation-type breakdown and a tty progress bar.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "minimal_driver/driver.hpp"
#include "nnhal/types/element.hpp"
#include "nnhal/types/model.hpp"
#include "nnhal/types/request.hpp"

namespace nnhal::example {

/// A cache token from a name the application chooses (the NNAPI runtime takes it from
/// the app): four FNV-1a 64-bit hashes with different offsets. The token only names a
/// cache entry; the driver checks the entry's contents itself.
inline types::CacheToken make_token(std::string_view text) {
  types::CacheToken t{};
  for (std::uint64_t lane = 0; lane < 4; ++lane) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ (lane * 0x9E3779B97F4A7C15ull);
    for (unsigned char c : text) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    for (int i = 0; i < 8; ++i) t[lane * 8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(h >> (8 * i));
  }
  return t;
}

inline std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (auto b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

/// The runtime's side of caching: one file per cache handle the driver asked for, named
/// after the token, opened read-write; closed on destruction.
class cache_files {
 public:
  cache_files() = default;
  cache_files(const cache_files&) = delete;
  cache_files& operator=(const cache_files&) = delete;
  cache_files(cache_files&& o) noexcept : model_(std::move(o.model_)), data_(std::move(o.data_)), existed_(o.existed_) {}
  ~cache_files() {
    for (int fd : model_) ::close(fd);
    for (int fd : data_) ::close(fd);
  }

  static types::result<cache_files> open(const std::filesystem::path& dir, const types::CacheToken& token,
                                         std::pair<std::uint32_t, std::uint32_t> counts) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "cache dir ", dir.string(), ": ", ec.message());
    cache_files f;
    f.existed_ = counts.first + counts.second > 0;
    const std::string stem = hex(token);
    auto open_one = [&](const char* kind, std::uint32_t i, std::vector<int>& out) -> types::status {
      const auto path = dir / (stem + "." + kind + "." + std::to_string(i));
      f.existed_ = f.existed_ && std::filesystem::exists(path);
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (fd < 0)
        return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "cannot open ", path.string(), ": ",
                                 std::strerror(errno));
      out.push_back(fd);
      return {};
    };
    for (std::uint32_t i = 0; i < counts.first; ++i) NNHAL_TRY(open_one("model", i, f.model_));
    for (std::uint32_t i = 0; i < counts.second; ++i) NNHAL_TRY(open_one("data", i, f.data_));
    return f;
  }
  std::span<const int> model() const noexcept { return model_; }
  std::span<const int> data() const noexcept { return data_; }
  /// Whether every file was there before (a previous run may have filled them).
  bool existed() const noexcept { return existed_; }

 private:
  std::vector<int> model_, data_;
  bool existed_ = false;
};

/// Runs executions in one style and waits for each, as the NNAPI runtime does for its
/// compute, startCompute and fenced calls and for bursts.
class style_runner {
 public:
  style_runner(const prepared_model& pm, execution_style style) : pm_(pm), style_(style) {
    if (style_ == execution_style::burst) {
      auto b = pm_.configureExecutionBurst();
      if (b) burst_ = std::move(*b);
      else error_ = b.err();
    }
  }
  /// Why the style cannot run (a burst that could not be configured).
  const std::optional<types::error>& error() const noexcept { return error_; }

  execution_result run(const types::Request& request, const execution_args& args) {
    switch (style_) {
      case execution_style::sync: return pm_.executeSynchronously(request, args);
      case execution_style::async: {
        // The callback owns the promise: it may still be inside set_value when get() returns.
        auto done = std::make_shared<std::promise<execution_result>>();
        auto f = done->get_future();
        (void)pm_.execute(request, args, [done](execution_result r) { done->set_value(std::move(r)); });
        return f.get();  // the callback runs exactly once, also when the launch fails
      }
      case execution_style::fenced: {
        auto f = pm_.executeFenced(request, {}, args);
        if (!f) return failed(f.err());
        pollfd p{f->syncFence, POLLIN, 0};
        while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
        }
        ::close(f->syncFence);
        auto r = f->outcome();
        const auto info = f->getExecutionInfo();
        if (r.status == types::ErrorStatus::NONE) r.timing = info.timingLaunched;
        return r;
      }
      case execution_style::burst: {
        if (!burst_) return failed(error_.value_or(types::error{types::ErrorStatus::GENERAL_FAILURE, "no burst"}));
        // Slot k names pool k: after the first execution the driver holds them all.
        slots_.resize(request.pools.size());
        std::iota(slots_.begin(), slots_.end(), 0);
        return burst_->execute(request, slots_, args);
      }
    }
    return failed({types::ErrorStatus::GENERAL_FAILURE, "unknown style"});
  }

 private:
  static execution_result failed(const types::error& e) {
    execution_result r;
    r.status = e.status;
    r.message = e.message;
    return r;
  }
  const prepared_model& pm_;
  execution_style style_;
  std::shared_ptr<burst> burst_;
  std::optional<types::error> error_;
  std::vector<std::int32_t> slots_;
};

/// A request with one heap pool per input and per output, sized from `dims` (in
/// main's input/output order) and the model's operand types.
struct owned_request {
  types::Request request;
  std::vector<types::Memory> inputs, outputs;
};
inline owned_request make_request(const types::Model& m, const std::vector<std::vector<std::uint8_t>>& input_bytes,
                                  const std::vector<std::size_t>& output_sizes) {
  owned_request r;
  for (std::size_t k = 0; k < m.main.inputIndexes.size(); ++k) {
    const auto& bytes = input_bytes[k];
    auto mem = types::Memory::allocate(bytes.size());
    if (!bytes.empty()) std::memcpy(mem.data, bytes.data(), bytes.size());
    types::RequestArgument a;
    a.location = {static_cast<std::uint32_t>(r.request.pools.size()), 0, static_cast<std::uint32_t>(bytes.size())};
    r.request.inputs.push_back(a);
    r.request.pools.emplace_back(mem);
    r.inputs.push_back(mem);
  }
  for (std::size_t k = 0; k < output_sizes.size(); ++k) {
    auto mem = types::Memory::allocate(output_sizes[k]);
    types::RequestArgument a;
    a.location = {static_cast<std::uint32_t>(r.request.pools.size()), 0, static_cast<std::uint32_t>(output_sizes[k])};
    r.request.outputs.push_back(a);
    r.request.pools.emplace_back(mem);
    r.outputs.push_back(mem);
  }
  return r;
}

/// The real values of a tensor of `type` (quantized types dequantized with scale/zero point).
inline std::vector<double> real_values(types::OperandType type, std::span<const std::byte> bytes, float scale,
                                       std::int32_t zero_point, std::size_t count) {
  using T = types::OperandType;
  std::vector<double> v;
  const std::size_t size = types::type_info(type).element_size;
  if (size == 0) return v;
  count = std::min(count, bytes.size() / size);
  v.reserve(count);
  auto load = [&](auto tag, std::size_t i) {
    decltype(tag) x;
    std::memcpy(&x, bytes.data() + i * sizeof x, sizeof x);
    return x;
  };
  for (std::size_t i = 0; i < count; ++i) {
    switch (type) {
      case T::TENSOR_FLOAT32: v.push_back(load(float{}, i)); break;
      case T::TENSOR_FLOAT16: v.push_back(types::to_float(load(types::float16{}, i))); break;
      case T::TENSOR_INT32: v.push_back(load(std::int32_t{}, i)); break;
      case T::TENSOR_BOOL8: v.push_back(load(std::uint8_t{}, i) != 0); break;
      case T::TENSOR_QUANT8_ASYMM: v.push_back((static_cast<double>(load(std::uint8_t{}, i)) - zero_point) * scale); break;
      case T::TENSOR_QUANT8_ASYMM_SIGNED: v.push_back((static_cast<double>(load(std::int8_t{}, i)) - zero_point) * scale); break;
      case T::TENSOR_QUANT8_SYMM: v.push_back(static_cast<double>(load(std::int8_t{}, i)) * scale); break;
      case T::TENSOR_QUANT16_SYMM: v.push_back(static_cast<double>(load(std::int16_t{}, i)) * scale); break;
      case T::TENSOR_QUANT16_ASYMM: v.push_back((static_cast<double>(load(std::uint16_t{}, i)) - zero_point) * scale); break;
      default: return {};
    }
  }
  return v;
}

/// Indexes of the k largest values, largest first (ties: lower index first).
inline std::vector<std::size_t> top_k(const std::vector<double>& v, std::size_t k) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  k = std::min(k, v.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  idx.resize(k);
  return idx;
}

/// Whether an output looks like a classifier's: [batch, classes] or [1, 1, 1, classes]
/// with many classes.
inline bool looks_like_classifier(std::span<const std::uint32_t> dims) {
  if (dims.empty()) return false;
  std::uint32_t others = 1;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) others *= dims[i];
  return others == 1 && dims.back() >= 10;
}

struct latency_stats {
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;  // milliseconds
  std::size_t count = 0;
};
/// Percentiles by the nearest-rank method.
inline latency_stats percentiles(std::vector<double> ms) {
  latency_stats s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto rank = [&](double p) {
    const auto r = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(ms.size())));
    return ms[std::clamp<std::size_t>(r, 1, ms.size()) - 1];
  };
  s.min = ms.front();
  s.max = ms.back();
  s.p50 = rank(50);
  s.p90 = rank(90);
  s.p99 = rank(99);
  s.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  return s;
}
inline void print_latency(std::FILE* f, const latency_stats& s, std::string_view indent = "  ") {
  std::fprintf(f, "%.*slatency over %zu runs: min %.3f  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  mean %.3f ms\n",
               static_cast<int>(indent.size()), indent.data(), s.count, s.min, s.p50, s.p90, s.p99, s.max, s.mean);
}

/// Time per operation type, summed over every profiled run.
class op_breakdown {
 public:
  void add(const std::vector<op_time>& profile) {
    for (const auto& p : profile) {
      auto& e = by_type_[p.type];
      e.ns += p.nanoseconds;
      ++e.count;
    }
    ++runs_;
  }
  bool empty() const noexcept { return runs_ == 0 || by_type_.empty(); }
  /// One line per type, most expensive first: total per run, share, operations per run.
  void print(std::FILE* f, std::string_view indent = "  ") const {
    if (empty()) return;
    std::vector<std::pair<types::OperationType, entry>> rows(by_type_.begin(), by_type_.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::uint64_t total = 0;
    for (const auto& r : rows) total += r.second.ns;
    const int w = static_cast<int>(indent.size());
    std::fprintf(f, "%.*s%-28s %10s %7s %6s\n", w, indent.data(), "operation type", "ms/run", "share", "ops");
    for (const auto& [type, e] : rows) {
      const auto name = types::to_string(type);
      std::fprintf(f, "%.*s%-28.*s %10.3f %6.1f%% %6.0f\n", w, indent.data(), static_cast<int>(name.size()),
                   name.data(), static_cast<double>(e.ns) / 1e6 / static_cast<double>(runs_),
                   total ? 100.0 * static_cast<double>(e.ns) / static_cast<double>(total) : 0.0,
                   static_cast<double>(e.count) / static_cast<double>(runs_));
    }
  }

 private:
  struct entry {
    std::uint64_t ns = 0;
    std::uint64_t count = 0;
  };
  std::map<types::OperationType, entry> by_type_;
  std::size_t runs_ = 0;
};

/// A one-line progress bar on stderr, drawn only when stderr is a terminal and the work
/// has taken more than half a second (short runs stay quiet).
class progress_bar {
 public:
  explicit progress_bar(std::size_t total) : total_(total), tty_(::isatty(STDERR_FILENO) != 0) {}
  ~progress_bar() { finish(); }
  void update(std::size_t done) {
    if (!tty_ || total_ == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::milliseconds(500) || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    constexpr int width = 40;
    const int filled = static_cast<int>(width * done / total_);
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", filled, "########################################", width - filled,
                 "", done, total_);
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 60, "");
    shown_ = false;
  }

 private:
  std::size_t total_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace nnhal::example
