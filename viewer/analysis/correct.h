/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * correct.h - the report's figures corrected for the collector's own cost
 * (docs/collector.md, "Overhead correction"). From the calibration the trace
 * carries (meta calibration.*, measured by gapscope-calibrate on the same
 * GPU before the program ran) it estimates what the program's timeline
 * would have been untraced: each idle gap shrinks by the tracing cost inside
 * it, each kernel by its instrumentation. No I/O; works on an analysis
 * result that kept every gap (gs_options.all_gaps = 1).
 */
#ifndef GS_CORRECT_H
#define GS_CORRECT_H

#include <stdint.h>

#include "analysis.h"

/* corrected figures of one device */
struct gs_corrected_device {
	int device;
	int64_t window, busy, idle; /* ns, corrected */
	int64_t idle_removed;	    /* ns taken off idle gaps */
	int64_t busy_removed;	    /* ns taken off kernels (negative: added,
				       the GPU's switch between kernels) */
	double utilisation;	    /* corrected busy / corrected window */
	double launch_overhead_share;
};

/* corrected wall of the NVTX ranges of one name */
struct gs_corrected_range {
	uint32_t text_id;
	uint64_t count;
	int64_t wall;	      /* ns, measured (sum over ranges) */
	int64_t corrected;    /* ns */
	int64_t busy_removed; /* ns of kernel time taken off inside them (part of
				 wall - corrected; negative where kernels gained) */
	int64_t busy;	      /* ns, their corrected GPU busy time: gs_nvtx_stat.gpu_busy
				 less busy_removed, at least 0 */
	double busy_share;    /* busy / corrected, at most 1 (0: corrected 0): the
				 corrected utilisation inside them */
};

struct gs_corrected {
	struct gs_corrected_device *devices;
	size_t n_devices;
	struct gs_corrected_range *ranges; /* the order of res->nvtx */
	size_t n_ranges;
	int64_t per_call_ns; /* the host cost taken per launch call (mean over the
				gaps' launch calls, or the calibration's) */
	int from_trace;	     /* 1: launch calls' own traced durations were used */
	int64_t graph_nodes; /* kernels of graph replays that were shrunk */
	int64_t alloc_call_ns; /* what tracing adds to a cudaMalloc or a cudaFree: half
				  the calibration's pair (alloc_pair_ns), 0 none; the
				  what-if takes it off (the corrected figures do not) */
	int64_t graph_node_shrink_ns; /* what each of them lost (before the overlap
					 factor): graph_node_ns - gpu_gap_ns */
	int64_t graph_launch_shrink_ns; /* graph_launches 0: the most a
					   cudaGraphLaunch call loses, the calibrated
					   cost of a launch call (a calibration before
					   2026-12-05 timed no graph launch); else the
					   mean a graph launch call lost: its traced
					   duration less the calibrated untraced one of
					   its node count */
	int64_t graph_launches;		/* graph launch calls taken against the
					   untraced graph launch (in gaps) */
	int occupancy;			/* 1: busy time counts what each kernel occupies
					   the GPU untraced, its switch to the next
					   included (calibration *_pitch_ns); 0: kernel
					   durations less kernel_ns (older calibrations) */
	int64_t kernel_busy_ns;		/* what a launched kernel's busy time loses
					   (negative: gains) */
	int64_t launch_gap_ns;		/* CUPTI's time between two launch records
					   that each launch call's cost takes, at
					   most the time its thread left before it:
					   the calibration's launch_gap_ns, or the
					   trace's own bound where that is smaller or
					   the calibration has none (-1: neither) */
	int launch_gap_from_trace;	/* 1: launch_gap_ns is the trace's bound, the
					   5th percentile of the gaps between its
					   threads' back-to-back launch calls */
	int64_t spaced_calls;		/* of the launch calls per_call_ns averages
					   (the selection's), the runtime ones after
					   the program's own work (2 us or more since
					   the thread's previous call), taken against
					   the calibration's spaced launch (0: none,
					   or a calibration without it) */
	int64_t program_spaced_ns;	/* ns, the program's own untraced launch after
					   host work from its reference runs, against
					   which those calls were taken, with the
					   calibration's such launch (plain_spaced_ns);
					   -1 both: the calibration's alone */
	int64_t plain_spaced_ns;
	int64_t spaced_record_p50_ns;	/* ns, the median traced record of those
					   calls (-1: none) */
	int64_t spaced_record_cal_ns;	/* ns, the calibration's traced record of
					   such a call (spaced_record_ns; -1: none):
					   against it, how much slower this
					   process's launches ran than the
					   calibration's (GS_SLOW_PROCESS_*) */
};

/* The report says so where the process's launch calls after host work (at
 * least GS_SLOW_PROCESS_MIN_CALLS of them) had a median record
 * GS_SLOW_PROCESS_PCT percent or more of its calibration's: either the
 * traced process ran slower as a whole (then its own code between calls
 * too, which no correction takes off), or its launches cost more than the
 * calibration's empty kernel (bench/real's training loop, H100: 1.35x
 * untraced, timed from outside), which the correction takes as tracing's. Over 15
 * H100 runs of four PyTorch programs timed untraced as well (2026-12-05),
 * that ratio followed the corrected walls' error (correlation 0.70): GPT-2
 * generate at 1.57 was left +67% long, torch_nosync.py at 1.34 +10%; at
 * 0.68-1.20 the errors ran -41% ... +55%, with the untraced runs' own
 * scatter (docs/report.md, docs/collector.md). */
#define GS_SLOW_PROCESS_PCT 130
/* What that median is set against: the calibration's record, plus what the
 * program's own launches cost more untraced than the calibration's where
 * its reference runs timed them (program_spaced_ns): then dearer launches
 * do not read as a slow process. -1 without a calibrated record. */
int64_t gs_corrected_slow_base(const struct gs_corrected *c);
#define GS_SLOW_PROCESS_MIN_CALLS 100

/* 1 when c says the process ran slower than its calibration (above) */
int gs_corrected_slow_process(const struct gs_corrected *c);

/* Fill out from res (analysed with all_gaps = 1) and cal. Returns 0, or
 * -EINVAL when the result lacks gaps or cal is empty, -ENOMEM. */
int gs_correct(const struct gs_input *in, const struct gs_result *res,
	       const struct gs_calibration *cal, struct gs_corrected *out);
void gs_corrected_free(struct gs_corrected *c);

/* The corrected window and busy time summed over c's devices, as the
 * verdict's first line sums the measured ones; returns busy / window (0
 * for an empty window). */
double gs_corrected_total(const struct gs_corrected *c, int64_t *window, int64_t *busy);

/* What the per-call figure of c is, for the report's line: "calibrated",
 * "traced launch calls less untraced ones", or with a launch_gap_ns
 * "traced launch calls and CUPTI's time between them less untraced ones"
 * (saying so where the trace's bound gave it). */
const char *gs_corrected_basis(const struct gs_corrected *c);

/* What the notes on the collector's and CUPTI's own spans say of them:
 * where the report has corrected figures (corrected), that those take them
 * off; else that the figures keep them. plural: "them" (captures), else
 * "it" (CUPTI's work). */
const char *gs_span_correction(int corrected, int plural);

#endif
