# Unit tests of the analysis library (viewer/analysis*.c): synthetic
# timelines, answers computed by hand in the test.
gs_add_unit_test(test_analysis SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_analysis.c LIBS gs_viewer)
# The trace loader (viewer/trace/trace_load.c) on small databases written by the
# test: rowid holes, negative and far-spread rowids, damaged rows.
gs_add_unit_test(test_trace_load SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace_load.c
                 LIBS gs_viewer gs_schema)
# The verdict (viewer/analysis/verdict.c): every rule just at and just under its
# threshold, the order and the cap of the findings, on hand-built timelines.
gs_add_unit_test(test_verdict SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_verdict.c LIBS gs_viewer)
# The overhead correction (viewer/analysis/correct.c) on a hand-built timeline:
# each gap's and kernel's share of the collector's calibrated cost.
gs_add_unit_test(test_correct SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_correct.c LIBS gs_viewer)
gs_add_unit_test(test_reference SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reference.c LIBS gs_viewer)
# What the verdict's rules check before their fixes (viewer/analysis/advice.c,
# verdict.c): phases, host code split, DataLoader, capture blockers,
# communication, a calibrated trace's tracing cost, on hand-built timelines.
gs_add_unit_test(test_advice SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_advice.c LIBS gs_viewer)
# What the host ran in host code (host_attr.c) and the samples' loader
# (trace_samples.c)
gs_add_unit_test(test_host_attr SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_attr.c
                 LIBS gs_viewer SQLite::SQLite3)
