# gs_gap_phases (gap_phases.cu): a CUDA program whose phases, one NVTX range
# each, have a designed idle-gap cause (host code, launch latency, sync wait,
# dependency, graph-internal), for checking gap model v2 on a real trace. No
# ctest of its own: tools/gpu-realprogs.sh records it on the GPU machine.
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_gap_phases ${CMAKE_CURRENT_LIST_DIR}/gap_phases.cu)
  target_link_libraries(gs_gap_phases PRIVATE CUDA::cudart CUDA::nvtx3)
  set_target_properties(gs_gap_phases PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endif()
