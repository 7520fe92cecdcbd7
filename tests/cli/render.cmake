# CLI tests of `gapscope export`, `gapscope html` and `gapscope diff` (helper
# "html"): the real binary on fixture databases written by render_mkdb, with
# the outputs parsed back by Python's json and csv modules (render_check.py).
add_executable(render_mkdb ${CMAKE_CURRENT_LIST_DIR}/render_mkdb.c)
target_link_libraries(render_mkdb PRIVATE gs_render_fixture)
set_target_properties(render_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check export_chrome export_csv export_bad_input)
    add_test(NAME cli_render_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/render_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/render_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/render_${check})
    set_tests_properties(cli_render_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
