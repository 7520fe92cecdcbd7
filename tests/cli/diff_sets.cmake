# CLI test of `gapscope diff before/ after/` (two sets of traces, one per
# rank): the before set is multi_mkdb's three ranks, the after set the same
# with rank 2 less late (multi_mkdb ... early); every figure worked out by
# hand in diff_sets_check.py. The multi_mkdb target is multi.cmake's.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check text json lists only bad single)
    add_test(NAME cli_diff_sets_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/diff_sets_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/multi_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/diff_sets_${check})
    set_tests_properties(cli_diff_sets_${check} PROPERTIES LABELS cli)
  endforeach()
endif()
