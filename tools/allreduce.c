// SPDX-License-Identifier: GPL-2.0
/*
 * allreduce — a real MPI_Allreduce workload for the fabtrace lab.
 *
 * Every rank fills a buffer of --bytes bytes (int32 elements) with values
 * that depend on its rank and on the iteration, calls MPI_Allreduce(SUM)
 * --iters times (after --warmup untimed iterations) and checks every
 * element of the result.  --delay RANK:USEC sleeps USEC microseconds on
 * RANK before each allreduce: a compute straggler the others wait for.
 *
 * Rank 0 prints one summary line (or --json): iterations, bytes, the
 * mean/min/max time of one allreduce as seen by rank 0, the slowest rank's
 * mean, the per-rank means and whether the results verified.  Exit status
 * 0 = ok, 1 = wrong result on some rank, 2 = bad arguments, 3 = MPI error.
 *
 * MPI_Finalize over UCX-tcp can hang (a known UCX issue), so by default the
 * program ends with MPI_Barrier, fflush and _exit(); run it under
 * `mpiexec -disable-auto-cleanup` and `timeout`.  --finalize calls
 * MPI_Finalize instead.  See tools/README.md for the launch line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "toolargs.h"

#define MAX_DELAYS 64

enum { EXIT_OK = 0, EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_MPI = 3 };

struct delay {
	int rank;
	long usec;
};

struct opts {
	long long bytes;
	long iters;
	long warmup;
	int json;
	int quiet;
	int finalize;
	int ndelays;
	struct delay delays[MAX_DELAYS];
};

static int g_rank;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: allreduce [--bytes N] [--iters N] [--warmup N] [--delay RANK:USEC]...\n"
		"                 [--json] [--quiet] [--finalize]\n"
		"  --bytes N         message size in bytes (suffix k/m/g = KiB/MiB/GiB; default 1m)\n"
		"  --iters N         timed iterations (default 20)\n"
		"  --warmup N        untimed iterations first (default 2)\n"
		"  --delay RANK:USEC sleep USEC us on RANK before each allreduce (compute\n"
		"                    straggler); repeatable\n"
		"  --json            print the summary as one JSON object\n"
		"  --quiet           print nothing on success\n"
		"  --finalize        call MPI_Finalize at the end instead of _exit()\n"
		"Launch one rank per lab host with tools/lab.sh mpi; see tools/README.md.\n");
}

/* Errors are printed by rank 0 only (every rank parses the same argv). */
static int arg_error(const char *what, const char *why)
{
	if (g_rank == 0)
		fprintf(stderr, "allreduce: %s: %s; run 'allreduce --help'\n", what, why);
	return -1;
}

