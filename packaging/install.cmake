# packaging/install.cmake - what `cmake --install` puts where, the man pages
# and the Debian package (`cpack -G DEB`). Included last from the top-level
# CMakeLists.txt, so every target exists. It builds nothing but the man pages.
#
# Layout (GNUInstallDirs; <lib> is lib/<multiarch> when the prefix is /usr on
# Debian, lib otherwise):
#   bin/gapscope                               the command
#   <lib>/gapscope/libgapscope.so              the collector (CUDA builds only);
#                                              private: loaded only through
#                                              CUDA_INJECTION64_PATH, so it stays
#                                              off the loader's path. `gapscope
#                                              record` finds it relative to its
#                                              own binary (GAPSCOPE_LIB_RELDIR)
#   share/man/man1/gapscope*.1.gz              from docs/man/*.scd (scdoc)
#   share/bash-completion/completions/gapscope
#   share/doc/gapscope/                        README, LICENSE, docs/, examples/
#                                              (the H200 sample trace)
# Components: `gapscope` (all of the above, what a plain `cmake --install`
# and the .deb install) and `demos` (the CUDA demos, in
# libexec/gapscope/demos; only with `cmake --install <build> --component
# demos`).

set(GS_DOCDIR ${CMAKE_INSTALL_DOCDIR}) # share/doc/gapscope

install(TARGETS gapscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gapscope)
if(TARGET gapscope_collector)
  # The collector is linked to libcupti from the CUDA Toolkit, which NVIDIA
  # installs outside the loader's path (/usr/local/cuda/...): the installed
  # library keeps an RPATH to the CUPTI it was built against.
  set_target_properties(gapscope_collector PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS gapscope_collector LIBRARY DESTINATION ${GAPSCOPE_INSTALL_LIBDIR}
          COMPONENT gapscope)
  set_target_properties(gapscope_calibrate PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS gapscope_calibrate RUNTIME DESTINATION ${GAPSCOPE_INSTALL_LIBDIR}
          COMPONENT gapscope)
endif()
if(TARGET gs_launch_interpose)
  # beside the collector: record --reference preloads it from there
  install(TARGETS gs_launch_interpose LIBRARY DESTINATION ${GAPSCOPE_INSTALL_LIBDIR}
          COMPONENT gapscope)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/packaging/gapscope.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gapscope
        COMPONENT gapscope)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${GS_DOCDIR} COMPONENT gapscope)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${GS_DOCDIR}/docs COMPONENT gapscope
        PATTERN man EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/samples/README.md
              ${PROJECT_SOURCE_DIR}/samples/h200-decode-starvation.db
        DESTINATION ${GS_DOCDIR}/examples COMPONENT gapscope)

# The demos: a component left out of a plain install and of the .deb.
if(GAPSCOPE_HAVE_CUDA)
  get_property(_gs_demo_targets DIRECTORY ${PROJECT_SOURCE_DIR}/demos PROPERTY BUILDSYSTEM_TARGETS)
  list(FILTER _gs_demo_targets INCLUDE REGEX "^gs_demo_")
  if(_gs_demo_targets)
    install(TARGETS ${_gs_demo_targets} RUNTIME
            DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gapscope/demos COMPONENT demos EXCLUDE_FROM_ALL)
  endif()
endif()

# ---- man pages: one scdoc source per page in docs/man/, the only source of
# their text. Without scdoc (Debian package `scdoc`) the build goes on
# without them.
find_program(GAPSCOPE_SCDOC scdoc)
find_program(GAPSCOPE_GZIP gzip)
file(GLOB _gs_man_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.scd)
if(GAPSCOPE_SCDOC AND GAPSCOPE_GZIP)
  set(_gs_man_pages)
  foreach(src ${_gs_man_sources})
    get_filename_component(page ${src} NAME_WLE) # gapscope-report.1
    set(out ${CMAKE_BINARY_DIR}/man/${page}.gz)
    # -n: no name or time stamp in the gzip header, so the .deb is reproducible
    add_custom_command(OUTPUT ${out}
                       COMMAND sh -c "\"$1\" < \"$2\" > \"$3\" && \"$4\" -9nf \"$3\""
                               sh ${GAPSCOPE_SCDOC} ${src} ${CMAKE_BINARY_DIR}/man/${page}
                               ${GAPSCOPE_GZIP}
                       DEPENDS ${src} COMMENT "man page ${page}" VERBATIM)
    list(APPEND _gs_man_pages ${out})
  endforeach()
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man)
  add_custom_target(gapscope_man ALL DEPENDS ${_gs_man_pages})
  install(FILES ${_gs_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT gapscope)
  set(GAPSCOPE_HAVE_MAN ON)
  message(STATUS "gapscope: man pages: ON (${GAPSCOPE_SCDOC})")
else()
  set(GAPSCOPE_HAVE_MAN OFF)
  message(STATUS "gapscope: man pages: OFF (install the Debian package scdoc to build them)")
endif()

# ---- the Debian package: cpack -G DEB in the build folder.
set(CPACK_PACKAGE_NAME gapscope)
set(CPACK_PACKAGE_VENDOR "gapscope")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "finds where a CUDA program left its GPU idle, and why")
set(CPACK_PACKAGE_DESCRIPTION "\
gapscope records an unmodified CUDA program through CUPTI (gapscope record)
and reports where each GPU sat idle and why: late launches, launch latency,
host synchronisation (explicit or implicit), waits between streams. It
measures launch overhead and estimates what CUDA Graphs would buy. The viewer
(report, html, graph, export, diff) runs without CUDA, recording needs the
NVIDIA driver and CUPTI.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # gapscope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(GAPSCOPE_DEB_MAINTAINER "gapscope developers <gapscope@localhost>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GAPSCOPE_DEB_MAINTAINER}")
# Depends, by hand rather than dpkg-shlibdeps: the collector's libcupti comes
# from NVIDIA's toolkit, not a Debian package, and dpkg-shlibdeps fails on
# it. These are the NEEDED entries of bin/gapscope (readelf -d) on Debian 12:
# glibc 2.34 symbols, libstdc++ (__cxa_demangle), Graphviz, jansson, yajl and
# zlib (gapscope import); SQLite
# only where it is not linked in statically (GAPSCOPE_STATIC_SQLITE).
set(_gs_deb_depends "libc6 (>= 2.34), libstdc++6, libgvc6, libcgraph6, libcdt5, libjansson4")
list(APPEND _gs_deb_depends "libyajl2" "zlib1g")
if(NOT (GAPSCOPE_STATIC_SQLITE AND GAPSCOPE_SQLITE3_ARCHIVE))
  list(APPEND _gs_deb_depends "libsqlite3-0 (>= ${SQLite3_VERSION})")
endif()
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${_gs_deb_depends}")
# The collector needs the NVIDIA driver (libcuda) and the CUPTI it was built
# with; the viewer does not, so they are Recommends: Debian's package name
# (non-free) or NVIDIA's CUDA repository's. libunwind8: the collector loads
# it (dlopen) to walk call sites' native frames 10-18x cheaper than libgcc's
# unwinder, and uses libgcc's where it is missing (docs/collector.md).
if(TARGET gapscope_collector)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
      "libcuda1 | cuda-drivers, libcupti${CUDAToolkit_VERSION_MAJOR} | cuda-cupti-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}, libunwind8")
endif()
set(CPACK_COMPONENTS_ALL gapscope)
include(CPack)
