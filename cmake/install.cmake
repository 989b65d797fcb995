# Install rules and the CMake package: find_package(nnhal CONFIG) gives nnhal::nnhal.
# Included at the end of the top-level CMakeLists, so it sees every dependency the
# nnhal target has by then and writes a matching find_dependency() for each.
include(CMakePackageConfigHelpers)

set(NNHAL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nnhal"
    CACHE STRING "Where nnhalConfig.cmake is installed, relative to the prefix")
mark_as_advanced(NNHAL_INSTALL_CMAKEDIR)

install(TARGETS nnhal EXPORT nnhalTargets)
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT nnhalTargets NAMESPACE nnhal:: DESTINATION ${NNHAL_INSTALL_CMAKEDIR})

# One find_dependency() per package whose target nnhal links: xsimd always, Highway once
# the target links hwy::hwy or hwy::hwy_contrib.
get_target_property(_nnhal_links nnhal INTERFACE_LINK_LIBRARIES)
set(NNHAL_FIND_DEPENDENCIES "find_dependency(xsimd)")
if(_nnhal_links MATCHES "hwy::")
  string(APPEND NNHAL_FIND_DEPENDENCIES "\nfind_dependency(hwy)")
endif()
unset(_nnhal_links)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/nnhalConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nnhalConfig.cmake
  INSTALL_DESTINATION ${NNHAL_INSTALL_CMAKEDIR})
# Header-only: the version check must not reject a consumer built for another arch.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/nnhalConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/nnhalConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/nnhalConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/nnhalXtlStandIn.cmake
  DESTINATION ${NNHAL_INSTALL_CMAKEDIR})
