# The trace reader's fuzz target (tests/fuzz/fuzz_trace.c): libFuzzer needs
# clang, whatever compiler builds the project, so the target is compiled by
# clang directly from the reader's and the analysis' sources. ctest runs it
# for a bounded time (label fuzz, GAPSCOPE_FUZZ_SECONDS, default 30) over
# seeds written like the CLI tests' databases; without clang's libFuzzer the
# test reports itself skipped. A longer run by hand:
#   build/tests/fuzz_trace -max_total_time=3600 -timeout=20 CORPUS_DIR
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
      ${_src}/analysis/analysis.c ${_src}/analysis/analysis_run.c ${_src}/analysis/analysis_stats.c
      ${_src}/analysis/analysis_util.c ${_src}/analysis/host_cover.c ${_src}/analysis/verdict.c
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
else()
  add_test(NAME fuzz_trace COMMAND sh ${_fuzz_script} "" "" "" "")
endif()
set_tests_properties(fuzz_trace PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 300)
