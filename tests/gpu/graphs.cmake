# GPU test of CUDA graph recording (issue 6; label gpu, exit 77 = skipped
# where there is no GPU): tests/gpu/graphs_gpu.sh records the graph-conversion
# demo and tests/gpu/torch_cudagraph.py and checks the recorded graphs with
# tests/gpu/check_graphs.py (against the demo's cudaGraphDebugDotPrint files).
# On the GPU machine run the script itself from the repository root (paths
# baked in here do not exist there):
#   GS_BUILD=build OUT=out tests/gpu/graphs_gpu.sh
if(TARGET gs_demo_graph_conversion AND TARGET gapscope)
  add_test(NAME gpu_graphs
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/graphs_gpu.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(gpu_graphs PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77
    ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR};OUT=${CMAKE_BINARY_DIR}/gpu-out")
endif()
