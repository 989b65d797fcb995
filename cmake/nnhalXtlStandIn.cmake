# Debian 12's xsimd package links a target named "xtl" that its config never defines, so
# anything linking xsimd gets -lxtl and fails to link. xsimd's headers need xtl only with
# XSIMD_ENABLE_XTL_COMPLEX, which nnhal never sets: use xtl if installed, else an empty
# stand-in. Included after find_package(xsimd) by the build and by nnhalConfig.cmake.
if(TARGET xsimd AND NOT TARGET xtl)
  get_target_property(_nnhal_xsimd_links xsimd INTERFACE_LINK_LIBRARIES)
  if("xtl" IN_LIST _nnhal_xsimd_links)
    find_package(xtl CONFIG QUIET)
    if(NOT TARGET xtl)
      add_library(xtl INTERFACE IMPORTED)
    endif()
  endif()
  unset(_nnhal_xsimd_links)
endif()
