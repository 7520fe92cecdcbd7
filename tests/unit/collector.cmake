# Unit tests of the collector (collector/): config, writer, decode, pipeline,
# the threads' CPU time.
# They need CUPTI's headers (record layouts) but no GPU and no libcuda.
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_config
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_config.c
                   LIBS gs_collector_core)
  gs_add_unit_test(test_collector_writer
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_writer.c
                   LIBS gs_collector_core gs_viewer)
  gs_add_unit_test(test_collector_writer_batch
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_writer_batch.c
                   LIBS gs_collector_core)
  gs_add_unit_test(test_collector_decode
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_decode.c
                   LIBS gs_collector_core)
  gs_add_unit_test(test_collector_threadcpu
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_threadcpu.c
                   LIBS gs_collector_core)
endif()
if(TARGET gapscope_collector)
  # Loads the real libgapscope.so (path baked in: it runs from the build tree).
  gs_add_unit_test(test_collector_inject
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_inject.c
                   LIBS SQLite::SQLite3 ${CMAKE_DL_LIBS})
  target_compile_definitions(test_collector_inject
                             PRIVATE GS_LIBGAPSCOPE="$<TARGET_FILE:gapscope_collector>")
  add_dependencies(test_collector_inject gapscope_collector)
endif()
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_pipeline
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_pipeline.c
                   LIBS gs_collector_core)
endif()
# The sampler of launching threads (collector/sampler.c): real timers and
# signals on this machine, native frames, samples rows.
# The sampler's fault guard (collector/sigguard.c): guarded faults come
# back, every other one is the program's.
if(TARGET gs_collector_core)
  gs_add_unit_test(test_sigguard SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sigguard.c
                   LIBS gs_collector_core)
endif()
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_sampler
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_sampler.c
                   LIBS gs_collector_core)
endif()
