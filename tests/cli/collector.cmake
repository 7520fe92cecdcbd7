# CLI tests of `gapscope info` and `gapscope record` (no GPU needed).
# The fixture builds the databases with the real schema (collector_mkdb),
# each test runs the real binary through collector_expect.sh, which checks
# the exit code and the output together (%3B in an expected string is ';', %5B is '[').
add_executable(collector_mkdb ${CMAKE_CURRENT_LIST_DIR}/collector_mkdb.c)
target_link_libraries(collector_mkdb PRIVATE gs_schema)
set_target_properties(collector_mkdb PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

set(GS_CLI_DBS ${CMAKE_BINARY_DIR}/tests/collector_dbs)
set(GS_EXPECT ${CMAKE_CURRENT_LIST_DIR}/collector_expect.sh)
set(GS_BIN $<TARGET_FILE:gapscope>)
set(GS_CLI_EXPECTED ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME cli_collector_mkdbs
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/collector_mkdbs.sh $<TARGET_FILE:collector_mkdb> ${GS_CLI_DBS})
set_tests_properties(cli_collector_mkdbs PROPERTIES FIXTURES_SETUP collector_dbs LABELS cli)

# gs_cli_collector_test(<name> <checks and command...>): runs in the fixture
# folder, so paths in the output are the short names given on the command line.
function(gs_cli_collector_test name)
  add_test(NAME cli_${name} COMMAND ${GS_EXPECT} ${ARGN} WORKING_DIRECTORY ${GS_CLI_DBS})
  set_tests_properties(cli_${name} PROPERTIES FIXTURES_REQUIRED collector_dbs LABELS cli)
endfunction()

# ---- gapscope info: good traces, whole output compared with files worked out by hand
gs_cli_collector_test(info_full
  --rc 0 --stdout-file ${GS_CLI_EXPECTED}/collector_info_full.expected --stderr-lines 0
  -- ${GS_BIN} info full.db)
gs_cli_collector_test(info_full_json
  --rc 0 --stdout-file ${GS_CLI_EXPECTED}/collector_info_full.json --stderr-lines 0
  -- ${GS_BIN} info --json full.db)
gs_cli_collector_test(info_cutshort
  --rc 0 --stdout-file ${GS_CLI_EXPECTED}/collector_info_cutshort.expected
  --stderr-exact "gapscope: cutshort.db: warning: recording was cut short (the collector did not finalize: the program was killed or crashed)%3B events after the last flush are missing"
  -- ${GS_BIN} info cutshort.db)
# The committed H200 sample was recorded before graph_node_updates existed:
# a table added to schema v1 later is absent there, which is not damage.
gs_cli_collector_test(info_older_trace
  --rc 0 --stdout-line "  graph_node_updates (not in traces of this collector version)"
  --stdout-line "  host_ranges     (not in traces of this collector version)"
  --stdout-line "  events          84" --stdout-line "  graph_launches  576" --stderr-lines 0
  -- ${GS_BIN} info ${CMAKE_SOURCE_DIR}/samples/h200-decode-starvation.db)
# A killed collector leaves its last batches in the -wal file: they count.
gs_cli_collector_test(info_cut_short_wal
  --rc 0 --stdout-line "  kernels         2"
  --stdout-line "GPU window        device 0: 3.500 µs (3500 ns, first op start 6000 .. last op end 9500, 2 GPU ops)"
  --stdout-line "finalized         no: recording was cut short"
  --stderr-exact "gapscope: walcut.db: warning: recording was cut short (the collector did not finalize: the program was killed or crashed)%3B events after the last flush are missing"
  -- ${GS_BIN} info walcut.db)
gs_cli_collector_test(info_control_chars_replaced
  --rc 0 --stderr-lines 0
  "--stdout-line" "command line      ./app ?%5B2J?x? café"
  "--stdout-line" "host              no?de"
  "--stdout-line" "CPU time          by thread name at the end of recording (user + system):"
  "--stdout-line" "  w?%5B1m                     10.000 ms  0 threads"
  -- ${GS_BIN} info ctrl.db)
gs_cli_collector_test(info_help
  --rc 0 --stderr-lines 0
  --stdout-line "usage: gapscope info [--json] trace.db"
  --stdout-line "  --json      print the same as one JSON object"
  -- ${GS_BIN} info --help)

# ---- gapscope info: bad input, one line and exit 2 each
gs_cli_collector_test(info_missing_file
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: nosuch.db: cannot open: No such file or directory"
  -- ${GS_BIN} info nosuch.db)
gs_cli_collector_test(info_not_sqlite
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: notsqlite.db: not a gapscope trace (not an SQLite database)"
  -- ${GS_BIN} info notsqlite.db)
gs_cli_collector_test(info_empty_file
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: empty.db: not a gapscope trace (file is empty or too short)"
  -- ${GS_BIN} info empty.db)
gs_cli_collector_test(info_directory
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: adir.db: is a directory, not a trace database"
  -- ${GS_BIN} info adir.db)
gs_cli_collector_test(info_truncated
  --rc 2 --stdout-empty
  --stderr-match "gapscope: truncated\\.db: truncated database \\(3000 of [0-9]+ bytes\\)%3B was the copy or the recording cut short\\?"
  -- ${GS_BIN} info truncated.db)
gs_cli_collector_test(info_foreign_sqlite
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: foreign.db: SQLite database, but not a gapscope trace (no meta table)"
  -- ${GS_BIN} info foreign.db)
gs_cli_collector_test(info_newer_schema
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: v99.db: trace schema version 99 is newer than this gapscope reads (3)%3B upgrade gapscope"
  -- ${GS_BIN} info v99.db)
gs_cli_collector_test(info_bad_option
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: info: unknown option '--jsn'%3B see 'gapscope info --help'"
  -- ${GS_BIN} info --jsn full.db)
gs_cli_collector_test(info_no_file
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: info: no trace given%3B usage: gapscope info [--json] trace.db"
  -- ${GS_BIN} info)
gs_cli_collector_test(info_two_files
  --rc 2 --stdout-empty
  --stderr-exact "gapscope: info: one trace at a time%3B usage: gapscope info [--json] trace.db"
  -- ${GS_BIN} info full.db cutshort.db)

# ---- gapscope record without a GPU: a non-CUDA program never loads the
# collector, so these check the wrapper itself. GAPSCOPE_LIB points at a
# stand-in so they do not depend on the collector being built.
set(GS_STANDIN GAPSCOPE_LIB=${GS_CLI_DBS}/libgapscope-standin.so)
gs_cli_collector_test(record_passes_exit_code
  --rc 7 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: no trace written to rec-none.db (the program did not initialise CUDA, or the collector could not write%3B see any warning above)"
  -- ${GS_BIN} record -o rec-none.db -- /bin/sh -c "exit 7")
gs_cli_collector_test(record_signal_exit_code
  --rc 143 --env ${GS_STANDIN} --stderr-lines 2
  --stderr-line "gapscope: the program was killed by signal 15 (Terminated)%3B a trace it was writing may be unfinished (`gapscope info` says whether it was finalized)"
  -- ${GS_BIN} record -o rec-none.db -- /bin/sh -c "kill -TERM $$")
gs_cli_collector_test(record_sets_environment
  --rc 0 --env ${GS_STANDIN} --stderr-lines 1
  --stdout-line "out=${GS_CLI_DBS}/run-%p.db act=kernel,runtime lat=1 flush=250 buf=128 log=debug"
  --stdout-line "inj=${GS_CLI_DBS}/libgapscope-standin.so nvtx=${GS_CLI_DBS}/libgapscope-standin.so"
  -- ${GS_BIN} record -o run-%p.db --activities kernel,runtime --latency --flush-ms 250
     --buffer-kb 128 --log debug -- /bin/sh -c
     "echo out=$GAPSCOPE_OUTPUT act=$GAPSCOPE_ACTIVITIES lat=$GAPSCOPE_LATENCY flush=$GAPSCOPE_FLUSH_MS buf=$GAPSCOPE_BUFFER_KB log=$GAPSCOPE_LOG && echo inj=$CUDA_INJECTION64_PATH nvtx=$NVTX_INJECTION64_PATH")
gs_cli_collector_test(record_keeps_program_args
  --rc 0 --env ${GS_STANDIN} --stdout-line "-o x --log y"
  -- ${GS_BIN} record -- /bin/echo -o x --log y)
gs_cli_collector_test(record_names_written_trace
  --rc 0 --env ${GS_STANDIN}
  --stderr-exact "gapscope: trace written to written.db"
  -- ${GS_BIN} record -o written.db -- /bin/sh -c "echo x > written.db")
# Several CUDA processes under one fixed name: the collector gives each
# later one <name>-<pid>.db (gs_trace_alt_path, tested in
# test_collector_writer); the closing line names those too, not files of
# other names.
gs_cli_collector_test(record_names_traces_of_other_processes
  --rc 0 --env ${GS_STANDIN}
  --stderr-exact "gapscope: 2 traces written: multi.db, multi-4242.db"
  -- ${GS_BIN} record -o multi.db -- /bin/sh -c "echo x > multi.db && echo y > multi-4242.db && echo z > multi-old.db")
# A relative output template reaches the program made absolute against the
# working directory (from -o and from GAPSCOPE_OUTPUT alike), so a program
# that changes directory still writes where asked and the closing line
# finds it; a '%' in the directory is doubled (literal in a template).
gs_cli_collector_test(record_relative_output_survives_cd
  --rc 0 --env ${GS_STANDIN}
  --stderr-exact "gapscope: trace written to moved.db"
  -- ${GS_BIN} record -o moved.db -- /bin/sh -c "cd / && echo x > \"$GAPSCOPE_OUTPUT\"")
gs_cli_collector_test(record_relative_env_output_survives_cd
  --rc 0 --env ${GS_STANDIN} --env GAPSCOPE_OUTPUT=envmoved.db
  --stderr-exact "gapscope: trace written to envmoved.db"
  -- ${GS_BIN} record -- /bin/sh -c "cd / && echo x > \"$GAPSCOPE_OUTPUT\"")
gs_cli_collector_test(record_absolute_output_escapes_percent
  --rc 0 --env ${GS_STANDIN} --stdout-line "out=${GS_CLI_DBS}/pct%%dir/t-%p.db"
  -- /bin/sh -c "mkdir -p pct%dir && cd pct%dir && exec \"$0\" record -o t-%p.db -- /bin/sh -c 'echo out=$GAPSCOPE_OUTPUT'"
     ${GS_BIN})
# The collector replaces a trace of an earlier run at the output name;
# any other file there (a source file, an Nsight Systems export) is the
# user's: refused before the program runs, and kept.
gs_cli_collector_test(record_keeps_a_file_that_is_no_trace
  --rc 2 --env ${GS_STANDIN} --stdout-line "keep me"
  --stderr-exact "gapscope: foreign.txt: exists and is not a gapscope trace: not replaced%3B give the trace another name (or remove the file)"
  -- /bin/sh -c "echo 'keep me' > foreign.txt && \"$0\" record -o foreign.txt -- /bin/echo ran || (cat foreign.txt && exit 2)"
     ${GS_BIN})
gs_cli_collector_test(record_missing_program
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: no-such-program-xyz: cannot run: no such program (not found in PATH)"
  -- ${GS_BIN} record -- no-such-program-xyz)
gs_cli_collector_test(record_no_program
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: no program given%3B usage: gapscope record [options] [--] program [args...]"
  -- ${GS_BIN} record -o x.db)
gs_cli_collector_test(record_unknown_option
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: unknown option '--activity'%3B see 'gapscope record --help'"
  -- ${GS_BIN} record --activity kernel -- /bin/true)
gs_cli_collector_test(record_bad_activity
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: --activities: unknown activity 'kernels' (known: kernel, memcpy, memset, runtime, driver, sync, event, stream, nvtx, graph, overhead, all)"
  -- ${GS_BIN} record --activities memcpy,kernels -- /bin/true)
gs_cli_collector_test(record_bad_flush
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: --flush-ms: '-5' is not a whole number between 0 and 3600000"
  -- ${GS_BIN} record --flush-ms -5 -- /bin/true)
gs_cli_collector_test(record_bad_log_level
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: --log: unknown level 'loud' (use quiet, warn, info or debug)"
  -- ${GS_BIN} record --log loud -- /bin/true)
gs_cli_collector_test(record_bad_template
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: run-%d.db: bad output template: unknown %-escape (use %p, %h, %q{VAR} or %%)"
  -- ${GS_BIN} record -o run-%d.db -- /bin/true)
gs_cli_collector_test(record_missing_output_folder
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: no-such-folder/sub: output folder does not exist"
  -- ${GS_BIN} record -o no-such-folder/sub/run.db -- /bin/true)
gs_cli_collector_test(record_library_not_found
  --rc 2 --env GAPSCOPE_LIB=${GS_CLI_DBS}/no-such-lib.so --stdout-empty
  --stderr-exact "gapscope: ${GS_CLI_DBS}/no-such-lib.so: GAPSCOPE_LIB: collector library not found (No such file or directory)"
  -- ${GS_BIN} record -- /bin/true)
gs_cli_collector_test(record_library_not_elf
  --rc 2 --env GAPSCOPE_LIB=${GS_CLI_DBS}/not-a-lib.so --stdout-empty
  --stderr-exact "gapscope: ${GS_CLI_DBS}/not-a-lib.so: GAPSCOPE_LIB: not a shared library (${GS_CLI_DBS}/not-a-lib.so is no ELF shared object)%3B point it at libgapscope.so"
  -- ${GS_BIN} record -- /bin/true)
gs_cli_collector_test(record_bad_buffer
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: --buffer-kb: 'abc' is not a whole number between 64 and 1048576"
  -- ${GS_BIN} record --buffer-kb abc -- /bin/true)
gs_cli_collector_test(record_buffer_too_small
  --rc 2 --env ${GS_STANDIN} --stdout-empty
  --stderr-exact "gapscope: record: --buffer-kb: '10' is not a whole number between 64 and 1048576"
  -- ${GS_BIN} record --buffer-kb 10 -- /bin/true)
# --reference N: a count of runs from 1 to 9, in record_parse_uint's words
foreach(bad 0 10 x)
  gs_cli_collector_test(record_reference_bad_count_${bad}
    --rc 2 --env ${GS_STANDIN} --stdout-empty
    --stderr-exact "gapscope: record: --reference: '${bad}' is not a whole number between 1 and 9"
    -- ${GS_BIN} record --reference ${bad} -- /bin/true)
endforeach()
# --reference N with a stand-in program that logs each run's environment
# (record_reference_check.sh says what each case expects)
foreach(case runs traced_options no_db_suffix traced_fails traced_killed reference_fails
        capture_range capture_range_bad)
  add_test(NAME cli_record_reference_${case}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/record_reference_check.sh ${GS_BIN}
                   ${GS_CLI_DBS}/libgapscope-standin.so
                   ${CMAKE_CURRENT_BINARY_DIR}/record_reference_${case} ${case})
  set_tests_properties(cli_record_reference_${case} PROPERTIES FIXTURES_REQUIRED collector_dbs
                       LABELS cli)
endforeach()
gs_cli_collector_test(record_help
  --rc 0 --stderr-lines 0
  --stdout-line "usage: gapscope record [options] [--] program [args...]"
  --stdout-line "  -o, --output TEMPLATE  database path [GAPSCOPE_OUTPUT] (default gapscope-%p.db)"
  --stdout-line "                         [GAPSCOPE_FLUSH_MS] (default 1000)"
  --stdout-line "      --reference N      then run the program N more times (1..9) as"
  --stdout-line "  gapscope report run.db --reference run.ref1.db --reference run.ref2.db"
  -- ${GS_BIN} record --help)
add_test(NAME cli_record_finds_library
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/collector_record_lib.sh ${GS_EXPECT} ${CMAKE_BINARY_DIR}
                 ${GAPSCOPE_LIB_RELDIR}
         WORKING_DIRECTORY ${GS_CLI_DBS})
set_tests_properties(cli_record_finds_library PROPERTIES FIXTURES_REQUIRED collector_dbs LABELS cli)
# --reference also times the program's own launch calls (the interposer,
# collector/launch_interpose.c, beside the collector): a stand-in runtime
# and a program that launches through it and writes its own trace, built
# without the sanitizers, whose runtime would have to come before the
# preloaded interposer (record_reference_launch_check.sh says what it expects)
if(TARGET gs_launch_interpose)
  add_library(gs_cudart_standin SHARED ${CMAKE_CURRENT_LIST_DIR}/cudart_standin.c)
  add_executable(gs_launch_standin ${CMAKE_CURRENT_LIST_DIR}/launch_standin.c
                 ${CMAKE_CURRENT_LIST_DIR}/launch_user.c ${PROJECT_SOURCE_DIR}/collector/schema.c)
  target_include_directories(gs_launch_standin PRIVATE ${PROJECT_SOURCE_DIR}/collector/include)
  target_link_libraries(gs_launch_standin PRIVATE gs_cudart_standin gs_sqlite3 ${CMAKE_DL_LIBS})
  # the same runtime under the soname libcudart.so.13, needed by a library
  # the program dlopen()s with RTLD_LOCAL (a Python extension's way)
  add_library(gs_cudart_standin_local SHARED ${CMAKE_CURRENT_LIST_DIR}/cudart_standin.c)
  set_target_properties(gs_cudart_standin_local PROPERTIES OUTPUT_NAME cudart SOVERSION 13
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/local_runtime)
  add_library(gs_launch_user SHARED ${CMAKE_CURRENT_LIST_DIR}/launch_user.c)
  target_link_libraries(gs_launch_user PRIVATE gs_cudart_standin_local)
  foreach(t gs_cudart_standin gs_launch_standin gs_cudart_standin_local gs_launch_user)
    target_compile_options(${t} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fno-sanitize=all>)
    target_link_options(${t} PRIVATE -fno-sanitize=all)
  endforeach()
  add_test(NAME cli_record_reference_launch_times
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/record_reference_launch_check.sh ${GS_BIN}
                   ${GS_CLI_DBS}/libgapscope-standin.so $<TARGET_FILE:gs_launch_interpose>
                   $<TARGET_FILE:gs_launch_standin> $<TARGET_FILE:gs_cudart_standin>
                   $<TARGET_FILE:gs_launch_user>
                   ${CMAKE_CURRENT_BINARY_DIR}/record_reference_launch_times)
  set_tests_properties(cli_record_reference_launch_times PROPERTIES
                       FIXTURES_REQUIRED collector_dbs LABELS cli)
endif()
