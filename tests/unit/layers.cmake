# The viewer's rooms link only downward and only trace/ knows SQLite
# (viewer/CMakeLists.txt); check_layers.sh checks the includes.
add_test(NAME viewer_layers COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_layers.sh
                                    ${CMAKE_SOURCE_DIR}/viewer)
set_tests_properties(viewer_layers PROPERTIES LABELS unit)
