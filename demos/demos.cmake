# The teaching demos: one program per demos/<name>.cu, built as
# <build>/bin/gs_demo_<name>, using the kernels of kernels/ (gs_kernels) and
# NVTX3 (header-only) to name their phases. Only included when CUDA is found.
set(GS_DEMOS graph_conversion false_timing implicit_sync stream_race decode_starvation)
foreach(demo ${GS_DEMOS})
  add_executable(gs_demo_${demo} ${CMAKE_CURRENT_SOURCE_DIR}/${demo}.cu)
  # call sites name the demo's functions (dladdr needs them exported)
  set_target_properties(gs_demo_${demo} PROPERTIES ENABLE_EXPORTS ON)
  target_include_directories(gs_demo_${demo} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(gs_demo_${demo} PRIVATE gs_kernels CUDA::cudart CUDA::nvtx3)
endforeach()
