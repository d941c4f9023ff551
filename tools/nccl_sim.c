// SPDX-License-Identifier: GPL-2.0
/*
 * nccl_sim — an NCCL-API workload for fabtrace's NCCL phase probes.
 *
 * It is linked against the STAND-IN libnccl.so.2 built from
 * tests/lib/fake_nccl.c (found through its rpath in the build tree):
 * real NCCL needs a CUDA GPU and this machine has none.  The stand-in has
 * NCCL's soname, symbols and signatures but moves no data: each call only
 * checks its arguments and sleeps ~200 us (FAKE_NCCL_USEC).  So this tool
 * exercises the host-side API sequence of an NCCL program — what fabtrace's
 * uprobes see (ncclCommInitRank, ncclGroupStart/End, ncclAllReduce, ...)
 * — not the GPU or the network.  With a real libnccl.so.2 first in the
 * library path it would make the same calls (with host buffers, which real
 * NCCL rejects).
 *
 * Each process is one rank: rank 0 calls ncclGetUniqueId and, with
 * --id-file, writes the id there for the other ranks to read (as a real
 * program would broadcast it); then ncclCommInitRank, --warmup + --iters
 * iterations of one group (ncclGroupStart, the --ops in order,
 * ncclGroupEnd; --no-group: the ops alone), ncclCommDestroy, and one JSON
 * line (or text) with the number of calls of every NCCL function.
 * Exit 0 ok, 1 an NCCL call failed, 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../probes/marker/fabtrace_marker.h"
#include "../tests/lib/fake_nccl.h"
#include "toolargs.h"

#define MAX_OPS 16

#define NCCL_FUNCS(X)                                                                          \
	X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy) X(ncclGroupStart)            \
	X(ncclGroupEnd) X(ncclAllReduce) X(ncclAllGather) X(ncclReduceScatter) X(ncclBroadcast) \
	X(ncclReduce) X(ncclSend) X(ncclRecv)

enum nccl_fn {
#define FN_ENUM(f) C_##f,
	NCCL_FUNCS(FN_ENUM)
#undef FN_ENUM
	C_MAX
};

static const char *const fn_names[C_MAX] = {
#define FN_NAME(f) #f,
	NCCL_FUNCS(FN_NAME)
#undef FN_NAME
};

static unsigned long g_calls[C_MAX];
static long long g_fn_bytes[C_MAX];
/* Host buffers (never touched by the stand-in); freed by the exit. */
static float *g_sbuf, *g_rbuf;

/* Count, then make, one NCCL call. */
#define NC(fn, ...) (g_calls[C_##fn]++, fn(__VA_ARGS__))

enum op { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCE_SCATTER, OP_BROADCAST, OP_REDUCE, OP_SENDRECV, OP_MAX };

static const char *const op_names[OP_MAX] = {
	"allreduce", "allgather", "reduce_scatter", "broadcast", "reduce", "sendrecv",
};

struct opts {
	int rank, nranks;
	long iters, warmup;
	long long bytes;
	int group, steps, json, quiet;
	long timeout_s;
	const char *id_file;
	int nops;
	enum op ops[MAX_OPS];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nccl_sim --rank R --nranks N [--iters I] [--warmup W] [--bytes B] [--ops LIST]\n"
		"                [--no-group] [--id-file F] [--timeout S] [--steps] [--json] [--quiet]\n"
		"  Runs the NCCL host API against the stand-in libnccl.so.2 (tests/lib/fake_nccl.c;\n"
		"  real NCCL needs a GPU).  Per iteration: ncclGroupStart, the --ops, ncclGroupEnd.\n"
		"  --ops LIST    comma list of allreduce allgather reduce_scatter broadcast reduce\n"
		"                sendrecv (ncclSend to rank+1 and ncclRecv from rank-1); default allreduce\n"
		"  --bytes B     buffer size (float32; allgather/reduce_scatter: B/N per rank); default 1m\n"
		"  --iters I     default 20;  --warmup W: default 0\n"
		"  --no-group    no ncclGroupStart/End around the ops\n"
		"  --id-file F   rank 0 writes the ncclUniqueId to F, the others wait for it\n"
		"                (--timeout S, default 30); without it ranks > 0 use a zero id\n"
		"  --steps       fabtrace_step_begin/end around each iteration (probes/marker)\n"
		"  --json        one JSON line with the calls made\n");
}

