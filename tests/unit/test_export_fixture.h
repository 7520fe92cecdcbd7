/*
 * test_export_fixture.h - a small hand-made trace database shared by the
 * export, HTML and diff tests (unit and CLI). Every figure the tests
 * expect is derived by hand from the rows listed in test_export_fixture.c.
 * It is test data, not a generator of realistic traces.
 */
#ifndef GAPSCOPE_TEST_EXPORT_FIXTURE_H
#define GAPSCOPE_TEST_EXPORT_FIXTURE_H

/* Hostile strings stored in the fixture (exact bytes). */
#define FIX_KERNEL_TEMPLATE "void gemm<float, 128>(float const*, int)"
#define FIX_KERNEL_SCRIPT "<script>alert(1)</script>"
#define FIX_NVTX_TEXT "step \"one\", back\\slash\nline2\x01"
#define FIX_KERNEL_UTF8 "\xd1\x8f\xd0\xb4\xd1\x80\xd0\xbe_\xce\xbb" /* "ядро_λ" */
#define FIX_KERNEL_BAD_UTF8 "bad\xffutf8"
/* NVTX range texts of the two phases of variant 2 */
#define FIX_PHASE_BEFORE "before_phase"
#define FIX_PHASE_AFTER "after_phase"

/* Write the fixture trace to `path` (which must not exist). variant 0 is
 * the "before" run described in the .c file; variant 1 is an "after" run
 * of the same program (same NVTX and kernel names, shorter gaps); variant 2
 * holds both, one after the other, as NVTX ranges FIX_PHASE_BEFORE and
 * FIX_PHASE_AFTER of one trace; variant 3 is variant 0 plus one graph
 * launch recorded in graph-level mode (schema v2 graph_runs) and two
 * graph_runs rows the readers skip (untimed, begun on the host).
 * Returns 0 or -1. */
int fixture_write(const char *path, int variant);

#endif
