// SPDX-License-Identifier: GPL-2.0
/*
 * allreduce — a real MPI collective workload for the fabtrace lab.
 *
 * Every rank fills a buffer of --bytes bytes (int32 elements) with values
 * that depend on its rank and on the iteration, calls MPI_Allreduce(SUM)
 * --iters times (after --warmup untimed iterations) and checks every
 * element of the result.  --delay RANK:USEC sleeps USEC microseconds on
 * RANK before each collective: a compute straggler the others wait for.
 * --compute USEC sleeps USEC on every rank before each collective, so that
 * the communication bursts of consecutive iterations are separated by idle
 * gaps.  --ops LIST cycles through other collectives (one per iteration):
 * allreduce, allgather, reduce_scatter (MPI_Reduce_scatter_block), bcast,
 * reduce, alltoall, barrier, iallreduce (MPI_Iallreduce + MPI_Wait) and
 * sendrecv (a ring of MPI_Send/MPI_Recv pairs); every result is verified.
 * --starve RANK:MS takes the CPU from RANK inside its collective: a spinner
 * process at nice -20 on RANK's CPU, for MS ms (see starve_setup()).
 * --steps marks each iteration as a training step with the fabtrace marker
 * API (probes/marker), with a "compute" phase around the buffer fill and the
 * sleeps and an "optimizer" phase around the verification after the
 * collective.
 *
 * Rank 0 prints one summary line (or --json): iterations, bytes, the
 * mean/min/max time of one collective as seen by rank 0, the slowest rank's
 * mean, the per-rank means, per-op statistics, whether the results
 * verified, and (JSON) the number of calls of every MPI function the
 * program made, so that a test can compare what fabtrace captured with what
 * was performed.  Exit status 0 = ok, 1 = wrong result on some rank,
 * 2 = bad arguments, 3 = MPI error.
 *
 * MPI_Finalize over UCX-tcp can hang (a known UCX issue), so by default the
 * program ends with MPI_Barrier, PMI's finalize message (pmi_finalize()),
 * fflush and _exit(); run it under
 * `mpiexec -disable-auto-cleanup` and `timeout`.  --finalize calls
 * MPI_Finalize instead.  See tools/README.md for the launch line.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "../probes/marker/fabtrace_marker.h"
#include "toolargs.h"

#define MAX_DELAYS 64
#define MAX_OPS    64

enum { EXIT_OK = 0, EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_MPI = 3 };

/*
 * Every MPI function this program calls, counted per process by MPIC().
 * Every rank makes exactly the same calls, in the same order, for every op
 * (root-based ops are called by all ranks; sendrecv makes one MPI_Send and
 * one MPI_Recv per rank and iteration), so rank 0's counts are every rank's
 * counts.  Only the error paths differ (MPI_Abort on the failing rank).
 */
#define MPI_FUNCS(X)                                                                        \
	X(MPI_Init) X(MPI_Comm_rank) X(MPI_Comm_size) X(MPI_Barrier) X(MPI_Allreduce)      \
	X(MPI_Allgather) X(MPI_Reduce_scatter_block) X(MPI_Bcast) X(MPI_Reduce)             \
	X(MPI_Alltoall) X(MPI_Iallreduce) X(MPI_Wait) X(MPI_Send) X(MPI_Recv) X(MPI_Gather) \
	X(MPI_Abort) X(MPI_Finalize)

enum mpi_fn {
#define FN_ENUM(f) C_##f,
	MPI_FUNCS(FN_ENUM)
#undef FN_ENUM
	C_MAX
};

static const char *const fn_names[C_MAX] = {
#define FN_NAME(f) #f,
	MPI_FUNCS(FN_NAME)
#undef FN_NAME
};

static unsigned long g_calls[C_MAX];
/* Bytes (count argument x datatype size) of the workload's calls, per function. */
static long long g_fn_bytes[C_MAX];

/* Count, then make, one MPI call. */
#define MPIC(fn, ...) (g_calls[C_##fn]++, fn(__VA_ARGS__))

enum op {
	OP_ALLREDUCE,
	OP_ALLGATHER,
	OP_REDUCE_SCATTER,
	OP_BCAST,
	OP_REDUCE,
	OP_ALLTOALL,
	OP_BARRIER,
	OP_IALLREDUCE,
	OP_SENDRECV,
	OP_MAX
};

static const char *const op_names[OP_MAX] = {
	"allreduce", "allgather", "reduce_scatter", "bcast", "reduce",
	"alltoall",  "barrier",   "iallreduce",     "sendrecv",
};

struct delay {
	int rank;
	long usec;
};

struct opts {
	long long bytes;
	long iters;
	long warmup;
	long compute_us;
	long delay_from;             /* the first iteration --delay sleeps in (timed from 0; LONG_MIN: all) */
	int starve_rank;             /* --starve: the rank that gets no CPU (-1: none) */
	long starve_ms;              /* for this long, inside its collective */
	long starve_every;           /* in every Nth timed iteration (default 1) */
	int starve_cpu;              /* the CPU it shares with its spinner (set by starve_setup()) */
	int json;
	int quiet;
	int finalize;
	int steps;
	const char *ready_file;
	const char *times_file;
	int ndelays;
	struct delay delays[MAX_DELAYS];
	int nops;
	enum op ops[MAX_OPS];
};

/* Per-op statistics of the timed iterations (rank 0's view). */
struct op_stat {
	long n;
	double sum;
};

