# The trace reader's fuzz target (tests/fuzz/fuzz_trace.c): libFuzzer needs
# clang, whatever compiler builds the project, so the target is compiled by
# clang directly from the reader's and the analysis' sources. ctest runs it
# for a bounded time (label fuzz, GAPSCOPE_FUZZ_SECONDS, default 30) over
# seeds written like the CLI tests' databases; without clang's libFuzzer the
# test reports itself skipped. A longer run by hand:
#   build/tests/fuzz_trace -max_total_time=3600 -timeout=20 CORPUS_DIR
# and for the importers (tests/fuzz/README.md, the campaign's command):
#   GAPSCOPE_FUZZ_SECONDS=3600 sh tests/fuzz/run_fuzz_import.sh \
#       build/tests/fuzz_kineto tests/fuzz/corpus/kineto WORKDIR
find_program(GS_CLANG NAMES clang clang-18 clang-17 clang-16 clang-15 clang-14)
set(GS_FUZZ_OK OFF)
if(GS_CLANG)
  set(_probe ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe.c)
  file(WRITE ${_probe} "#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${GS_CLANG} -fsanitize=fuzzer,address ${_probe} -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(_rc EQUAL 0)
    set(GS_FUZZ_OK ON)
  endif()
endif()
message(STATUS "gapscope: trace fuzz target (clang libFuzzer): ${GS_FUZZ_OK}")

set(_fuzz_script ${CMAKE_SOURCE_DIR}/tests/fuzz/run_fuzz.sh)
if(GS_FUZZ_OK)
  set(_src ${CMAKE_SOURCE_DIR}/viewer)
  set(GS_FUZZ_SOURCES
      ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_trace.c
      ${_src}/trace/trace.c ${_src}/trace/trace_load.c ${_src}/trace/trace_graph.c
      ${_src}/trace/trace_info.c ${_src}/trace/graph_model.c ${_src}/trace/names.c
      ${_src}/trace/export_walk.c ${_src}/trace/export_csv.c ${_src}/trace/trace_callsite.c
      ${_src}/trace/trace_whatif.c ${_src}/trace/import_out.c
      ${_src}/analysis/whatif.c ${_src}/analysis/whatif_replay.c ${_src}/analysis/whatif_api.c
      ${_src}/analysis/whatif_fix.c
      ${_src}/trace/trace_samples.c
      ${_src}/analysis/analysis.c ${_src}/analysis/analysis_run.c ${_src}/analysis/analysis_stats.c
      ${_src}/analysis/analysis_select.c ${_src}/analysis/analysis_index.c ${_src}/analysis/analysis_graph.c
      ${_src}/analysis/analysis_util.c ${_src}/analysis/host_cover.c ${_src}/analysis/host_attr.c
      ${_src}/analysis/verdict.c
      ${_src}/analysis/advice.c
      ${_src}/analysis/analysis_site.c ${_src}/analysis/correct.c ${_src}/analysis/utf8.c
      ${CMAKE_SOURCE_DIR}/collector/schema.c)
  set(_fuzz_bin ${CMAKE_BINARY_DIR}/tests/fuzz_trace)
  add_custom_command(
    OUTPUT ${_fuzz_bin}
    COMMAND ${GS_CLANG} -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined
            -fno-sanitize-recover=undefined -fno-omit-frame-pointer
            -I${_src}/trace -I${_src}/analysis -I${CMAKE_SOURCE_DIR}/collector/include
            ${GS_FUZZ_SOURCES} -o ${_fuzz_bin} -lsqlite3 -lpthread -lstdc++ -lm
    DEPENDS ${GS_FUZZ_SOURCES}
    COMMENT "Building the trace fuzz target with clang (libFuzzer)")
  add_custom_target(fuzz_trace ALL DEPENDS ${_fuzz_bin})
  add_test(NAME fuzz_trace
           COMMAND sh ${_fuzz_script} ${_fuzz_bin} ${CMAKE_BINARY_DIR}/tests/damaged_mkdb
                   ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/fuzz_work)

  # The importers' targets (issue 55): a Kineto JSON trace and an Nsight
  # Systems SQLite export (raw, or the SQL that makes one), each imported and
  # the database it wrote read back as the verbs read it. Seeds committed in
  # tests/fuzz/corpus/<target>; ctest runs each for GAPSCOPE_FUZZ_SECONDS.
  list(REMOVE_ITEM GS_FUZZ_SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_trace.c)
  execute_process(COMMAND pkg-config --cflags-only-I yajl OUTPUT_VARIABLE _yajl_inc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(_yajl_inc)
  foreach(imp kineto nsys)
    set(_src ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_${imp}.c ${GS_FUZZ_SOURCES}
             ${CMAKE_SOURCE_DIR}/viewer/trace/kineto_import.c
             ${CMAKE_SOURCE_DIR}/viewer/trace/nsys_import.c)
    set(_bin ${CMAKE_BINARY_DIR}/tests/fuzz_${imp})
    add_custom_command(
      OUTPUT ${_bin}
      COMMAND ${GS_CLANG} -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined
              -fno-sanitize-recover=undefined -fno-omit-frame-pointer
              -I${CMAKE_SOURCE_DIR}/viewer/trace -I${CMAKE_SOURCE_DIR}/viewer/analysis
              -I${CMAKE_SOURCE_DIR}/collector/include ${_yajl_inc}
              ${_src} -o ${_bin} -lsqlite3 -lyajl -lz -lpthread -lstdc++ -lm
      DEPENDS ${_src}
      COMMENT "Building the ${imp} import fuzz target with clang (libFuzzer)")
    add_custom_target(fuzz_${imp} ALL DEPENDS ${_bin})
    add_test(NAME fuzz_${imp}
             COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/run_fuzz_import.sh ${_bin}
                     ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${imp}
                     ${CMAKE_CURRENT_BINARY_DIR}/fuzz_${imp}_work)
  endforeach()
else()
  add_test(NAME fuzz_trace COMMAND sh ${_fuzz_script} "" "" "" "")
  foreach(imp kineto nsys)
    add_test(NAME fuzz_${imp} COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/run_fuzz_import.sh "" "" "")
  endforeach()
endif()
set_tests_properties(fuzz_trace fuzz_kineto fuzz_nsys PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77
                     TIMEOUT 300)
