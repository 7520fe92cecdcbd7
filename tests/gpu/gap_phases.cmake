# gs_gap_phases (gap_phases.cu): a CUDA program whose phases, one NVTX range
# each, have a designed idle-gap cause (host code, launch latency, sync wait,
# dependency, graph-internal), for checking gap model v2 on a real trace:
# gpu_gap_phases (label gpu) records it and checks each phase's causes
# (check_gap_phases.py); it skips where there is no GPU. On the GPU machine,
# run the script from the repository root: GS_BUILD=build tests/gpu/gap_phases_gpu.sh
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_gap_phases ${CMAKE_CURRENT_LIST_DIR}/gap_phases.cu)
  target_link_libraries(gs_gap_phases PRIVATE CUDA::cudart CUDA::nvtx3)
  set_target_properties(gs_gap_phases PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME gpu_gap_phases COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gap_phases_gpu.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(gpu_gap_phases PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77
    ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR};OUT=${CMAKE_BINARY_DIR}/gpu-out")
endif()