static int g_rank;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: allreduce [--bytes N] [--iters N] [--warmup N] [--delay RANK:USEC]...\n"
		"                 [--delay-from N] [--starve RANK:MS] [--starve-every N] [--compute USEC]\n"
		"                 [--ops LIST] [--steps] [--json] [--quiet] [--finalize]\n"
		"                 [--ready-file F] [--times-file F]\n"
		"  --bytes N         message size in bytes (suffix k/m/g = KiB/MiB/GiB; default 1m);\n"
		"                    for allgather, reduce_scatter and alltoall the whole buffer\n"
		"                    (each rank's block is N/ranks, as in nccl-tests)\n"
		"  --iters N         timed iterations (default 20)\n"
		"  --warmup N        untimed iterations first (default 2)\n"
		"  --delay RANK:USEC sleep USEC us on RANK before each collective (compute\n"
		"                    straggler); repeatable\n"
		"  --delay-from N    the --delay sleeps start at timed iteration N (default: from\n"
		"                    the first, warmup included): a job that turns slow mid-run\n"
		"  --starve RANK:MS  RANK gets no CPU for MS ms (1..60000) inside its collective\n"
		"                    of every timed iteration: runnable, not running.  RANK is\n"
		"                    pinned to the CPU it starts on; before each such collective\n"
		"                    it takes nice 19 and forks a spinner pinned to that CPU at\n"
		"                    nice -20 (root or CAP_SYS_NICE), which spins MS ms once RANK\n"
		"                    is inside (checked every ms; none if the collective ended\n"
		"                    before); RANK's nice is restored after it.  The other ranks\n"
		"                    on RANK's machine are pinned off that CPU (if they have\n"
		"                    another).  Adds one MPI_Bcast before the loop\n"
		"  --starve-every N  starve only every Nth timed iteration (N-1, 2N-1, ... counted\n"
		"                    from 0; default 1: every one)\n"
		"  --compute USEC    every rank sleeps USEC us before each collective (idle gaps\n"
		"                    between bursts)\n"
		"  --ops LIST        comma list of collectives, one per iteration, cycled:\n"
		"                    allreduce allgather reduce_scatter bcast reduce alltoall\n"
		"                    barrier iallreduce sendrecv (default allreduce)\n"
		"  --steps           mark every iteration with fabtrace_step_begin/end (step =\n"
		"                    iteration number from 0, warmup included) and the phases\n"
		"                    \"compute\" and \"optimizer\" (probes/marker)\n"
		"  --json            print the summary as one JSON object\n"
		"  --quiet           print nothing on success\n"
		"  --finalize        call MPI_Finalize at the end instead of _exit()\n"
		"  --ready-file F    rank 0 creates F when the warmup is over, as the timed\n"
		"                    iterations start (a test can time other events from it)\n"
		"  --times-file F    every rank writes F.RANK: one line per timed iteration,\n"
		"                    \"SEQ ENTRY_NS EXIT_NS\" on CLOCK_MONOTONIC around the\n"
		"                    collective (the workload's own view, to check a tracer's);\n"
		"                    with --starve a 4th column, 1 if this rank was starved in\n"
		"                    that collective (its spinner ran inside it), else 0\n"
		"Launch one rank per lab host with tools/lab.sh mpi; see tools/README.md.\n");
}

/* Errors are printed by rank 0 only (every rank parses the same argv). */
static int arg_error(const char *what, const char *why)
{
	if (g_rank == 0)
		fprintf(stderr, "allreduce: %s: %s; run 'allreduce --help'\n", what, why);
	return -1;
}

