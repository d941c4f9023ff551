// SPDX-License-Identifier: GPL-2.0
/*
 * gloo_allreduce — a real Gloo workload (Debian's libgloo, the library
 * behind PyTorch's CPU "gloo" backend) for the fabtrace lab.
 *
 * One process per rank, started by hand or by `tools/lab.sh gloo` (one rank
 * per lab host).  Each process:
 *   - creates a gloo::transport::tcp device bound to --addr (its lab host's
 *     address, 198.18.0.I), so every pair connection crosses the lab fabric;
 *   - rendezvouses through a gloo::rendezvous::FileStore in --store DIR (a
 *     directory all ranks see; use a fresh one per run) wrapped in a
 *     PrefixStore (--prefix), and connects a full mesh
 *     (gloo::rendezvous::Context::connectFullMesh);
 *   - runs --warmup + --iters iterations of the functional collectives
 *     (gloo::allreduce with AllreduceOptions, and with --ops also
 *     gloo::allgather, gloo::broadcast, gloo::reduce, gloo::alltoall,
 *     gloo::barrier; one op per iteration, cycled) on --bytes of float32,
 *     verifies every element, and ends with one gloo::barrier;
 *   - prints one line, or with --json one JSON object, with its timings and
 *     the number of calls of every Gloo entry point it made.
 * Every rank makes the same Gloo calls in the same order.
 * Debian's gloo (0.0~git20220518) has no functional reduce-scatter (only the
 * header-only ReduceScatterHalvingDoubling template), so there is none here.
 * Exit 0 ok, 1 wrong result, 2 bad arguments, 3 Gloo error (e.g. timeout).
 */
#include <getopt.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include "../probes/marker/fabtrace_marker.h"
#include "toolargs.h"

