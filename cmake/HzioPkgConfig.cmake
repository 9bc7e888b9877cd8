# pkg-config files for the C and Fortran APIs. They are relocatable: `prefix` is found from the
# .pc file's own location (${pcfiledir}), so `cmake --install --prefix ANY` yields working files.

# hzio_install_pkgconfig(NAME DESCRIPTION REQUIRES CFLAGS LIBS) writes and installs NAME.pc.
function(hzio_install_pkgconfig name description requires cflags libs)
  set(pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  file(RELATIVE_PATH to_prefix "/root/${pcdir}" "/root")
  string(REGEX REPLACE "/$" "" to_prefix "${to_prefix}")
  set(text "prefix=\${pcfiledir}/${to_prefix}\nlibdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}\n")
  string(APPEND text "includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\n\n")
  string(APPEND text "Name: ${name}\nDescription: ${description}\nVersion: ${PROJECT_VERSION}\n")
  if(requires)
    string(APPEND text "Requires: ${requires}\n")
  endif()
  string(APPEND text "Cflags: ${cflags}\nLibs: ${libs}\n")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc.tmp "${text}")
  configure_file(${CMAKE_CURRENT_BINARY_DIR}/${name}.pc.tmp ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc COPYONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc DESTINATION ${pcdir})
endfunction()

# hzio_pkgconfig_flags(LANG_PREFIX CFLAGS_VAR LIBS_VAR): compile and link flags of FindMPI's
# results for one language (MPI_C, MPI_Fortran), as pkg-config text.
function(hzio_pkgconfig_flags prefix cflags_var libs_var)
  set(cflags "")
  foreach(dir IN LISTS ${prefix}_INCLUDE_DIRS)
    string(APPEND cflags " -I${dir}")
  endforeach()
  foreach(def IN LISTS ${prefix}_COMPILE_DEFINITIONS)
    string(APPEND cflags " -D${def}")
  endforeach()
  set(libs "")
  foreach(lib IN LISTS ${prefix}_LIBRARIES)
    string(APPEND libs " ${lib}")
  endforeach()
  string(STRIP "${cflags}" cflags)
  string(STRIP "${libs}" libs)
  set(${cflags_var} "${cflags}" PARENT_SCOPE)
  set(${libs_var} "${libs}" PARENT_SCOPE)
endfunction()
