# Issue 57: gapscope on two GPUs (label gpu). gs_peer_devices
# (peer_devices.cu) makes peer copies with peer access on and off, a wait of
# device 1 for device 0's op and a graph of two devices; two_gpu.sh records
# it and a torchrun DDP job with the NCCL backend (bench/real/ddp_nccl.py,
# rank 1 slowed by a known delay), each rank by `gapscope record`, and checks
# them (check_two_gpu.py). gpu_two_gpu skips (77) with fewer than two GPUs;
# gpu_two_gpu_one runs the one-GPU path (one rank; both "devices" device 0)
# on any GPU. On the GPU machine run the script from the repository root:
#   GS_BUILD=build OUT=out tests/gpu/two_gpu.sh [--one-gpu]
if(GAPSCOPE_HAVE_CUDA)
  add_executable(gs_peer_devices ${CMAKE_CURRENT_LIST_DIR}/peer_devices.cu)
  target_link_libraries(gs_peer_devices PRIVATE CUDA::cudart CUDA::nvtx3)
  set_target_properties(gs_peer_devices PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  foreach(mode two one)
    if(mode STREQUAL "one")
      set(arg --one-gpu)
      set(name gpu_two_gpu_one)
    else()
      set(arg "")
      set(name gpu_two_gpu)
    endif()
    add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/two_gpu.sh ${arg}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(${name} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77
      ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR};OUT=${CMAKE_BINARY_DIR}/gpu-out")
  endforeach()
endif()
