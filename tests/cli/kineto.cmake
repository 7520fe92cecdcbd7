# CLI tests of `gapscope import` (Kineto / torch.profiler Chrome trace JSON,
# and Nsight Systems SQLite exports: nsys_check.py):
# the real binary on the hand-written fixtures in tests/cli/kineto/, with
# the rows, `info --json` and `report --json` checked against values worked
# out by hand in kineto_check.py; hostile JSON ends in one line and exit 2
# and leaves an existing output as it was.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check basic gzip quirks hostile atomic verbs legacy waits hostops)
    add_test(NAME cli_import_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kineto_check.py ${check}
                     $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_LIST_DIR}/kineto
                     ${CMAKE_CURRENT_BINARY_DIR}/import_${check})
    set_tests_properties(cli_import_${check} PROPERTIES LABELS cli)
  endforeach()
  # real torch.profiler traces (HTA's test data, tests/cli/kineto/hta/)
  add_test(NAME cli_import_real_report
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kineto_real_check.py
                   $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_LIST_DIR}/kineto/hta
                   ${CMAKE_CURRENT_BINARY_DIR}/import_real)
  set_tests_properties(cli_import_real_report PROPERTIES LABELS cli)
  # Nsight Systems SQLite exports, written by nsys_check.py as nsys 2024.6
  # and 2025.5 lay them out; bad, hostile and mutated ones
  foreach(check v2024 v2025 bad processes mutated)
    add_test(NAME cli_import_nsys_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/nsys_check.py ${check}
                     $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_BINARY_DIR}/import_nsys_${check})
    set_tests_properties(cli_import_nsys_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
