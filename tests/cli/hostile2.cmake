# CLI tests of issue 55, "Hostile inputs, round 2" (hostile2_check.py): the
# importers under the trace verbs' defences, special files as outputs, output
# errors and signals, stream ids, overflowing sums, Kineto events without dur,
# record --activities and the collector's warnings.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check import_guard special_outputs output_errors permissions long_names signals stream_ids sums kineto_no_dur record_activities)
    add_test(NAME cli_hostile2_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/hostile2_check.py ${check}
                     $<TARGET_FILE:gapscope> ${CMAKE_BINARY_DIR}/tests/render_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/hostile2_${check} $<TARGET_FILE:graph_mkdb>)
    set_tests_properties(cli_hostile2_${check} PROPERTIES LABELS cli TIMEOUT 600 ENVIRONMENT
      "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/graph/lsan.supp:print_suppressions=0")
  endforeach()
endif()
