# GPU tests of the demos (label gpu; exit 77 = skipped where there is no GPU).
# gpu_demo_<name>: the demo alone passes its own correctness checks
#   (checksums against CPU references; exit status 0, no "result: FAIL").
# gpu_demo_<name>_traced: the same under `gapscope record`, and the recorded
#   database holds the demo's phases as NVTX ranges (demos_check_nvtx.py).
set(GS_DEMO_TEST_NAMES graph_conversion false_timing implicit_sync stream_race
    decode_starvation)
foreach(demo ${GS_DEMO_TEST_NAMES})
  if(TARGET gs_demo_${demo})
    set(work ${CMAKE_BINARY_DIR}/tests/gpu_demos)
    add_test(NAME gpu_demo_${demo}
             COMMAND gs_demo_${demo} --quick
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    set_tests_properties(gpu_demo_${demo} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION "result: FAIL")
    if(TARGET gapscope)
      add_test(NAME gpu_demo_${demo}_traced
               COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu/demos_traced.sh
                       ${CMAKE_BINARY_DIR}/bin ${demo} ${work})
      set_tests_properties(gpu_demo_${demo}_traced PROPERTIES
        LABELS gpu SKIP_RETURN_CODE 77)
    endif()
  endif()
endforeach()
