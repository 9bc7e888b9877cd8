# Finds the zfp 1.0 C library (Debian 12's libzfp-dev) and defines the imported target
# HzioZfp::zfp and HzioZfp_VERSION. zfp's own CMake config is not used: it requires OpenMP for
# the compiler at hand, which clang (fuzzing, consumers) lacks without libomp, and hzio only
# calls zfp's serial coder.
find_path(HzioZfp_INCLUDE_DIR zfp.h)
find_library(HzioZfp_LIBRARY NAMES zfp)
if(HzioZfp_INCLUDE_DIR AND EXISTS "${HzioZfp_INCLUDE_DIR}/zfp/version.h")
  set(_hzio_zfp_parts)
  foreach(part MAJOR MINOR PATCH)
    file(STRINGS "${HzioZfp_INCLUDE_DIR}/zfp/version.h" _hzio_zfp_line REGEX "^#define ZFP_VERSION_${part} +[0-9]+")
    string(REGEX REPLACE "^#define ZFP_VERSION_${part} +([0-9]+).*" "\\1" _hzio_zfp_value "${_hzio_zfp_line}")
    list(APPEND _hzio_zfp_parts "${_hzio_zfp_value}")
  endforeach()
  list(JOIN _hzio_zfp_parts "." HzioZfp_VERSION)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(HzioZfp REQUIRED_VARS HzioZfp_LIBRARY HzioZfp_INCLUDE_DIR
                                  VERSION_VAR HzioZfp_VERSION)
if(HzioZfp_FOUND AND NOT TARGET HzioZfp::zfp)
  add_library(HzioZfp::zfp UNKNOWN IMPORTED)
  set_target_properties(HzioZfp::zfp PROPERTIES IMPORTED_LOCATION "${HzioZfp_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${HzioZfp_INCLUDE_DIR}")
endif()
mark_as_advanced(HzioZfp_INCLUDE_DIR HzioZfp_LIBRARY)
