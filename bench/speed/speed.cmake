# gapscope's own speed, no GPU needed: the collector's writer and call-site
# capture, and the report, render and import of synthetic traces.
if(TARGET gs_collector_core)
  # records a second through the writer (bench/speed/run_writer_bench.sh)
  add_executable(writer_throughput ${CMAKE_CURRENT_LIST_DIR}/writer_throughput.c)
  target_link_libraries(writer_throughput PRIVATE gs_collector_core)
  add_executable(callsite_capture ${CMAKE_CURRENT_LIST_DIR}/callsite_capture.c)
  target_link_libraries(callsite_capture PRIVATE gs_collector_core)
  # What a call-site capture's parts cost inside a Python program
  # (bench/speed/callsite_python.py loads it with ctypes).
  add_library(gs_bench_callsite_py MODULE ${CMAKE_CURRENT_LIST_DIR}/callsite_python.c)
  target_link_libraries(gs_bench_callsite_py PRIVATE gs_collector_core)
  set_target_properties(gs_bench_callsite_py PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                                        ${CMAKE_BINARY_DIR}/lib)
  # the static archives' symbols stay local, as in libgapscope.so (Debian's
  # libsqlite3.a cannot go into a shared object otherwise)
  target_link_options(gs_bench_callsite_py PRIVATE -Wl,--exclude-libs,ALL)
endif()
# gs_gen_trace writes a synthetic 10M-kernel trace;
# bench/speed/run_report_bench.sh times `gapscope report` on it against one
# sqlite3 scan of the kernel table and prints both.
add_executable(gs_gen_trace ${CMAKE_CURRENT_LIST_DIR}/gen_trace.c)
target_link_libraries(gs_gen_trace PRIVATE gs_schema gs_sqlite3)
# render_gen writes a synthetic trace of a chosen size;
# bench/speed/run_render_bench.sh times `gapscope html` and `gapscope export`
# on it and prints wall time and peak memory.
add_executable(render_gen ${CMAKE_CURRENT_LIST_DIR}/render_gen.c)
target_link_libraries(render_gen PRIVATE gs_schema)
