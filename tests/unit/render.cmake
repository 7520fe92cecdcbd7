# Unit tests of the renderers and exporters (helper "html": export, HTML, diff).
# test_export_fixture.c writes the small hand-made trace they all read.
add_library(gs_render_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/test_export_fixture.c)
target_include_directories(gs_render_fixture PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(gs_render_fixture PUBLIC gs_schema)

gs_add_unit_test(test_export_json SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_export_json.c
                 LIBS gs_viewer PkgConfig::JANSSON)
gs_add_unit_test(test_export_chrome SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_export_chrome.c
                 LIBS gs_viewer gs_render_fixture PkgConfig::JANSSON m)
gs_add_unit_test(test_export_csv SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_export_csv.c
                 LIBS gs_viewer gs_render_fixture)
gs_add_unit_test(test_html SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_html.c
                 LIBS gs_viewer gs_render_fixture PkgConfig::JANSSON)
gs_add_unit_test(test_diff SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_diff.c
                 LIBS gs_viewer gs_render_fixture PkgConfig::JANSSON m)
gs_add_unit_test(test_wrap SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_wrap.c LIBS gs_viewer)
