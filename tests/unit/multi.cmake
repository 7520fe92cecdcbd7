# The multi-trace comparison (viewer/analysis/multi.c): hand-built per-rank
# step and communication tables, stragglers and waits worked out by hand.
gs_add_unit_test(test_multi SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_multi.c LIBS gs_viewer)
