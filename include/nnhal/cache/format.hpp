// Compilation-cache file format: the fixed header, the section table and the
// little-endian byte writer/reader every cache file goes through. Layout (all integers
// little-endian, written field by field):
//
//   magic[8]  u16 endian marker 0xFEFF  u16 reserved(0)  u32 format  u32 nnhal version
//   u32 section count  u64 file size  token[32]  pair id[16]
//   u16 driver version length + bytes, zero padding to 8
//   section table: count x {u32 id, u32 reserved(0), u64 offset, u64 size}
//   section payloads, each starting at a multiple of 64, ascending, not overlapping;
//   the file ends exactly where the last payload ends.
//
// The reader checks, in this order: size, magic, endianness, format, nnhal version,
// file size, token, driver version, section table; any mismatch is a GENERAL_FAILURE
// naming the field. Counts read from a file are checked against the bytes left before
// anything is allocated, so a hostile file cannot make the reader allocate much more
// than its own size.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnhal/types/device.hpp"
#include "nnhal/types/error.hpp"
#include "nnhal/types/large_bytes.hpp"

namespace nnhal::cache {

using types::ErrorStatus;
using types::result;
using types::status;

/// nnhal's version as major << 16 | minor << 8 | patch (keep in step with project(VERSION)).
/// A cache written by another nnhal version is a miss: kernels and layouts may differ.
inline constexpr std::uint32_t nnhal_version = (0u << 16) | (1u << 8) | 0u;
/// Bumped on any change of the layout of any cache file.
inline constexpr std::uint32_t format_version = 1;

inline constexpr std::array<char, 8> model_cache_magic{'n', 'n', 'h', 'a', 'l', '-', 'm', 'c'};
inline constexpr std::array<char, 8> data_cache_magic{'n', 'n', 'h', 'a', 'l', '-', 'd', 'c'};
inline constexpr std::uint16_t endian_marker = 0xFEFF;  // reads as 0xFFFE if byte-swapped
inline constexpr std::size_t max_driver_version_length = 256;
inline constexpr std::size_t section_alignment = 64;
inline constexpr std::uint32_t max_sections = 1024;

using pair_id = std::array<std::uint8_t, 16>;  // ties a data cache to its model cache

/// Section ids. Model cache: graph and plan. Data cache: operand values, one POOL per
/// model pool in pool order, and an optional packed-weights section kernels may fill.
enum class section_id : std::uint32_t {
  graph = 1,
  plan = 2,
  operand_values = 16,
  pool = 17,
  packed_weights = 18,
};

namespace detail {

/// Appends little-endian fields to a byte buffer.
class byte_writer {
 public:
  void u8(std::uint8_t v) { buf_.push_back(static_cast<std::byte>(v)); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void bytes(std::span<const std::byte> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  void bytes(std::span<const std::uint8_t> b) { bytes(std::as_bytes(b)); }
  void str16(std::string_view s) {  // u16 length + bytes (callers keep s short)
    u16(static_cast<std::uint16_t>(s.size()));
    bytes(std::as_bytes(std::span(s.data(), s.size())));
  }
  void pad_to(std::size_t alignment) {
    while (buf_.size() % alignment != 0) u8(0);
  }
  /// Overwrites 8 bytes at `at` (for sizes known only later).
  void patch_u64(std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) buf_[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
  }
  std::size_t size() const noexcept { return buf_.size(); }
  /// Room for `n` bytes in all: one allocation for a buffer whose final size is known.
  /// Large buffers are offered to transparent huge pages before anything is written, so
  /// filling one faults once per 2 MiB rather than per 4 KiB (on a virtual machine that
  /// took a 31 MB data cache's encoding from about 40 ms to a few).
  void reserve(std::size_t n) {
    buf_.reserve(n);
    types::offer_huge_pages(buf_.data() + buf_.size(), buf_.capacity() - buf_.size());
  }
  std::vector<std::byte>& buffer() noexcept { return buf_; }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf_.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  std::vector<std::byte> buf_;
};

/// Reads little-endian fields from a byte span. The first failure sticks: later reads
/// return zeros and counts return 0, so decoding loops end, and the first message
/// (which names the field) is the one reported.
class byte_reader {
 public:
  byte_reader(std::span<const std::byte> data, std::string what) : data_(data), what_(std::move(what)) {}

  std::uint8_t u8(std::string_view field) { return static_cast<std::uint8_t>(get(1, field)); }
  std::uint16_t u16(std::string_view field) { return static_cast<std::uint16_t>(get(2, field)); }
  std::uint32_t u32(std::string_view field) { return static_cast<std::uint32_t>(get(4, field)); }
  std::uint64_t u64(std::string_view field) { return get(8, field); }
  std::int32_t i32(std::string_view field) { return static_cast<std::int32_t>(u32(field)); }
  float f32(std::string_view field) { return std::bit_cast<float>(u32(field)); }

  /// `n` raw bytes (empty span after a failure).
  std::span<const std::byte> bytes(std::uint64_t n, std::string_view field) {
    if (!need(n, field)) return {};
    auto s = data_.subspan(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  /// A u16-prefixed string of at most `max` bytes.
  std::string str16(std::size_t max, std::string_view field) {
    const std::uint16_t n = u16(field);
    if (n > max) {
      fail(field, ": length ", n, " exceeds the limit ", max);
      return {};
    }
    auto b = bytes(n, field);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  /// A u32 element count; fails unless count * min_element_bytes fits in what is left
  /// and count <= cap, so the caller may reserve `count` elements safely.
  std::uint32_t count(std::size_t min_element_bytes, std::uint64_t cap, std::string_view field) {
    const std::uint32_t n = u32(field);
    if (failed()) return 0;
    if (n > cap) {
      fail(field, ": count ", n, " exceeds the limit ", cap);
      return 0;
    }
    if (min_element_bytes != 0 && n > remaining() / min_element_bytes) {
      fail(field, ": count ", n, " needs at least ", std::uint64_t{n} * min_element_bytes, " bytes, ", remaining(),
           " left");
      return 0;
    }
    return n;
  }
  /// Skips zero padding up to `alignment` (non-zero padding is malformed).
  void skip_padding(std::size_t alignment, std::string_view field) {
    while (!failed() && pos_ % alignment != 0)
      if (u8(field) != 0) fail(field, ": non-zero padding byte");
  }

  template <class... Parts>
  void fail(std::string_view field, const Parts&... parts) {
    if (failed_) return;
    failed_ = true;
    message_ = types::str_cat(what_, ": ", field, parts...);
  }
  bool failed() const noexcept { return failed_; }
  types::error error() const { return {ErrorStatus::GENERAL_FAILURE, message_}; }
  std::size_t position() const noexcept { return pos_; }
  std::size_t remaining() const noexcept { return data_.size() - pos_; }
  bool at_end() const noexcept { return pos_ == data_.size(); }
  const std::string& what() const noexcept { return what_; }

 private:
  bool need(std::uint64_t n, std::string_view field) {
    if (failed_) return false;
    if (n > remaining()) {
      fail(field, ": needs ", n, " bytes at offset ", pos_, ", only ", remaining(), " left");
      return false;
    }
    return true;
  }
  std::uint64_t get(int n, std::string_view field) {
    if (!need(static_cast<std::uint64_t>(n), field)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= std::uint64_t{std::to_integer<std::uint8_t>(data_[pos_ + static_cast<std::size_t>(i)])} << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }

  std::span<const std::byte> data_;
  std::string what_;
  std::size_t pos_ = 0;
  bool failed_ = false;
  std::string message_;
};

}  // namespace detail

/// What identifies a cache file besides its magic (the header's variable part).
struct file_identity {
  types::CacheToken token{};
  pair_id pair{};
  std::string driver_version;
};
/// What a reader expects: the token and driver version always; the pair id only for a
/// data cache (it must equal the one its model cache carries).
struct expected_identity {
  types::CacheToken token{};
  std::string_view driver_version;
  const pair_id* pair = nullptr;
};

struct section {
  section_id id{};
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

/// Writes one cache file: the header, the section table and the payloads (each aligned
/// to `section_alignment`). Returns the file's bytes.
inline std::vector<std::byte> write_cache_file(
    const std::array<char, 8>& magic, const file_identity& id,
    std::span<const std::pair<section_id, std::span<const std::byte>>> sections) {
  detail::byte_writer w;
  w.bytes(std::as_bytes(std::span(magic)));
  w.u16(endian_marker);
  w.u16(0);
  w.u32(format_version);
  w.u32(nnhal_version);
  w.u32(static_cast<std::uint32_t>(sections.size()));
  const std::size_t file_size_at = w.size();
  w.u64(0);
  w.bytes(std::span(id.token));
  w.bytes(std::span(id.pair));
  w.str16(id.driver_version.substr(0, max_driver_version_length));
  w.pad_to(8);
  // Section table, then the payloads at aligned offsets computed up front.
  std::uint64_t offset = w.size() + sections.size() * 24;
  for (const auto& [sid, payload] : sections) {
    offset = (offset + section_alignment - 1) / section_alignment * section_alignment;
    w.u32(static_cast<std::uint32_t>(sid));
    w.u32(0);
    w.u64(offset);
    w.u64(payload.size());
    offset += payload.size();
  }
  w.reserve(static_cast<std::size_t>(offset));  // the file's size: no regrowth copies
  for (const auto& [sid, payload] : sections) {
    w.pad_to(section_alignment);
    w.bytes(payload);
  }
  w.patch_u64(file_size_at, w.size());
  return std::move(w.buffer());
}

/// A cache file whose header and section table passed every check.
struct parsed_file {
  pair_id pair{};
  std::vector<section> sections;
};

/// Checks a cache file's header and section table (order as in the file comment).
/// `what` names the file in messages ("model cache file 0").
inline result<parsed_file> parse_cache_file(std::span<const std::byte> file, const std::array<char, 8>& magic,
                                            const expected_identity& expected, std::string what) {
  detail::byte_reader r(file, what);
  auto fail = [&]() -> types::error { return r.error(); };
  NNHAL_CHECK(file.size() >= 82, ErrorStatus::GENERAL_FAILURE, what, ": ", file.size(),
              " bytes is shorter than the header");
  auto m = r.bytes(8, "magic");
  NNHAL_CHECK(std::memcmp(m.data(), magic.data(), 8) == 0, ErrorStatus::GENERAL_FAILURE, what,
              ": bad magic (not an nnhal ", magic[7] == 'c' && magic[6] == 'm' ? "model" : "data", " cache file)");
  const std::uint16_t endian = r.u16("endian marker");
  NNHAL_CHECK(endian == endian_marker, ErrorStatus::GENERAL_FAILURE, what, ": endianness marker ", endian,
              endian == 0xFFFE ? " (byte-swapped: written big-endian)" : " (unknown)");
  NNHAL_CHECK(r.u16("reserved") == 0, ErrorStatus::GENERAL_FAILURE, what, ": reserved header field is not 0");
  const std::uint32_t format = r.u32("format");
  NNHAL_CHECK(format == format_version, ErrorStatus::GENERAL_FAILURE, what, ": format version ", format, ", expected ",
              format_version);
  const std::uint32_t version = r.u32("nnhal version");
  NNHAL_CHECK(version == nnhal_version, ErrorStatus::GENERAL_FAILURE, what, ": written by nnhal version ", version,
              ", this is ", nnhal_version);
  const std::uint32_t n_sections = r.u32("section count");
  const std::uint64_t file_size = r.u64("file size");
  NNHAL_CHECK(file_size == file.size(), ErrorStatus::GENERAL_FAILURE, what, ": header says ", file_size,
              " bytes, the file has ", file.size(), file.size() < file_size ? " (truncated)" : " (extended)");
  auto token = r.bytes(32, "token");
  NNHAL_CHECK(std::memcmp(token.data(), expected.token.data(), 32) == 0, ErrorStatus::GENERAL_FAILURE, what,
              ": written for another cache token");
  auto pair = r.bytes(16, "pair id");
  const std::string driver = r.str16(max_driver_version_length, "driver version");
  if (r.failed()) return fail();
  NNHAL_CHECK(driver == expected.driver_version.substr(0, max_driver_version_length), ErrorStatus::GENERAL_FAILURE,
              what, ": written by driver version \"", driver, "\", this is \"", expected.driver_version, "\"");
  NNHAL_CHECK(!expected.pair || std::memcmp(pair.data(), expected.pair->data(), 16) == 0, ErrorStatus::GENERAL_FAILURE,
              what, ": belongs to another save (pair id differs from the model cache's)");
  r.skip_padding(8, "header padding");
  NNHAL_CHECK(n_sections <= max_sections && n_sections <= r.remaining() / 24, ErrorStatus::GENERAL_FAILURE, what,
              ": section count ", n_sections, " does not fit in the file");
  parsed_file out;
  std::memcpy(out.pair.data(), pair.data(), 16);
  out.sections.reserve(n_sections);
  std::uint64_t end = r.position() + std::uint64_t{n_sections} * 24;  // end of the table
  for (std::uint32_t i = 0; i < n_sections; ++i) {
    section s;
    s.id = static_cast<section_id>(r.u32("section id"));
    const std::uint32_t reserved = r.u32("section reserved");
    s.offset = r.u64("section offset");
    s.size = r.u64("section size");
    if (r.failed()) return fail();
    NNHAL_CHECK(reserved == 0, ErrorStatus::GENERAL_FAILURE, what, ": section ", i, ": reserved field is not 0");
    NNHAL_CHECK(s.offset % section_alignment == 0, ErrorStatus::GENERAL_FAILURE, what, ": section ", i, " offset ",
                s.offset, " is not a multiple of ", section_alignment);
    NNHAL_CHECK(s.offset >= end, ErrorStatus::GENERAL_FAILURE, what, ": section ", i, " at ", s.offset,
                " overlaps the table or the previous section (which end at ", end, ")");
    NNHAL_CHECK(s.offset - end < section_alignment, ErrorStatus::GENERAL_FAILURE, what, ": gap of ", s.offset - end,
                " bytes before section ", i);
    NNHAL_CHECK(s.offset <= file.size() && s.size <= file.size() - s.offset, ErrorStatus::GENERAL_FAILURE, what,
                ": section ", i, " [", s.offset, ", +", s.size, ") outside the file (", file.size(), " bytes)");
    end = s.offset + s.size;
    out.sections.push_back(s);
  }
  NNHAL_CHECK(end == file.size(), ErrorStatus::GENERAL_FAILURE, what, ": ", file.size() - end,
              " bytes after the last section");
  return out;
}

}  // namespace nnhal::cache
