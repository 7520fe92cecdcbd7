# Unit tests of `gapscope graph`: the model (pure), the Graphviz renderer and
# the loader (on databases built in the test with the real schema).
gs_add_unit_test(test_graph_model SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_graph_model.c
                 LIBS gs_viewer)
gs_add_unit_test(test_graph_render SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_graph_render.c
                 LIBS gs_viewer)
# libgvc/fontconfig caches are never freed (see the file)
set_tests_properties(test_graph_render PROPERTIES ENVIRONMENT
  "LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/cli/graph/lsan.supp:print_suppressions=0")
gs_add_unit_test(test_graph_trace SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_graph_trace.c
                 LIBS gs_viewer)
target_compile_definitions(test_graph_trace PRIVATE
                           GS_GRAPH_FIXTURES="${CMAKE_SOURCE_DIR}/tests/cli/graph")
# kernel names: demangling and short labels (viewer/trace/names.c)
gs_add_unit_test(test_names SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_names.c LIBS gs_viewer)