namespace {

enum { EXIT_OK = 0, EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_GLOO = 3 };

/* The Gloo entry points this program calls (demangled names, as counted). */
enum gfn { G_CONNECT, G_ALLREDUCE, G_ALLGATHER, G_BROADCAST, G_REDUCE, G_ALLTOALL, G_BARRIER, G_MAX };
const char *const gfn_names[G_MAX] = {
	"gloo::rendezvous::Context::connectFullMesh",
	"gloo::allreduce",
	"gloo::allgather",
	"gloo::broadcast",
	"gloo::reduce",
	"gloo::alltoall",
	"gloo::barrier",
};

enum op { OP_ALLREDUCE, OP_ALLGATHER, OP_BROADCAST, OP_REDUCE, OP_ALLTOALL, OP_BARRIER, OP_MAX };
const char *const op_names[OP_MAX] = { "allreduce", "allgather", "broadcast", "reduce", "alltoall", "barrier" };
const enum gfn op_fn[OP_MAX] = { G_ALLREDUCE, G_ALLGATHER, G_BROADCAST, G_REDUCE, G_ALLTOALL, G_BARRIER };

constexpr int kMaxDelays = 64;

struct Opts {
	int rank = -1, size = 0;
	std::string store, addr, prefix = "fabtrace-gloo";
	long long bytes = 1 << 20;
	long iters = 20, warmup = 2, compute_us = 0, timeout_s = 60;
	int steps = 0, json = 0, quiet = 0;
	std::vector<enum op> ops{ OP_ALLREDUCE };
	std::vector<std::pair<int, long>> delays;
};

unsigned long g_calls[G_MAX];
long long g_fn_bytes[G_MAX];

void usage(FILE *f)
{
	fprintf(f,
		"usage: gloo_allreduce --rank R --size N --store DIR --addr IP [--prefix P]\n"
		"                      [--bytes B] [--iters I] [--warmup W] [--ops LIST] [--compute USEC]\n"
		"                      [--delay RANK:USEC]... [--steps] [--timeout S] [--json] [--quiet]\n"
		"  --rank R, --size N  this process's rank and the number of ranks\n"
		"  --store DIR         FileStore directory shared by all ranks (fresh per run)\n"
		"  --addr IP           address to bind the Gloo TCP device to (the lab host's)\n"
		"  --prefix P          PrefixStore prefix (default fabtrace-gloo)\n"
		"  --bytes B           float32 buffer size (k/m/g suffixes; default 1m); allgather and\n"
		"                      alltoall: the whole output, each rank's block is B/N\n"
		"  --iters I, --warmup W   timed and untimed iterations (default 20, 2)\n"
		"  --ops LIST          comma list cycled per iteration: allreduce allgather broadcast\n"
		"                      reduce alltoall barrier (default allreduce; root 0)\n"
		"  --compute USEC      every rank sleeps USEC before each collective\n"
		"  --delay RANK:USEC   RANK sleeps USEC more before each collective (straggler)\n"
		"  --steps             fabtrace marker steps/phases around each iteration\n"
		"  --timeout S         Gloo timeout for rendezvous and each collective (default 60)\n"
		"  --json              one JSON object on stdout\n");
}

int arg_error(const char *what, const char *why)
{
	fprintf(stderr, "gloo_allreduce: %s: %s; run 'gloo_allreduce --help'\n", what, why);
	return -1;
}

int parse_ops(const char *arg, Opts &o)
{
	std::string s(arg);
	size_t pos = 0;

	o.ops.clear();
	while (pos <= s.size()) {
		size_t comma = s.find(',', pos);
		std::string tok = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		int k;

		for (k = 0; k < OP_MAX; k++)
			if (tok == op_names[k])
				break;
		if (k == OP_MAX)
			return arg_error("--ops", "unknown op; use allreduce, allgather, broadcast, reduce, alltoall, barrier");
		o.ops.push_back(static_cast<enum op>(k));
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	if (o.ops.empty() || o.ops.size() > 64)
		return arg_error("--ops", "expected 1 to 64 ops");
	return 0;
}

int parse_args(int argc, char **argv, Opts &o)
{
	static const struct option lopts[] = {
		{ "rank", required_argument, nullptr, 'r' },    { "size", required_argument, nullptr, 'n' },
		{ "store", required_argument, nullptr, 'S' },   { "addr", required_argument, nullptr, 'a' },
		{ "prefix", required_argument, nullptr, 'P' },  { "bytes", required_argument, nullptr, 'b' },
		{ "iters", required_argument, nullptr, 'i' },   { "warmup", required_argument, nullptr, 'w' },
		{ "ops", required_argument, nullptr, 'o' },     { "compute", required_argument, nullptr, 'c' },
		{ "delay", required_argument, nullptr, 'd' },   { "steps", no_argument, nullptr, 's' },
		{ "timeout", required_argument, nullptr, 't' }, { "json", no_argument, nullptr, 'j' },
		{ "quiet", no_argument, nullptr, 'q' },         { "help", no_argument, nullptr, 'h' },
		{ nullptr, 0, nullptr, 0 },
	};
	long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, nullptr)) != -1) {
		switch (c) {
		case 'r':
			if (toolargs_num(optarg, 0, 65535, &v, 0))
				return arg_error("--rank", "expected an integer >= 0");
			o.rank = static_cast<int>(v);
			break;
		case 'n':
			if (toolargs_num(optarg, 1, 65536, &v, 0))
				return arg_error("--size", "expected an integer >= 1");
			o.size = static_cast<int>(v);
			break;
		case 'S': o.store = optarg; break;
		case 'a': o.addr = optarg; break;
		case 'P': o.prefix = optarg; break;
		case 'b':
			if (toolargs_num(optarg, 4, 1LL << 30, &v, TA_SUFFIX))
				return arg_error("--bytes", "expected a size from 4 to 1g (e.g. 64k, 1m)");
			o.bytes = v;
			break;
		case 'i':
			if (toolargs_num(optarg, 1, 100000000, &v, 0))
				return arg_error("--iters", "expected an integer >= 1");
			o.iters = static_cast<long>(v);
			break;
		case 'w':
			if (toolargs_num(optarg, 0, 100000000, &v, 0))
				return arg_error("--warmup", "expected an integer >= 0");
			o.warmup = static_cast<long>(v);
			break;
		case 'o':
			if (parse_ops(optarg, o))
				return -1;
			break;
		case 'c':
			if (toolargs_num(optarg, 0, 60000000, &v, 0))
				return arg_error("--compute", "expected microseconds from 0 to 60000000");
			o.compute_us = static_cast<long>(v);
			break;
		case 'd': {
			const char *colon = strchr(optarg, ':');
			long long r, us;

			if (!colon || static_cast<int>(o.delays.size()) >= kMaxDelays)
				return arg_error("--delay", "expected RANK:USEC (at most 64), e.g. --delay 1:5000");
			std::string rs(optarg, static_cast<size_t>(colon - optarg));
			if (toolargs_num(rs.c_str(), 0, INT_MAX, &r, 0) || toolargs_num(colon + 1, 0, 60000000, &us, 0))
				return arg_error("--delay", "expected RANK:USEC with 0 <= USEC <= 60000000");
			o.delays.emplace_back(static_cast<int>(r), static_cast<long>(us));
			break;
		}
		case 's': o.steps = 1; break;
		case 't':
			if (toolargs_num(optarg, 1, 3600, &v, 0))
				return arg_error("--timeout", "expected seconds from 1 to 3600");
			o.timeout_s = static_cast<long>(v);
			break;
		case 'j': o.json = 1; break;
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return 1;
		default:
			return arg_error(argv[optind - 1] ? argv[optind - 1] : "option",
					 "unknown option or missing value");
		}
	}
	if (optind < argc)
		return arg_error(argv[optind], "unexpected argument");
	if (o.rank < 0 || o.size < 1)
		return arg_error("--rank/--size", "both are required (e.g. --rank 0 --size 2)");
	if (o.rank >= o.size)
		return arg_error("--rank", "must be below --size");
	if (o.store.empty())
		return arg_error("--store", "required: a directory all ranks share (e.g. a fresh mktemp -d)");
	if (o.addr.empty())
		return arg_error("--addr", "required: the IP address to bind to (e.g. 198.18.0.1)");
	if (std::any_of(o.delays.begin(), o.delays.end(), [&](const std::pair<int, long> &d) { return d.first >= o.size; }))
		return arg_error("--delay", "RANK is not below --size");
	return 0;
}

