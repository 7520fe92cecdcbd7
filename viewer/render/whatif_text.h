/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * whatif_text.h - `gapscope whatif`'s text: the replayed timeline's
 * figures before and after the fixes, and what the unchanged replay's
 * check found. It prints what the verb computed (whatif.h) and nothing
 * else.
 */
#ifndef GAPSCOPE_WHATIF_TEXT_H
#define GAPSCOPE_WHATIF_TEXT_H

#include <stdio.h>

#include "analysis.h"
#include "whatif.h"

struct whatif_view {
	const char *path;		     /* the trace, as given */
	const char *fixes;		     /* the --fix list, as given */
	const char *range;		     /* --range NAME, NULL none */
	int sync_every;			     /* sync_every_step's N */
	const struct gs_input *in;	     /* for the step ranges' text */
	const struct gs_whatif *w;	     /* NULL with check only */
	const struct gs_whatif_check *check; /* NULL unless --check */
	int have_bytes;			     /* copy bytes were read */
	int pageable;			     /* pageable_copies is among the fixes */
	const struct gs_whatif_untrace *untrace; /* tracing's cost taken off first,
						    NULL: replayed as recorded */
	int traced_why;			     /* with untrace NULL: 1 --traced, 2 no
						calibration in the trace */
};

/* 0, or -1 on a write error (ferror) */
int whatif_text(FILE *f, const struct whatif_view *v);

#endif
