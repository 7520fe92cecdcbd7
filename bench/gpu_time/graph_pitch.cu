/*
 * graph_pitch.cu - the GPU time per node of CUDA graph replays, by how long
 * each node's kernel runs: what kernel tracing adds to a graph node depends
 * on it, and the overhead correction needs that curve.
 *
 * On the H200 a graph of 1000 short kernels (the launch loop's) replays at
 * 1.80 us a node untraced and 2.70-2.87 traced, while tests/gpu/gap_phases.cu's
 * graph of one-block kernels (3.38 us a node) lost only 0.16 us a node
 * traced; the correction took the first figure for both and over-corrected
 * the second by 5-14% (docs/collector.md, "Overhead correction").
 *
 * For each spin length S (ns; 0 = an empty kernel), one graph of --nodes
 * one-block kernels that each spin S ns (clock64 against the SM clock) is
 * captured and replayed --repeats times after --warmup; each replay is timed
 * with the host clock from the launch to the stream sync's return. Prints
 * two lines per S, "mode=spin<S> per_kernel_us=<median per node> min_us=...
 * max_us=..." and the same for the cudaGraphLaunch call alone per node
 * (mode=spin<S>_launch: traced cudaGraphLaunch calls took 1.6-2.9 us a node
 * on the H200, in the bundled decode trace and the graph-conversion demo,
 * which the overhead correction does not know untraced), the
 * format bench/overhead/overhead_pairs.py reads (workload graph_pitch), so a run of
 * overhead_pairs gives traced / untraced per S.
 *
 *   gs_bench_graph_pitch [--nodes N (1000)] [--repeats R (15)] [--warmup W (3)]
 *                        [--spins "0,500,1000,2000,3000,5000,10000"]
 *
 * It is a program that prints figures, not a test: it asserts nothing about
 * timings.
 */
#include <cuda_runtime.h>
#include <string.h>

#define BENCH_NAME "graph_pitch"
#include "../bench_common.h"

#define MAX_SPINS 32

__global__ void gs_pitch_spin(long long cycles, int *sink)
{
	long long t0 = clock64();

	if (cycles > 0)
		while (clock64() - t0 < cycles)
			;
	if (threadIdx.x == 0 && cycles < 0)
		*sink = 1; /* never: keeps the kernel from being empty of effect */
}

/* "0,500,1000" into ns[]; returns the count, or exits 2 on a bad list */
static int parse_spins(const char *s, long *ns)
{
	int n = 0;

	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v < 0 || v > 1000000 || n == MAX_SPINS ||
		    (*end && *end != ',')) {
			fprintf(stderr,
				"graph_pitch: --spins is a comma list of at most %d spin times "
				"in ns (0..1000000)\n",
				MAX_SPINS);
			exit(2);
		}
		ns[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	int nodes = (int)bench_arg_long(argc, argv, "--nodes", 1000);
	int repeats = (int)bench_arg_long(argc, argv, "--repeats", 15);
	int warmup = (int)bench_arg_long(argc, argv, "--warmup", 3);
	const char *list = "0,500,1000,2000,3000,5000,10000";
	long spins[MAX_SPINS];
	double *v = (double *)calloc(repeats, sizeof(double));
	double *vl = (double *)calloc(repeats, sizeof(double)); /* the launch call alone */
	cudaDeviceProp prop;
	cudaStream_t s;
	int *sink, i, k, r, n_spins, clock_khz = 0;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--spins"))
			list = argv[i + 1];
	n_spins = parse_spins(list, spins);
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	CHECK(cudaMalloc(&sink, sizeof(int)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	printf("graph_pitch: %s, graphs of %d one-block spin kernels, SM clock %d MHz, %d "
	       "repeats (median) after %d warm-up\n",
	       prop.name, nodes, clock_khz / 1000, repeats, warmup);
	for (k = 0; k < n_spins; k++) {
		long long cycles = (long long)spins[k] * clock_khz / 1000000;
		cudaGraph_t graph;
		cudaGraphExec_t exec;
		char name[32];

		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
		for (i = 0; i < nodes; i++)
			gs_pitch_spin<<<1, 32, 0, s>>>(cycles, sink);
		CHECK(cudaGetLastError());
		CHECK(cudaStreamEndCapture(s, &graph));
		CHECK(cudaGraphInstantiate(&exec, graph, 0));
		CHECK(cudaGraphUpload(exec, s));
		CHECK(cudaStreamSynchronize(s));
		for (r = 0; r < warmup + repeats; r++) {
			double t0 = now_us(), tl, t1;
			CHECK(cudaGraphLaunch(exec, s));
			tl = now_us();
			CHECK(cudaStreamSynchronize(s));
			t1 = now_us();
			if (r >= warmup) {
				v[r - warmup] = (t1 - t0) / nodes;
				vl[r - warmup] = (tl - t0) / nodes;
			}
		}
		snprintf(name, sizeof(name), "spin%ld", spins[k]);
		bench_report_mode(name, v, repeats);
		snprintf(name, sizeof(name), "spin%ld_launch", spins[k]);
		bench_report_mode(name, vl, repeats);
		CHECK(cudaGraphExecDestroy(exec));
		CHECK(cudaGraphDestroy(graph));
	}
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(sink));
	free(v);
	free(vl);
	return 0;
}
