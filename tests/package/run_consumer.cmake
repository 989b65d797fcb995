# ctest package_consumer: install the build tree to a scratch prefix, then configure,
# build and run tests/package/consumer against that prefix alone.
#   cmake -DBUILD_DIR=<nnhal build> -DCONSUMER_DIR=<src> -DWORK_DIR=<scratch>
#         -DGENERATOR=<gen> -DCXX=<compiler> [-DLAUNCHER=<ccache>] -P run_consumer.cmake
cmake_minimum_required(VERSION 3.22)

foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

set(STEP_PREFIX package_consumer)
include("${CMAKE_CURRENT_LIST_DIR}/../script_step.cmake")

step("install to ${prefix}" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

set(launcher)
if(LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
# Only the scratch prefix may provide nnhal: no package registry, no stray nnhal_DIR.
step("configure consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${build}" -G "${GENERATOR}"
     "-DCMAKE_CXX_COMPILER=${CXX}" ${launcher} -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
file(STRINGS "${build}/CMakeCache.txt" found REGEX "^nnhal_DIR:")
string(REGEX REPLACE "^nnhal_DIR:[A-Z]+=" "" found "${found}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${found}" real_found)
string(FIND "${real_found}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "package_consumer: nnhal was found at ${found}, not in ${prefix}")
endif()

step("build consumer" "${CMAKE_COMMAND}" --build "${build}")
step("run consumer" "${build}/consumer")
message(STATUS "${step_output}")
