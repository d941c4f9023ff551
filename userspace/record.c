// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace record: attach the probes and stream everything into a capture.
 *
 * One event loop (epoll) waits on the ring buffers, a 1 s timerfd and a
 * signalfd.  The tick writes what userspace samples (lost counters, new
 * interfaces, CE flows), flushes the capture block so a crash loses at most
 * about a second, and prints the status line.  A second timer (150 ms)
 * lets the phase probes pick up libraries the traced processes dlopen().
 * On stop: counters snapshot, detach, drain the rings, flush the bins
 * still open in the per-CPU maps, write calls still in flight as OPEN
 * phases, write END.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "probes/btf_names.h"
#include "probes/netns.h"
#include "probes/catalog.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"
#include "probes/privs.h"
#include "rdma/sampler.h"
#include "userspace/capture.h"
#include "userspace/commands.h"
#include "userspace/json.h"
#include "userspace/util.h"

#define MAX_IFACE_ARGS 64
#define MAX_PIDS 256
#define MAX_PHASE_SPECS 64
#define MAX_CPUS 1024

struct known_if {
	uint32_t netns, ifindex;
	bool has_start;     /* a START stats record was written: check conservation */
	bool described;     /* IFACE record written (or given up) */
	bool traced;        /* selected by the filters (its NIC stats are sampled) */
	char name[16];
};

struct recorder {
	/* options */
	const char *out_path;
	uint64_t duration_ns, bin_ns, sample_ns;
	size_t ringbuf_bytes;
	bool quiet, verbose, json;
	char **cmd;
	char *iface_args[MAX_IFACE_ARGS];
	int n_iface_args;
	const char *netns_arg;
	pid_t pids[MAX_PIDS];         /* -p */
	int npids;
	struct phase_spec *specs;     /* --phase */
	int nspecs;
	bool no_phases;
	struct sampler_opts so;       /* RDMA and NIC counters */

	/* state */
	struct netns_set ns;
	uint32_t netns_filter;
	uint32_t (*filter)[2];
	int n_filter;
	struct known_if *ifs;
	int n_ifs, cap_ifs;
	struct capture_writer *w;
	struct netprobe *np;
	struct phaseprobe *pp;        /* NULL: phase probes off or unavailable */
	struct sampler *smp;          /* NULL: counter sampling off */
	bool backoff_warned;
	int ncpus;
	uint64_t lost_written[FT_SRC_MAX][MAX_CPUS];
	uint64_t counts[64];          /* records by type (types < 64) */
	uint64_t bins, events, last_bins, last_events, phases, last_phases;
	uint64_t start_ns;
	uint64_t bytes_written, records_written; /* final, once the writer is closed */
	pid_t child;
	int child_status;
	int stop_reason;
	bool write_failed;
	char write_error[160];
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace record [OPTIONS] [-p PID[,PID...]] [-- COMMAND [ARGS...]]\n"
"\n"
"Trace the fabric: microburst bins per interface, qdisc depth and sojourn\n"
"time, drops with their reason, TCP retransmits and congestion state, ECN CE\n"
"marks.  Everything goes into one capture file; stop with Ctrl-C, -d, or when\n"
"COMMAND exits.\n"
"\n"
"Collective phases: uprobes on MPI (Allreduce, Bcast, ..., the non-blocking\n"
"calls and their Wait/Test completions), NCCL (host-side enqueue only), Gloo,\n"
"the fabtrace marker library and --phase functions record every call with its\n"
"bytes, communicator and sequence number.  They follow COMMAND and all its\n"
"children (mpiexec -> ip netns exec -> ranks), or the -p processes and their\n"
"children, or with neither every process on the system.  Libraries loaded\n"
"later (dlopen) are picked up.  Without a phase library, phases are inferred\n"
"from the traffic.\n"
"\n"
"Options:\n"
"  -i, --iface [NETNS/]IFACE  trace only this interface (repeatable); NETNS is\n"
"                             a name from 'ip netns'.  Default: all interfaces\n"
"      --netns NAME           trace only this network namespace\n"
"  -d, --duration DURATION    stop after DURATION (e.g. 10s, 500ms, 2m)\n"
"  -o, --output FILE          capture file (default: fabtrace.ftr); created 0600,\n"
"                             never through a symlink\n"
"      --bin WIDTH            microburst bin width (default 100us, min 1us)\n"
"      --rtt-interval DUR     min gap between RTT/cwnd samples per flow (default 10ms)\n"
"      --ringbuf SIZE         ring buffer per probe family (default 16M)\n"
"  -q, --quiet                no status line\n"
"  -v, --verbose              show libbpf and verifier messages\n"
"  -p, --pid PID[,PID...]     trace the phases of running processes and their\n"
"                             children (repeatable)\n"
"      --phase LIB:SYMBOL[=NAME]  also trace SYMBOL of library LIB (a path or\n"
"                             soname; SYMBOL a C name or a demangled C++ prefix)\n"
"                             as phase NAME (repeatable)\n"
"      --no-phases            no phase probes: fabric only (phases are inferred)\n"
"\n"
"Counters (RDMA ports and NIC statistics, on the same clock; see docs/rdma.md):\n"
"      --counter-period DUR   sample every DUR (default 10ms); the sampler backs\n"
"                             off (and says so) above its CPU budget\n"
"      --rdma-devices LIST    only these RDMA devices/ports, e.g. mlx5_0,mlx5_1:1\n"
"      --rdma-counters GLOBS  only RDMA counters matching (comma list), e.g.\n"
"                             'np_cnp_*,rp_cnp_*,port_xmit_*'\n"
"      --rdma-lifespan MS     set hw_counters/lifespan to MS for the recording\n"
"                             (restored at the end; the driver caches hw\n"
"                             counters for lifespan ms, default 10)\n"
"      --nic-stats GLOBS      ethtool statistics to sample on the traced\n"
"                             interfaces (default: pause/PFC, buffer, discard\n"
"                             and ECN counters; 'all' for every one)\n"
"      --no-rdma, --no-nic-stats   turn either part off\n"
"      --sampler-budget PCT   CPU share of one core the sampler may use (default 5)\n"
"      --sysfs-root DIR       read RDMA devices under DIR/class/infiniband instead\n"
"                             of /sys (test fixtures; also $FABTRACE_SYSFS_ROOT)\n"
"      --json                 print the final summary as JSON on stdout\n"
"  -h, --help                 this help\n"
"\n"
"Examples:\n"
"  sudo fabtrace record -i eth0 -d 10s -o incident.ftr\n"
"  sudo fabtrace record -i lab1h2/eth0 -i lab1sw/p2 --bin 20us -d 5s\n"
"  sudo fabtrace record -o allreduce.ftr -- mpiexec -n 4 ./train\n"
"  sudo fabtrace record -p 4242,4243 -d 30s\n"
"  sudo fabtrace record --phase ./libsolver.so:solver_step=solve -- ./app\n"
"  sudo fabtrace record --phase 'libgloo.so.0:gloo::rendezvous::Context::connect' \\\n"
"      -- python train.py\n"
"  sudo fabtrace record --no-phases -i eth0 -d 10s\n"
"  sudo fabtrace record --rdma-lifespan 1 --counter-period 1ms -d 5s -o cnp.ftr\n"
"\n"
"Needs root, or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN.\n");
}

