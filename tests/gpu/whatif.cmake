# GPU check of the what-if replay (tests/gpu/whatif_gpu.sh): the predicted
# saving of each demo's pitfall phase against the measured untraced fix,
# within 15%. Label gpu; exit 77 = skipped where there is no GPU. On the GPU
# machine run the script from the repository root: GS_BUILD=build tests/gpu/whatif_gpu.sh
if(GAPSCOPE_HAVE_CUDA)
  add_test(NAME gpu_whatif COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/whatif_gpu.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(gpu_whatif PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR};OUT=${CMAKE_BINARY_DIR}/gpu-out")
endif()
