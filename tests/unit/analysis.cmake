# Unit tests of the analysis library (viewer/analysis*.c): synthetic
# timelines, answers computed by hand in the test.
gs_add_unit_test(test_analysis SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c LIBS gs_viewer)
