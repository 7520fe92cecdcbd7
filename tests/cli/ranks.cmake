# CLI tests of ranks: torch.profiler traces whose distributedInfo names the
# rank, imported and then labelled and paired by rank in the multi-trace
# report, its CSV, `info` and `gapscope diff` of two sets; the straggler
# evidence rule (3 steps, a lag above the step-to-step spread) on a job
# written by ranks_check.py and on HTA's two sampled ranks (2 steps: none
# named). Every figure worked out by hand in ranks_check.py.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check report csv info diff hta)
    add_test(NAME cli_ranks_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ranks_check.py ${check}
                     $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_LIST_DIR}/kineto/hta
                     ${CMAKE_CURRENT_BINARY_DIR}/ranks_${check})
    # hta: exit 77 (skipped) where the two sampled ranks are not there
    set_tests_properties(cli_ranks_${check} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
  endforeach()
endif()