/* ---- interfaces ---- */

static struct known_if *find_if(struct recorder *r, uint32_t netns, uint32_t ifindex)
{
	for (int i = 0; i < r->n_ifs; i++)
		if (r->ifs[i].netns == netns && r->ifs[i].ifindex == ifindex)
			return &r->ifs[i];
	return NULL;
}

static struct known_if *add_if(struct recorder *r, uint32_t netns, uint32_t ifindex)
{
	struct known_if *k = find_if(r, netns, ifindex);

	if (k)
		return k;
	if (r->n_ifs == r->cap_ifs) {
		int cap = r->cap_ifs ? r->cap_ifs * 2 : 32;
		struct known_if *p = realloc(r->ifs, cap * sizeof(*p));

		if (!p)
			return NULL;
		r->ifs = p;
		r->cap_ifs = cap;
	}
	k = &r->ifs[r->n_ifs++];
	*k = (struct known_if){ .netns = netns, .ifindex = ifindex };
	return k;
}

static bool if_traced(const struct recorder *r, uint32_t netns, uint32_t ifindex)
{
	if (r->netns_filter && netns != r->netns_filter)
		return false;
	if (!r->n_filter)
		return true;
	for (int i = 0; i < r->n_filter; i++)
		if (r->filter[i][0] == netns && r->filter[i][1] == ifindex)
			return true;
	return false;
}

/* Could any traced interface live in this namespace? */
static bool netns_traced(const struct recorder *r, uint32_t netns)
{
	if (r->netns_filter && netns != r->netns_filter)
		return false;
	for (int i = 0; i < r->n_filter; i++)
		if (r->filter[i][0] == netns)
			return true;
	return !r->n_filter;
}