double now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void sleep_us(long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Small integers: sums stay exact in float32 for any sane number of ranks. */
inline float elem(int r, size_t j, long it)
{
	return static_cast<float>((r + 1) * static_cast<int>(j % 251 + 1) + static_cast<int>(it % 100));
}

inline float expect_sum(int n, size_t j, long it)
{
	const int tri = n * (n + 1) / 2; /* sum of (r + 1) over the ranks: exact */

	return static_cast<float>(static_cast<int>(j % 251 + 1) * tri + n * static_cast<int>(it % 100));
}

struct Shape {
	int n;
	size_t count; /* float elements of --bytes */
	size_t block; /* per-rank block of allgather/alltoall: count/n, >= 1 */
};

long long op_call_bytes(enum op op, const Shape &sh)
{
	switch (op) {
	case OP_ALLGATHER:
	case OP_ALLTOALL:
		return static_cast<long long>(sh.block) * static_cast<long long>(sizeof(float));
	case OP_BARRIER:
		return 0;
	default:
		return static_cast<long long>(sh.count) * static_cast<long long>(sizeof(float));
	}
}

void fill(enum op op, const Shape &sh, int rank, float *sbuf, float *rbuf, long seq)
{
	switch (op) {
	case OP_BARRIER:
		break;
	case OP_BROADCAST: /* in place: non-roots' values are overwritten */
		for (size_t j = 0; j < sh.count; j++)
			rbuf[j] = elem(rank, j, seq);
		break;
	case OP_ALLGATHER:
		for (size_t j = 0; j < sh.block; j++)
			sbuf[j] = elem(rank, j, seq);
		break;
	case OP_ALLTOALL:
		for (size_t j = 0; j < sh.block * static_cast<size_t>(sh.n); j++)
			sbuf[j] = elem(rank, j, seq);
		break;
	default:
		for (size_t j = 0; j < sh.count; j++)
			sbuf[j] = elem(rank, j, seq);
		break;
	}
}

void run_op(enum op op, const Shape &sh, const std::shared_ptr<gloo::Context> &ctx, float *sbuf, float *rbuf,
	    uint32_t tag)
{
	g_calls[op_fn[op]]++;
	switch (op) {
	case OP_ALLREDUCE: {
		gloo::AllreduceOptions opts(ctx);
		opts.setInput(sbuf, sh.count);
		opts.setOutput(rbuf, sh.count);
		opts.setReduceFunction(
			static_cast<void (*)(void *, const void *, const void *, size_t)>(&gloo::sum<float>));
		opts.setTag(tag);
		gloo::allreduce(opts);
		break;
	}
	case OP_ALLGATHER: {
		gloo::AllgatherOptions opts(ctx);
		opts.setInput(sbuf, sh.block);
		opts.setOutput(rbuf, sh.block * static_cast<size_t>(sh.n));
		opts.setTag(tag);
		gloo::allgather(opts);
		break;
	}
	case OP_BROADCAST: {
		gloo::BroadcastOptions opts(ctx);
		opts.setOutput(rbuf, sh.count);
		opts.setRoot(0);
		opts.setTag(tag);
		gloo::broadcast(opts);
		break;
	}
	case OP_REDUCE: {
		gloo::ReduceOptions opts(ctx);
		opts.setInput(sbuf, sh.count);
		opts.setOutput(rbuf, sh.count);
		opts.setRoot(0);
		opts.setReduceFunction(
			static_cast<void (*)(void *, const void *, const void *, size_t)>(&gloo::sum<float>));
		opts.setTag(tag);
		gloo::reduce(opts);
		break;
	}
	case OP_ALLTOALL: {
		gloo::AlltoallOptions opts(ctx);
		opts.setInput(sbuf, sh.block * static_cast<size_t>(sh.n));
		opts.setOutput(rbuf, sh.block * static_cast<size_t>(sh.n));
		opts.setTag(tag);
		gloo::alltoall(opts);
		break;
	}
	case OP_BARRIER: {
		gloo::BarrierOptions opts(ctx);
		opts.setTag(tag);
		gloo::barrier(opts);
		break;
	}
	case OP_MAX:
		break;
	}
}

/* Index of the first wrong element (got/want filled) or -1. */
long long verify(enum op op, const Shape &sh, int rank, const float *rbuf, long seq, float &got, float &want)
{
	const size_t b = sh.block, n = static_cast<size_t>(sh.n);

	auto check = [&](size_t j, float w) {
		if (rbuf[j] == w)
			return false;
		got = rbuf[j];
		want = w;
		return true;
	};
	switch (op) {
	case OP_BARRIER:
		return -1;
	case OP_REDUCE:
		if (rank != 0)
			return -1;
		/* fallthrough */
	case OP_ALLREDUCE:
		for (size_t j = 0; j < sh.count; j++)
			if (check(j, expect_sum(sh.n, j, seq)))
				return static_cast<long long>(j);
		return -1;
	case OP_BROADCAST:
		for (size_t j = 0; j < sh.count; j++)
			if (check(j, elem(0, j, seq)))
				return static_cast<long long>(j);
		return -1;
	case OP_ALLGATHER:
		for (size_t k = 0; k < n; k++)
			for (size_t i = 0, idx = k * b; i < b; i++, idx++)
				if (check(idx, elem(static_cast<int>(k), i, seq)))
					return static_cast<long long>(idx);
		return -1;
	case OP_ALLTOALL:
		for (size_t k = 0; k < n; k++)
			for (size_t i = 0, idx = k * b; i < b; i++, idx++)
				if (check(idx, elem(static_cast<int>(k), static_cast<size_t>(rank) * b + i, seq)))
					return static_cast<long long>(idx);
		return -1;
	case OP_MAX:
		break;
	}
	return -1;
}

void print_counts(const unsigned long *c)
{
	int first = 1;

	putchar('{');
	for (int f = 0; f < G_MAX; f++) {
		if (!c[f])
			continue;
		printf("%s\"%s\":%lu", first ? "" : ",", gfn_names[f], c[f]);
		first = 0;
	}
	putchar('}');
}

int run(const Opts &o)
{
	Shape sh;
	long my_delay = 0;
	int bad = 0;
	double tsum = 0, tmin = 1e300, tmax = 0, t_setup0, t_setup, wall0, wall;
	unsigned long before[G_MAX], workload[G_MAX], total[G_MAX];

	sh.n = o.size;
	sh.count = static_cast<size_t>(o.bytes) / sizeof(float);
	sh.block = (sh.count / static_cast<size_t>(o.size)) ? (sh.count / static_cast<size_t>(o.size)) : 1;
	size_t nelem = std::max(sh.count, sh.block * static_cast<size_t>(o.size));
	std::vector<float> sbuf(nelem), rbuf(nelem);
	my_delay = std::accumulate(o.delays.begin(), o.delays.end(), 0L, [&](long acc, const std::pair<int, long> &d) {
		return d.first == o.rank ? acc + d.second : acc;
	});
	for (auto op : o.ops)
		g_fn_bytes[op_fn[op]] = op_call_bytes(op, sh);

	t_setup0 = now_s();
	gloo::transport::tcp::attr attr;
	attr.hostname = o.addr;
	attr.ai_family = AF_INET;
	auto dev = gloo::transport::tcp::CreateDevice(attr);
	gloo::rendezvous::FileStore fstore(o.store);
	gloo::rendezvous::PrefixStore pstore(o.prefix, fstore);
	auto ctx = std::make_shared<gloo::rendezvous::Context>(o.rank, o.size);
	ctx->setTimeout(std::chrono::seconds(o.timeout_s));
	g_calls[G_CONNECT]++;
	ctx->connectFullMesh(pstore, dev);
	t_setup = now_s() - t_setup0;
	std::shared_ptr<gloo::Context> gctx = ctx;

	memcpy(before, g_calls, sizeof(before));
	wall0 = now_s();
	for (long it = -o.warmup; it < o.iters; it++) {
		long seq = it + o.warmup;
		enum op op = o.ops[static_cast<size_t>(seq) % o.ops.size()];
		float got = 0, want = 0;

		if (o.steps) {
			fabtrace_step_begin(static_cast<uint64_t>(seq));
			fabtrace_phase_begin("compute");
		}
		fill(op, sh, o.rank, sbuf.data(), rbuf.data(), seq);
		if (o.compute_us)
			sleep_us(o.compute_us);
		if (my_delay)
			sleep_us(my_delay);
		if (o.steps)
			fabtrace_phase_end("compute");
		double t0 = now_s();
		run_op(op, sh, gctx, sbuf.data(), rbuf.data(), static_cast<uint32_t>(seq & 0xffffff));
		double d = now_s() - t0;
		if (o.steps)
			fabtrace_phase_begin("optimizer");
		long long badj = verify(op, sh, o.rank, rbuf.data(), seq, got, want);
		if (o.steps) {
			fabtrace_phase_end("optimizer");
			fabtrace_step_end(static_cast<uint64_t>(seq));
		}
		if (badj >= 0 && !bad++)
			fprintf(stderr, "gloo_allreduce: rank %d: wrong %s result in iteration %ld at element %lld: got %g, expected %g\n",
				o.rank, op_names[op], seq, badj, static_cast<double>(got), static_cast<double>(want));
		if (it >= 0) {
			tsum += d;
			tmin = std::min(tmin, d);
			tmax = std::max(tmax, d);
		}
	}
	wall = now_s() - wall0;
	for (int f = 0; f < G_MAX; f++) {
		workload[f] = g_calls[f] - before[f];
		total[f] = g_calls[f];
	}
	total[G_BARRIER]++; /* the teardown barrier below, counted before the summary */

	double mean = tsum / static_cast<double>(o.iters);
	if (!o.quiet || bad) {
		if (o.json) {
			printf("{\"workload\":\"gloo_allreduce\",\"rank\":%d,\"size\":%d,\"addr\":\"%s\",\"bytes\":%zu,"
			       "\"dtype\":\"float32\",\"iters\":%ld,\"warmup\":%ld,\"compute_us\":%ld,\"delay_us\":%ld,"
			       "\"steps\":%s,\"ops\":[",
			       o.rank, o.size, o.addr.c_str(), sh.count * sizeof(float), o.iters, o.warmup, o.compute_us,
			       my_delay, o.steps ? "true" : "false");
			for (size_t k = 0; k < o.ops.size(); k++)
				printf("%s\"%s\"", k ? "," : "", op_names[o.ops[k]]);
			printf("],\"setup_s\":%.6f,\"mean_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,\"wall_s\":%.6f,"
			       "\"calls\":",
			       t_setup, mean * 1e6, tmin * 1e6, tmax * 1e6, wall);
			print_counts(total);
			printf(",\"workload_calls\":");
			print_counts(workload);
			printf(",\"bytes_per_call\":{");
			int first = 1;
			for (int f = G_ALLREDUCE; f < G_MAX; f++) {
				if (!workload[f])
					continue;
				printf("%s\"%s\":%lld", first ? "" : ",", gfn_names[f], g_fn_bytes[f]);
				first = 0;
			}
			printf("},\"verify\":\"%s\"}\n", bad ? "FAILED" : "ok");
		} else {
			printf("gloo_allreduce: rank=%d size=%d addr=%s bytes=%zu iters=%ld mean_us=%.1f min_us=%.1f "
			       "max_us=%.1f setup_s=%.3f wall_s=%.3f verify=%s\n",
			       o.rank, o.size, o.addr.c_str(), sh.count * sizeof(float), o.iters, mean * 1e6, tmin * 1e6,
			       tmax * 1e6, t_setup, wall, bad ? "FAILED" : "ok");
		}
		fflush(stdout);
	}
	/* Teardown: no rank closes its connections while another still reads. */
	{
		gloo::BarrierOptions opts(gctx);
		opts.setTag(0xfffffe);
		gloo::barrier(opts);
	}
	return bad ? EXIT_VERIFY : EXIT_OK;
}

} // namespace

int main(int argc, char **argv)
{
	Opts o;
	int pr = parse_args(argc, argv, o);

	if (pr)
		return pr > 0 ? EXIT_OK : EXIT_USAGE;
	try {
		return run(o);
	} catch (const std::exception &e) {
		std::string what = e.what();

		std::replace(what.begin(), what.end(), '\n', ' ');
		fprintf(stderr, "gloo_allreduce: rank %d: gloo: %s; check --addr/--store and that all %d ranks run\n",
			o.rank, what.c_str(), o.size);
		return EXIT_GLOO;
	}
}
