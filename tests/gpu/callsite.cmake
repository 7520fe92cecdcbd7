# GPU test of call sites (tests/gpu/callsite_gpu.sh): a CUDA program whose
# cudaMemcpy is made from a named function, exported so dladdr names it.
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_callsite_copy ${CMAKE_CURRENT_LIST_DIR}/callsite_copy.cu)
  set_target_properties(gs_callsite_copy PROPERTIES ENABLE_EXPORTS ON
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  add_test(NAME gpu_callsites COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/callsite_gpu.sh)
  set_tests_properties(gpu_callsites PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR}")
endif()
