// Command-line parsing shared by nnhal-demo, nnhal-run and nnhal-cts: a usage error is
// one line on stderr, "<program>: <message>", and exit status 2.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "nnhal/types/error.hpp"

namespace nnhal::example {

/// Prints "<program>: <message>" to stderr and exits with status 2.
[[noreturn]] inline void usage_error(std::string_view program, std::string_view message) {
  std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(program.size()), program.data(),
               static_cast<int>(message.size()), message.data());
  std::exit(2);
}

/// The arguments of one program, for option parsers that walk argv by index.
class command_line {
 public:
  command_line(std::string_view program, int argc, char** argv) : program_(program), argc_(argc), argv_(argv) {}

  [[noreturn]] void fail(std::string_view message) const { usage_error(program_, message); }

  /// The argument after argv[i], the option `flag` (i moves to it); a usage error when
  /// there is none.
  std::string_view value(std::string_view flag, int& i) const {
    if (i + 1 >= argc_) fail(types::str_cat(flag, ": missing value"));
    return argv_[++i];
  }

  /// `text`, the value of option `flag`, as an integer >= `min`; a usage error otherwise.
  template <std::integral Int>
  Int integer(std::string_view flag, std::string_view text, Int min) const {
    Int v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < min)
      fail(types::str_cat(flag, ": '", text, "' is not an integer >= ", min));
    return v;
  }

 private:
  std::string_view program_;
  int argc_;
  char** argv_;
};

}  // namespace nnhal::example
