# CLI test of the multi-trace report (`gapscope report A.db B.db C.db`): three
# ranks written by multi_mkdb with the real schema; the straggler, its lag,
# the others' wait and the clock alignment worked out by hand in
# multi_check.py. Also the CSV files of `report --csv DIR` (processes.csv,
# steps.csv, gaps.csv) and the DuckDB/SQLite straggler query of
# docs/many-traces.md.
add_executable(multi_mkdb ${CMAKE_CURRENT_LIST_DIR}/multi_mkdb.c)
target_link_libraries(multi_mkdb PRIVATE gs_schema gs_sqlite3)
set_target_properties(multi_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check text json nccl hosts dir single bad csv apart capture)
    add_test(NAME cli_multi_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/multi_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/multi_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/multi_${check})
    set_tests_properties(cli_multi_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
