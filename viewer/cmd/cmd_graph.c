/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_graph.c - `gapscope graph`: list the CUDA graphs of a trace, draw one
 * (DOT, SVG or PNG, with measured node times and the critical path), or draw
 * the stream-ordered work of an NVTX range as the "before" picture.
 *
 * Option parsing, messages and exit codes only: trace_graph.c reads the
 * database, graph_model.c computes, render_dot.c draws.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graph_model.h"
#include "render_dot.h"
#include "term.h"
#include "trace_graph.h"

#define DEFAULT_COLLAPSE 8
#define DEFAULT_MAX_OPS 1000

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gapscope graph TRACE.db [--all]               list the CUDA graphs\n"
		"       gapscope graph TRACE.db --id N [options]      draw graph N\n"
		"       gapscope graph TRACE.db --streams --range NAME [options]\n"
		"                                  draw the stream-ordered work of an NVTX range\n"
		"\n"
		"The list shows each graph's id, how it was made (created, clone, capture),\n"
		"its nodes and dependency edges (child graphs listed separately), the\n"
		"executable graphs instantiated from it, their launches, and the GPU time\n"
		"measured on its nodes over all launches, and in a note how many times\n"
		"node parameters were changed in place (cudaGraphExec*NodeSetParams).\n"
		"Graphs with no nodes and no launches (CUDA makes some itself when a\n"
		"graph is instantiated) are counted but not listed unless --all is given.\n"
		"\n"
		"option for the list:\n"
		"  --all              also list the graphs with no nodes and no launches\n"
		"\n"
		"options for drawing:\n"
		"  -o, --output FILE  FILE.dot, FILE.svg or FILE.png (format from the suffix);\n"
		"                     '-' (the default) writes DOT to standard output\n"
		"  --stats            label nodes with mean and p90 duration over all launches\n"
		"                     and their share of the graph's GPU time; colour by share\n"
		"  --collapse N       draw linear chains of more than N same-kind nodes (same\n"
		"                     type and kernel) as one node with the count (default %d;\n"
		"                     0 draws every node)\n"
		"  --nth K            with --range: the K-th range of that name (default 1)\n"
		"  --max-ops N        with --streams: at most N operations, the first\n"
		"                     launched (default %d)\n"
		"  --max-nodes N      with --id: refuse to lay out more than N nodes (after\n"
		"                     collapsing chains; default %d): Graphviz can take\n"
		"                     minutes to hours on wide graphs of thousands of nodes\n"
		"  -h, --help         this text\n"
		"\n"
		"The critical path (longest path by measured mean durations, by node count\n"
		"when nothing was measured) is drawn bold; child graphs are drawn as boxes\n"
		"around their nodes. See docs/graphs.md.\n",
		DEFAULT_COLLAPSE, DEFAULT_MAX_OPS, RENDER_DOT_MAX_NODES);
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static const char *origin_name(int origin)
{
	switch (origin) {
	case 0: return "created";
	case 1: return "clone";
	case 2: return "capture";
	default: return "?";
	}
}

/* A graph with no nodes and no launches: CUDA creates such graphs itself
 * (in CUDA 13.0 traces each cudaGraphInstantiate is followed by one empty
 * graph id), and a graph whose nodes were all instantiation clones has
 * nothing of its own left. On the graph-conversion demo they are about half
 * of the list, so the default list leaves them out and says how many. */
static int graph_is_empty(const struct tg_info *g)
{
	return g->nodes == 0 && g->launches == 0;
}

/* Exit status for a failed trace_graph.c call: -EIO is SQLite failing to
 * read the file (a damaged database, "database disk image is malformed":
 * bad input, as trace_open's checks would have said had they seen it),
 * anything else (out of memory) ours. */
static int exit_code(int rc)
{
	return rc == -EIO ? GS_EXIT_BAD_INPUT : GS_EXIT_INTERNAL;
}

