# CLI tests on the corpus of real public traces (tests/cli/corpus/, docs/corpus.md):
# every trace imported and reported; cli_corpus_figures holds each device's
# window and busy time to the ns against corpus_facts.py's own reading of the
# JSON; cli_corpus_advice holds the verdict to the constraints of
# tests/cli/corpus/expected.json (what it must and must not say, each with
# the trace's facts that make it so). The traces are built by
# tools/corpus_fetch.py into GAPSCOPE_CORPUS_DIR; without them both tests
# are skipped (exit 77), never passed.
# The traces are public data from other projects, which this repository does
# not commit: they are built here by tools/corpus_fetch.py, or laid by the
# maintainers in the steering repo's shared/corpus/ (beside the checkout, as
# CI has it), which is used when the build folder has none.
set(_corpus_default "${CMAKE_CURRENT_LIST_DIR}/corpus/traces")
if(NOT EXISTS "${_corpus_default}" AND EXISTS "${CMAKE_SOURCE_DIR}/../shared/corpus")
  set(_corpus_default "${CMAKE_SOURCE_DIR}/../shared/corpus")
endif()
set(GAPSCOPE_CORPUS_DIR "${_corpus_default}" CACHE PATH
    "folder of the corpus traces built by tools/corpus_fetch.py")
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(mode figures advice)
    add_test(NAME cli_corpus_${mode}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/corpus_check.py ${mode}
                     $<TARGET_FILE:gapscope> ${CMAKE_CURRENT_LIST_DIR}/corpus/expected.json
                     ${GAPSCOPE_CORPUS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/corpus_${mode})
    set_tests_properties(cli_corpus_${mode} PROPERTIES LABELS "cli;corpus" SKIP_RETURN_CODE 77
                         TIMEOUT 600)
  endforeach()
endif()
