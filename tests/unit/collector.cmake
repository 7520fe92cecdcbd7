# Unit tests of the collector (collector/): config, writer, decode, pipeline.
# They need CUPTI's headers (record layouts) but no GPU and no libcuda.
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_config
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_config.c
                   LIBS gs_collector_core)
  gs_add_unit_test(test_collector_writer
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_writer.c
                   LIBS gs_collector_core gs_viewer)
  gs_add_unit_test(test_collector_decode
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_decode.c
                   LIBS gs_collector_core)
endif()
