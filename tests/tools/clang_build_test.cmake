# ctest clang_build: nnhal built by clang (Android's compiler) instead of the suite's GCC:
# configure a scratch Release build of this source tree with clang, build nnhal-cts and
# nnhal-run, run the conformance corpus on it and check its AVX code's exits
# (check_vzeroupper.py).
#   cmake -DSOURCE_DIR=<nnhal source> -DWORK_DIR=<scratch> -DGENERATOR=<gen> -DCLANG=<clang++>
#         -DCLANG_C=<clang> -DCTS=<corpus dir> -DPYTHON=<python3> [-DLAUNCHER=<ccache>] [-DJOBS=N]
#         -P clang_build_test.cmake
cmake_minimum_required(VERSION 3.22)

foreach(var SOURCE_DIR WORK_DIR GENERATOR CLANG CLANG_C CTS PYTHON)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "clang_build_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()

set(STEP_PREFIX clang_build)
include("${CMAKE_CURRENT_LIST_DIR}/../script_step.cmake")

set(launcher)
if(LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
# Kept between runs (an incremental rebuild); tests, benches and the fuzz target are off.
step("configure" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
     "-DCMAKE_CXX_COMPILER=${CLANG}" "-DCMAKE_C_COMPILER=${CLANG_C}" ${launcher} -DCMAKE_BUILD_TYPE=Release
     -DNNHAL_BUILD_TESTS=OFF -DNNHAL_BUILD_BENCH=OFF -DNNHAL_BUILD_TOOLS=ON -DNNHAL_BUILD_EXAMPLES=ON
     -DNNHAL_FUZZ=OFF)
step("build nnhal-cts and nnhal-run" "${CMAKE_COMMAND}" --build "${WORK_DIR}" --target nnhal-cts nnhal-run
     --parallel ${JOBS})
step("conformance corpus" "${WORK_DIR}/tools/nnhal-cts" --jobs ${JOBS} "${CTS}")
string(REGEX MATCH "[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped" summary "${step_output}")
message(STATUS "clang_build: ${summary}")
step("check_vzeroupper" "${PYTHON}" "${CMAKE_CURRENT_LIST_DIR}/check_vzeroupper.py"
     "${WORK_DIR}/tools/nnhal-cts" "${WORK_DIR}/tools/nnhal-run")
message(STATUS "${step_output}")
