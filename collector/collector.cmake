# The collector (included from collector/CMakeLists.txt when CUDA is found).
#
# gs_collector_core: everything that needs only CUPTI's *headers* (config,
#   SQLite writer, record decoding, writer thread, synthetic buffers). No
#   CUDA library is linked, so unit tests and benchmarks run without a GPU.
# gapscope_collector (<build>/lib/libgapscope.so; the target name differs
#   from the file name because `gapscope` is the CLI executable): the injection library loaded through
#   CUDA_INJECTION64_PATH; core + collector.c, linked to libcupti only.
#   libcuda is never linked: the process that loads us already has it, and
#   the few driver calls we make are looked up with dlsym at run time.
add_library(gs_collector_core STATIC
            ${CMAKE_CURRENT_SOURCE_DIR}/activities.c
            ${CMAKE_CURRENT_SOURCE_DIR}/config.c
            ${CMAKE_CURRENT_SOURCE_DIR}/log.c
            ${CMAKE_CURRENT_SOURCE_DIR}/writer.c
            ${CMAKE_CURRENT_SOURCE_DIR}/writer_rows.c
            ${CMAKE_CURRENT_SOURCE_DIR}/writer_finalize.c
            ${CMAKE_CURRENT_SOURCE_DIR}/decode.c
            ${CMAKE_CURRENT_SOURCE_DIR}/pipeline.c
            ${CMAKE_CURRENT_SOURCE_DIR}/synthetic.c
            ${CMAKE_CURRENT_SOURCE_DIR}/threadcpu.c
            ${CMAKE_CURRENT_SOURCE_DIR}/callsite.c
            ${CMAKE_CURRENT_SOURCE_DIR}/pyframes.c
            ${CMAKE_CURRENT_SOURCE_DIR}/sigguard.c
            ${CMAKE_CURRENT_SOURCE_DIR}/sampler.c)
target_include_directories(gs_collector_core PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(gs_collector_core PUBLIC gs_schema gs_sqlite3 Threads::Threads
                      ${CMAKE_DL_LIBS})
set_target_properties(gs_collector_core PROPERTIES C_VISIBILITY_PRESET hidden)


add_library(gapscope_collector SHARED ${CMAKE_CURRENT_SOURCE_DIR}/collector.c)
target_link_libraries(gapscope_collector PRIVATE gs_collector_core CUDA::cupti gs_sqlite3
                      Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(gapscope_collector PROPERTIES C_VISIBILITY_PRESET hidden OUTPUT_NAME gapscope)
# Keep the static archives' symbols (gs_writer_*, gs_schema_*) out of the
# dynamic symbol table: only the injection entry points are exported.
target_link_options(gapscope_collector PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)

# gapscope-calibrate (<build>/lib/gapscope-calibrate, installed beside
# libgapscope.so): measures what tracing costs on this GPU; `gapscope record`
# runs it before the program and the collector stores its figures in meta.
# It compiles activities.c itself (the kinds the recording enables) rather
# than linking the core: its link is CUDA's, without the sanitizers that a
# GAPSCOPE_SANITIZE build puts into the core's C objects.
add_executable(gapscope_calibrate ${CMAKE_CURRENT_SOURCE_DIR}/calibrate.cu
               ${CMAKE_CURRENT_SOURCE_DIR}/activities.c)
target_include_directories(gapscope_calibrate PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                           ${CMAKE_CURRENT_SOURCE_DIR}/include ${CUDAToolkit_INCLUDE_DIRS})
target_compile_options(gapscope_calibrate PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-sanitize=all>)
target_link_libraries(gapscope_calibrate PRIVATE CUDA::cudart CUDA::cupti CUDA::cuda_driver)
set_target_properties(gapscope_calibrate PROPERTIES OUTPUT_NAME gapscope-calibrate
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
