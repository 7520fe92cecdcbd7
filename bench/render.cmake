# Render benchmark (helper "html"): render_gen writes a synthetic trace of a
# chosen size; bench/run_render_bench.sh times `gapscope html` and
# `gapscope export` on it and prints wall time and peak memory.
add_executable(render_gen ${CMAKE_CURRENT_LIST_DIR}/render_gen.c)
target_link_libraries(render_gen PRIVATE gs_schema)
