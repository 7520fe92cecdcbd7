# Report benchmark (helper "analysis"): gs_gen_trace writes a synthetic
# 10M-kernel trace; bench/run_report_bench.sh times `gapscope report` on it
# against one sqlite3 scan of the kernel table and prints both.
add_executable(gs_gen_trace ${CMAKE_CURRENT_LIST_DIR}/gen_trace.c)
target_link_libraries(gs_gen_trace PRIVATE gs_schema gs_sqlite3)