static int arg_error(const char *what, const char *why)
{
	fprintf(stderr, "nccl_sim: %s: %s; run 'nccl_sim --help'\n", what, why);
	return -1;
}

static int parse_ops(const char *arg, struct opts *o)
{
	int idx[MAX_OPS];
	int n = toolargs_list(arg, 512, op_names, OP_MAX, idx, MAX_OPS);

	switch (n) {
	case TA_LIST_TOO_LONG: return arg_error("--ops", "list too long");
	case TA_LIST_UNKNOWN:
		return arg_error("--ops", "unknown op; use allreduce, allgather, reduce_scatter, broadcast, "
					  "reduce, sendrecv");
	case TA_LIST_TOO_MANY: return arg_error("--ops", "too many ops (max 16)");
	case TA_LIST_EMPTY: return arg_error("--ops", "empty list");
	default: break;
	}
	for (o->nops = 0; o->nops < n; o->nops++)
		o->ops[o->nops] = (enum op)idx[o->nops];
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "rank", required_argument, NULL, 'r' },   { "nranks", required_argument, NULL, 'n' },
		{ "iters", required_argument, NULL, 'i' },  { "warmup", required_argument, NULL, 'w' },
		{ "bytes", required_argument, NULL, 'b' },  { "ops", required_argument, NULL, 'o' },
		{ "no-group", no_argument, NULL, 'G' },     { "id-file", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' }, { "steps", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },         { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	long long v;
	int c, have_rank = 0, have_n = 0;

	o->iters = 20;
	o->bytes = 1 << 20;
	o->group = 1;
	o->timeout_s = 30;
	o->nops = 1;
	o->ops[0] = OP_ALLREDUCE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (toolargs_num(optarg, 0, 1 << 20, &v, 0))
				return arg_error("--rank", "expected an integer >= 0");
			o->rank = (int)v;
			have_rank = 1;
			break;
		case 'n':
			if (toolargs_num(optarg, 1, 1 << 20, &v, 0))
				return arg_error("--nranks", "expected an integer >= 1");
			o->nranks = (int)v;
			have_n = 1;
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
		case 'b':
			if (toolargs_num(optarg, 4, 1LL << 30, &v, TA_SUFFIX))
				return arg_error("--bytes", "expected a size from 4 to 1g (e.g. 64k, 1m)");
			o->bytes = v;
			break;
		case 'o':
			if (parse_ops(optarg, o))
				return -1;
			break;
		case 'G': o->group = 0; break;
		case 'f': o->id_file = optarg; break;
		case 't':
			if (toolargs_num(optarg, 1, 3600, &v, 0))
				return arg_error("--timeout", "expected seconds from 1 to 3600");
			o->timeout_s = (long)v;
			break;
		case 's': o->steps = 1; break;
		case 'j': o->json = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': usage(stdout); return 1;
		default:
			return arg_error(argv[optind - 1] ? argv[optind - 1] : "option",
					 "unknown option or missing value");
		}
	}
	if (optind < argc)
		return arg_error(argv[optind], "unexpected argument");
	if (!have_rank || !have_n)
		return arg_error("--rank/--nranks", "both are required (e.g. --rank 0 --nranks 2)");
	if (o->rank >= o->nranks)
		return arg_error("--rank", "must be below --nranks");
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rank 0: write the id atomically (tmp + rename). */
static int write_id(const char *path, const ncclUniqueId *id)
{
	char tmp[4096];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, id, sizeof(*id)) != (ssize_t)sizeof(*id) || close(fd)) {
		unlink(tmp);
		return -1;
	}
	return rename(tmp, path);
}