static int append(struct recorder *r, const struct ft_rec_hdr *h)
{
	if (r->write_failed)
		return -EIO;
	if (capture__append(r->w, h)) {
		r->write_failed = true;
		r->stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	if (h->type < 64)
		r->counts[h->type]++;
	return 0;
}

/* Kernel records name interfaces by (netns, ifindex); make sure each gets described. */
static int on_record(void *ctx, const struct ft_rec_hdr *h)
{
	struct recorder *r = ctx;
	uint32_t netns = 0, ifindex = 0;

	switch (h->type) {
	case FT_REC_IFACE_BIN: {
		const struct ft_iface_bin *b = (const void *)h;

		netns = b->netns;
		ifindex = b->ifindex;
		r->bins++;
		break;
	}
	case FT_REC_QDISC_BIN: {
		const struct ft_qdisc_bin *b = (const void *)h;

		netns = b->netns;
		ifindex = b->ifindex;
		r->bins++;
		break;
	}
	case FT_REC_DROP: {
		const struct ft_drop *d = (const void *)h;

		netns = d->netns;
		ifindex = d->ifindex;
		r->events++;
		break;
	}
	case FT_REC_PHASE:
	case FT_REC_REQ_DONE:
	case FT_REC_COMM_INFO:
	case FT_REC_PROC:
	case FT_REC_SOCK_OWNER:
	case FT_REC_PHASE_SLOT:
		r->phases++;
		break;
	default:
		r->events++;
		break;
	}
	if (ifindex && !find_if(r, netns, ifindex))
		add_if(r, netns, ifindex); /* described at the next tick */
	return append(r, h);
}

struct describe_ctx {
	struct recorder *r;
	int phase;          /* FT_STATS_START / FT_STATS_STOP, -1 = none */
};

static int describe_link(const struct link_info *l, void *arg)
{
	struct describe_ctx *d = arg;
	struct recorder *r = d->r;
	struct known_if *k;
	struct ft_iface_info info = l->info;
	struct ft_iface_stats st = l->stats;

	if (!if_traced(r, info.netns, info.ifindex))
		return 0;
	k = add_if(r, info.netns, info.ifindex);
	if (!k)
		return -ENOMEM;
	if (d->phase == FT_STATS_STOP) {
		if (!k->has_start)
			return 0;
		st.phase = FT_STATS_STOP;
		return append(r, &st.hdr);
	}
	if (!k->described) {
		info.flags |= FT_IFACE_TRACED;
		k->described = true;
		k->traced = true;
		str_copy(k->name, info.name, sizeof(k->name));
		if (append(r, &info.hdr))
			return -EIO;
	}
	if (d->phase == FT_STATS_START) {
		st.phase = FT_STATS_START;
		k->has_start = true;
		return append(r, &st.hdr);
	}
	return 0;
}

/* Describe every traced interface of every namespace, with counters. */
static int describe_all(struct recorder *r, int phase)
{
	struct describe_ctx d = { r, phase };

	for (int i = 0; i < r->ns.n; i++) {
		struct netns *n = &r->ns.ns[i];
		int ret;

		if (!netns_traced(r, n->inum))
			continue;
		ret = netns__links(n, describe_link, &d);
		if (ret == -EIO || ret == -ENOMEM)
			return ret;
		/* a namespace that vanished or cannot be entered is skipped */
	}
	return 0;
}

/* Interfaces that appeared in records but were not described yet. */
static void describe_new(struct recorder *r)
{
	bool rescanned = false;
	char err[160];

	for (int i = 0; i < r->n_ifs; i++) {
		struct known_if *k = &r->ifs[i];
		struct netns *n;
		struct link_info l;

		if (k->described)
			continue;
		n = netns_set__find_inum(&r->ns, k->netns);
		if (!n && !rescanned) {
			netns_set__scan(&r->ns, err, sizeof(err));
			rescanned = true;
			n = netns_set__find_inum(&r->ns, k->netns);
		}
		k->described = true; /* try once */
		if (n && netns__link(n, k->ifindex, &l) == 0) {
			l.info.flags |= if_traced(r, k->netns, k->ifindex) ? FT_IFACE_TRACED : 0;
			append(r, &l.info.hdr);
		}
	}
}

/* ---- periodic work ---- */

static void write_lost(struct recorder *r, bool force)
{
	static uint64_t cur[MAX_CPUS];
	int ncpus = r->ncpus < MAX_CPUS ? r->ncpus : MAX_CPUS;

	for (int src = 0; src < FT_SRC_MAX; src++) {
		if (src == FT_SRC_USER || (src == FT_SRC_PHASE && !r->pp))
			continue;
		if (src == FT_SRC_PHASE ? phaseprobe__lost(r->pp, cur, ncpus)
					: netprobe__lost(r->np, src, cur, ncpus))
			continue;
		for (int c = 0; c < ncpus; c++) {
			struct ft_lost l = { .hdr = { FT_REC_LOST, sizeof(l), 0 } };

			/* at the end every CPU's counter is written, zeros included,
			 * so the capture proves "nothing lost" rather than implying it */
			if (cur[c] == r->lost_written[src][c] && !force)
				continue;
			l.ts_ns = mono_ns();
			l.lost = cur[c];
			l.source = src;
			l.cpu = c;
			if (append(r, &l.hdr) == 0)
				r->lost_written[src][c] = cur[c];
		}
	}
}

static uint64_t lost_total(const struct recorder *r)
{
	uint64_t t = 0;

	for (int s = 0; s < FT_SRC_MAX; s++)
		for (int c = 0; c < r->ncpus && c < MAX_CPUS; c++)
			t += r->lost_written[s][c];
	return t;
}

static int append_cb(void *ctx, const struct ft_rec_hdr *h)
{
	return append(ctx, h);
}

static void status_line(struct recorder *r, uint64_t now)
{
	char b1[32];

	fprintf(stderr, "\r[%6.1fs] bins %7llu/s  events %6llu/s  phases %6llu/s  lost %llu  %s written   ",
		(now - r->start_ns) / 1e9,
		(unsigned long long)(r->bins - r->last_bins),
		(unsigned long long)(r->events - r->last_events),
		(unsigned long long)(r->phases - r->last_phases),
		(unsigned long long)lost_total(r),
		fmt_bytes((double)capture__bytes(r->w), b1, sizeof(b1)));
	r->last_bins = r->bins;
	r->last_events = r->events;
	r->last_phases = r->phases;
}

static void tick(struct recorder *r, uint64_t ticks, bool tty)
{
	describe_new(r);
	write_lost(r, false);
	if (ticks % 5 == 0)
		netprobe__ce_flows(r->np, append_cb, r);
	if (!r->write_failed && capture__flush(r->w)) {
		r->write_failed = true;
		r->stop_reason = FT_STOP_ERROR;
	}
	if (tty && !r->quiet)
		status_line(r, mono_ns());
}

/* ---- setup ---- */

/* netns__links callback: stop at the link named like out->info.name. */
static int match_name(const struct link_info *l, void *arg)
{
	struct link_info *out = arg;

	if (strcmp(l->info.name, out->info.name) != 0)
		return 0;
	*out = *l;
	return 1;
}

static int resolve_filters(struct recorder *r)
{
	char err[256];

	if (netns_set__scan(&r->ns, err, sizeof(err))) {
		ft_err("record: %s", err);
		return -1;
	}
	if (r->netns_arg) {
		struct netns *n = netns_set__find_name(&r->ns, r->netns_arg);

		if (!n) {
			ft_err("record: network namespace '%s' not found; list them with 'ip netns list'",
			       r->netns_arg);
			return -1;
		}
		r->netns_filter = n->inum;
	}
	if (!r->n_iface_args)
		return 0;
	r->filter = calloc(r->n_iface_args, sizeof(*r->filter));
	if (!r->filter)
		return -1;
	for (int i = 0; i < r->n_iface_args; i++) {
		char nsname[64], ifname[32];
		struct netns *n;
		struct link_info l;

		if (parse_iface_spec(r->iface_args[i], nsname, sizeof(nsname), ifname, sizeof(ifname))) {
			ft_err("record: bad interface '%s'; use IFACE or NETNS/IFACE, e.g. eth0 or lab1h2/eth0",
			       r->iface_args[i]);
			return -1;
		}
		n = nsname[0] ? netns_set__find_name(&r->ns, nsname) : netns_set__find_inum(&r->ns, r->ns.self_inum);
		if (!n) {
			ft_err("record: network namespace '%s' not found; list them with 'ip netns list'", nsname);
			return -1;
		}
		if (netns__open(n, err, sizeof(err))) {
			ft_err("record: %s", err);
			return -1;
		}
		str_copy(l.info.name, ifname, sizeof(l.info.name));
		l.info.ifindex = 0;
		netns__links(n, match_name, &l);
		if (!l.info.ifindex) {
			if (nsname[0])
				ft_err("record: interface '%s' not found in network namespace '%s'; "
				       "list them with 'ip -n %s link'", ifname, nsname, nsname);
			else
				ft_err("record: interface '%s' not found; list them with 'ip link' "
				       "(name another namespace's as NETNS/IFACE)", ifname);
			return -1;
		}
		if (r->netns_filter && n->inum != r->netns_filter) {
			ft_err("record: interface '%s' is not in network namespace '%s'; drop --netns or -i",
			       r->iface_args[i], r->netns_arg);
			return -1;
		}
		r->filter[r->n_filter][0] = n->inum;
		r->filter[r->n_filter][1] = l.info.ifindex;
		r->n_filter++;
	}
	return 0;
}

static void clock_offsets(struct ft_file_header *h)
{
	int64_t best = INT64_MAX;

	/* Bracket the other clocks between two MONOTONIC reads; keep the tightest. */
	for (int i = 0; i < 5; i++) {
		struct timespec a, rt, bt, b;
		int64_t ma, mb;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_BOOTTIME, &bt);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ma = a.tv_sec * 1000000000LL + a.tv_nsec;
		mb = b.tv_sec * 1000000000LL + b.tv_nsec;
		if (mb - ma < best) {
			int64_t mid = ma + (mb - ma) / 2;

			best = mb - ma;
			h->realtime_offset_ns = rt.tv_sec * 1000000000LL + rt.tv_nsec - mid;
			h->boottime_offset_ns = bt.tv_sec * 1000000000LL + bt.tv_nsec - mid;
		}
	}
}