static int list_graphs(struct trace *t, const char *path, int all)
{
	struct tg_info *v = NULL;
	char err[256];
	size_t n = 0, i, hidden = 0;
	int rc = tg_list(t, &v, &n, err, sizeof(err));

	if (rc < 0) {
		gs_error(path, "%s", err);
		return exit_code(rc);
	}
	if (!n) {
		term_put(stdout, path);
		printf(": no CUDA graphs in this trace\n");
		free(v);
		return GS_EXIT_OK;
	}
	if (!all)
		for (i = 0; i < n; i++)
			hidden += graph_is_empty(&v[i]);
	term_put(stdout, path);
	printf(": %zu CUDA graph%s\n", n, n == 1 ? "" : "s");
	if (hidden < n)
		printf("%8s  %-7s  %6s  %6s  %5s  %8s  %8s  %12s  %12s  %s\n", "graph", "origin",
		       "nodes", "edges", "execs", "launches", "GPU ops", "GPU time us", "us/launch",
		       "note");
	for (i = 0; i < n; i++) {
		const struct tg_info *g = &v[i];
		char per[32], note[96] = "";

		if (!all && graph_is_empty(g))
			continue;
		if (g->launches)
			snprintf(per, sizeof(per), "%.3f",
				 (double)g->gpu_ns / 1e3 / (double)g->launches);
		else
			snprintf(per, sizeof(per), "-");
		if (g->parent_graph)
			snprintf(note, sizeof(note),
				 "child graph of node %" PRId64 " in graph %" PRId64,
				 g->parent_node, g->parent_graph);
		else if (g->origin == 1 && g->original)
			snprintf(note, sizeof(note), "clone of graph %" PRId64, g->original);
		if (g->updates) {
			size_t used = strlen(note);
			snprintf(note + used, sizeof(note) - used, "%s%zu node update%s in place",
				 used ? "; " : "", g->updates, g->updates == 1 ? "" : "s");
		}
		printf("%8" PRId64 "  %-7s  %6zu  %6zu  %5zu  %8zu  %8zu  %12.3f  %12s%s%s\n",
		       g->graph_id, origin_name(g->origin), g->nodes, g->edges, g->execs,
		       g->launches, g->ops, (double)g->gpu_ns / 1e3, per, *note ? "  " : "", note);
	}
	if (hidden)
		printf("%zu empty graph%s not shown; --all lists them\n", hidden,
		       hidden == 1 ? "" : "s");
	free(v);
	return GS_EXIT_OK;
}

/* Analyse the loaded model, render it, print a one-line summary. `what`
 * names the picture in the error for more than max_nodes drawn nodes. */
static int draw(const char *trace_path, struct gm_graph *g, const char *title, int stats,
		int collapse, size_t max_nodes, const char *what, const char *out,
		const char *format)
{
	struct render_dot_options ro = {0};
	char err[256], crit[64];
	Agraph_t *ag;
	int chains, rc;

	if (gm_critical_path(g) < 0)
		gs_error(trace_path, "the dependency edges form a cycle; no critical path drawn");
	chains = gm_collapse(g, collapse);
	if (chains < 0) {
		gs_error(NULL, "out of memory");
		return GS_EXIT_INTERNAL;
	}
	/* checked before the layout, which could run for hours on a wide
	 * graph (render_dot.h) */
	if (gm_count_drawn(g) > max_nodes) {
		gs_error(trace_path,
			 "%s has %zu nodes to draw after collapsing chains, more than "
			 "--max-nodes %zu (Graphviz takes minutes or more on that many); "
			 "raise --max-nodes to draw it anyway",
			 what, gm_count_drawn(g), max_nodes);
		return GS_EXIT_BAD_INPUT;
	}
	ro.stats = stats;
	ro.title = title;
	ag = render_dot_build(g, &ro);
	if (!ag) {
		gs_error(NULL, "out of memory building the Graphviz graph");
		return GS_EXIT_INTERNAL;
	}
	rc = render_dot_write(ag, format, out, err, sizeof(err));
	render_dot_free(ag);
	if (rc == -EIO) { /* cannot be created */
		gs_error(strcmp(out, "-") ? out : NULL, "%s", err);
		return GS_EXIT_BAD_INPUT;
	}
	if (rc < 0) { /* a write failed (-ENOSPC: the old file is kept), or Graphviz */
		gs_error(strcmp(out, "-") ? out : NULL, "%s", err);
		return GS_EXIT_INTERNAL;
	}
	if (strcmp(out, "-")) {
		if (g->has_measurements) {
			double ns = g->critical_weight;
			snprintf(crit, sizeof(crit), "%.3f us", ns / 1e3);
		} else {
			snprintf(crit, sizeof(crit), "unmeasured");
		}
		term_put(stdout, out); /* a file name is anyone's bytes */
		printf(": %zu nodes, %zu edges; %zu drawn (%d chain%s collapsed); "
		       "critical path %zu nodes, %s\n",
		       g->n_nodes, g->n_edges, gm_count_drawn(g), chains, chains == 1 ? "" : "s",
		       g->critical_nodes, crit);
	}
	return GS_EXIT_OK;
}