static int parse_ops(const char *arg, struct opts *o, int nranks)
{
	int idx[MAX_OPS];
	int n = toolargs_list(arg, 1024, op_names, OP_MAX, idx, MAX_OPS);

	switch (n) {
	case TA_LIST_TOO_LONG: return arg_error("--ops", "list too long");
	case TA_LIST_UNKNOWN:
		return arg_error("--ops", "unknown op; use allreduce, allgather, reduce_scatter, bcast, "
					  "reduce, alltoall, barrier, iallreduce, sendrecv");
	case TA_LIST_TOO_MANY: return arg_error("--ops", "too many ops (max 64)");
	case TA_LIST_EMPTY: return arg_error("--ops", "empty list; e.g. --ops allreduce,bcast");
	default: break;
	}
	for (o->nops = 0; o->nops < n; o->nops++) {
		if (idx[o->nops] == OP_SENDRECV && nranks < 2)
			return arg_error("--ops", "sendrecv needs at least 2 ranks");
		o->ops[o->nops] = (enum op)idx[o->nops];
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o, int nranks)
{
	static const struct option lopts[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "iters", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "delay", required_argument, NULL, 'd' },
		{ "delay-from", required_argument, NULL, 'D' },
		{ "starve", required_argument, NULL, 'S' },
		{ "starve-every", required_argument, NULL, 'E' },
		{ "compute", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'o' },
		{ "steps", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "finalize", no_argument, NULL, 'F' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "times-file", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long v;
	int c, every_given = 0;

	o->bytes = 1 << 20;
	o->iters = 20;
	o->warmup = 2;
	o->nops = 1;
	o->ops[0] = OP_ALLREDUCE;
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
		case 'c':
			if (toolargs_num(optarg, 0, 60000000, &v, 0))
				return arg_error("--compute", "expected microseconds from 0 to 60000000");
			o->compute_us = (long)v;
			break;
		case 'o':
			if (parse_ops(optarg, o, nranks))
				return -1;
			break;
		case 's': o->steps = 1; break;
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
		case 'D': {
			long long n;

			if (toolargs_num(optarg, 0, INT_MAX, &n, 0))
				return arg_error("--delay-from", "expected a timed iteration number >= 0, e.g. 10");
			o->delay_from = (long)n;
			break;
		}
		case 'S': {
			char *colon = strchr(optarg, ':');
			long long r, ms;

			if (!colon)
				return arg_error("--starve", "expected RANK:MS, e.g. --starve 2:300");
			*colon = '\0';
			if (toolargs_num(optarg, 0, INT_MAX, &r, 0) || toolargs_num(colon + 1, 1, 60000, &ms, 0)) {
				*colon = ':';
				return arg_error("--starve", "expected RANK:MS with RANK >= 0 and 1 <= MS <= 60000");
			}
			*colon = ':';
			if (r >= nranks)
				return arg_error("--starve", "RANK is not below the number of ranks");
			if (o->starve_rank >= 0)
				return arg_error("--starve", "given twice; one rank can be starved");
			o->starve_rank = (int)r;
			o->starve_ms = (long)ms;
			break;
		}
		case 'E':
			if (toolargs_num(optarg, 1, INT_MAX, &v, 0))
				return arg_error("--starve-every", "expected an integer >= 1, e.g. 4");
			o->starve_every = (long)v;
			every_given = 1;
			break;
		case 'j': o->json = 1; break;
		case 'q': o->quiet = 1; break;
		case 'F': o->finalize = 1; break;
		case 'r': o->ready_file = optarg; break;
		case 'T': o->times_file = optarg; break;
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
	if (every_given && o->starve_rank < 0)
		return arg_error("--starve-every", "needs --starve RANK:MS");
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

/* Sum of elem(r, j, it) over r = 0..n-1. */
static inline int32_t expect(int n, size_t j, long it)
{
	return (int32_t)((int32_t)(j % 1021 + 1) * (n * (n + 1) / 2) + n * (int32_t)(it % 1000));
}

/*
 * Tell Hydra's proxy that this rank is done, before _exit() without
 * MPI_Finalize.  Otherwise the PMI socket closes unannounced, and when the
 * proxy handles that close before it reaps the process it records exit
 * status 1, which mpiexec reports as "Hangup (signal 1)" for a rank that
 * exited 0 (about 1 run in 100 here).  This is the PMI-1 message that
 * MPI_Finalize sends; under a launcher without PMI_FD it does nothing.
 */
static void pmi_finalize(void)
{
	static const char msg[] = "cmd=finalize\n";
	const char *env = getenv("PMI_FD");
	struct pollfd p = { .events = POLLIN };
	long long fd;

	if (!env || toolargs_num(env, 0, INT_MAX, &fd, 0))
		return;
	p.fd = (int)fd;
	if (write(p.fd, msg, sizeof(msg) - 1) != (ssize_t)(sizeof(msg) - 1))
		return;
	/* wait for "cmd=finalize_ack": the proxy stops watching the socket
	 * then (bounded: a wedged proxy must not hang the rank) */
	if (poll(&p, 1, 5000) == 1) {
		char reply[128];

		(void)!read(p.fd, reply, sizeof(reply));
	}
}

static void finish(int status, int finalize)
{
	fflush(stdout);
	fflush(stderr);
	if (finalize) {
		MPIC(MPI_Finalize);
		exit(status);
	}
	_exit(status);
}

/*
 * --starve RANK:MS: RANK is runnable but not running, inside its collective,
 * for MS ms.  RANK's main thread (the one that polls in MPI) is pinned to the
 * CPU it is on.  Before each starved collective it takes nice 19 and forks a
 * spinner that pins itself to the same CPU, takes nice -20 (a weight ~6000
 * times RANK's), waits until RANK is inside the collective (g_inside, checked
 * every ms) and spins on CLOCK_MONOTONIC (the vDSO: no syscall) for MS ms;
 * RANK reaps it after the collective and goes back to its own nice.
 *
 * Nice 19 only then, not for the whole run: with autogroups (each rank is
 * its own session under Hydra) a task's nice also scales its group's weight
 * on its CPU, through its load, so a rank at nice 19 throughout lost its CPU
 * to other sessions' work for 50-120 ms at a time in MPI start-up and the
 * warmup (measured beside a busy loop and a parallel build).  The other
 * ranks on the same machine (same boot_id: the lab's namespaces share one
 * kernel) are pinned off that CPU, every thread of theirs, so that only RANK
 * is starved.  On a 1-CPU machine they cannot be, and say so.
 */
enum { SPIN_DONE = 0, SPIN_MISSED = 1, SPIN_E_AFFINITY = 2, SPIN_E_NICE = 3 };

/* 0: the rank is before its collective, 1: inside, 2: after; shared with the spinner */
static _Atomic int *g_inside;
/* the starved rank's own nice, restored after each starved collective */
static int g_nice;

/* What the starved rank tells the others before the loop (one MPI_Bcast). */
struct starve_info {
	int err;          /* non-zero: it cannot starve (it printed why); every rank exits 2 */
	int cpu;          /* the CPU it and its spinner share */
	char machine[64]; /* its kernel's boot_id (else host name): the others pin off cpu on the same one */
};

static void machine_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	memset(buf, 0, len);
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	if (!buf[0] && gethostname(buf, len - 1))
		buf[0] = '\0';
}

/* The spinner's nice -20, and the way back from 19 to this rank's own nice
 * (g_nice), tried before the loop so that they fail now and not mid-run. */
static int nice_check(void)
{
	errno = 0;
	g_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		return -1;
	return setpriority(PRIO_PROCESS, 0, -20) || setpriority(PRIO_PROCESS, 0, g_nice) ? -1 : 0;
}

/* Pin every thread of this process (MPI_Init's too) to *mask; -1 if the calling one failed. */
static int pin_threads(const cpu_set_t *mask)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int rc = 0;

	if (!d)
		return sched_setaffinity(0, sizeof(*mask), mask);
	while ((e = readdir(d))) {
		long long tid;

		if (toolargs_num(e->d_name, 1, INT_MAX, &tid, 0))
			continue;
		if (sched_setaffinity((pid_t)tid, sizeof(*mask), mask) && (pid_t)tid == getpid())
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* Before the loop, on every rank with --starve: 0, or -1 (every rank alike) if it cannot be done. */
static int starve_setup(struct opts *o)
{
	struct starve_info si;

	memset(&si, 0, sizeof(si));
	si.cpu = -1;
	if (g_rank == o->starve_rank) {
		cpu_set_t one;
		void *m = mmap(NULL, sizeof(*g_inside), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		si.cpu = sched_getcpu();
		CPU_ZERO(&one);
		if (si.cpu >= 0)
			CPU_SET(si.cpu, &one);
		if (m == MAP_FAILED) {
			fprintf(stderr, "allreduce: rank %d: --starve: mmap: %s\n", g_rank, strerror(errno));
			si.err = 1;
		} else if (si.cpu < 0 || sched_setaffinity(0, sizeof(one), &one)) {
			fprintf(stderr, "allreduce: rank %d: --starve: cannot pin to CPU %d: %s\n", g_rank, si.cpu,
				strerror(errno));
			si.err = 1;
		} else if (nice_check()) {
			fprintf(stderr,
				"allreduce: rank %d: --starve: cannot set nice -20 (%s); run as root or with "
				"CAP_SYS_NICE\n",
				g_rank, strerror(errno));
			si.err = 1;
		}
		if (m != MAP_FAILED)
			g_inside = m;
		machine_id(si.machine, sizeof(si.machine));
	}
	MPIC(MPI_Bcast, &si, (int)sizeof(si), MPI_BYTE, o->starve_rank, MPI_COMM_WORLD);
	if (si.err)
		return -1;
	o->starve_cpu = si.cpu;
	if (g_rank != o->starve_rank) {
		char me[sizeof(si.machine)];
		cpu_set_t mask;

		machine_id(me, sizeof(me));
		if (strcmp(me, si.machine) != 0 || sched_getaffinity(0, sizeof(mask), &mask) || !CPU_ISSET(si.cpu, &mask))
			return 0; /* another machine, or already off that CPU */
		if (CPU_COUNT(&mask) < 2) {
			fprintf(stderr, "allreduce: rank %d: --starve: CPU %d is the only one this rank may use; it "
					"will be starved as well\n", g_rank, si.cpu);
			return 0;
		}
		CPU_CLR(si.cpu, &mask);
		if (pin_threads(&mask))
			fprintf(stderr, "allreduce: rank %d: --starve: cannot pin off CPU %d: %s\n", g_rank, si.cpu,
				strerror(errno));
	}
	return 0;
}

/* The spinner (a child of the starved rank); never returns. */
static void spinner(int cpu, long ms, pid_t parent)
{
	const struct timespec tick = { .tv_sec = 0, .tv_nsec = 1000000 };
	struct timespec now, end;
	cpu_set_t one;

	/* gone with the rank however that ends (the job killed, MPI_Abort) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(SPIN_MISSED);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		_exit(SPIN_E_AFFINITY);
	if (setpriority(PRIO_PROCESS, 0, -20))
		_exit(SPIN_E_NICE);
	/* Wait for the rank to be inside its collective.  It shares this CPU, so
	 * it cannot leave while this runs: what is read here holds when the spin
	 * starts.  A collective over before the next tick is missed. */
	for (int waited = 0; atomic_load(g_inside) == 0 && waited < 60000; waited++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &tick, NULL);
	if (atomic_load(g_inside) != 1)
		_exit(SPIN_MISSED);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	_exit(SPIN_DONE);
}

/* Right before a starved collective: nice 19, fork the spinner (its pid, or -1). */
static pid_t starve_begin(const struct opts *o)
{
	pid_t parent = getpid(), pid;

	atomic_store(g_inside, 0);
	if (setpriority(PRIO_PROCESS, 0, 19))
		return -1;
	pid = fork();
	if (pid == 0)
		spinner(o->starve_cpu, o->starve_ms, parent);
	return pid;
}

/* After it (g_inside set to 2): reap the spinner; 1 if it spun inside the collective, 0 if it
 * missed it, -1 on an error (printed). */
static int starve_end(pid_t pid, long seq)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "allreduce: rank %d: --starve: waitpid: %s\n", g_rank, strerror(errno));
			return -1;
		}
	if (setpriority(PRIO_PROCESS, 0, g_nice)) {
		fprintf(stderr, "allreduce: rank %d: --starve: cannot go back to nice %d: %s\n", g_rank, g_nice,
			strerror(errno));
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == SPIN_DONE)
		return 1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == SPIN_MISSED) {
		fprintf(stderr, "allreduce: rank %d: --starve: iteration %ld's collective was over before the "
				"spinner ran; not starved\n", g_rank, seq);
		return 0;
	}
	fprintf(stderr, "allreduce: rank %d: --starve: the spinner of iteration %ld failed: %s\n", g_rank, seq,
		!WIFEXITED(st)		       ? "killed by a signal"
		: WEXITSTATUS(st) == SPIN_E_NICE ? "cannot set nice -20"
						 : "cannot pin itself to the rank's CPU");
	return -1;
}