static void fill_header(struct recorder *r, struct ft_file_header *h, int argc, char **argv)
{
	struct utsname u;
	size_t off = 0;

	memset(h, 0, sizeof(*h));
	clock_offsets(h);
	h->start_mono_ns = r->start_ns;
	h->bin_ns = r->bin_ns;
	h->probes = netprobe__mask(r->np);
	h->ncpus = (uint32_t)r->ncpus;
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	if (uname(&u) == 0)
		str_copy(h->kernel, u.release, sizeof(h->kernel));
	str_copy(h->tool_version, FT_VERSION, sizeof(h->tool_version));
	for (int i = 0; i < argc && off + 1 < sizeof(h->command); i++) {
		int n = snprintf(h->command + off, sizeof(h->command) - off, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* Hooks whose tracepoint hits cannot be counted: their skipped runs are unknown. */
static void warn_coverage(const struct recorder *r)
{
	const struct probe_status *st = netprobe__status(r->np);
	uint64_t mask = netprobe__mask(r->np);

	if (r->quiet)
		return;
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if ((mask & (1ull << i)) && st[i].cov_why[0])
			ft_warn("record: %s: cannot count tracepoint hits (%s); runs the kernel "
				"skips will not be detected", st[i].name, st[i].cov_why);
}

static int write_preamble(struct recorder *r)
{
	const struct probe_status *st = netprobe__status(r->np);
	uint64_t mask = netprobe__mask(r->np);

	for (int i = 0; i < FT_PROBE_MAX; i++) {
		struct ft_probe_info p = { .hdr = { FT_REC_PROBE, sizeof(p), 0 } };

		p.id = st[i].id;
		p.attached = !!(mask & (1ull << i));
		str_copy(p.name, st[i].name, sizeof(p.name));
		snprintf(p.hook, sizeof(p.hook), "%s/%s", st[i].variant ? st[i].variant : "-",
			 st[i].tracepoint);
		str_copy(p.why, st[i].why, sizeof(p.why));
		if (append(r, &p.hdr))
			return -EIO;
	}
	if (btf_drop_reasons(append_cb, r) == -EIO)
		return -EIO;
	/* phase slots and the processes followed so far, kept since the probes attached */
	if (r->pp && phaseprobe__start(r->pp))
		return -EIO;
	return describe_all(r, FT_STATS_START);
}

/* Fork COMMAND now, held on a pipe until tracing runs. */
static int spawn_command(struct recorder *r, int *go_fd, const sigset_t *orig)
{
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	r->child = fork();
	if (r->child < 0)
		return -errno;
	if (r->child == 0) {
		char c;

		sigprocmask(SIG_SETMASK, orig, NULL);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(126); /* recorder failed before tracing started */
		execvp(r->cmd[0], r->cmd);
		fprintf(stderr, "fabtrace: record: cannot run '%s': %s; check the command and PATH\n",
			r->cmd[0], strerror(errno));
		_exit(127);
	}
	close(pfd[0]);
	*go_fd = pfd[1];
	return 0;
}

/* ---- counters: RDMA ports and NIC statistics (rdma/sampler.h) ---- */

/*
 * A RoCE port names its netdev; find it in our own namespace first (where
 * shared-mode RDMA devices live), else in another namespace if exactly one
 * has that name (exclusive mode, or the lab).
 */
static int resolve_netdev(void *ctx, const char *name, uint32_t *netns, uint32_t *ifindex)
{
	struct recorder *r = ctx;
	char err[160];
	int found = 0;

	for (int pass = 0; pass < 2 && !found; pass++) {
		for (int i = 0; i < r->ns.n; i++) {
			struct netns *n = &r->ns.ns[i];
			struct link_info l;

			if (n->self != (pass == 0) || netns__open(n, err, sizeof(err)))
				continue;
			str_copy(l.info.name, name, sizeof(l.info.name));
			l.info.ifindex = 0;
			netns__links(n, match_name, &l);
			if (!l.info.ifindex)
				continue;
			if (found++)
				return -ENOENT; /* in two namespaces: ambiguous */
			*netns = n->inum;
			*ifindex = l.info.ifindex;
		}
	}
	if (!found)
		return -ENOENT;
	/* described as an interface (on the next tick) so the port has a label */
	return add_if(r, *netns, *ifindex) ? 0 : -ENOMEM;
}

static int collect_link(const struct link_info *l, void *arg)
{
	struct recorder *r = arg;
	struct known_if *k;

	if (!if_traced(r, l->info.netns, l->info.ifindex))
		return 0;
	k = add_if(r, l->info.netns, l->info.ifindex);
	if (!k)
		return -ENOMEM;
	k->traced = true;
	str_copy(k->name, l->info.name, sizeof(k->name));
	return 0;
}

/* The traced interfaces, before anything is written: their NIC stats are sampled. */
static void collect_traced(struct recorder *r)
{
	char err[160];

	for (int i = 0; i < r->ns.n; i++) {
		struct netns *n = &r->ns.ns[i];

		if (netns_traced(r, n->inum) && !netns__open(n, err, sizeof(err)))
			netns__links(n, collect_link, r);
	}
}

static int open_sampler(struct recorder *r)
{
	struct sampler_netdev *nd;
	char err[256];
	int n = 0, ret;

	if (!r->so.no_nic)
		collect_traced(r);
	nd = calloc(r->n_ifs ? r->n_ifs : 1, sizeof(*nd));
	if (!nd)
		return -1;
	for (int i = 0; i < r->n_ifs && !r->so.no_nic; i++) {
		const struct known_if *k = &r->ifs[i];
		struct netns *ns = netns_set__find_inum(&r->ns, k->netns);

		if (!k->traced || !strcmp(k->name, "lo") || !ns || netns__open(ns, err, sizeof(err)))
			continue;
		nd[n].netns = k->netns;
		nd[n].ifindex = k->ifindex;
		nd[n].ioctl_fd = ns->ioctl_fd;
		str_copy(nd[n].name, k->name, sizeof(nd[n].name));
		if (ns->name[0])
			snprintf(nd[n].label, sizeof(nd[n].label), "%s@%s", k->name, ns->name);
		else
			str_copy(nd[n].label, k->name, sizeof(nd[n].label));
		n++;
	}
	r->so.netdevs = nd;
	r->so.nnetdevs = (size_t)n;
	r->so.resolve_netdev = resolve_netdev;
	r->so.resolve_ctx = r;
	ret = sampler__open(&r->so, &r->smp, err, sizeof(err));
	free(nd);
	r->so.netdevs = NULL;
	r->so.nnetdevs = 0;
	if (ret) {
		ft_err("record: %s", err);
		r->smp = NULL;
		return -1;
	}
	return 0;
}

/* Describe the ports, groups and counters, and the RoCE netdevs as interfaces. */
static int start_sampler(struct recorder *r)
{
	if (!r->smp)
		return 0;
	if (sampler__describe(r->smp, append_cb, r))
		return -EIO;
	describe_new(r); /* the RoCE netdevs */
	if (!r->quiet && !r->json) {
		fprintf(stderr, "fabtrace: %s\n", sampler__rdma_status(r->smp));
		if (sampler__ngroups(r->smp) > sampler__nports(r->smp) * 2 || !sampler__nports(r->smp))
			fprintf(stderr, "fabtrace: NIC stats: %zu groups sampled every %.3g ms\n",
				sampler__ngroups(r->smp) - sampler__nports(r->smp) * 2,
				sampler__period_ns(r->smp) / 1e6);
	}
	return sampler__sample(r->smp, mono_ns(), append_cb, r) ? -EIO : 0;
}

static void arm_sampler(const struct recorder *r, int fd)
{
	uint64_t p = sampler__period_ns(r->smp);
	struct itimerspec its = {
		.it_interval = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
		.it_value = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
	};

	timerfd_settime(fd, 0, &its, NULL);
}

static void sample_counters(struct recorder *r, int fd)
{
	uint64_t before = sampler__period_ns(r->smp);

	if (sampler__sample(r->smp, mono_ns(), append_cb, r))
		return;
	if (sampler__period_ns(r->smp) != before) {
		arm_sampler(r, fd);
		if (!r->quiet && !r->backoff_warned)
			ft_warn("record: counter sampling took more than its CPU budget; period raised "
				"to %.3g ms (see --sampler-budget, --rdma-counters)",
				sampler__period_ns(r->smp) / 1e6);
		r->backoff_warned = true;
	}
}

static void print_summary(struct recorder *r, uint64_t end_ns)
{
	const double secs = (end_ns - r->start_ns) / 1e9;
	static const char *why[] = { "duration reached", "signal", "command exited", "error" };
	char b[32];

	if (r->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_object_begin(&j);
		json_kv_string(&j, "output", r->out_path);
		json_kv_double(&j, "duration_s", secs, 3);
		json_kv_string(&j, "stop_reason", why[r->stop_reason]);
		json_kv_u64(&j, "bytes", r->bytes_written);
		json_kv_u64(&j, "records", r->records_written);
		json_kv_u64(&j, "bins", r->bins);
		json_kv_u64(&j, "events", r->events);
		json_kv_u64(&j, "phase_events", r->phases);
		json_kv_u64(&j, "phases", r->counts[FT_REC_PHASE]);
		json_kv_u64(&j, "phase_slots", r->counts[FT_REC_PHASE_SLOT]);
		json_kv_u64(&j, "lost_events", lost_total(r));
		json_kv_u64(&j, "interfaces", (uint64_t)r->n_ifs);
		json_kv_u64(&j, "rdma_ports", r->counts[FT_REC_RDMA_PORT]);
		json_kv_u64(&j, "counter_groups", r->counts[FT_REC_CTR_GROUP]);
		json_kv_u64(&j, "counter_samples", r->counts[FT_REC_CTR_SAMPLE]);
		if (r->cmd)
			json_kv_i64(&j, "command_exit_status",
				    WIFEXITED(r->child_status) ? WEXITSTATUS(r->child_status) : -1);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	if (r->quiet)
		return;
	fprintf(stderr, "fabtrace: recorded %.1f s (%s) to %s: %s, %llu records (%llu bins, %llu events, "
		"%llu phase events), %llu lost events\n", secs, why[r->stop_reason], r->out_path,
		fmt_bytes((double)r->bytes_written, b, sizeof(b)),
		(unsigned long long)r->records_written, (unsigned long long)r->bins,
		(unsigned long long)r->events, (unsigned long long)r->phases,
		(unsigned long long)lost_total(r));
	if (r->pp)
		fprintf(stderr, "fabtrace: phases: %llu calls in %llu traced functions%s\n",
			(unsigned long long)r->counts[FT_REC_PHASE],
			(unsigned long long)r->counts[FT_REC_PHASE_SLOT],
			r->counts[FT_REC_PHASE_SLOT] ? "" : " (none found: phases will be inferred from traffic)");
	if (r->counts[FT_REC_CTR_GROUP])
		fprintf(stderr, "fabtrace: counters: %llu samples of %llu groups (%llu RDMA ports)\n",
			(unsigned long long)r->counts[FT_REC_CTR_SAMPLE],
			(unsigned long long)r->counts[FT_REC_CTR_GROUP],
			(unsigned long long)r->counts[FT_REC_RDMA_PORT]);
	if (lost_total(r))
		fprintf(stderr, "fabtrace: warning: %llu events were lost (ring buffer full); "
			"use a larger --ringbuf or a wider --bin\n", (unsigned long long)lost_total(r));
}

/* ---- the loop ---- */

static int record_loop(struct recorder *r, int sfd, int go_fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int pfd = r->pp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	int cfd = r->smp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
	struct itimerspec pits = {
		.it_interval = { 0, PHASEPROBE_TICK_MS * 1000000L },
		.it_value = { 0, PHASEPROBE_TICK_MS * 1000000L },
	};
	bool tty = isatty(STDERR_FILENO);
	uint64_t ticks = 0, deadline = r->duration_ns ? r->start_ns + r->duration_ns : 0;
	int ret = 0;

	if (ep < 0 || tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) ||
	    (r->pp && (pfd < 0 || timerfd_settime(pfd, 0, &pits, NULL))) || (r->smp && cfd < 0)) {
		ret = -errno;
		if (ep >= 0)
			close(ep);
		if (tfd >= 0)
			close(tfd);
		if (pfd >= 0)
			close(pfd);
		if (cfd >= 0)
			close(cfd);
		return ret;
	}
	if (r->smp) {
		arm_sampler(r, cfd);
		ev.data.fd = cfd;
		epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
	}
	ev.data.fd = netprobe__epoll_fd(r->np);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	if (r->pp) {
		ev.data.fd = phaseprobe__epoll_fd(r->pp);
		epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
		ev.data.fd = pfd;
		epoll_ctl(ep, EPOLL_CTL_ADD, pfd, &ev);
	}
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	if (go_fd >= 0) { /* tracing runs: let the command go */
		if (write(go_fd, "g", 1) != 1)
			ret = -errno;
		close(go_fd);
	}

	while (!ret && !r->write_failed) {
		struct epoll_event evs[8];
		int timeout = -1, n;
		uint64_t now = mono_ns();

		if (deadline) {
			if (now >= deadline) {
				r->stop_reason = FT_STOP_DURATION;
				break;
			}
			timeout = (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_wait(ep, evs, 8, timeout);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == tfd) {
				uint64_t exp;

				if (read(tfd, &exp, sizeof(exp)) > 0)
					tick(r, ++ticks, tty);
			} else if (fd == pfd) {
				uint64_t exp;

				if (read(pfd, &exp, sizeof(exp)) > 0)
					phaseprobe__tick(r->pp);
			} else if (fd == cfd) {
				uint64_t exp;

				if (read(cfd, &exp, sizeof(exp)) > 0)
					sample_counters(r, cfd);
			} else if (fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGCHLD) {
					if (r->child > 0 && waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
						r->child = 0;
						r->stop_reason = FT_STOP_COMMAND;
						goto out;
					}
				} else {
					r->stop_reason = FT_STOP_SIGNAL;
					goto out;
				}
			}
		}
		/* drain the rings every round: they are the hot path */
		if (netprobe__poll(r->np, 0) < 0)
			break;
		if (r->pp && phaseprobe__poll(r->pp, 0) < 0)
			break;
	}
out:
	if (tty && !r->quiet)
		fputc('\n', stderr);
	close(tfd);
	if (pfd >= 0)
		close(pfd);
	if (cfd >= 0)
		close(cfd);
	close(ep);
	return ret;
}

static int finish(struct recorder *r)
{
	struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };
	struct timespec pause = { 0, 20L * 1000 * 1000 };
	uint64_t stop_ns = mono_ns();
	int ret;

	if (r->pp)
		phaseprobe__disarm(r->pp); /* calls still running end here, as OPEN phases */
	if (!r->write_failed)
		describe_all(r, FT_STATS_STOP);
	if (r->smp) { /* last values at the stop, then lifespan restored */
		if (!r->write_failed)
			sampler__sample(r->smp, mono_ns(), append_cb, r);
		sampler__close(r->smp, r->write_failed ? NULL : append_cb, r);
		r->smp = NULL;
	}
	netprobe__detach(r->np);
	if (r->pp)
		phaseprobe__detach(r->pp);
	nanosleep(&pause, NULL); /* let programs already running on other CPUs finish */
	while (netprobe__poll(r->np, 0) > 0)
		;
	if (r->pp) {
		while (phaseprobe__poll(r->pp, 0) > 0)
			;
		/* calls still running: OPEN phases that end at the stop */
		phaseprobe__flush_open(r->pp, stop_ns);
	}
	netprobe__flush_bins(r->np);
	netprobe__ce_flows(r->np, append_cb, r);
	netprobe__coverage(r->np, append_cb, r);
	describe_new(r);
	write_lost(r, true);
	end.ts_ns = mono_ns();
	end.records = capture__records(r->w);
	end.stop_reason = (uint32_t)r->stop_reason;
	append(r, &end.hdr);
	capture__flush(r->w);
	r->bytes_written = capture__bytes(r->w);
	r->records_written = capture__records(r->w);
	if (capture__last_error(r->w)[0])
		str_copy(r->write_error, capture__last_error(r->w), sizeof(r->write_error));
	ret = capture__close(r->w);
	/* capture__close frees the writer; keep what the summary needs */
	r->w = NULL;
	return ret;
}

/* "-p 12,34": append to r->pids. */
static int parse_pids(struct recorder *r, const char *arg)
{
	const char *s = arg;

	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT32_MAX || (*end && *end != ',') ||
		    (*end == ',' && !end[1])) {
			ft_err("record: bad -p '%s'; use a PID or a comma-separated list, e.g. -p 1234,1235",
			       arg);
			return -1;
		}
		if (r->npids == MAX_PIDS) {
			ft_err("record: too many -p PIDs (max %d); trace the parent instead", MAX_PIDS);
			return -1;
		}
		r->pids[r->npids++] = (pid_t)v;
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

static int parse_args(struct recorder *r, int argc, char **argv)
{
	enum { OPT_NETNS = 256, OPT_BIN, OPT_RTT, OPT_RINGBUF, OPT_JSON, OPT_PHASE, OPT_NO_PHASES,
	       OPT_CTR_PERIOD, OPT_RDMA_DEVS, OPT_RDMA_CTRS, OPT_LIFESPAN, OPT_NIC_STATS, OPT_NO_RDMA,
	       OPT_NO_NIC, OPT_BUDGET, OPT_SYSFS };
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "netns", required_argument, NULL, OPT_NETNS },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "bin", required_argument, NULL, OPT_BIN },
		{ "rtt-interval", required_argument, NULL, OPT_RTT },
		{ "ringbuf", required_argument, NULL, OPT_RINGBUF },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pid", required_argument, NULL, 'p' },
		{ "phase", required_argument, NULL, OPT_PHASE },
		{ "no-phases", no_argument, NULL, OPT_NO_PHASES },
		{ "counter-period", required_argument, NULL, OPT_CTR_PERIOD },
		{ "rdma-devices", required_argument, NULL, OPT_RDMA_DEVS },
		{ "rdma-counters", required_argument, NULL, OPT_RDMA_CTRS },
		{ "rdma-lifespan", required_argument, NULL, OPT_LIFESPAN },
		{ "nic-stats", required_argument, NULL, OPT_NIC_STATS },
		{ "no-rdma", no_argument, NULL, OPT_NO_RDMA },
		{ "no-nic-stats", no_argument, NULL, OPT_NO_NIC },
		{ "sampler-budget", required_argument, NULL, OPT_BUDGET },
		{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	opterr = 0; /* our own one-line errors */
	/* "+": stop at the first non-option so COMMAND's own flags stay its own */
	while ((c = getopt_long(argc, argv, "+:i:d:o:p:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (r->n_iface_args == MAX_IFACE_ARGS) {
				ft_err("record: too many -i (max %d); trace all with no -i", MAX_IFACE_ARGS);
				return -1;
			}
			r->iface_args[r->n_iface_args++] = optarg;
			break;
		case OPT_NETNS:
			r->netns_arg = optarg;
			break;
		case 'd':
			if (parse_duration(optarg, 1000000000ull, &r->duration_ns)) {
				ft_err("record: bad duration '%s'; use e.g. 10s, 500ms, 2m", optarg);
				return -1;
			}
			break;
		case 'o':
			r->out_path = optarg;
			break;
		case OPT_BIN:
			if (parse_duration(optarg, 0, &r->bin_ns) || r->bin_ns < 1000 ||
			    r->bin_ns > 1000000000ull) {
				ft_err("record: bad bin width '%s'; use 1us..1s with a unit, e.g. --bin 20us",
				       optarg);
				return -1;
			}
			break;
		case OPT_RTT:
			if (parse_duration(optarg, 0, &r->sample_ns)) {
				ft_err("record: bad --rtt-interval '%s'; use e.g. 10ms", optarg);
				return -1;
			}
			break;
		case OPT_RINGBUF:
			if (parse_size(optarg, &v) || v < 4096ull * 4 || v > (1ull << 30) || (v & (v - 1))) {
				ft_err("record: bad --ringbuf '%s'; use a power of two from 16k to 1G, e.g. 16M",
				       optarg);
				return -1;
			}
			r->ringbuf_bytes = v;
			break;
		case 'p':
			if (parse_pids(r, optarg))
				return -1;
			break;
		case OPT_PHASE: {
			char why[160];

			if (r->nspecs == MAX_PHASE_SPECS) {
				ft_err("record: too many --phase (max %d)", MAX_PHASE_SPECS);
				return -1;
			}
			if (phase_spec__parse(optarg, &r->specs[r->nspecs], why, sizeof(why))) {
				ft_err("record: bad --phase '%s': %s", optarg, why);
				return -1;
			}
			r->nspecs++;
			break;
		}
		case OPT_NO_PHASES:
			r->no_phases = true;
			break;
		case OPT_CTR_PERIOD:
			if (parse_duration(optarg, 0, &r->so.period_ns) || r->so.period_ns < 100000 ||
			    r->so.period_ns > 60000000000ull) {
				ft_err("record: bad --counter-period '%s'; use 100us..60s with a unit, e.g. 10ms",
				       optarg);
				return -1;
			}
			break;
		case OPT_RDMA_DEVS:
			r->so.devices = optarg;
			break;
		case OPT_RDMA_CTRS:
			r->so.rdma_filter = optarg;
			break;
		case OPT_LIFESPAN: {
			char *end;
			unsigned long ms;

			errno = 0;
			ms = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || ms < 1 || ms > 10000) {
				ft_err("record: bad --rdma-lifespan '%s'; use milliseconds 1..10000, e.g. 1",
				       optarg);
				return -1;
			}
			r->so.lifespan_ms = (uint32_t)ms;
			break;
		}
		case OPT_NIC_STATS:
			r->so.nic_filter = optarg;
			break;
		case OPT_NO_RDMA:
			r->so.no_rdma = true;
			break;
		case OPT_NO_NIC:
			r->so.no_nic = true;
			break;
		case OPT_BUDGET: {
			char *end;
			double pct;

			errno = 0;
			pct = strtod(optarg, &end);
			if (errno || end == optarg || (*end && strcmp(end, "%")) || !(pct > 0 && pct <= 100)) {
				ft_err("record: bad --sampler-budget '%s'; use a percentage of one core, "
				       "e.g. 5", optarg);
				return -1;
			}
			r->so.budget = pct / 100.0;
			break;
		}
		case OPT_SYSFS: {
			struct stat st;

			if (stat(optarg, &st) || !S_ISDIR(st.st_mode)) {
				ft_err("record: --sysfs-root '%s' is not a directory", optarg);
				return -1;
			}
			r->so.sysfs_root = optarg;
			break;
		}
		case 'q':
			r->quiet = true;
			break;
		case 'v':
			r->verbose = true;
			break;
		case OPT_JSON:
			r->json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ft_err("record: bad usage: %s '%s'; see 'fabtrace record --help'",
			       c == ':' ? "missing value for" : "unknown option", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc)
		r->cmd = &argv[optind];
	if (r->no_phases && (r->npids || r->nspecs)) {
		ft_err("record: %s needs the phase probes; drop --no-phases",
		       r->npids ? "-p" : "--phase");
		return -1;
	}
	return 0;
}

/* Phase probes: a user error (bad --phase, -p) stops; a kernel that cannot is a warning. */
static int open_phases(struct recorder *r, const struct netprobe_opts *po)
{
	struct phaseprobe_opts o = {
		.pids = r->pids, .npids = r->npids, .cmd = r->cmd,
		.specs = r->specs, .nspecs = r->nspecs,
		.netns = po->netns, .ifaces = po->ifaces, .n_ifaces = po->n_ifaces,
		.ringbuf_bytes = r->ringbuf_bytes, .verbose = r->verbose,
	};
	char err[512];
	int ret = phaseprobe__open(&r->pp, &o, on_record, r, err, sizeof(err));

	if (!ret)
		return 0;
	r->pp = NULL;
	if (ret == -EINVAL || r->npids || r->nspecs) {
		ft_err("record: %s", err);
		return -1;
	}
	if (!r->quiet)
		ft_warn("record: phase probes unavailable (%s); phases will be inferred from traffic", err);
	return 0;
}

static void phase_status(const struct recorder *r)
{
	struct phaseprobe_stats st;

	if (!r->pp || r->quiet || r->json)
		return;
	phaseprobe__stats(r->pp, &st);
	if (!st.slots) {
		fprintf(stderr, "fabtrace: no MPI, NCCL, Gloo or marker library found%s; phases will "
			"be inferred from traffic\n", st.systemwide ? "" : " yet (libraries loaded later are "
			"still traced)");
	} else {
		char buf[512];

		fprintf(stderr, "fabtrace: phases: %u functions in %s%s\n", st.slots,
			phaseprobe__describe(r->pp, buf, sizeof(buf)),
			st.systemwide ? ", every process" : "");
	}
}

int cmd_record(int argc, char **argv)
{
	struct recorder *r = calloc(1, sizeof(*r));
	struct netprobe_opts po = {0};
	struct ft_file_header hdr;
	sigset_t mask, orig;
	char err[256], missing[96];
	struct stat st;
	int sfd = -1, go_fd = -1, ret = 1;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");

	if (!r)
		return 1;
	r->out_path = "fabtrace.ftr";
	r->bin_ns = 100000;
	r->sample_ns = 10000000;
	r->ringbuf_bytes = 16u << 20;
	r->child = -1;
	sampler_opts__init(&r->so);
	r->specs = calloc(MAX_PHASE_SPECS, sizeof(*r->specs));
	if (!r->specs || parse_args(r, argc, argv))
		goto out;
	if (!privs_ok(missing, sizeof(missing))) {
		ft_err("record: missing privileges: %s; run with sudo (or grant them with setcap)", missing);
		goto out;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st)) {
		ft_err("record: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
		       "fabtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		goto out;
	}
	if (resolve_filters(r))
		goto out;

	po.bin_ns = r->bin_ns;
	po.sample_ns = r->sample_ns;
	po.netns = r->netns_filter;
	po.ifaces = (const uint32_t (*)[2])r->filter;
	po.n_ifaces = r->n_filter;
	po.ringbuf_bytes = r->ringbuf_bytes;
	po.verbose = r->verbose;
	if (netprobe__open(&r->np, &po, on_record, r, err, sizeof(err))) {
		ft_err("record: %s", err);
		goto out;
	}
	if (!r->no_phases && open_phases(r, &po))
		goto out;
	if (open_sampler(r))
		goto out;
	r->ncpus = libbpf_num_possible_cpus();
	r->start_ns = mono_ns();
	warn_coverage(r);
	fill_header(r, &hdr, argc, argv);

	if (getuid() == 0 && sudo_uid) { /* the capture belongs to whoever ran sudo */
		uid = (uid_t)strtoul(sudo_uid, NULL, 10);
		gid = sudo_gid ? (gid_t)strtoul(sudo_gid, NULL, 10) : (gid_t)-1;
	}
	if (capture__create(&r->w, r->out_path, &hdr, uid, gid, err, sizeof(err))) {
		ft_err("record: %s", err);
		goto out;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &orig);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0 || (r->cmd && spawn_command(r, &go_fd, &orig))) {
		ft_err("record: %s", strerror(errno));
		r->stop_reason = FT_STOP_ERROR;
		finish(r);
		goto out;
	}
	/* the command's phases are followed from its first instruction */
	if (r->pp && r->cmd && phaseprobe__add_pid(r->pp, r->child))
		ft_warn("record: cannot follow the command's process; its phases are not traced");
	if (write_preamble(r) == 0 && start_sampler(r) == 0) {
		if (!r->quiet && !r->json)
			fprintf(stderr, "fabtrace: recording to %s (%d interfaces%s%s); Ctrl-C to stop\n",
				r->out_path, r->n_ifs, r->duration_ns ? ", for " : "",
				r->duration_ns ? fmt_ns(r->duration_ns, err, sizeof(err)) : "");
		phase_status(r);
		if (record_loop(r, sfd, go_fd))
			r->stop_reason = FT_STOP_ERROR;
		go_fd = -1;
	}
	if (finish(r) || r->write_failed) {
		if (r->write_error[0]) /* already names the file, the offset and what is kept */
			ft_err("record: %s", r->write_error);
		else
			ft_err("record: writing %s failed; the capture is valid up to its last complete block",
			       r->out_path);
		print_summary(r, mono_ns());
		goto out;
	}
	print_summary(r, mono_ns());
	ret = 0;
out:
	if (go_fd >= 0)
		close(go_fd); /* the command never starts */
	if (r->child > 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, NULL, 0);
	}
	if (sfd >= 0)
		close(sfd);
	free(r->filter);
	free(r->ifs);
	free(r->specs);
	if (r->smp)
		sampler__close(r->smp, NULL, NULL); /* on an early error: lifespan restored */
	phaseprobe__close(r->pp);
	netprobe__close(r->np);
	netns_set__free(&r->ns);
	free(r);
	return ret;
}
