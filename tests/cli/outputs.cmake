# CLI tests of gapscope's outputs and terminal lines (issue 23): a failed or
# interrupted write never removes or changes the old output, devices and
# stdout are never unlinked, Graphviz write errors end in one line, trace
# strings and file names reach the terminal escaped, CSV cells that a
# spreadsheet would run are neutralised (outputs_check.py).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check html html_graphs export export_csv graph terminal record stdout)
    add_test(NAME cli_outputs_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/outputs_check.py ${check}
                     $<TARGET_FILE:gapscope> ${CMAKE_BINARY_DIR}/tests/render_mkdb
                     $<TARGET_FILE:graph_mkdb> ${CMAKE_CURRENT_BINARY_DIR}/outputs_${check})
    set_tests_properties(cli_outputs_${check} PROPERTIES LABELS cli ENVIRONMENT
      "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/graph/lsan.supp:print_suppressions=0")
  endforeach()
endif()