/* --times-file: this rank's entry and exit of every timed iteration (and
 * with --starve whether it was starved in it), for a test to hold a
 * tracer's timestamps against. */
static int write_times(const char *base, const double *t_in, const double *t_out, const unsigned char *starved,
		       long iters, long warmup)
{
	char path[4096];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s.%d", base, g_rank);
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "allreduce: --times-file %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (long k = 0; k < iters; k++) {
		fprintf(f, "%ld %.0f %.0f", k + warmup, t_in[k] * 1e9, t_out[k] * 1e9);
		if (starved)
			fprintf(f, " %d", starved[k]);
		fputc('\n', f);
	}
	if (ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (err)
		fprintf(stderr, "allreduce: --times-file %s: %s\n", path, strerror(err));
	return err ? -1 : 0;
}

/* The shape of every op's buffers, fixed for the run. */
struct shape {
	int n;        /* ranks */
	size_t count; /* elements of --bytes */
	size_t block; /* per-rank block for allgather/reduce_scatter/alltoall: count/n, >= 1 */
};

/* Raw count argument x sizeof(int32) of op's data calls (the capture's "bytes"). */
static long long op_call_bytes(enum op op, const struct shape *sh)
{
	switch (op) {
	case OP_ALLGATHER:
	case OP_REDUCE_SCATTER:
	case OP_ALLTOALL:
		return (long long)sh->block * (long long)sizeof(int32_t);
	case OP_BARRIER:
		return 0;
	default:
		return (long long)sh->count * (long long)sizeof(int32_t);
	}
}

