# libgs_sampler.so: a wall-clock sampler of one thread, by library and symbol
# (bench/sampler.c), for finding where tracing adds time to the launching
# thread where perf is missing. Preloaded by hand; see bench/sampler.c.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_library(gs_sampler SHARED sampler.c)
  target_compile_options(gs_sampler PRIVATE -Wno-missing-prototypes)
  target_link_libraries(gs_sampler PRIVATE ${CMAKE_DL_LIBS} rt)
  set_target_properties(gs_sampler PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
endif()
