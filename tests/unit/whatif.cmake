# The what-if replay model (viewer/analysis/whatif*.c) on hand-built
# timelines: the unchanged replay gives them back, and each fix saves what
# the comments work out by hand.
gs_add_unit_test(test_whatif SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_whatif.c LIBS gs_viewer)
