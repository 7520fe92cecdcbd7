# The collector (included from collector/CMakeLists.txt when CUDA is found).
#
# gs_collector_core: everything that needs only CUPTI's *headers* (config,
#   SQLite writer, record decoding, writer thread, synthetic buffers). No
#   CUDA library is linked, so unit tests and benchmarks run without a GPU.
# gapscope (libgapscope.so): the injection library loaded through
#   CUDA_INJECTION64_PATH; core + collector.c, linked to libcupti only.
#   libcuda is never linked: the process that loads us already has it, and
#   the few driver calls we make are looked up with dlsym at run time.
add_library(gs_collector_core STATIC
            ${CMAKE_CURRENT_SOURCE_DIR}/config.c
            ${CMAKE_CURRENT_SOURCE_DIR}/writer.c
            ${CMAKE_CURRENT_SOURCE_DIR}/decode.c
            ${CMAKE_CURRENT_SOURCE_DIR}/pipeline.c
            ${CMAKE_CURRENT_SOURCE_DIR}/synthetic.c)
target_include_directories(gs_collector_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(gs_collector_core PUBLIC gs_schema SQLite::SQLite3 Threads::Threads)
set_target_properties(gs_collector_core PROPERTIES C_VISIBILITY_PRESET hidden)

