# Unit tests of the analysis library (viewer/analysis*.c): synthetic
# timelines, answers computed by hand in the test.
gs_add_unit_test(test_analysis SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c LIBS gs_viewer)
# The trace loader (viewer/trace/trace_load.c) on small databases written by the
# test: rowid holes, negative and far-spread rowids, damaged rows.
gs_add_unit_test(test_trace_load SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace_load.c
                 LIBS gs_viewer gs_schema)
