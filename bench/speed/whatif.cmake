# What-if benchmark: gs_bench_whatif times the replay (gs_whatif_run) of a
# trace, beside the load and the analysis it needs; bench/speed/run_whatif_bench.sh
# runs it and `gapscope report` on one gs_gen_trace trace.
add_executable(gs_bench_whatif ${CMAKE_CURRENT_LIST_DIR}/whatif_bench.c)
target_link_libraries(gs_bench_whatif PRIVATE gs_trace gs_analysis)
