// ErrorStatus (HAL 1.3 types.hal, ErrorStatus) and result<T>, the error channel of
// validation, prepare, execution and cache. No exception crosses the HAL boundary.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace nnhal::types {

/// Every status the HAL defines (1.3 numbering; the AIDL HAL keeps the same values).
enum class ErrorStatus : std::int32_t {
  NONE = 0,
  DEVICE_UNAVAILABLE = 1,
  GENERAL_FAILURE = 2,
  OUTPUT_INSUFFICIENT_SIZE = 3,
  INVALID_ARGUMENT = 4,
  MISSED_DEADLINE_TRANSIENT = 5,
  MISSED_DEADLINE_PERSISTENT = 6,
  RESOURCE_EXHAUSTED_TRANSIENT = 7,
  RESOURCE_EXHAUSTED_PERSISTENT = 8,
  DEAD_OBJECT = 10000,  // the binder transport's "dead object", surfaced by the AIDL HAL
};

constexpr std::string_view to_string(ErrorStatus s) noexcept {
  switch (s) {
    case ErrorStatus::NONE: return "NONE";
    case ErrorStatus::DEVICE_UNAVAILABLE: return "DEVICE_UNAVAILABLE";
    case ErrorStatus::GENERAL_FAILURE: return "GENERAL_FAILURE";
    case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
    case ErrorStatus::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ErrorStatus::MISSED_DEADLINE_TRANSIENT: return "MISSED_DEADLINE_TRANSIENT";
    case ErrorStatus::MISSED_DEADLINE_PERSISTENT: return "MISSED_DEADLINE_PERSISTENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT: return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT: return "RESOURCE_EXHAUSTED_PERSISTENT";
    case ErrorStatus::DEAD_OBJECT: return "DEAD_OBJECT";
  }
  return "UNKNOWN_ERROR_STATUS";
}

/// A failed outcome: the HAL status plus a short message naming what is wrong,
/// e.g. "operation 3 (ADD) input 1: operand 7 has type TENSOR_INT32, expected ...".
struct error {
  ErrorStatus status = ErrorStatus::GENERAL_FAILURE;
  std::string message;
};

namespace detail {
inline void append_one(std::string& s, std::string_view v) { s.append(v); }
inline void append_one(std::string& s, const char* v) { s.append(v); }
inline void append_one(std::string& s, const std::string& v) { s.append(v); }
inline void append_one(std::string& s, char c) { s.push_back(c); }
inline void append_one(std::string& s, bool b) { s.append(b ? "true" : "false"); }
template <class T>
  requires std::is_arithmetic_v<T>
void append_one(std::string& s, T v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec == std::errc{}) s.append(buf, end);
}
template <class T>
  requires std::is_enum_v<T> && requires(T t) { to_string(t); }
void append_one(std::string& s, T v) {
  s.append(to_string(v));
}
}  // namespace detail

/// Concatenates strings, numbers and HAL enums (by name) into one message.
template <class... Parts>
std::string str_cat(const Parts&... parts) {
  std::string s;
  (detail::append_one(s, parts), ...);
  return s;
}

/// Builds an error with a message made of `parts` (see str_cat).
template <class... Parts>
error make_error(ErrorStatus status, const Parts&... parts) {
  return error{status, str_cat(parts...)};
}

/// The value of a successful call or an `error`. A small stand-in for C++23's
/// std::expected; `result<void>` carries only the error channel.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  result(error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT
  template <class U>
    requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::remove_cvref_t<U>, T> &&
             !std::is_same_v<std::remove_cvref_t<U>, error> &&
             !std::is_same_v<std::remove_cvref_t<U>, result>)
  result(U&& u) : v_(std::in_place_index<0>, T(std::forward<U>(u))) {}  // NOLINT

  explicit operator bool() const noexcept { return v_.index() == 0; }
  bool ok() const noexcept { return v_.index() == 0; }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }

  const error& err() const& { return std::get<1>(v_); }
  error&& err() && { return std::get<1>(std::move(v_)); }
  ErrorStatus status() const noexcept { return ok() ? ErrorStatus::NONE : std::get<1>(v_).status; }

 private:
  std::variant<T, error> v_;
};

template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(error e) : e_(std::move(e)), ok_(false) {}  // NOLINT

  explicit operator bool() const noexcept { return ok_; }
  bool ok() const noexcept { return ok_; }
  const error& err() const& { return e_; }
  error&& err() && { return std::move(e_); }
  ErrorStatus status() const noexcept { return ok_ ? ErrorStatus::NONE : e_.status; }

 private:
  error e_{ErrorStatus::NONE, {}};
  bool ok_ = true;
};

using status = result<void>;

}  // namespace nnhal::types

/// Propagates the error of a result-returning expression out of the calling function.
#define NNHAL_TRY(...)                                          \
  do {                                                          \
    if (auto&& nnhal_try_r_ = (__VA_ARGS__); !nnhal_try_r_.ok()) \
      return std::move(nnhal_try_r_).err();                     \
  } while (false)

/// Returns an error with the given status and message parts when `cond` is false.
#define NNHAL_CHECK(cond, status_, ...)                                   \
  do {                                                                    \
    if (!(cond)) return ::nnhal::types::make_error((status_), __VA_ARGS__); \
  } while (false)
