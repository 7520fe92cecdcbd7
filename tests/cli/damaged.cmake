# CLI tests of every viewer verb on damaged or hostile traces (helper
# "fuzz"): the real binary on databases written by damaged_mkdb (real schema,
# then damage), checked by damaged_check.py: one line
# "gapscope: <file>: <what>" and exit 2, or exit 0 with the damaged rows
# read as documented - never a crash or a sanitizer report.
add_executable(damaged_mkdb ${CMAKE_CURRENT_LIST_DIR}/damaged_mkdb.c)
target_link_libraries(damaged_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(damaged_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check times info_times graph_size sparse_ids chrome_ids empty_range sums nested_children corrupt_page long_names
                not_regular plain_tables query_limit planner_stats utf16 id_ranges info_recording
                fanout graph_ids messages)
    add_test(NAME cli_damaged_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/damaged_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/damaged_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/damaged_${check})
    set_tests_properties(cli_damaged_${check} PROPERTIES LABELS cli ENVIRONMENT
      "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/graph/lsan.supp:print_suppressions=0")
  endforeach()
  # 20000 kernels x 20000 calls on one correlation id: seconds, not minutes
  set_tests_properties(cli_damaged_fanout PROPERTIES TIMEOUT 120)
endif()
