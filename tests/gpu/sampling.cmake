# GPU test of the sampling of launching threads and of what the report names
# in host code (tests/gpu/sampling_gpu.sh; needs PyTorch with CUDA).
if(GAPSCOPE_HAVE_CUDA)
  add_test(NAME gpu_sampling COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sampling_gpu.sh --no-pairs)
  set_tests_properties(gpu_sampling PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "GS_BUILD=${CMAKE_BINARY_DIR}")
endif()
