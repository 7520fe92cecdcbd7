# CLI tests of `gapscope report` (helper "analysis"): the real binary on
# small databases written with the real schema by report_mkdb; figures
# checked against values worked out by hand in report_check.py (text output
# by pattern, --json parsed by Python's json module).
add_executable(report_mkdb ${CMAKE_CURRENT_LIST_DIR}/report_mkdb.c)
target_link_libraries(report_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(report_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check text json deps hostpause polls longnames range outside skip range_nomatch options bad_input)
    add_test(NAME cli_report_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/report_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/report_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/report_${check})
    set_tests_properties(cli_report_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
