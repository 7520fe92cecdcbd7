# Collector benchmarks (programs that print figures; run them by hand).
if(TARGET gs_collector_core)
  add_executable(writer_throughput ${CMAKE_CURRENT_SOURCE_DIR}/writer_throughput.c)
  target_link_libraries(writer_throughput PRIVATE gs_collector_core)
endif()
if(TARGET gs_collector_core)
  add_executable(callsite_capture ${CMAKE_CURRENT_SOURCE_DIR}/callsite_capture.c)
  target_link_libraries(callsite_capture PRIVATE gs_collector_core)
endif()
