# Unit tests of the output helper (viewer/render/out_file.c) and the
# terminal sanitizer (viewer/render/term.c).
gs_add_unit_test(test_out_file SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_out_file.c LIBS gs_render)
