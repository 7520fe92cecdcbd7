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
# How exactly the unchanged replay gives real traces back (tests/cli/
# whatif_real_check.py): the bundled sample and HTA's four torch.profiler
# traces, ops and windows counted from the traces themselves, 0 ns stated.
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_whatif_real
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/whatif_real_check.py
                   $<TARGET_FILE:gapscope> ${CMAKE_SOURCE_DIR}/samples/h200-decode-starvation.db
                   ${CMAKE_CURRENT_LIST_DIR}/kineto/hta ${CMAKE_CURRENT_BINARY_DIR}/whatif_real)
  set_tests_properties(cli_whatif_real PROPERTIES LABELS cli)
endif()
