# CLI tests of the viewer on traces recorded with `gapscope record
# --capture-range cudaProfilerApi` (schema v3: capture windows; helper
# "capture"): the real binary on databases written by capture_mkdb,
# figures worked out by hand in capture_check.py. Only the capture windows
# are analysed: the time between them was not recorded.
add_executable(capture_mkdb ${CMAKE_CURRENT_LIST_DIR}/capture_mkdb.c)
target_link_libraries(capture_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(capture_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check figures range nowindows whole damaged verbs advice lead)
    add_test(NAME cli_capture_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/capture_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/capture_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/capture_${check})
    set_tests_properties(cli_capture_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
