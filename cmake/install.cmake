# What 'cmake --install' puts where (docs/install.md), under any prefix:
#   bin/dataprof
#   LIBDIR/dataprof/libdataprof_heap.so, libdataprof_collector.so   the agents
#   LIBDIR/libdataprof_markers.a, .so                               for programs that mark
#   include/dataprof/markers.h
#   LIBDIR/pkgconfig/dataprof-markers.pc
#   LIBDIR/cmake/dataprof/                find_package(dataprof): dataprof::markers
#   share/man/man1/dataprof.1, dataprof-COMMAND.1
#   share/bash-completion/completions/dataprof
#   share/doc/dataprof/                   README, docs/
# and cpack -G DEB makes a .deb of it.

install(TARGETS dataprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS dataprof_heap dataprof_collector LIBRARY DESTINATION ${DATAPROF_PKGLIBDIR})
install(TARGETS dataprof_markers dataprof_markers_shared EXPORT dataprofTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/dataprof/markers.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dataprof)

# The CMake package: relocatable (its paths are relative to where it lies)
set(DP_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/dataprof)
include(CMakePackageConfigHelpers)
install(EXPORT dataprofTargets NAMESPACE dataprof:: DESTINATION ${DP_CMAKEDIR})
configure_package_config_file(cmake/dataprofConfig.cmake.in
  ${CMAKE_BINARY_DIR}/pkg/dataprofConfig.cmake INSTALL_DESTINATION ${DP_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/pkg/dataprofConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/pkg/dataprofConfig.cmake
  ${CMAKE_BINARY_DIR}/pkg/dataprofConfigVersion.cmake DESTINATION ${DP_CMAKEDIR})

# The pkg-config file is written at install time, with the prefix given
# then ('cmake --install build --prefix P' overrides the configured one)
install(CODE "
  set(DP_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(DP_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(DP_PC_VERSION \"${PROJECT_VERSION}\")
  set(DP_PC_LIBS_PRIVATE \"${CMAKE_DL_LIBS}\")
  if(DP_PC_LIBS_PRIVATE)
    set(DP_PC_LIBS_PRIVATE \"-l${CMAKE_DL_LIBS}\")
  endif()
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/dataprof-markers.pc.in\"
    \"${CMAKE_BINARY_DIR}/pkg/dataprof-markers.pc\" @ONLY)
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\"
    TYPE FILE FILES \"${CMAKE_BINARY_DIR}/pkg/dataprof-markers.pc\")
")

install(FILES cmake/dataprof.bash-completion DESTINATION
  ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME dataprof)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# Man pages: dataprof(1) and one per subcommand, generated from the docs
# (cmake/md2man.py: each page is its command's section of docs/*.md, the
# summary from the command table of cli/main.c)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(DP_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  set(DP_MAN_PAGES dataprof record report diff history layout dump list doctor accuracy
    annotate stat markers view export)
  set(DP_MAN_FILES "")
  foreach(page ${DP_MAN_PAGES})
    if(page STREQUAL dataprof)
      set(f ${DP_MAN_DIR}/dataprof.1)
    else()
      set(f ${DP_MAN_DIR}/dataprof-${page}.1)
    endif()
    list(APPEND DP_MAN_FILES ${f})
  endforeach()
  file(GLOB DP_DOC_PAGES ${PROJECT_SOURCE_DIR}/docs/*.md)
  add_custom_command(OUTPUT ${DP_MAN_FILES}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/md2man.py
      --source ${PROJECT_SOURCE_DIR} --out ${DP_MAN_DIR} --version ${PROJECT_VERSION}
    DEPENDS ${PROJECT_SOURCE_DIR}/cmake/md2man.py ${PROJECT_SOURCE_DIR}/cli/main.c
      ${DP_DOC_PAGES}
    COMMENT "man pages from docs/" VERBATIM)
  add_custom_target(dp_man ALL DEPENDS ${DP_MAN_FILES})
  install(FILES ${DP_MAN_FILES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "no python3: no man pages (cmake/md2man.py makes them)")
endif()

# cpack -G DEB: the package's Depends come from dpkg-shlibdeps (the
# libraries the binaries link); the man pages need python3 at build time.
set(CPACK_PACKAGE_NAME dataprof)
set(CPACK_PACKAGE_VENDOR "dataprof")
set(CPACK_PACKAGE_CONTACT "dataprof maintainers <dataprof@example.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "sampling profiler that tells which data a program stalls on")
set(CPACK_PACKAGE_DESCRIPTION "dataprof samples a program with perf events, recovers the data\
 address of each sample, and reports the data objects, struct members, heap\
 allocation sites and source lines the program waits on. It includes the code\
 markers library (libdataprof_markers, pkg-config dataprof-markers, CMake\
 package dataprof) for programs that mark their phases.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pkg-config")
set(CPACK_STRIP_FILES OFF)
set(CPACK_GENERATOR DEB)
include(CPack)
