# CLI tests of `gapscope graph`: tests/cli/graph/run.sh runs the real binary
# on databases that graph_mkdb builds with the real schema from the fixture
# SQL files in tests/cli/graph/ (expected figures worked out there by hand).
add_executable(graph_mkdb ${CMAKE_CURRENT_LIST_DIR}/graph_mkdb.c)
target_link_libraries(graph_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(graph_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

foreach(case list hidden empty svg_stats png_child collapse_off dot_stdout hostile streams bad_input
        help)
  add_test(NAME cli_graph_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/graph/run.sh $<TARGET_FILE:gapscope>
                   $<TARGET_FILE:graph_mkdb> ${CMAKE_BINARY_DIR}/tests/cli-graph/${case} ${case})
  set_tests_properties(cli_graph_${case} PROPERTIES LABELS cli ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/graph/lsan.supp:print_suppressions=0")
endforeach()
