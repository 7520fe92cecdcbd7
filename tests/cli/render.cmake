# CLI tests of `gapscope export`, `gapscope html` and `gapscope diff` (helper
# "html"): the real binary on fixture databases written by render_mkdb, with
# the outputs parsed back by Python's json and csv modules (render_check.py).
add_executable(render_mkdb ${CMAKE_CURRENT_LIST_DIR}/render_mkdb.c)
target_link_libraries(render_mkdb PRIVATE gs_render_fixture)
set_target_properties(render_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(check export_chrome export_csv export_bad_input html html_bad_input html_graphs
                diff diff_bad_input diff_ranges)
    add_test(NAME cli_render_${check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/render_check.py ${check}
                     ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/render_mkdb
                     ${CMAKE_CURRENT_BINARY_DIR}/render_${check})
    set_tests_properties(cli_render_${check} PROPERTIES LABELS cli ENVIRONMENT
      "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/render_lsan.supp:print_suppressions=0")
  endforeach()
endif()

# The page in a real browser (headless Chromium): its JavaScript runs without
# error and draws the expected number of timeline elements. Skips (77) when
# Chromium is not installed.
if(Python3_Interpreter_FOUND)
  add_test(NAME browser_render_html
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/browser/check_html.py
                   ${CMAKE_BINARY_DIR}/bin/gapscope ${CMAKE_BINARY_DIR}/tests/render_mkdb
                   ${CMAKE_BINARY_DIR}/bin/render_gen ${CMAKE_CURRENT_BINARY_DIR}/browser_render
                   ${CMAKE_BINARY_DIR}/tests/capture_mkdb)
  set_tests_properties(browser_render_html PROPERTIES LABELS browser SKIP_RETURN_CODE 77
    TIMEOUT 900 ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/render_lsan.supp:print_suppressions=0")
endif()
