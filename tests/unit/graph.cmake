# Unit tests of `gapscope graph`: the model (pure), the Graphviz renderer and
# the loader (on databases built in the test with the real schema).
gs_add_unit_test(test_graph_model SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_graph_model.c
                 LIBS gs_viewer)