/* Ranks > 0: wait until the id file is there. */
static int read_id(const char *path, ncclUniqueId *id, long timeout_s)
{
	double deadline = now_s() + (double)timeout_s;
	struct timespec ms10 = { 0, 10000000L };

	for (;;) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			ssize_t n = read(fd, id, sizeof(*id));

			close(fd);
			if (n == (ssize_t)sizeof(*id))
				return 0;
		}
		if (now_s() > deadline)
			return -1;
		nanosleep(&ms10, NULL);
	}
}

static int nccl_failed(const char *what, ncclResult_t r)
{
	fprintf(stderr, "nccl_sim: %s: %s (ncclResult %d); check the arguments\n", what, ncclGetErrorString(r),
		(int)r);
	return 1;
}

int main(int argc, char **argv)
{
	struct opts o;
	ncclUniqueId id;
	ncclComm_t comm = NULL;
	ncclResult_t r;
	size_t count, block, nelem;
	double t_start, wall, tsum = 0;
	int pr;

	memset(&o, 0, sizeof(o));
	pr = parse_args(argc, argv, &o);
	if (pr)
		return pr > 0 ? 0 : 2;

	count = (size_t)o.bytes / sizeof(float);
	block = (count / (size_t)o.nranks) ? (count / (size_t)o.nranks) : 1;
	nelem = block * (size_t)o.nranks > count ? block * (size_t)o.nranks : count;
	g_sbuf = calloc(nelem, sizeof(float));
	g_rbuf = calloc(nelem, sizeof(float));
	if (!g_sbuf || !g_rbuf) {
		fprintf(stderr, "nccl_sim: out of memory for %lld bytes; use a smaller --bytes\n", o.bytes);
		return 1;
	}
	for (int k = 0; k < o.nops; k++) {
		switch (o.ops[k]) {
		case OP_ALLREDUCE: g_fn_bytes[C_ncclAllReduce] = (long long)count * (long long)sizeof(float); break;
		case OP_ALLGATHER: g_fn_bytes[C_ncclAllGather] = (long long)block * (long long)sizeof(float); break;
		case OP_REDUCE_SCATTER: g_fn_bytes[C_ncclReduceScatter] = (long long)block * (long long)sizeof(float); break;
		case OP_BROADCAST: g_fn_bytes[C_ncclBroadcast] = (long long)count * (long long)sizeof(float); break;
		case OP_REDUCE: g_fn_bytes[C_ncclReduce] = (long long)count * (long long)sizeof(float); break;
		case OP_SENDRECV:
			g_fn_bytes[C_ncclSend] = g_fn_bytes[C_ncclRecv] = (long long)count * (long long)sizeof(float);
			break;
		case OP_MAX: break;
		}
	}

	memset(&id, 0, sizeof(id));
	if (o.rank == 0) {
		r = NC(ncclGetUniqueId, &id);
		if (r != ncclSuccess)
			return nccl_failed("ncclGetUniqueId", r);
		if (o.id_file && write_id(o.id_file, &id)) {
			fprintf(stderr, "nccl_sim: --id-file %s: cannot write: %s; check the directory\n", o.id_file,
				strerror(errno));
			return 1;
		}
	} else if (o.id_file && read_id(o.id_file, &id, o.timeout_s)) {
		fprintf(stderr, "nccl_sim: --id-file %s: no id from rank 0 within %ld s; start rank 0 too\n",
			o.id_file, o.timeout_s);
		return 1;
	}
	r = NC(ncclCommInitRank, &comm, o.nranks, id, o.rank);
	if (r != ncclSuccess)
		return nccl_failed("ncclCommInitRank", r);

	t_start = now_s();
	for (long it = -o.warmup; it < o.iters; it++) {
		long seq = it + o.warmup;
		int right = (o.rank + 1) % o.nranks, left = (o.rank + o.nranks - 1) % o.nranks;
		double t0;

		if (o.steps)
			fabtrace_step_begin((uint64_t)seq);
		t0 = now_s();
		if (o.group && (r = NC(ncclGroupStart)) != ncclSuccess)
			return nccl_failed("ncclGroupStart", r);
		for (int k = 0; k < o.nops; k++) {
			const char *what = op_names[o.ops[k]];

			switch (o.ops[k]) {
			case OP_ALLREDUCE:
				r = NC(ncclAllReduce, g_sbuf, g_rbuf, count, ncclFloat32, ncclSum, comm, NULL);
				break;
			case OP_ALLGATHER:
				r = NC(ncclAllGather, g_sbuf, g_rbuf, block, ncclFloat32, comm, NULL);
				break;
			case OP_REDUCE_SCATTER:
				r = NC(ncclReduceScatter, g_sbuf, g_rbuf, block, ncclFloat32, ncclSum, comm, NULL);
				break;
			case OP_BROADCAST:
				r = NC(ncclBroadcast, g_sbuf, g_rbuf, count, ncclFloat32, 0, comm, NULL);
				break;
			case OP_REDUCE:
				r = NC(ncclReduce, g_sbuf, g_rbuf, count, ncclFloat32, ncclSum, 0, comm, NULL);
				break;
			case OP_SENDRECV:
				r = NC(ncclSend, g_sbuf, count, ncclFloat32, right, comm, NULL);
				if (r == ncclSuccess)
					r = NC(ncclRecv, g_rbuf, count, ncclFloat32, left, comm, NULL);
				break;
			case OP_MAX:
				r = ncclInvalidUsage;
				break;
			}
			if (r != ncclSuccess)
				return nccl_failed(what, r);
		}
		if (o.group && (r = NC(ncclGroupEnd)) != ncclSuccess)
			return nccl_failed("ncclGroupEnd", r);
		if (it >= 0)
			tsum += now_s() - t0;
		if (o.steps)
			fabtrace_step_end((uint64_t)seq);
	}
	wall = now_s() - t_start;
	r = NC(ncclCommDestroy, comm);
	if (r != ncclSuccess)
		return nccl_failed("ncclCommDestroy", r);

	if (!o.quiet && o.json) {
		printf("{\"workload\":\"nccl_sim\",\"stand_in\":true,\"rank\":%d,\"nranks\":%d,\"iters\":%ld,"
		       "\"warmup\":%ld,\"bytes\":%zu,\"dtype\":\"float32\",\"group\":%s,\"steps\":%s,\"ops\":[",
		       o.rank, o.nranks, o.iters, o.warmup, count * sizeof(float), o.group ? "true" : "false",
		       o.steps ? "true" : "false");
		for (int k = 0; k < o.nops; k++)
			printf("%s\"%s\"", k ? "," : "", op_names[o.ops[k]]);
		int first = 1;

		printf("],\"mean_iter_us\":%.1f,\"wall_s\":%.6f,\"calls\":{", tsum / (double)o.iters * 1e6, wall);
		for (int f = 0; f < C_MAX; f++) {
			if (!g_calls[f])
				continue;
			printf("%s\"%s\":%lu", first ? "" : ",", fn_names[f], g_calls[f]);
			first = 0;
		}
		printf("},\"bytes_per_call\":{");
		first = 1;
		for (int f = 0; f < C_MAX; f++) {
			if (!g_calls[f] || (f != C_ncclAllReduce && f != C_ncclAllGather && f != C_ncclReduceScatter &&
					    f != C_ncclBroadcast && f != C_ncclReduce && f != C_ncclSend && f != C_ncclRecv))
				continue;
			printf("%s\"%s\":%lld", first ? "" : ",", fn_names[f], g_fn_bytes[f]);
			first = 0;
		}
		printf("}}\n");
	} else if (!o.quiet) {
		printf("nccl_sim: rank=%d nranks=%d iters=%ld bytes=%zu ops=", o.rank, o.nranks, o.iters,
		       count * sizeof(float));
		for (int k = 0; k < o.nops; k++)
			printf("%s%s", k ? "," : "", op_names[o.ops[k]]);
		printf(" group=%s mean_iter_us=%.1f (stand-in libnccl: no GPU, no data moved)\n",
		       o.group ? "on" : "off", tsum / (double)o.iters * 1e6);
	}
	free(g_sbuf);
	free(g_rbuf);
	return 0;
}
