# Sets NNHAL_FUZZ_AVAILABLE when clang++-14 (NNHAL_FUZZ_CXX) links a libFuzzer target with
# ASan and UBSan, and OpenSSL's libcrypto is there for the cache's digest. Probes only
# while NNHAL_FUZZ is not yet in the cache (the first configure of a build directory).
find_program(NNHAL_FUZZ_CXX NAMES clang++-14)
set(NNHAL_FUZZ_AVAILABLE OFF)
if(NNHAL_FUZZ_CXX AND OPENSSL_FOUND AND NOT DEFINED CACHE{NNHAL_FUZZ})
  set(_probe_dir ${CMAKE_BINARY_DIR}/fuzz_probe)
  file(WRITE ${_probe_dir}/probe.cpp
    "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
  execute_process(
    COMMAND ${NNHAL_FUZZ_CXX} -fsanitize=fuzzer,address,undefined ${_probe_dir}/probe.cpp -o ${_probe_dir}/probe
    RESULT_VARIABLE _probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(_probe_rc EQUAL 0)
    set(NNHAL_FUZZ_AVAILABLE ON)
  endif()
  unset(_probe_dir)
  unset(_probe_rc)
endif()
