# CLI test of `gapscope whatif` (tests/cli/whatif_check.py): a hand-built
# Kineto trace imported, replayed unchanged and with a fix, the replayed
# trace written and read back, bad input refused; values worked out by hand.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_whatif
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/whatif_check.py
                   $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_BINARY_DIR}/whatif)
  set_tests_properties(cli_whatif PROPERTIES LABELS cli)
endif()
