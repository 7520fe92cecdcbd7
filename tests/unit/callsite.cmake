# Call sites of blocking calls (collector/callsite.c): interning, dladdr
# symbols, the Python-frame reader with a fake CPython API, writer rows.
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_callsite
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_callsite.c
                   LIBS gs_collector_core)
  # the test resolves one of its own functions with dladdr
  set_target_properties(test_collector_callsite PROPERTIES ENABLE_EXPORTS ON)
endif()

# The Python-frame reader on this machine's real interpreter, with the GIL
# held and released (tests/unit/test_pyframes.py loads the probe with
# ctypes). In a sanitizer build the probe needs the ASan runtime loaded
# first: the test preloads it (Python itself is not instrumented; its
# allocations are not checked, and leak checking is off for it).
if(TARGET gs_collector_core)
  find_package(Python3 COMPONENTS Interpreter)
  # the reader alone (collector/pyframes.c, and the sampler's fault guard):
  # no writer, no SQLite
  function(gs_pyframes_probe name)
    add_library(${name} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/unit/pyframes_probe.c
                               ${PROJECT_SOURCE_DIR}/collector/pyframes.c
                               ${PROJECT_SOURCE_DIR}/collector/sigguard.c)
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/collector
                               ${PROJECT_SOURCE_DIR}/collector/include
                               ${CUDAToolkit_INCLUDE_DIRS})
    target_link_libraries(${name} PRIVATE ${CMAKE_DL_LIBS})
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  endfunction()
  gs_pyframes_probe(gs_pyframes_probe)
  if(Python3_Interpreter_FOUND)
    set(gs_probe_env "")
    if(GAPSCOPE_SANITIZE)
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                      OUTPUT_VARIABLE gs_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
      # the stress check at 1 ms here (unit_pyframes_stress runs it at 20 us
      # on a plain probe: see below)
      set(gs_probe_env "LD_PRELOAD=${gs_libasan}"
                       "ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
                       "GS_STRESS_US=1000")
    endif()
    add_test(NAME unit_pyframes
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pyframes.py
                     $<TARGET_FILE:gs_pyframes_probe>)
    set_tests_properties(unit_pyframes PROPERTIES LABELS unit SKIP_RETURN_CODE 77
                                                  ENVIRONMENT "${gs_probe_env}")
  endif()
  # the sampler's fault guard (collector/sigguard.c) under a 20 us timer,
  # on every CPython (GS_STRESS_ONLY: that check alone): a probe built
  # without sanitizers whatever the build, as the collector runs. Under
  # ASan each caught fault costs a read of /proc/self/maps (its siglongjmp
  # interceptor unpoisons the stack, pthread_getattr_np): at 20 us a signal
  # storm that never lets the program run.
  gs_pyframes_probe(gs_pyframes_probe_plain)
  target_compile_options(gs_pyframes_probe_plain PRIVATE -fno-sanitize=all)
  target_link_options(gs_pyframes_probe_plain PRIVATE -fno-sanitize=all)
  # test_pyframes.py on every CPython the reader supports (3.9-3.13), each
  # found under pyenv or as python3.X on PATH; a missing one is named
  function(gs_pyframes_versions_test name probe)
    add_test(NAME ${name}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/unit/pyframes_versions.sh
                     $<TARGET_FILE:${probe}> ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_pyframes.py)
    set_tests_properties(${name} PROPERTIES LABELS "unit;pyversions" SKIP_RETURN_CODE 77
                                            ENVIRONMENT "${ARGN}")
  endfunction()
  gs_pyframes_versions_test(unit_pyframes_stress gs_pyframes_probe_plain GS_STRESS_ONLY=1)
  # the sampler itself (collector/sampler.c) in a real interpreter: its
  # off-CPU samples of a thread waiting in Python, on every CPython
  add_library(gs_sampler_probe MODULE ${CMAKE_CURRENT_SOURCE_DIR}/unit/sampler_probe.c)
  target_link_libraries(gs_sampler_probe PRIVATE gs_collector_core)
  # as libgapscope.so: the archives' symbols (SQLite's) stay inside
  target_link_options(gs_sampler_probe PRIVATE -Wl,--exclude-libs,ALL)
  set_target_properties(gs_sampler_probe PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME unit_sampler_waits
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/unit/pyframes_versions.sh
                   $<TARGET_FILE:gs_sampler_probe> ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sampler_waits.py)
  set_tests_properties(unit_sampler_waits PROPERTIES LABELS "unit;pyversions" SKIP_RETURN_CODE 77
                                          ENVIRONMENT "${gs_probe_env}")
  gs_pyframes_versions_test(unit_pyframes_versions gs_pyframes_probe ${gs_probe_env})
endif()