int cmd_graph(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"id", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"stats", no_argument, NULL, 's'},
	    {"collapse", required_argument, NULL, 'c'},
	    {"streams", no_argument, NULL, 'S'},
	    {"range", required_argument, NULL, 'r'},
	    {"nth", required_argument, NULL, 'n'},
	    {"max-ops", required_argument, NULL, 'm'},
	    {"max-nodes", required_argument, NULL, 'N'},
	    {"all", no_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *path = NULL, *out = NULL, *range = NULL, *format;
	uint64_t id = 0, collapse = DEFAULT_COLLAPSE, nth = 1, max_ops = DEFAULT_MAX_OPS;
	uint64_t max_nodes = RENDER_DOT_MAX_NODES;
	int have_id = 0, stats = 0, streams = 0, drawing_opt = 0, all = 0, opt, rc;
	struct trace t;
	struct gm_graph g;
	char err[256], title[512], what[64];

	opterr = 0; /* we print our own one-line errors */
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_u64(optarg, &id) < 0 || id > INT64_MAX) {
				gs_error("graph",
					 "--id wants a graph id (a whole number), not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			have_id = 1;
			break;
		case 'o':
			out = optarg;
			drawing_opt = 1;
			break;
		case 's':
			stats = 1;
			drawing_opt = 1;
			break;
		case 'c':
			if (parse_u64(optarg, &collapse) < 0 || collapse > 1000000) {
				gs_error("graph",
					 "--collapse wants a node count (0 or more), not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			drawing_opt = 1;
			break;
		case 'S': streams = 1; break;
		case 'r': range = optarg; break;
		case 'n':
			if (parse_u64(optarg, &nth) < 0 || nth < 1 || nth > 100000000) {
				gs_error("graph", "--nth wants 1, 2, ... , not '%s'", optarg);
				return GS_EXIT_BAD_INPUT;
			}
			break;
		case 'm':
			if (parse_u64(optarg, &max_ops) < 0 || max_ops < 1 || max_ops > 10000000) {
				gs_error("graph", "--max-ops wants a count of 1 or more, not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			break;
		case 'N':
			if (parse_u64(optarg, &max_nodes) < 0 || max_nodes < 1 ||
			    max_nodes > 100000000) {
				gs_error("graph",
					 "--max-nodes wants a count of 1 or more, not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			drawing_opt = 1;
			break;
		case 'a': all = 1; break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("graph", "option '%s' needs a value; see 'gapscope graph --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("graph", "unknown option '%s'; see 'gapscope graph --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc) {
		gs_error("graph", "no trace given; usage: gapscope graph TRACE.db [--id N]");
		return GS_EXIT_BAD_INPUT;
	}
	if (optind + 1 < argc) {
		gs_error("graph", "one trace at a time, got '%s' and '%s'", argv[optind],
			 argv[optind + 1]);
		return GS_EXIT_BAD_INPUT;
	}
	path = argv[optind];
	if (streams && have_id) {
		gs_error("graph", "--id draws a recorded graph, --streams an NVTX range: pick one");
		return GS_EXIT_BAD_INPUT;
	}
	if (streams != (range != NULL)) {
		gs_error("graph", streams ? "--streams needs --range NAME"
					  : "--range NAME goes with --streams");
		return GS_EXIT_BAD_INPUT;
	}
	if (all && (have_id || streams)) {
		gs_error("graph", "--all is for the list; drop it when drawing with --id or "
				  "--streams");
		return GS_EXIT_BAD_INPUT;
	}
	if (drawing_opt && !have_id && !streams) {
		gs_error("graph",
			 "-o, --stats and --collapse are for drawing: add --id N "
			 "(see the list from 'gapscope graph %s')",
			 path);
		return GS_EXIT_BAD_INPUT;
	}
	if (!out)
		out = "-";
	if ((rc = gs_cli_check_output_name(out, 0)) != 0)
		return rc;
	format = render_dot_format(out);
	if (!format) {
		gs_error(out, "unknown output format; name the file .dot, .svg or .png, or use "
			      "-o - for DOT on standard output");
		return GS_EXIT_BAD_INPUT;
	}

	if ((rc = gs_cli_open_trace(&t, path)) != 0)
		return rc;
	if (!have_id && !streams) {
		rc = list_graphs(&t, path, all);
		trace_close(&t);
		return rc;
	}

	gm_init(&g);
	if (streams) {
		struct tg_range r;
		rc = tg_load_streams(&t, range, (size_t)nth - 1, (size_t)max_ops, &g, &r, err,
				     sizeof(err));
		if (rc == -ENOENT) {
			if (r.occurrences)
				gs_error(path,
					 "the NVTX range '%s' occurs %zu time%s, not %" PRIu64,
					 range, r.occurrences, r.occurrences == 1 ? "" : "s", nth);
			else
				gs_error(path, "no NVTX range named '%s'", range);
			rc = GS_EXIT_BAD_INPUT;
			goto out;
		}
		if (rc < 0) {
			gs_error(path, "%s", err);
			rc = exit_code(rc);
			goto out;
		}
		if (r.ops_drawn < r.ops)
			gs_error(path,
				 "the range holds %zu operations; drawing the first %zu "
				 "(--max-ops)",
				 r.ops, r.ops_drawn);
		if (r.waits > r.waits_linked)
			gs_error(path,
				 "%zu of %zu stream waits have no known event record "
				 "(see docs/graphs.md)",
				 r.waits - r.waits_linked, r.waits);
		snprintf(title, sizeof(title),
			 "NVTX range '%s' (%" PRIu64 " of %zu): %zu operations on %zu stream%s, "
			 "%zu event wait%s",
			 range, nth, r.occurrences, r.ops_drawn, r.streams,
			 r.streams == 1 ? "" : "s", r.waits, r.waits == 1 ? "" : "s");
	} else {
		struct tg_info info;
		rc = tg_load(&t, (int64_t)id, &g, &info, err, sizeof(err));
		if (rc == -ENOENT) {
			gs_error(path,
				 "no graph with id %" PRIu64 "; run 'gapscope graph %s' to list "
				 "them",
				 id, path);
			rc = GS_EXIT_BAD_INPUT;
			goto out;
		}
		if (rc < 0) {
			gs_error(path, "%s", err);
			rc = exit_code(rc);
			goto out;
		}
		snprintf(title, sizeof(title),
			 "CUDA graph %" PRIu64 " (%s): %zu nodes, %zu launch%s, %.3f us GPU time",
			 id, origin_name(info.origin), g.n_nodes, info.launches,
			 info.launches == 1 ? "" : "es", (double)info.gpu_ns / 1e3);
	}
	/* --streams is bounded by --max-ops already */
	snprintf(what, sizeof(what), "graph %" PRIu64, id);
	rc = draw(path, &g, title, stats, (int)collapse, streams ? SIZE_MAX : (size_t)max_nodes,
		  what, out, format);
out:
	gm_free(&g);
	trace_close(&t);
	return rc;
}
