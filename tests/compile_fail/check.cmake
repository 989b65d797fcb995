# Runs one compile-fail check: cmake -DCOMPILER=... -DSOURCE=... [-DFLAGS=a|b] [-DINCLUDES=d1|d2]
#   [-DDEFINES=X|Y=1] [-DIMPLICIT=<compiler's own include dirs, left out>] -P check.cmake
# A file named *_ok.cpp must compile. Any other file must FAIL to compile, and the
# compiler's output must match the CMake regex on its first line: `// expect: <regex>`.
# Lists arrive '|'-separated because ';' would split the add_test() argument.
cmake_minimum_required(VERSION 3.22)

foreach(var COMPILER SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()

string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" includes "${INCLUDES}")
string(REPLACE "|" ";" defines "${DEFINES}")
string(REPLACE "|" ";" implicit "${IMPLICIT}")
list(FILTER flags EXCLUDE REGEX "^$")
list(FILTER includes EXCLUDE REGEX "^$")
list(FILTER defines EXCLUDE REGEX "^$")
if(implicit)
  list(REMOVE_ITEM includes ${implicit})  # -I/usr/include would reorder system headers
endif()
list(TRANSFORM includes PREPEND "-I")
list(TRANSFORM defines PREPEND "-D")

get_filename_component(name "${SOURCE}" NAME)
set(must_compile FALSE)
if(name MATCHES "_ok\\.cpp$")
  set(must_compile TRUE)
else()
  file(STRINGS "${SOURCE}" first_line LIMIT_COUNT 1)
  if(NOT first_line MATCHES "^// expect: (.+)$")
    message(FATAL_ERROR "${name}: the first line must be `// expect: <regex>`, got: ${first_line}")
  endif()
  string(STRIP "${CMAKE_MATCH_1}" expect)
endif()

# Plain ASCII quotes and no colour codes, so the regex sees what a person reads.
set(ENV{LC_ALL} C)
set(ENV{GCC_COLORS} "")
execute_process(
  COMMAND "${COMPILER}" ${flags} ${defines} ${includes} -fsyntax-only "${SOURCE}"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)

if(must_compile)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} must compile (it is the control of a compile-fail check), "
                        "but the compiler failed (${rc}):\n${out}")
  endif()
  message(STATUS "${name}: compiles, as it must")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "${name} compiled, but it must fail with a diagnostic matching: ${expect}")
endif()
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "${name} failed to compile, as it must, but no diagnostic matches\n"
                      "  ${expect}\ncompiler output:\n${out}")
endif()
message(STATUS "${name}: fails to compile with the expected diagnostic (${CMAKE_MATCH_0})")
