# CLI test of call sites: the report names the site of each sync and
# --by-site prints the idle per site (figures worked out by hand in
# callsite_mkdb.c).
add_executable(callsite_mkdb ${CMAKE_CURRENT_LIST_DIR}/callsite_mkdb.c)
target_link_libraries(callsite_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(callsite_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
# --json is checked with Python's json module when there is one
find_package(Python3 COMPONENTS Interpreter)
add_test(NAME cli_report_callsites
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/callsite_check.sh ${CMAKE_BINARY_DIR}/bin/gapscope
                 ${CMAKE_BINARY_DIR}/tests/callsite_mkdb ${CMAKE_CURRENT_BINARY_DIR}/callsite.db
                 "$<$<BOOL:${Python3_Interpreter_FOUND}>:${Python3_EXECUTABLE}>")
set_tests_properties(cli_report_callsites PROPERTIES LABELS cli)
# the overhead correction end to end: meta calibration.* -> corrected figures
# (worked out by hand in correct_check.sh)
add_test(NAME cli_report_corrected
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/correct_check.sh ${CMAKE_BINARY_DIR}/bin/gapscope
                 ${CMAKE_BINARY_DIR}/tests/callsite_mkdb ${CMAKE_CURRENT_BINARY_DIR}/corrected.db)
set_tests_properties(cli_report_corrected PROPERTIES LABELS cli)

# gapscope report --reference: NVTX walls against untraced reference runs
# (worked out by hand in reference_check.py)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_report_reference
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/reference_check.py
                   ${CMAKE_BINARY_DIR}/bin/gapscope $<TARGET_FILE:callsite_mkdb>
                   ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cli_report_reference PROPERTIES LABELS cli)
endif()