/* nccl-tests "size" of one op: the whole buffer for the block-based ops. */
static long long op_size_bytes(enum op op, const struct shape *sh)
{
	switch (op) {
	case OP_ALLGATHER:
	case OP_REDUCE_SCATTER:
	case OP_ALLTOALL:
		return (long long)sh->block * (long long)sizeof(int32_t) * sh->n;
	default:
		return op_call_bytes(op, sh);
	}
}

/* busbw = algbw x this (nccl-tests PERFORMANCE.md). */
static double op_busbw_factor(enum op op, int n)
{
	switch (op) {
	case OP_ALLREDUCE:
	case OP_IALLREDUCE:
		return 2.0 * (n - 1) / n;
	case OP_ALLGATHER:
	case OP_REDUCE_SCATTER:
	case OP_ALLTOALL:
		return (double)(n - 1) / n;
	case OP_BARRIER:
		return 0;
	default:
		return 1;
	}
}

/* Fill the send side of op for iteration seq (the "compute" of a step). */
static void fill(enum op op, const struct shape *sh, int32_t *sbuf, int32_t *rbuf, long seq)
{
	size_t j;

	switch (op) {
	case OP_BARRIER:
		break;
	case OP_BCAST: /* in place in rbuf: the root's values overwrite everyone else's */
		for (j = 0; j < sh->count; j++)
			rbuf[j] = elem(g_rank, j, seq);
		break;
	case OP_ALLGATHER:
		for (j = 0; j < sh->block; j++)
			sbuf[j] = elem(g_rank, j, seq);
		break;
	case OP_REDUCE_SCATTER:
	case OP_ALLTOALL:
		for (j = 0; j < sh->block * (size_t)sh->n; j++)
			sbuf[j] = elem(g_rank, j, seq);
		break;
	default:
		for (j = 0; j < sh->count; j++)
			sbuf[j] = elem(g_rank, j, seq);
		break;
	}
}

