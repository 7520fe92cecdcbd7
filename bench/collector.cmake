# Collector benchmarks (programs that print figures; run them by hand).
if(TARGET gs_collector_core)
  add_executable(writer_throughput ${CMAKE_CURRENT_SOURCE_DIR}/writer_throughput.c)
  target_link_libraries(writer_throughput PRIVATE gs_collector_core)
endif()
if(TARGET gs_collector_core)
  add_executable(callsite_capture ${CMAKE_CURRENT_SOURCE_DIR}/callsite_capture.c)
  target_link_libraries(callsite_capture PRIVATE gs_collector_core)
endif()
# What a call-site capture's parts cost inside a Python program
# (bench/callsite_python.py loads it with ctypes).
if(TARGET gs_collector_core)
  add_library(gs_bench_callsite_py MODULE ${CMAKE_CURRENT_SOURCE_DIR}/callsite_python.c)
  target_link_libraries(gs_bench_callsite_py PRIVATE gs_collector_core)
  set_target_properties(gs_bench_callsite_py PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                                        ${CMAKE_BINARY_DIR}/lib)
  # the static archives' symbols stay local, as in libgapscope.so (Debian's
  # libsqlite3.a cannot go into a shared object otherwise)
  target_link_options(gs_bench_callsite_py PRIVATE -Wl,--exclude-libs,ALL)
endif()
