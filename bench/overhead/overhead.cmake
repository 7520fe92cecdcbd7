# What tracing costs the traced program (only with the CUDA Toolkit).
# gs_bench_launch_overhead: the short-kernel loop of DESIGN.md;
# bench/overhead/run_overhead.sh runs it untraced and under `gapscope record`
# in one go and prints the ratios.
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_bench_launch_overhead ${CMAKE_CURRENT_LIST_DIR}/launch_overhead.cu)
  target_link_libraries(gs_bench_launch_overhead PRIVATE gs_kernels CUDA::cudart)
  # which property of a launch makes tracing dear (bench/overhead/overhead_pairs.py
  # --workloads probe)
  add_executable(gs_bench_launch_probe ${CMAKE_CURRENT_LIST_DIR}/launch_probe.cu)
  target_link_libraries(gs_bench_launch_probe PRIVATE CUDA::cudart)
  # what recording the runtime's calls costs, by where the records come
  # from: CUPTI's RUNTIME kind or the collector's own callbacks
  # (bench/overhead/api_source.py)
  add_executable(gs_bench_api_source ${CMAKE_CURRENT_LIST_DIR}/api_source.cu)
  target_link_libraries(gs_bench_api_source PRIVATE CUDA::cudart CUDA::cupti)
endif()
# libgs_sampler.so: a wall-clock sampler of one thread, by library and symbol
# (bench/overhead/sampler.c), for finding where tracing adds time to the
# launching thread where perf is missing. Preloaded by hand; see sampler.c.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_library(gs_sampler SHARED ${CMAKE_CURRENT_LIST_DIR}/sampler.c)
  target_compile_options(gs_sampler PRIVATE -Wno-missing-prototypes)
  target_link_libraries(gs_sampler PRIVATE ${CMAKE_DL_LIBS} rt)
  set_target_properties(gs_sampler PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  # what the kernel's side of one sample of the collector's sampler costs,
  # by source (perf_event, CPU-time timer): bench/overhead/sample_signal_cost.c
  add_executable(gs_bench_sample_signal_cost ${CMAKE_CURRENT_LIST_DIR}/sample_signal_cost.c)
  target_link_libraries(gs_bench_sample_signal_cost PRIVATE rt)
endif()
