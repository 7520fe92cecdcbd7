# The collector's GPU tests (label gpu): collector_smoke.cu, a CUDA program
# with known counts, recorded and checked by run_gpu_tests.sh (which also
# records tests/gpu/torch_smoke.py and the fault cases). The script exits 77
# where there is no GPU, which ctest reports as skipped. On the GPU machine,
# run the script itself from the repository root (paths baked in here do not
# exist there): GS_BUILD=build OUT=out tests/gpu/run_gpu_tests.sh
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_collector_smoke ${CMAKE_CURRENT_LIST_DIR}/collector_smoke.cu)
  target_link_libraries(gs_collector_smoke PRIVATE gs_kernels CUDA::cudart CUDA::nvtx3)
  set_target_properties(gs_collector_smoke PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_executable(gs_capture_range ${CMAKE_CURRENT_LIST_DIR}/capture_range.cu)
  target_link_libraries(gs_capture_range PRIVATE CUDA::cudart)
  set_target_properties(gs_capture_range PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME gpu_collector
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_gpu_tests.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(gpu_collector PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77
    ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR};OUT=${CMAKE_BINARY_DIR}/gpu-out")
endif()
