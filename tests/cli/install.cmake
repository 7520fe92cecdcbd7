# Installing gapscope (packaging/install.cmake), no GPU needed:
#  - cli_install_staged: `cmake --install` into a staging folder (DESTDIR),
#    then the installed gapscope reports on the H200 sample, prints its
#    version, and `record --help` names the installed collector (where CUDA
#    built one); the man pages (where scdoc built them) and the bash
#    completion are in place; the files installed are those docs/install.md's
#    `dpkg -c` listing of the package names.
#  - cli_install_docs_match_help: every verb and every option a verb's --help
#    lists is in its man page source (docs/man/) and in the bash completion.
add_test(NAME cli_install_staged
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_check.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/tests/install-stage ${CMAKE_INSTALL_PREFIX}
                 ${CMAKE_INSTALL_BINDIR} ${GAPSCOPE_INSTALL_LIBDIR} ${CMAKE_INSTALL_MANDIR}
                 ${CMAKE_INSTALL_DATADIR} ${PROJECT_SOURCE_DIR}/samples/h200-decode-starvation.db
                 ${GAPSCOPE_HAVE_CUDA} ${GAPSCOPE_HAVE_MAN} ${PROJECT_VERSION}
                 ${PROJECT_SOURCE_DIR}/docs/install.md)
set_tests_properties(cli_install_staged PROPERTIES LABELS cli)
add_test(NAME cli_install_docs_match_help
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_docs_check.sh $<TARGET_FILE:gapscope>
                 ${PROJECT_SOURCE_DIR}/docs/man ${PROJECT_SOURCE_DIR}/packaging/gapscope.bash-completion)
set_tests_properties(cli_install_docs_match_help PROPERTIES LABELS cli)