static int parse_args(int argc, char **argv, struct opts *o, int nranks)
{
	static const struct option lopts[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "iters", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "finalize", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long v;
	int c;

	o->bytes = 1 << 20;
	o->iters = 20;
	o->warmup = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:i:w:d:jqh", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (toolargs_num(optarg, 4, 1LL << 30, &v, TA_SUFFIX))
				return arg_error("--bytes", "expected a size from 4 to 1g (e.g. 1048576, 64k, 1m)");
			o->bytes = v;
			break;
		case 'i':
			if (toolargs_num(optarg, 1, 100000000, &v, 0))
				return arg_error("--iters", "expected an integer >= 1");
			o->iters = (long)v;
			break;
		case 'w':
			if (toolargs_num(optarg, 0, 100000000, &v, 0))
				return arg_error("--warmup", "expected an integer >= 0");
			o->warmup = (long)v;
			break;
		case 'd': {
			char *colon = strchr(optarg, ':');
			long long r, us;

			if (!colon)
				return arg_error("--delay", "expected RANK:USEC, e.g. --delay 2:5000");
			*colon = '\0';
			if (toolargs_num(optarg, 0, INT_MAX, &r, 0) || toolargs_num(colon + 1, 0, 60000000, &us, 0)) {
				*colon = ':';
				return arg_error("--delay", "expected RANK:USEC with RANK >= 0 and 0 <= USEC <= 60000000");
			}
			*colon = ':';
			if (r >= nranks)
				return arg_error("--delay", "RANK is not below the number of ranks");
			if (o->ndelays >= MAX_DELAYS)
				return arg_error("--delay", "too many --delay options (max 64)");
			o->delays[o->ndelays].rank = (int)r;
			o->delays[o->ndelays].usec = (long)us;
			o->ndelays++;
			break;
		}
		case 'j': o->json = 1; break;
		case 'q': o->quiet = 1; break;
		case 'F': o->finalize = 1; break;
		case 'h':
			if (g_rank == 0)
				usage(stdout);
			return 1;
		default:
			return arg_error(argv[optind - 1] ? argv[optind - 1] : "option",
					 "unknown option or missing value");
		}
	}
	if (optind < argc)
		return arg_error(argv[optind], "unexpected argument");
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_us(long usec)
{
	struct timespec ts = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Value of element j on rank r in iteration it; small enough never to overflow. */
static inline int32_t elem(int r, size_t j, long it)
{
	return (int32_t)((r + 1) * (int32_t)(j % 1021 + 1) + (int32_t)(it % 1000));
}

static inline int32_t expect(int n, size_t j, long it)
{
	return (int32_t)((int32_t)(j % 1021 + 1) * (n * (n + 1) / 2) + n * (int32_t)(it % 1000));
}

static void finish(int status, int finalize)
{
	fflush(stdout);
	fflush(stderr);
	if (finalize) {
		MPI_Finalize();
		exit(status);
	}
	_exit(status);
}

int main(int argc, char **argv)
{
	struct opts o;
	int nranks, bad = 0, allbad = 0, pr;
	long my_delay = 0, it;
	size_t count, j;
	int32_t *sbuf, *rbuf;
	double *times, tsum = 0, tmin = 1e300, tmax = 0, wall0, wall;
	double mymean, *means = NULL;
	long long first_bad = -1;

	memset(&o, 0, sizeof(o));
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "allreduce: MPI_Init: failed; check the launch line in tools/README.md\n");
		return EXIT_MPI;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	pr = parse_args(argc, argv, &o, nranks);
	if (pr != 0)
		finish(pr > 0 ? EXIT_OK : EXIT_USAGE, 0);
	for (int k = 0; k < o.ndelays; k++)
		if (o.delays[k].rank == g_rank)
			my_delay += o.delays[k].usec;

	count = (size_t)(o.bytes / (long long)sizeof(int32_t));
	sbuf = malloc(count * sizeof(*sbuf));
	rbuf = malloc(count * sizeof(*rbuf));
	times = calloc((size_t)o.iters, sizeof(*times));
	if (g_rank == 0)
		means = calloc((size_t)nranks, sizeof(*means));
	if (!sbuf || !rbuf || !times || (g_rank == 0 && !means)) {
		fprintf(stderr, "allreduce: rank %d: out of memory for %lld bytes; use a smaller --bytes\n",
			g_rank, o.bytes);
		MPI_Abort(MPI_COMM_WORLD, EXIT_MPI);
		finish(EXIT_MPI, 0);
	}

	MPI_Barrier(MPI_COMM_WORLD);
	wall0 = now_s();
	for (it = -o.warmup; it < o.iters; it++) {
		long seq = it + o.warmup;

		for (j = 0; j < count; j++)
			sbuf[j] = elem(g_rank, j, seq);
		if (my_delay)
			sleep_us(my_delay);
		double t0 = now_s();
		int rc = MPI_Allreduce(sbuf, rbuf, (int)count, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
		double t1 = now_s();
		if (rc != MPI_SUCCESS) {
			fprintf(stderr, "allreduce: rank %d: MPI_Allreduce failed (code %d) in iteration %ld\n",
				g_rank, rc, seq);
			MPI_Abort(MPI_COMM_WORLD, EXIT_MPI);
			finish(EXIT_MPI, 0);
		}
		for (j = 0; j < count; j++) {
			if (rbuf[j] != expect(nranks, j, seq)) {
				if (!bad)
					first_bad = (long long)j;
				bad++;
				break;
			}
		}
		if (bad == 1 && first_bad >= 0) {
			fprintf(stderr,
				"allreduce: rank %d: wrong sum in iteration %ld at element %lld: got %" PRId32
				", expected %" PRId32 "\n",
				g_rank, seq, first_bad, rbuf[first_bad], expect(nranks, (size_t)first_bad, seq));
			first_bad = -2;
		}
		if (it >= 0) {
			double d = t1 - t0;

			times[it] = d;
			tsum += d;
			if (d < tmin)
				tmin = d;
			if (d > tmax)
				tmax = d;
		}
	}
	wall = now_s() - wall0;

	mymean = tsum / (double)o.iters;
	MPI_Gather(&mymean, 1, MPI_DOUBLE, means, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

	if (g_rank == 0 && (!o.quiet || allbad)) {
		double slowest = 0, algbw, busbw;

		for (int r = 0; r < nranks; r++)
			if (means[r] > slowest)
				slowest = means[r];
		/* bandwidth convention of nccl-tests: busbw = algbw * 2(n-1)/n */
		algbw = (double)count * sizeof(int32_t) / mymean / 1e6;
		busbw = algbw * 2.0 * (nranks - 1) / nranks;
		if (o.json) {
			printf("{\"workload\":\"allreduce\",\"ranks\":%d,\"bytes\":%zu,\"iters\":%ld,"
			       "\"warmup\":%ld,\"mean_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,"
			       "\"slowest_rank_mean_us\":%.1f,\"wall_s\":%.6f,\"algbw_MBps\":%.2f,"
			       "\"busbw_MBps\":%.2f,\"rank_mean_us\":[",
			       nranks, count * sizeof(int32_t), o.iters, o.warmup, mymean * 1e6,
			       tmin * 1e6, tmax * 1e6, slowest * 1e6, wall, algbw, busbw);
			for (int r = 0; r < nranks; r++)
				printf("%s%.1f", r ? "," : "", means[r] * 1e6);
			printf("],\"delays\":[");
			for (int k = 0; k < o.ndelays; k++)
				printf("%s{\"rank\":%d,\"usec\":%ld}", k ? "," : "", o.delays[k].rank,
				       o.delays[k].usec);
			printf("],\"verify\":\"%s\"}\n", allbad ? "FAILED" : "ok");
		} else {
			printf("allreduce: ranks=%d bytes=%zu iters=%ld warmup=%ld mean_us=%.1f min_us=%.1f "
			       "max_us=%.1f slowest_rank_mean_us=%.1f wall_s=%.3f algbw_MBps=%.2f "
			       "busbw_MBps=%.2f verify=%s\n",
			       nranks, count * sizeof(int32_t), o.iters, o.warmup, mymean * 1e6, tmin * 1e6,
			       tmax * 1e6, slowest * 1e6, wall, algbw, busbw, allbad ? "FAILED" : "ok");
		}
	}
	free(sbuf);
	free(rbuf);
	free(times);
	free(means);
	MPI_Barrier(MPI_COMM_WORLD);
	finish(allbad ? EXIT_VERIFY : EXIT_OK, o.finalize);
	return 0;
}
