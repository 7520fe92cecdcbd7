# GPU benchmarks (only with the CUDA Toolkit): gs_bench_launch_overhead, the
# short-kernel loop of DESIGN.md. bench/run_overhead.sh runs it untraced and
# under `gapscope record` in one go and prints the ratios.
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_bench_launch_overhead ${CMAKE_CURRENT_SOURCE_DIR}/launch_overhead.cu)
  target_link_libraries(gs_bench_launch_overhead PRIVATE gs_kernels CUDA::cudart)
  # which property of a launch makes tracing dear (bench/overhead_pairs.py
  # --workloads probe)
  add_executable(gs_bench_launch_probe ${CMAKE_CURRENT_SOURCE_DIR}/launch_probe.cu)
  target_link_libraries(gs_bench_launch_probe PRIVATE CUDA::cudart)
  # what recording the runtime's calls costs, by where the records come
  # from: CUPTI's RUNTIME kind or the collector's own callbacks
  # (bench/api_source.py)
  # GPU time per graph node by the node's kernel length (bench/overhead_pairs.py
  # --workloads graph_pitch)
  add_executable(gs_bench_graph_pitch ${CMAKE_CURRENT_SOURCE_DIR}/graph_pitch.cu)
  target_link_libraries(gs_bench_graph_pitch PRIVATE CUDA::cudart)
  # the GPU's time per tiny kernel by what the kernel does, graph nodes and
  # launched kernels (bench/overhead_pairs.py --workloads node_pitch)
  add_executable(gs_bench_node_pitch ${CMAKE_CURRENT_SOURCE_DIR}/node_pitch.cu)
  target_link_libraries(gs_bench_node_pitch PRIVATE CUDA::cudart)
  # from a launch call's entry to its first kernel's start, kernel and graph
  # launches (issue 18: what the correction may take off a graph launch)
  add_executable(gs_bench_launch_delay ${CMAKE_CURRENT_SOURCE_DIR}/launch_delay.cu)
  target_link_libraries(gs_bench_launch_delay PRIVATE CUDA::cudart)
  add_executable(gs_bench_api_source ${CMAKE_CURRENT_SOURCE_DIR}/api_source.cu)
  target_link_libraries(gs_bench_api_source PRIVATE CUDA::cudart CUDA::cupti)
endif()