/* Run one op; returns the MPI error code of the first failing call. */
static int run_op(enum op op, const struct shape *sh, int32_t *sbuf, int32_t *rbuf)
{
	int n = sh->n, cnt = (int)sh->count, blk = (int)sh->block, rc;
	MPI_Request req;

	switch (op) {
	case OP_ALLREDUCE:
		return MPIC(MPI_Allreduce, sbuf, rbuf, cnt, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
	case OP_ALLGATHER:
		return MPIC(MPI_Allgather, sbuf, blk, MPI_INT32_T, rbuf, blk, MPI_INT32_T, MPI_COMM_WORLD);
	case OP_REDUCE_SCATTER:
		return MPIC(MPI_Reduce_scatter_block, sbuf, rbuf, blk, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
	case OP_BCAST:
		return MPIC(MPI_Bcast, rbuf, cnt, MPI_INT32_T, 0, MPI_COMM_WORLD);
	case OP_REDUCE:
		return MPIC(MPI_Reduce, sbuf, rbuf, cnt, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
	case OP_ALLTOALL:
		return MPIC(MPI_Alltoall, sbuf, blk, MPI_INT32_T, rbuf, blk, MPI_INT32_T, MPI_COMM_WORLD);
	case OP_BARRIER:
		return MPIC(MPI_Barrier, MPI_COMM_WORLD);
	case OP_IALLREDUCE:
		rc = MPIC(MPI_Iallreduce, sbuf, rbuf, cnt, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD, &req);
		if (rc != MPI_SUCCESS)
			return rc;
		return MPIC(MPI_Wait, &req, MPI_STATUS_IGNORE);
	case OP_SENDRECV: {
		/* Ring: send to the right neighbour, receive from the left one.
		 * Even ranks send first, odd ranks receive first, so no rank
		 * blocks forever in a rendezvous send (also with an odd n). */
		int right = (g_rank + 1) % n, left = (g_rank + n - 1) % n;

		if (g_rank % 2 == 0) {
			rc = MPIC(MPI_Send, sbuf, cnt, MPI_INT32_T, right, 7, MPI_COMM_WORLD);
			if (rc == MPI_SUCCESS)
				rc = MPIC(MPI_Recv, rbuf, cnt, MPI_INT32_T, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			rc = MPIC(MPI_Recv, rbuf, cnt, MPI_INT32_T, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc == MPI_SUCCESS)
				rc = MPIC(MPI_Send, sbuf, cnt, MPI_INT32_T, right, 7, MPI_COMM_WORLD);
		}
		return rc;
	}
	case OP_MAX:
		break;
	}
	return MPI_ERR_OTHER;
}

/*
 * Check op's result of iteration seq on this rank: the index of the first
 * wrong element (and *got / *want), or -1 if all are right.
 */
static long long verify(enum op op, const struct shape *sh, const int32_t *rbuf, long seq, int32_t *got,
			int32_t *want)
{
	size_t j, k, b = sh->block;
	int n = sh->n;
	int32_t w;

	switch (op) {
	case OP_BARRIER:
		return -1;
	case OP_REDUCE:
		if (g_rank != 0)
			return -1;
		/* fallthrough */
	case OP_ALLREDUCE:
	case OP_IALLREDUCE:
		for (j = 0; j < sh->count; j++)
			if (rbuf[j] != (w = expect(n, j, seq)))
				goto bad;
		return -1;
	case OP_BCAST:
		for (j = 0; j < sh->count; j++)
			if (rbuf[j] != (w = elem(0, j, seq)))
				goto bad;
		return -1;
	case OP_SENDRECV:
		for (j = 0; j < sh->count; j++)
			if (rbuf[j] != (w = elem((g_rank + n - 1) % n, j, seq)))
				goto bad;
		return -1;
	case OP_ALLGATHER: /* block k comes from rank k */
		for (k = 0; k < (size_t)n; k++)
			for (size_t i = 0; i < b; i++)
				if (rbuf[j = k * b + i] != (w = elem((int)k, i, seq)))
					goto bad;
		return -1;
	case OP_REDUCE_SCATTER: /* this rank's block of the sum */
		for (j = 0; j < b; j++)
			if (rbuf[j] != (w = expect(n, (size_t)g_rank * b + j, seq)))
				goto bad;
		return -1;
	case OP_ALLTOALL: /* block k is rank k's block number g_rank */
		for (k = 0; k < (size_t)n; k++)
			for (size_t i = 0; i < b; i++)
				if (rbuf[j = k * b + i] != (w = elem((int)k, (size_t)g_rank * b + i, seq)))
					goto bad;
		return -1;
	case OP_MAX:
		break;
	}
	return -1;
bad:
	*got = rbuf[j];
	*want = w;
	return (long long)j;
}

static void print_ops_list(const struct opts *o, const char *sep, int quoted)
{
	for (int k = 0; k < o->nops; k++)
		printf("%s%s%s%s", k ? sep : "", quoted ? "\"" : "", op_names[o->ops[k]], quoted ? "\"" : "");
}

/* {"MPI_X":n,...} for the functions with a non-zero count in c[]. */
static void print_fn_counts(const unsigned long *c)
{
	int first = 1;

	putchar('{');
	for (int f = 0; f < C_MAX; f++) {
		if (!c[f])
			continue;
		printf("%s\"%s\":%lu", first ? "" : ",", fn_names[f], c[f]);
		first = 0;
	}
	putchar('}');
}

int main(int argc, char **argv)
{
	struct opts o;
	struct shape sh;
	struct op_stat ost[OP_MAX];
	unsigned long calls_before[C_MAX], workload_calls[C_MAX], total_calls[C_MAX];
	int nranks, bad = 0, allbad = 0, pr;
	long my_delay = 0, it;
	size_t nelem;
	int32_t *sbuf, *rbuf;
	double *t_in, *t_out, tsum = 0, tmin = 1e300, tmax = 0, wall0, wall;
	unsigned char *starved;
	double mymean, *means = NULL;

	memset(&o, 0, sizeof(o));
	o.delay_from = LONG_MIN; /* without --delay-from: from the first iteration, warmup included */
	o.starve_rank = -1;
	o.starve_every = 1;
	o.starve_cpu = -1;
	memset(ost, 0, sizeof(ost));
	if (MPIC(MPI_Init, &argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "allreduce: MPI_Init: failed; check the launch line in tools/README.md\n");
		return EXIT_MPI;
	}
	MPIC(MPI_Comm_rank, MPI_COMM_WORLD, &g_rank);
	MPIC(MPI_Comm_size, MPI_COMM_WORLD, &nranks);

	pr = parse_args(argc, argv, &o, nranks);
	if (pr != 0) {
		/* Every rank parsed the same argv and ends the same way; the
		 * barrier keeps a fast rank from exiting while the others are
		 * still connecting to it in MPI_Init (which would abort them
		 * before rank 0's message is out). */
		fflush(stdout);
		fflush(stderr);
		MPIC(MPI_Barrier, MPI_COMM_WORLD);
		finish(pr > 0 ? EXIT_OK : EXIT_USAGE, 0);
	}
	for (int k = 0; k < o.ndelays; k++)
		if (o.delays[k].rank == g_rank)
			my_delay += o.delays[k].usec;
	if (o.starve_rank >= 0 && starve_setup(&o) != 0) {
		fflush(stdout);
		fflush(stderr);
		MPIC(MPI_Barrier, MPI_COMM_WORLD);
		finish(EXIT_USAGE, 0);
	}

	sh.n = nranks;
	sh.count = (size_t)(o.bytes / (long long)sizeof(int32_t));
	sh.block = (sh.count / (size_t)nranks) ? (sh.count / (size_t)nranks) : 1;
	nelem = sh.block * (size_t)nranks > sh.count ? sh.block * (size_t)nranks : sh.count;
	sbuf = malloc(nelem * sizeof(*sbuf));
	rbuf = malloc(nelem * sizeof(*rbuf));
	t_in = calloc((size_t)o.iters, sizeof(*t_in));
	t_out = calloc((size_t)o.iters, sizeof(*t_out));
	starved = calloc((size_t)o.iters, sizeof(*starved));
	if (g_rank == 0)
		means = calloc((size_t)nranks, sizeof(*means));
	if (!sbuf || !rbuf || !t_in || !t_out || !starved || (g_rank == 0 && !means)) {
		fprintf(stderr, "allreduce: rank %d: out of memory for %lld bytes; use a smaller --bytes\n",
			g_rank, o.bytes);
		MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_MPI);
		finish(EXIT_MPI, 0);
	}
	for (int k = 0; k < o.nops; k++) {
		enum op op = o.ops[k];
		long long b = op_call_bytes(op, &sh);

		switch (op) {
		case OP_ALLREDUCE: g_fn_bytes[C_MPI_Allreduce] = b; break;
		case OP_ALLGATHER: g_fn_bytes[C_MPI_Allgather] = b; break;
		case OP_REDUCE_SCATTER: g_fn_bytes[C_MPI_Reduce_scatter_block] = b; break;
		case OP_BCAST: g_fn_bytes[C_MPI_Bcast] = b; break;
		case OP_REDUCE: g_fn_bytes[C_MPI_Reduce] = b; break;
		case OP_ALLTOALL: g_fn_bytes[C_MPI_Alltoall] = b; break;
		case OP_BARRIER: g_fn_bytes[C_MPI_Barrier] = 0; break;
		case OP_IALLREDUCE: g_fn_bytes[C_MPI_Iallreduce] = b; g_fn_bytes[C_MPI_Wait] = 0; break;
		case OP_SENDRECV: g_fn_bytes[C_MPI_Send] = b; g_fn_bytes[C_MPI_Recv] = b; break;
		case OP_MAX: break;
		}
	}

	MPIC(MPI_Barrier, MPI_COMM_WORLD);
	memcpy(calls_before, g_calls, sizeof(g_calls));
	wall0 = now_s();
	for (it = -o.warmup; it < o.iters; it++) {
		long seq = it + o.warmup;
		enum op op = o.ops[seq % o.nops];
		int32_t got = 0, want = 0;
		long long first_bad;
		pid_t spin = 0;

		if (it == 0 && g_rank == 0 && o.ready_file) {
			FILE *rf = fopen(o.ready_file, "we");

			if (!rf || fclose(rf)) {
				fprintf(stderr, "allreduce: --ready-file %s: %s\n", o.ready_file, strerror(errno));
				MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_USAGE);
				finish(EXIT_USAGE, 0);
			}
		}
		if (o.steps) {
			fabtrace_step_begin((uint64_t)seq);
			fabtrace_phase_begin("compute");
		}
		fill(op, &sh, sbuf, rbuf, seq);
		if (o.compute_us)
			sleep_us(o.compute_us);
		if (my_delay && it >= o.delay_from)
			sleep_us(my_delay);
		if (g_rank == o.starve_rank && it >= 0 && (it + 1) % o.starve_every == 0) {
			spin = starve_begin(&o);
			if (spin < 0) {
				fprintf(stderr, "allreduce: rank %d: --starve: nice 19 or fork: %s\n", g_rank,
					strerror(errno));
				MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_USAGE);
				finish(EXIT_USAGE, 0);
			}
		}
		if (o.steps)
			fabtrace_phase_end("compute");
		double t0 = now_s();
		if (spin)
			atomic_store(g_inside, 1);
		int rc = run_op(op, &sh, sbuf, rbuf);
		if (spin)
			atomic_store(g_inside, 2);
		double t1 = now_s();
		if (spin) {
			int r = starve_end(spin, seq);

			if (r < 0) {
				MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_USAGE);
				finish(EXIT_USAGE, 0);
			}
			starved[it] = (unsigned char)r;
		}
		if (rc != MPI_SUCCESS) {
			fprintf(stderr, "allreduce: rank %d: %s failed (code %d) in iteration %ld\n", g_rank,
				op_names[op], rc, seq);
			MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_MPI);
			finish(EXIT_MPI, 0);
		}
		if (o.steps)
			fabtrace_phase_begin("optimizer");
		first_bad = verify(op, &sh, rbuf, seq, &got, &want);
		if (o.steps) {
			fabtrace_phase_end("optimizer");
			fabtrace_step_end((uint64_t)seq);
		}
		if (first_bad >= 0 && !bad++)
			fprintf(stderr,
				"allreduce: rank %d: wrong %s result in iteration %ld at element %lld: got %" PRId32
				", expected %" PRId32 "\n",
				g_rank, op_names[op], seq, first_bad, got, want);
		if (it >= 0) {
			double d = t1 - t0;

			t_in[it] = t0;
			t_out[it] = t1;
			tsum += d;
			if (d < tmin)
				tmin = d;
			if (d > tmax)
				tmax = d;
			ost[op].n++;
			ost[op].sum += d;
		}
	}
	wall = now_s() - wall0;
	if (o.times_file &&
	    write_times(o.times_file, t_in, t_out, o.starve_rank >= 0 ? starved : NULL, o.iters, o.warmup) != 0) {
		MPIC(MPI_Abort, MPI_COMM_WORLD, EXIT_USAGE);
		finish(EXIT_USAGE, 0);
	}
	for (int f = 0; f < C_MAX; f++)
		workload_calls[f] = g_calls[f] - calls_before[f];

	mymean = tsum / (double)o.iters;
	MPIC(MPI_Gather, &mymean, 1, MPI_DOUBLE, means, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPIC(MPI_Allreduce, &bad, &allbad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

	/* The summary is printed before the teardown: count its calls now
	 * (one MPI_Barrier below, and MPI_Finalize in finish() with --finalize). */
	memcpy(total_calls, g_calls, sizeof(g_calls));
	total_calls[C_MPI_Barrier]++;
	if (o.finalize)
		total_calls[C_MPI_Finalize]++;

	if (g_rank == 0 && (!o.quiet || allbad)) {
		double slowest = 0, algbw, busbw;
		int default_ops = o.nops == 1 && o.ops[0] == OP_ALLREDUCE;

		for (int r = 0; r < nranks; r++)
			if (means[r] > slowest)
				slowest = means[r];
		/* bandwidth convention of nccl-tests: busbw = algbw * 2(n-1)/n
		 * (allreduce's factor, over all timed iterations; per op: op_stats) */
		algbw = (double)sh.count * sizeof(int32_t) / mymean / 1e6;
		busbw = algbw * 2.0 * (nranks - 1) / nranks;
		if (o.json) {
			int first = 1;

			printf("{\"workload\":\"allreduce\",\"ranks\":%d,\"bytes\":%zu,\"iters\":%ld,"
			       "\"warmup\":%ld,\"mean_us\":%.1f,\"min_us\":%.1f,\"max_us\":%.1f,"
			       "\"slowest_rank_mean_us\":%.1f,\"wall_s\":%.6f,\"algbw_MBps\":%.2f,"
			       "\"busbw_MBps\":%.2f,\"rank_mean_us\":[",
			       nranks, sh.count * sizeof(int32_t), o.iters, o.warmup, mymean * 1e6,
			       tmin * 1e6, tmax * 1e6, slowest * 1e6, wall, algbw, busbw);
			for (int r = 0; r < nranks; r++)
				printf("%s%.1f", r ? "," : "", means[r] * 1e6);
			printf("],\"delays\":[");
			for (int k = 0; k < o.ndelays; k++)
				printf("%s{\"rank\":%d,\"usec\":%ld}", k ? "," : "", o.delays[k].rank,
				       o.delays[k].usec);
			if (o.starve_rank >= 0)
				printf("],\"starve\":{\"rank\":%d,\"ms\":%ld,\"every\":%ld,\"cpu\":%d}", o.starve_rank,
				       o.starve_ms, o.starve_every, o.starve_cpu);
			else
				printf("],\"starve\":null");
			printf(",\"compute_us\":%ld,\"steps\":%s,\"ops\":[", o.compute_us,
			       o.steps ? "true" : "false");
			print_ops_list(&o, ",", 1);
			printf("],\"op_stats\":{");
			for (int k = 0; k < OP_MAX; k++) {
				int used = 0;

				for (int m = 0; m < o.nops; m++)
					used |= o.ops[m] == (enum op)k;
				if (!used)
					continue;
				double mean = ost[k].n ? ost[k].sum / (double)ost[k].n : 0;
				double ab = mean > 0 ? (double)op_size_bytes((enum op)k, &sh) / mean / 1e6 : 0;
				printf("%s\"%s\":{\"iters\":%ld,\"mean_us\":%.1f,\"size_bytes\":%lld,"
				       "\"call_bytes\":%lld,\"algbw_MBps\":%.2f,\"busbw_MBps\":%.2f}",
				       first ? "" : ",", op_names[k], ost[k].n, mean * 1e6,
				       op_size_bytes((enum op)k, &sh), op_call_bytes((enum op)k, &sh), ab,
				       ab * op_busbw_factor((enum op)k, nranks));
				first = 0;
			}
			printf("},\"calls\":");
			print_fn_counts(total_calls);
			printf(",\"workload_calls\":");
			print_fn_counts(workload_calls);
			printf(",\"bytes_per_call\":{");
			first = 1;
			for (int f = 0; f < C_MAX; f++) {
				if (!workload_calls[f])
					continue;
				printf("%s\"%s\":%lld", first ? "" : ",", fn_names[f], g_fn_bytes[f]);
				first = 0;
			}
			printf("},\"verify\":\"%s\"}\n", allbad ? "FAILED" : "ok");
		} else {
			printf("allreduce: ranks=%d bytes=%zu iters=%ld warmup=%ld mean_us=%.1f min_us=%.1f "
			       "max_us=%.1f slowest_rank_mean_us=%.1f wall_s=%.3f algbw_MBps=%.2f "
			       "busbw_MBps=%.2f",
			       nranks, sh.count * sizeof(int32_t), o.iters, o.warmup, mymean * 1e6, tmin * 1e6,
			       tmax * 1e6, slowest * 1e6, wall, algbw, busbw);
			if (!default_ops) {
				printf(" ops=");
				print_ops_list(&o, ",", 0);
			}
			if (o.compute_us)
				printf(" compute_us=%ld", o.compute_us);
			if (o.starve_rank >= 0)
				printf(" starve=%d:%ld every=%ld cpu=%d", o.starve_rank, o.starve_ms, o.starve_every,
				       o.starve_cpu);
			if (o.steps)
				printf(" steps=on");
			printf(" verify=%s\n", allbad ? "FAILED" : "ok");
		}
	}
	free(sbuf);
	free(rbuf);
	free(t_in);
	free(t_out);
	free(starved);
	free(means);
	MPI_Barrier(MPI_COMM_WORLD); /* counted above in total_calls */
	if (!o.finalize)
		pmi_finalize();
	finish(allbad ? EXIT_VERIFY : EXIT_OK, o.finalize);
	return 0;
}
