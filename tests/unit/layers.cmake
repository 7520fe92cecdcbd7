# The viewer's rooms link only downward and only trace/ knows SQLite
# (viewer/CMakeLists.txt); check_layers.sh checks the includes.
add_test(NAME viewer_layers COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_layers.sh
                                    ${CMAKE_SOURCE_DIR}/viewer)
set_tests_properties(viewer_layers PROPERTIES LABELS unit)
# No two files of viewer/ or collector/ include or call each other in a loop
# (CONVENTIONS.md): check_cycles.py reads the sources, so the collector is
# covered where no CUDA Toolkit builds it. source_cycles_checker runs it on
# a fixture with one loop of each kind, whose report is known by hand.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME source_cycles COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_cycles.py
                                      ${CMAKE_SOURCE_DIR}/viewer ${CMAKE_SOURCE_DIR}/collector)
  add_test(NAME source_cycles_checker
           COMMAND bash -c "out=$(\"$0\" \"$1\" \"$2\"); rc=$?; [ $rc = 1 ] && diff \"$3\" - <<<\"$out\""
                   ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_cycles.py
                   ${CMAKE_CURRENT_LIST_DIR}/cycles_fixture
                   ${CMAKE_CURRENT_LIST_DIR}/cycles_fixture/expected.txt)
  set_tests_properties(source_cycles source_cycles_checker PROPERTIES LABELS unit)
  # No file of viewer/ or collector/ over 1,200 lines without a "Why one
  # file" paragraph at its top (CONVENTIONS.md). source_sizes_checker: with
  # a limit of 5 lines, the fixture's a.c (7 lines) and b.c (6) have none
  # (cycles_fixture/sizes_expected.txt).
  add_test(NAME source_sizes COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_sizes.py
                                     ${CMAKE_SOURCE_DIR}/viewer ${CMAKE_SOURCE_DIR}/collector)
  add_test(NAME source_sizes_checker
           COMMAND bash -c "out=$(\"$0\" \"$1\" --limit 5 \"$2\"); rc=$?; [ $rc = 1 ] && diff \"$3\" - <<<\"$out\""
                   ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_sizes.py
                   ${CMAKE_CURRENT_LIST_DIR}/cycles_fixture
                   ${CMAKE_CURRENT_LIST_DIR}/cycles_fixture/sizes_expected.txt)
  set_tests_properties(source_sizes source_sizes_checker PROPERTIES LABELS unit)
endif()
