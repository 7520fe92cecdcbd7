/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * nsys_import.h - `gapscope import` of an Nsight Systems SQLite export
 * (`nsys export --type sqlite report.nsys-rep`, or `nsys profile
 * --export=sqlite`): its CUPTI records (kernels, copies, memsets, runtime
 * and driver calls, synchronisations, CUDA event records), NVTX ranges,
 * threads, processes and GPUs become a gapscope trace database of the
 * collector's schema, derived the same way (import_out.h), so that every
 * verb reads it. docs/import.md lists what is mapped and what is not.
 *
 * It prints nothing: cmd/cmd_import.c says what happened.
 */
#ifndef GAPSCOPE_NSYS_IMPORT_H
#define GAPSCOPE_NSYS_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "import_out.h"	   /* struct import_stats */
#include "trace.h"	   /* NSYS_REPORT_MAGIC */

/* 1 when the file at path begins with SQLite's header ("SQLite format 3"),
 * 0 otherwise (also when it cannot be read: the importer then says why). */
int nsys_file_is_sqlite(const char *path);

/* 1 when the file at path is an Nsight Systems report (NSYS_REPORT_MAGIC,
 * trace.h) */
int nsys_file_is_report(const char *path);

/*
 * Convert the Nsight Systems SQLite export at src_path into a new trace
 * database at db_path (written beside it and renamed in when complete).
 * The export is opened read-only and never changed. A trace is one
 * process's: pid picks the process of an export that holds several with
 * GPU work (-1: the only one, else the import is refused with their pids). `version` goes to meta
 * collector_version ("gapscope import <version>"). In st: rows written per
 * kind, and in unmapped[] the rows of the export's tables that are not
 * mapped (OS runtime calls, CPU samples, graph topology...), per table.
 *
 * Returns 0; IMPORT_ERR_INPUT with a one-line reason in err when the file
 * is missing, not SQLite, damaged, not an Nsight Systems export (or
 * already a gapscope trace), or holds no CUDA trace; IMPORT_ERR_OUTPUT
 * when the database cannot be written; IMPORT_ERR_TARGET when db_path
 * cannot be a database file.
 */
int nsys_import(const char *src_path, const char *db_path, int64_t pid, const char *version,
		struct import_stats *st, char *err, size_t errlen);

#endif
