# What the GPU and the launch path take per op, untraced and traced: the
# figures the overhead correction takes off (only with the CUDA Toolkit).
if(GAPSCOPE_HAVE_CUDA)
  # GPU time per graph node by the node's kernel length
  # (bench/overhead/overhead_pairs.py --workloads graph_pitch)
  add_executable(gs_bench_graph_pitch ${CMAKE_CURRENT_LIST_DIR}/graph_pitch.cu)
  target_link_libraries(gs_bench_graph_pitch PRIVATE CUDA::cudart)
  # the GPU's time per tiny kernel by what the kernel does, graph nodes and
  # launched kernels (bench/overhead/overhead_pairs.py --workloads node_pitch)
  add_executable(gs_bench_node_pitch ${CMAKE_CURRENT_LIST_DIR}/node_pitch.cu)
  target_link_libraries(gs_bench_node_pitch PRIVATE CUDA::cudart)
  # from a launch call's entry to its first kernel's start, kernel and graph
  # launches (issue 18: what the correction may take off a graph launch)
  add_executable(gs_bench_launch_delay ${CMAKE_CURRENT_LIST_DIR}/launch_delay.cu)
  target_link_libraries(gs_bench_launch_delay PRIVATE CUDA::cudart)
endif()
