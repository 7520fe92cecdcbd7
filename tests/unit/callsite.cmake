# Call sites of blocking calls (collector/callsite.c): interning, dladdr
# symbols, the Python-frame reader with a fake CPython API, writer rows.
if(TARGET gs_collector_core)
  gs_add_unit_test(test_collector_callsite
                   SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_collector_callsite.c
                   LIBS gs_collector_core)
  # the test resolves one of its own functions with dladdr
  set_target_properties(test_collector_callsite PROPERTIES ENABLE_EXPORTS ON)
endif()
