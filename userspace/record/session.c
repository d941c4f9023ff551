// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A tracing session (userspace/record/session.h): the probes, the counter sampler
 * and one event loop, shared by `record` and `top`.
 *
 * One event loop (epoll) waits on the ring buffers, a 1 s timerfd, a
 * signalfd and the callers' own descriptors.  The tick writes what
 * userspace samples (lost counters, new interfaces, CE flows) and flushes
 * the capture block so a crash loses at most about a second.  A second
 * timer (150 ms) lets the phase probes pick up libraries the traced
 * processes dlopen(); a third drives the counter sampler.  On stop:
 * counters snapshot, detach, drain the rings, flush the bins still open in
 * the per-CPU maps, write calls still in flight as OPEN phases, write END.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"
#include "probes/privs.h"
#include "userspace/capture/capture.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "probes/base/util.h"

#define MAX_CPUS 1024
#define MAX_WATCH 64

struct known_if {
	uint32_t netns, ifindex;
	bool has_start;     /* a START stats record was written: check conservation */
	bool described;     /* IFACE record written (or given up) */
	bool traced;        /* selected by the filters (its NIC stats are sampled) */
	char name[16];
};

/* A caller's descriptor in the loop; the generation makes stale events harmless. */
struct watch {
	int fd;             /* -1: free */
	uint32_t gen;
	session_fd_fn fn;
	void *ctx;
};

/* epoll data of the session's own descriptors (watches use their index) */
enum { EV_TICK = MAX_WATCH, EV_PHASE, EV_CTR, EV_SIG, EV_NET, EV_PP, EV_DRAIN };

/* With batched wake-ups (--wakeup) the rings are drained at least this often. */
#define DRAIN_MS 20

struct session {
	const struct session_opts *o;
	session_sink_fn sink;
	void *sink_ctx;
	session_tick_fn tick_fn;
	void *tick_ctx;

	struct netns_set ns;
	uint32_t netns_filter;
	uint16_t clock_daemons;     /* enum ft_clock_daemon, found at the start */
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
	struct session_stats st;
	pid_t child;
	int sfd, go_fd;
	bool stop;
	bool write_failed;
	char write_error[CAPTURE_ERR_MAX];
	char hostname[64];

	int ep;
	struct watch watches[MAX_WATCH];
	sigset_t orig_mask;           /* COMMAND gets it back */
};

/* ---- options ---- */

int session_opts__init(struct session_opts *o, const char *cmd_name)
{
	memset(o, 0, sizeof(*o));
	o->cmd_name = cmd_name;
	o->bin_ns = 100000;
	o->sample_ns = 10000000;
	o->ringbuf_bytes = 4u << 20;
	sampler_opts__init(&o->so);
	o->specs = calloc(SESSION_MAX_PHASE_SPECS, sizeof(*o->specs));
	return o->specs ? 0 : -ENOMEM;
}

void session_opts__free(struct session_opts *o)
{
	free(o->specs);
	o->specs = NULL;
}

/* "-p 12,34": append to o->pids. */
static int parse_pids(struct session_opts *o, const char *arg)
{
	const char *s = arg;

	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT32_MAX || (*end && *end != ',') ||
		    (*end == ',' && !end[1])) {
			ft_err("%s: bad -p '%s'; use a PID or a comma-separated list, e.g. -p 1234,1235",
			       o->cmd_name, arg);
			return -1;
		}
		if (o->npids == SESSION_MAX_PIDS) {
			ft_err("%s: too many -p PIDs (max %d); trace the parent instead", o->cmd_name,
			       SESSION_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)v;
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

static int parse_counter_opt(struct session_opts *o, int c, const char *arg)
{
	const char *cmd = o->cmd_name;

	switch (c) {
	case SOPT_CTR_PERIOD:
		if (parse_duration(arg, 0, &o->so.period_ns) || o->so.period_ns < 100000 ||
		    o->so.period_ns > 60000000000ull) {
			ft_err("%s: bad --counter-period '%s'; use 100us..60s with a unit, e.g. 10ms",
			       cmd, arg);
			return -1;
		}
		return 1;
	case SOPT_RDMA_DEVS:
		o->so.devices = arg;
		return 1;
	case SOPT_RDMA_CTRS:
		o->so.rdma_filter = arg;
		return 1;
	case SOPT_LIFESPAN: {
		char *end;
		unsigned long ms;

		errno = 0;
		ms = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || ms < 1 || ms > 10000) {
			ft_err("%s: bad --rdma-lifespan '%s'; use milliseconds 1..10000, e.g. 1", cmd, arg);
			return -1;
		}
		o->so.lifespan_ms = (uint32_t)ms;
		return 1;
	}
	case SOPT_NIC_STATS:
		o->so.nic_filter = arg;
		return 1;
	case SOPT_NO_RDMA:
		o->so.no_rdma = true;
		return 1;
	case SOPT_NO_NIC:
		o->so.no_nic = true;
		return 1;
	case SOPT_BUDGET: {
		char *end;
		double pct;

		errno = 0;
		pct = strtod(arg, &end);
		if (errno || end == arg || (*end && strcmp(end, "%") != 0) || !(pct > 0 && pct <= 100)) {
			ft_err("%s: bad --sampler-budget '%s'; use a percentage of one core, e.g. 5",
			       cmd, arg);
			return -1;
		}
		o->so.budget = pct / 100.0;
		return 1;
	}
	case SOPT_SYSFS: {
		struct stat st;

		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			ft_err("%s: --sysfs-root '%s' is not a directory", cmd, arg);
			return -1;
		}
		o->so.sysfs_root = arg;
		return 1;
	}
	default:
		return 0;
	}
}

int session_opts__parse(struct session_opts *o, int c, const char *arg)
{
	const char *cmd = o->cmd_name;
	uint64_t v;

	switch (c) {
	case 'i':
		if (o->n_iface_args == SESSION_MAX_IFACE_ARGS) {
			ft_err("%s: too many -i (max %d); trace all with no -i", cmd, SESSION_MAX_IFACE_ARGS);
			return -1;
		}
		o->iface_args[o->n_iface_args++] = (char *)arg;
		return 1;
	case SOPT_NETNS:
		o->netns_arg = arg;
		return 1;
	case 'd':
		if (parse_duration(arg, 1000000000ull, &o->duration_ns)) {
			ft_err("%s: bad duration '%s'; use e.g. 10s, 500ms, 2m", cmd, arg);
			return -1;
		}
		return 1;
	case SOPT_BIN:
		if (parse_duration(arg, 0, &o->bin_ns) || o->bin_ns < 1000 || o->bin_ns > 1000000000ull) {
			ft_err("%s: bad bin width '%s'; use 1us..1s with a unit, e.g. --bin 20us", cmd, arg);
			return -1;
		}
		return 1;
	case SOPT_RTT:
		if (parse_duration(arg, 0, &o->sample_ns)) {
			ft_err("%s: bad --rtt-interval '%s'; use e.g. 10ms", cmd, arg);
			return -1;
		}
		return 1;
	case SOPT_RINGBUF:
		if (parse_size(arg, &v) || v < 4096ull * 4 || v > (1ull << 30) || (v & (v - 1))) {
			ft_err("%s: bad --ringbuf '%s'; use a power of two from 16k to 1G, e.g. 4M", cmd, arg);
			return -1;
		}
		o->ringbuf_bytes = v;
		return 1;
	case SOPT_WAKEUP:
		if (parse_size(arg, &v) || v > (1ull << 30)) {
			ft_err("%s: bad --wakeup '%s'; use a size below --ringbuf, e.g. 256k (0: every record)",
			       cmd, arg);
			return -1;
		}
		o->wake_bytes = v;
		o->wake_set = true;
		return 1;
	case 'v':
		o->verbose = true;
		return 1;
	case 'p':
		return parse_pids(o, arg) ? -1 : 1;
	case SOPT_PHASE: {
		char why[160];

		if (o->nspecs == SESSION_MAX_PHASE_SPECS) {
			ft_err("%s: too many --phase (max %d)", cmd, SESSION_MAX_PHASE_SPECS);
			return -1;
		}
		if (phase_spec__parse(arg, &o->specs[o->nspecs], why, sizeof(why))) {
			ft_err("%s: bad --phase '%s': %s", cmd, arg, why);
			return -1;
		}
		o->nspecs++;
		return 1;
	}
	case SOPT_NO_PHASES:
		o->no_phases = true;
		return 1;
	case SOPT_NO_PROBES:
		if (netprobe__parse_families(arg, &o->no_probes)) {
			ft_err("%s: bad --no-probes '%s'; a comma list of %s", cmd, arg,
			       netprobe__families_help());
			return -1;
		}
		return 1;
	case SOPT_COVERAGE:
		if (!strcmp(arg, "auto"))
			o->coverage = NP_COV_AUTO;
		else if (!strcmp(arg, "counters"))
			o->coverage = NP_COV_COUNTERS;
		else if (!strcmp(arg, "kernel"))
			o->coverage = NP_COV_KERNEL;
		else {
			ft_err("%s: bad --coverage '%s'; one of auto, counters, kernel", cmd, arg);
			return -1;
		}
		return 1;
	default:
		return parse_counter_opt(o, c, arg);
	}
}

size_t session_opts__wake_bytes(const struct session_opts *o)
{
	return o->wake_set ? o->wake_bytes : o->ringbuf_bytes / 8;
}

int session_opts__check(const struct session_opts *o)
{
	if (o->wake_set && o->wake_bytes >= o->ringbuf_bytes) {
		ft_err("%s: --wakeup %zu is not below --ringbuf %zu; use a smaller --wakeup (0: every record)",
		       o->cmd_name, o->wake_bytes, o->ringbuf_bytes);
		return -1;
	}
	if (o->no_phases && (o->npids || o->nspecs)) {
		ft_err("%s: %s needs the phase probes; drop --no-phases", o->cmd_name,
		       o->npids ? "-p" : "--phase");
		return -1;
	}
	return 0;
}

/* ---- interfaces ---- */

static struct known_if *find_if(struct session *s, uint32_t netns, uint32_t ifindex)
{
	for (int i = 0; i < s->n_ifs; i++)
		if (s->ifs[i].netns == netns && s->ifs[i].ifindex == ifindex)
			return &s->ifs[i];
	return NULL;
}

static struct known_if *add_if(struct session *s, uint32_t netns, uint32_t ifindex)
{
	struct known_if *k = find_if(s, netns, ifindex);

	if (k)
		return k;
	if (s->n_ifs == s->cap_ifs) {
		int cap = s->cap_ifs ? s->cap_ifs * 2 : 32;
		struct known_if *p = realloc(s->ifs, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->ifs = p;
		s->cap_ifs = cap;
	}
	k = &s->ifs[s->n_ifs++];
	*k = (struct known_if){ .netns = netns, .ifindex = ifindex };
	s->st.n_ifs = s->n_ifs;
	return k;
}

static bool if_traced(const struct session *s, uint32_t netns, uint32_t ifindex)
{
	if (s->netns_filter && netns != s->netns_filter)
		return false;
	if (!s->n_filter)
		return true;
	for (int i = 0; i < s->n_filter; i++)
		if (s->filter[i][0] == netns && s->filter[i][1] == ifindex)
			return true;
	return false;
}

/* Could any traced interface live in this namespace? */
static bool netns_traced(const struct session *s, uint32_t netns)
{
	if (s->netns_filter && netns != s->netns_filter)
		return false;
	for (int i = 0; i < s->n_filter; i++)
		if (s->filter[i][0] == netns)
			return true;
	return !s->n_filter;
}

/* Every record: the capture first, then the sink. */
static int append(struct session *s, const struct ft_rec_hdr *h)
{
	if (s->write_failed)
		return -EIO;
	if (s->w && capture__append(s->w, h)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	if (h->type < 64)
		s->st.counts[h->type]++;
	if (s->sink && s->sink(s->sink_ctx, h)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	return 0;
}

static int append_cb(void *ctx, const struct ft_rec_hdr *h)
{
	return append(ctx, h);
}

/* Kernel records name interfaces by (netns, ifindex); make sure each gets described. */
static int on_record(void *ctx, const struct ft_rec_hdr *h)
{
	struct session *s = ctx;
	uint32_t netns = 0, ifindex = 0;

	switch (h->type) {
	case FT_REC_IFACE_BIN: {
		const struct ft_iface_bin *b = (const void *)h;

		netns = b->netns;
		ifindex = b->ifindex;
		s->st.bins++;
		break;
	}
	case FT_REC_QDISC_BIN: {
		const struct ft_qdisc_bin *b = (const void *)h;

		netns = b->netns;
		ifindex = b->ifindex;
		s->st.bins++;
		break;
	}
	case FT_REC_DROP: {
		const struct ft_drop *d = (const void *)h;

		netns = d->netns;
		ifindex = d->ifindex;
		s->st.events++;
		break;
	}
	case FT_REC_PHASE:
	case FT_REC_REQ_DONE:
	case FT_REC_COMM_INFO:
	case FT_REC_PROC:
	case FT_REC_SOCK_OWNER:
	case FT_REC_PHASE_SLOT:
		s->st.phases++;
		break;
	default:
		s->st.events++;
		break;
	}
	if (ifindex && !find_if(s, netns, ifindex))
		add_if(s, netns, ifindex); /* described at the next tick */
	return append(s, h);
}

struct describe_ctx {
	struct session *s;
	int phase;          /* FT_STATS_START / FT_STATS_STOP, -1 = none */
};

static int describe_link(const struct link_info *l, void *arg)
{
	struct describe_ctx *d = arg;
	struct session *s = d->s;
	struct known_if *k;
	struct ft_iface_info info = l->info;
	struct ft_iface_stats st = l->stats;

	if (!if_traced(s, info.netns, info.ifindex))
		return 0;
	k = add_if(s, info.netns, info.ifindex);
	if (!k)
		return -ENOMEM;
	if (d->phase == FT_STATS_STOP) {
		if (!k->has_start)
			return 0;
		st.phase = FT_STATS_STOP;
		return append(s, &st.hdr);
	}
	if (!k->described) {
		info.flags |= FT_IFACE_TRACED;
		k->described = true;
		k->traced = true;
		str_copy(k->name, info.name, sizeof(k->name));
		if (append(s, &info.hdr))
			return -EIO;
	}
	if (d->phase == FT_STATS_START) {
		st.phase = FT_STATS_START;
		k->has_start = true;
		return append(s, &st.hdr);
	}
	return 0;
}

/* Describe every traced interface of every namespace, with counters. */
static int describe_all(struct session *s, int phase)
{
	struct describe_ctx d = { s, phase };

	for (int i = 0; i < s->ns.n; i++) {
		struct netns *n = &s->ns.ns[i];
		int ret;

		if (!netns_traced(s, n->inum))
			continue;
		ret = netns__links(n, describe_link, &d);
		if (ret == -EIO || ret == -ENOMEM)
			return ret;
		/* a namespace that vanished or cannot be entered is skipped */
	}
	return 0;
}

/* Interfaces that appeared in records but were not described yet. */
static void describe_new(struct session *s)
{
	bool rescanned = false;
	char err[160];

	for (int i = 0; i < s->n_ifs; i++) {
		struct known_if *k = &s->ifs[i];
		struct netns *n;
		struct link_info l;

		if (k->described)
			continue;
		n = netns_set__find_inum(&s->ns, k->netns);
		if (!n && !rescanned) {
			netns_set__scan(&s->ns, err, sizeof(err));
			rescanned = true;
			n = netns_set__find_inum(&s->ns, k->netns);
		}
		k->described = true; /* try once */
		if (n && netns__link(n, k->ifindex, &l) == 0) {
			l.info.flags |= if_traced(s, k->netns, k->ifindex) ? FT_IFACE_TRACED : 0;
			append(s, &l.info.hdr);
		}
	}
}

/* ---- periodic work ---- */

static void write_lost(struct session *s, bool force)
{
	static uint64_t cur[MAX_CPUS];
	int ncpus = s->ncpus < MAX_CPUS ? s->ncpus : MAX_CPUS;

	for (int src = 0; src < FT_SRC_MAX; src++) {
		if (src == FT_SRC_USER || (src == FT_SRC_PHASE && !s->pp))
			continue;
		if (src == FT_SRC_PHASE ? phaseprobe__lost(s->pp, cur, ncpus)
					: netprobe__lost(s->np, src, cur, ncpus))
			continue;
		for (int c = 0; c < ncpus; c++) {
			struct ft_lost l = { .hdr = { FT_REC_LOST, sizeof(l), 0 } };

			/* at the end every CPU's counter is written, zeros included,
			 * so the capture proves "nothing lost" rather than implying it */
			if (cur[c] == s->lost_written[src][c] && !force)
				continue;
			l.ts_ns = mono_ns();
			l.lost = cur[c];
			l.source = src;
			l.cpu = c;
			if (append(s, &l.hdr) == 0)
				s->lost_written[src][c] = cur[c];
		}
	}
}

uint64_t session__lost_total(const struct session *s)
{
	uint64_t t = 0;

	for (int src = 0; src < FT_SRC_MAX; src++)
		for (int c = 0; c < s->ncpus && c < MAX_CPUS; c++)
			t += s->lost_written[src][c];
	return t;
}

/* A REALTIME/TAI <-> MONOTONIC pair with the sync state (docs/multihost.md). */
static int write_clock(struct session *s, uint8_t kind)
{
	struct ft_clock c;

	hostclock__sample(&c, kind, s->clock_daemons);
	return append(s, &c.hdr);
}

static void tick(struct session *s, uint64_t ticks)
{
	describe_new(s);
	write_clock(s, FT_CLOCK_PERIODIC); /* a clock being slewed drifts: one pair a second */
	write_lost(s, false);
	if (ticks % 5 == 0)
		netprobe__ce_flows(s->np, append_cb, s);
	if (s->w && !s->write_failed && capture__flush(s->w)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
	}
	if (s->tick_fn)
		s->tick_fn(s->tick_ctx, mono_ns(), ticks);
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

static int resolve_filters(struct session *s)
{
	const struct session_opts *o = s->o;
	const char *cmd = o->cmd_name;
	char err[256];

	if (netns_set__scan(&s->ns, err, sizeof(err))) {
		ft_err("%s: %s", cmd, err);
		return -1;
	}
	if (o->netns_arg) {
		struct netns *n = netns_set__find_name(&s->ns, o->netns_arg);

		if (!n) {
			ft_err("%s: network namespace '%s' not found; list them with 'ip netns list'",
			       cmd, o->netns_arg);
			return -1;
		}
		s->netns_filter = n->inum;
	}
	if (!o->n_iface_args)
		return 0;
	s->filter = calloc(o->n_iface_args, sizeof(*s->filter));
	if (!s->filter)
		return -1;
	for (int i = 0; i < o->n_iface_args; i++) {
		char nsname[64], ifname[32];
		struct netns *n;
		struct link_info l;

		if (parse_iface_spec(o->iface_args[i], nsname, sizeof(nsname), ifname, sizeof(ifname))) {
			ft_err("%s: bad interface '%s'; use IFACE or NETNS/IFACE, e.g. eth0 or lab1h2/eth0",
			       cmd, o->iface_args[i]);
			return -1;
		}
		n = nsname[0] ? netns_set__find_name(&s->ns, nsname) : netns_set__find_inum(&s->ns, s->ns.self_inum);
		if (!n) {
			ft_err("%s: network namespace '%s' not found; list them with 'ip netns list'",
			       cmd, nsname);
			return -1;
		}
		if (netns__open(n, err, sizeof(err))) {
			ft_err("%s: %s", cmd, err);
			return -1;
		}
		str_copy(l.info.name, ifname, sizeof(l.info.name));
		l.info.ifindex = 0;
		netns__links(n, match_name, &l);
		if (!l.info.ifindex) {
			if (nsname[0])
				ft_err("%s: interface '%s' not found in network namespace '%s'; "
				       "list them with 'ip -n %s link'", cmd, ifname, nsname, nsname);
			else
				ft_err("%s: interface '%s' not found; list them with 'ip link' "
				       "(name another namespace's as NETNS/IFACE)", cmd, ifname);
			return -1;
		}
		if (s->netns_filter && n->inum != s->netns_filter) {
			ft_err("%s: interface '%s' is not in network namespace '%s'; drop --netns or -i",
			       cmd, o->iface_args[i], o->netns_arg);
			return -1;
		}
		s->filter[s->n_filter][0] = n->inum;
		s->filter[s->n_filter][1] = l.info.ifindex;
		s->n_filter++;
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

static void fill_header(struct session *s, struct ft_file_header *h, int argc, char **argv)
{
	struct utsname u;
	size_t off = 0;

	memset(h, 0, sizeof(*h));
	clock_offsets(h);
	h->start_mono_ns = s->st.start_ns;
	h->bin_ns = s->o->bin_ns;
	h->probes = netprobe__mask(s->np);
	h->ncpus = (uint32_t)s->ncpus;
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
static void warn_coverage(const struct session *s)
{
	const struct probe_status *st = netprobe__status(s->np);
	uint64_t mask = netprobe__mask(s->np);

	if (s->o->quiet)
		return;
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if ((mask & (1ull << i)) && st[i].cov_why[0])
			ft_warn("%s: %s: cannot count tracepoint hits (%s); runs the kernel "
				"skips will not be detected", s->o->cmd_name, st[i].name, st[i].cov_why);
}

static int write_preamble(struct session *s)
{
	const struct probe_status *st = netprobe__status(s->np);
	uint64_t mask = netprobe__mask(s->np);
	struct ft_host_id hid;

	hostclock__host_id(&hid, s->o->netns_arg, s->netns_filter);
	s->clock_daemons = hostclock__daemons();
	if (append(s, &hid.hdr) || write_clock(s, FT_CLOCK_START))
		return -EIO;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		struct ft_probe_info p = { .hdr = { FT_REC_PROBE, sizeof(p), 0 } };

		p.id = st[i].id;
		p.attached = !!(mask & (1ull << i));
		str_copy(p.name, st[i].name, sizeof(p.name));
		snprintf(p.hook, sizeof(p.hook), "%s/%s", st[i].variant ? st[i].variant : "-",
			 st[i].tracepoint);
		str_copy(p.why, st[i].why, sizeof(p.why));
		if (append(s, &p.hdr))
			return -EIO;
	}
	if (btf_drop_reasons(append_cb, s) == -EIO)
		return -EIO;
	/* phase slots and the processes followed so far, kept since the probes attached */
	if (s->pp && phaseprobe__start(s->pp))
		return -EIO;
	return describe_all(s, FT_STATS_START);
}

/*
 * fabtrace's NCCL profiler plugin (probes/nccl_profiler): next to this binary
 * in the build tree, else in ../lib/fabtrace/ (make install).  "" if neither.
 */
static void nccl_plugin_path(char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const char *const rel[] = { "libnccl-profiler-fabtrace.so",
					   "../lib/fabtrace/libnccl-profiler-fabtrace.so" };

	out[0] = 0;
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char cand[PATH_MAX + 64];

		snprintf(cand, sizeof(cand), "%s/%s", exe, rel[i]);
		if (access(cand, R_OK) == 0 && realpath(cand, exe)) {
			snprintf(out, len, "%s", exe);
			return;
		}
	}
}

/* Fork COMMAND now, held on a pipe until tracing runs. */
static int spawn_command(struct session *s)
{
	char plugin[PATH_MAX];
	int pfd[2];

	/* NCCL in the command loads our profiler plugin, unless the user named one */
	nccl_plugin_path(plugin, sizeof(plugin));

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	s->child = fork();
	if (s->child < 0)
		return -errno;
	if (s->child == 0) {
		char c;

		sigprocmask(SIG_SETMASK, &s->orig_mask, NULL);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(126); /* tracing failed before it started */
		if (plugin[0])
			setenv("NCCL_PROFILER_PLUGIN", plugin, 0);
		execvp(s->o->cmd[0], s->o->cmd);
		fprintf(stderr, "fabtrace: %s: cannot run '%s': %s; check the command and PATH\n",
			s->o->cmd_name, s->o->cmd[0], strerror(errno));
		_exit(127);
	}
	close(pfd[0]);
	s->go_fd = pfd[1];
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
	struct session *s = ctx;
	char err[160];
	int found = 0;

	for (int pass = 0; pass < 2 && !found; pass++) {
		for (int i = 0; i < s->ns.n; i++) {
			struct netns *n = &s->ns.ns[i];
			struct link_info l = {0};

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
	return add_if(s, *netns, *ifindex) ? 0 : -ENOMEM;
}

static int collect_link(const struct link_info *l, void *arg)
{
	struct session *s = arg;
	struct known_if *k;

	if (!if_traced(s, l->info.netns, l->info.ifindex))
		return 0;
	k = add_if(s, l->info.netns, l->info.ifindex);
	if (!k)
		return -ENOMEM;
	k->traced = true;
	str_copy(k->name, l->info.name, sizeof(k->name));
	return 0;
}

/* The traced interfaces, before anything is written: their NIC stats are sampled. */
static void collect_traced(struct session *s)
{
	char err[160];

	for (int i = 0; i < s->ns.n; i++) {
		struct netns *n = &s->ns.ns[i];

		if (netns_traced(s, n->inum) && !netns__open(n, err, sizeof(err)))
			netns__links(n, collect_link, s);
	}
}

static int open_sampler(struct session *s)
{
	struct sampler_opts so = s->o->so;
	struct sampler_netdev *nd;
	char err[256];
	int n = 0, ret;

	if (!so.no_nic)
		collect_traced(s);
	nd = calloc(s->n_ifs ? s->n_ifs : 1, sizeof(*nd));
	if (!nd)
		return -1;
	for (int i = 0; i < s->n_ifs && !so.no_nic; i++) {
		const struct known_if *k = &s->ifs[i];
		struct netns *ns = netns_set__find_inum(&s->ns, k->netns);

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
	so.netdevs = nd;
	so.nnetdevs = (size_t)n;
	so.resolve_netdev = resolve_netdev;
	so.resolve_ctx = s;
	ret = sampler__open(&so, &s->smp, err, sizeof(err));
	free(nd);
	if (ret) {
		ft_err("%s: %s", s->o->cmd_name, err);
		s->smp = NULL;
		return -1;
	}
	return 0;
}

/* Describe the ports, groups and counters, and the RoCE netdevs as interfaces. */
static int start_sampler(struct session *s)
{
	if (!s->smp)
		return 0;
	if (sampler__describe(s->smp, append_cb, s))
		return -EIO;
	describe_new(s); /* the RoCE netdevs */
	if (!s->o->quiet && !s->o->json) {
		fprintf(stderr, "fabtrace: %s\n", sampler__rdma_status(s->smp));
		if (sampler__ngroups(s->smp) > sampler__nports(s->smp) * 2 || !sampler__nports(s->smp))
			fprintf(stderr, "fabtrace: NIC stats: %zu groups sampled every %.3g ms\n",
				sampler__ngroups(s->smp) - sampler__nports(s->smp) * 2,
				sampler__period_ns(s->smp) / 1e6);
	}
	return sampler__sample(s->smp, mono_ns(), append_cb, s) ? -EIO : 0;
}

static void arm_sampler(const struct session *s, int fd)
{
	uint64_t p = sampler__period_ns(s->smp);
	struct itimerspec its = {
		.it_interval = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
		.it_value = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
	};

	timerfd_settime(fd, 0, &its, NULL);
}

static void sample_counters(struct session *s, int fd)
{
	uint64_t before = sampler__period_ns(s->smp);

	if (sampler__sample(s->smp, mono_ns(), append_cb, s))
		return;
	if (sampler__period_ns(s->smp) != before) {
		arm_sampler(s, fd);
		if (!s->o->quiet && !s->backoff_warned)
			ft_warn("%s: counter sampling took more than its CPU budget; period raised "
				"to %.3g ms (see --sampler-budget, --rdma-counters)", s->o->cmd_name,
				sampler__period_ns(s->smp) / 1e6);
		s->backoff_warned = true;
	}
}

/* Phase probes: a user error (bad --phase, -p) stops; a kernel that cannot is a warning. */
static int open_phases(struct session *s, const struct netprobe_opts *po)
{
	const struct session_opts *o = s->o;
	struct phaseprobe_opts ppo = {
		.pids = o->pids, .npids = o->npids, .cmd = o->cmd,
		.specs = o->specs, .nspecs = o->nspecs,
		.netns = po->netns, .ifaces = po->ifaces, .n_ifaces = po->n_ifaces,
		.ringbuf_bytes = o->ringbuf_bytes, .wake_bytes = session_opts__wake_bytes(o),
		.verbose = o->verbose,
	};
	char err[512];
	int ret = phaseprobe__open(&s->pp, &ppo, on_record, s, err, sizeof(err));

	if (!ret)
		return 0;
	s->pp = NULL;
	if (ret == -EINVAL || o->npids || o->nspecs) {
		ft_err("%s: %s", o->cmd_name, err);
		return -1;
	}
	if (!o->quiet)
		ft_warn("%s: phase probes unavailable (%s); phases will be inferred from traffic",
			o->cmd_name, err);
	return 0;
}

void session__phase_status(const struct session *s)
{
	struct phaseprobe_stats st;

	if (!s->pp || s->o->quiet || s->o->json)
		return;
	phaseprobe__stats(s->pp, &st);
	if (!st.slots) {
		fprintf(stderr, "fabtrace: no MPI, NCCL, Gloo or marker library found%s; phases will "
			"be inferred from traffic\n", st.systemwide ? "" : " yet (libraries loaded later are "
			"still traced)");
	} else {
		char buf[512];

		fprintf(stderr, "fabtrace: phases: %u functions in %s%s\n", st.slots,
			phaseprobe__describe(s->pp, buf, sizeof(buf)),
			st.systemwide ? ", every process" : "");
	}
}

int session__open(struct session **out, const struct session_opts *o,
		  session_sink_fn sink, void *ctx)
{
	struct session *s = calloc(1, sizeof(*s));
	struct netprobe_opts po = {0};
	char err[256], missing[96];
	struct stat st;

	*out = s;
	if (!s) {
		ft_err("%s: out of memory", o->cmd_name);
		return -1;
	}
	s->o = o;
	s->sink = sink;
	s->sink_ctx = ctx;
	s->child = -1;
	s->sfd = s->go_fd = s->ep = -1;
	for (int i = 0; i < MAX_WATCH; i++)
		s->watches[i].fd = -1;
	if (!privs_ok(missing, sizeof(missing))) {
		ft_err("%s: missing privileges: %s; run with sudo (or grant them with setcap)",
		       o->cmd_name, missing);
		return -1;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st)) {
		ft_err("%s: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
		       "fabtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y", o->cmd_name);
		return -1;
	}
	if (resolve_filters(s))
		return -1;
	po.bin_ns = o->bin_ns;
	po.sample_ns = o->sample_ns;
	po.netns = s->netns_filter;
	po.ifaces = (const uint32_t (*)[2])s->filter;
	po.n_ifaces = s->n_filter;
	po.ringbuf_bytes = o->ringbuf_bytes;
	po.wake_bytes = session_opts__wake_bytes(o);
	po.verbose = o->verbose;
	po.skip = o->no_probes;
	po.coverage = o->coverage;
	po.batch_bins = o->live ? 1 : 0; /* 0: full batches */
	if (netprobe__open(&s->np, &po, on_record, s, err, sizeof(err))) {
		ft_err("%s: %s", o->cmd_name, err);
		return -1;
	}
	if (!o->no_phases && open_phases(s, &po))
		return -1;
	if (open_sampler(s))
		return -1;
	s->ncpus = libbpf_num_possible_cpus();
	s->st.start_ns = mono_ns();
	warn_coverage(s);
	return 0;
}

int session__start(struct session *s, int argc, char **argv)
{
	const struct session_opts *o = s->o;
	struct ft_file_header hdr;
	sigset_t mask;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");

	fill_header(s, &hdr, argc, argv);
	str_copy(s->hostname, hdr.hostname, sizeof(s->hostname));
	/* block the stop signals before the file exists: from here on a Ctrl-C
	 * stops the recording cleanly (a complete capture), it never kills us
	 * between the header and the END record */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &s->orig_mask);
	if (o->out_path) {
		char err[CAPTURE_ERR_MAX];

		if (getuid() == 0 && sudo_uid) { /* the capture belongs to whoever ran sudo */
			uid = (uid_t)strtoul(sudo_uid, NULL, 10);
			gid = sudo_gid ? (gid_t)strtoul(sudo_gid, NULL, 10) : (gid_t)-1;
		}
		if (capture__create(&s->w, o->out_path, &hdr, uid, gid, err, sizeof(err))) {
			ft_err("%s: %s", o->cmd_name, err);
			s->w = NULL;
			return -1;
		}
	}
	s->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->sfd < 0 || s->ep < 0 || (o->cmd && spawn_command(s))) {
		ft_err("%s: %s", o->cmd_name, strerror(errno));
		s->st.stop_reason = FT_STOP_ERROR;
		return -1;
	}
	/* the command's phases are followed from its first instruction */
	if (s->pp && o->cmd && phaseprobe__add_pid(s->pp, s->child))
		ft_warn("%s: cannot follow the command's process; its phases are not traced", o->cmd_name);
	if (write_preamble(s) || start_sampler(s)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	return 0;
}

/* ---- the loop ---- */

void session__on_tick(struct session *s, session_tick_fn fn, void *ctx)
{
	s->tick_fn = fn;
	s->tick_ctx = ctx;
}

static uint64_t ev_data(unsigned idx, uint32_t gen)
{
	return (uint64_t)gen << 32 | idx;
}

int session__watch(struct session *s, int fd, uint32_t events, session_fd_fn fn, void *ctx)
{
	struct epoll_event ev = { .events = events };

	if (s->ep < 0)
		return -EBADF;
	for (int i = 0; i < MAX_WATCH; i++) {
		struct watch *w = &s->watches[i];

		if (w->fd >= 0)
			continue;
		w->gen++;
		ev.data.u64 = ev_data((unsigned)i, w->gen);
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev))
			return -errno;
		w->fd = fd;
		w->fn = fn;
		w->ctx = ctx;
		return i;
	}
	return -ENOSPC;
}

int session__watch_mod(struct session *s, int id, uint32_t events)
{
	struct epoll_event ev = { .events = events };
	struct watch *w;

	if (id < 0 || id >= MAX_WATCH || s->watches[id].fd < 0)
		return -EINVAL;
	w = &s->watches[id];
	ev.data.u64 = ev_data((unsigned)id, w->gen);
	return epoll_ctl(s->ep, EPOLL_CTL_MOD, w->fd, &ev) ? -errno : 0;
}

void session__unwatch(struct session *s, int id)
{
	struct watch *w;

	if (id < 0 || id >= MAX_WATCH || s->watches[id].fd < 0)
		return;
	w = &s->watches[id];
	epoll_ctl(s->ep, EPOLL_CTL_DEL, w->fd, NULL);
	w->fd = -1;
	w->gen++; /* events already fetched for it are now stale */
}

void session__drain(struct session *s)
{
	netprobe__poll(s->np, 0);
	if (s->pp)
		phaseprobe__poll(s->pp, 0);
}

void session__stop(struct session *s, enum ft_stop_reason why)
{
	if (!s->stop)
		s->st.stop_reason = why;
	s->stop = true;
}

static int add_own(struct session *s, int fd, unsigned id)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = id };

	return epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* A signal arrived: stop on INT/TERM/HUP, or when COMMAND exited. */
static void on_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->child > 0 && waitpid(s->child, &s->st.child_status, WNOHANG) == s->child) {
				s->child = 0;
				session__stop(s, FT_STOP_COMMAND);
			}
		} else {
			session__stop(s, FT_STOP_SIGNAL);
		}
	}
}

int session__run(struct session *s)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int pfd = s->pp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	int cfd = s->smp ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	bool batched = session_opts__wake_bytes(s->o) > 0;
	int dfd = batched ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
	struct itimerspec dits = {
		.it_interval = { 0, DRAIN_MS * 1000000L },
		.it_value = { 0, DRAIN_MS * 1000000L },
	};
	struct itimerspec pits = {
		.it_interval = { 0, PHASEPROBE_TICK_MS * 1000000L },
		.it_value = { 0, PHASEPROBE_TICK_MS * 1000000L },
	};
	uint64_t ticks = 0, deadline = s->o->duration_ns ? s->st.start_ns + s->o->duration_ns : 0;
	int ret = 0;

	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) ||
	    (s->pp && (pfd < 0 || timerfd_settime(pfd, 0, &pits, NULL))) || (s->smp && cfd < 0) ||
	    add_own(s, tfd, EV_TICK) || (s->pp && add_own(s, pfd, EV_PHASE)) ||
	    (s->smp && add_own(s, cfd, EV_CTR)) || add_own(s, s->sfd, EV_SIG) ||
	    (batched && (dfd < 0 || timerfd_settime(dfd, 0, &dits, NULL) || add_own(s, dfd, EV_DRAIN))) ||
	    add_own(s, netprobe__epoll_fd(s->np), EV_NET) ||
	    (s->pp && add_own(s, phaseprobe__epoll_fd(s->pp), EV_PP))) {
		ret = errno ? -errno : -EINVAL;
		goto out;
	}
	if (s->smp)
		arm_sampler(s, cfd);
	if (s->go_fd >= 0) { /* tracing runs: let the command go */
		if (write(s->go_fd, "g", 1) != 1)
			ret = -errno;
		close(s->go_fd);
		s->go_fd = -1;
	}

	while (!ret && !s->write_failed && !s->stop) {
		struct epoll_event evs[16];
		int timeout = -1, n;
		uint64_t now = mono_ns();

		if (deadline) {
			if (now >= deadline) {
				session__stop(s, FT_STOP_DURATION);
				break;
			}
			timeout = (int)((deadline - now + 999999) / 1000000);
		}
		n = epoll_wait(s->ep, evs, 16, timeout);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (int i = 0; i < n && !s->stop; i++) {
			uint64_t d = evs[i].data.u64, exp;
			unsigned id = (unsigned)(d & 0xffffffffu);

			switch (id) {
			case EV_TICK:
				if (read(tfd, &exp, sizeof(exp)) > 0)
					tick(s, ++ticks);
				break;
			case EV_PHASE:
				if (read(pfd, &exp, sizeof(exp)) > 0)
					phaseprobe__tick(s->pp);
				break;
			case EV_CTR:
				if (read(cfd, &exp, sizeof(exp)) > 0)
					sample_counters(s, cfd);
				break;
			case EV_SIG:
				on_signal(s);
				break;
			case EV_DRAIN: /* drained below; the read clears the expiry */
				(void)!read(dfd, &exp, sizeof(exp));
				break;
			case EV_NET:
			case EV_PP:
				s->st.ring_wakeups++;
				break; /* drained below */
			default:
				if (id < MAX_WATCH && s->watches[id].fd >= 0 &&
				    s->watches[id].gen == (uint32_t)(d >> 32))
					s->watches[id].fn(s->watches[id].ctx, s->watches[id].fd, evs[i].events);
				break;
			}
		}
		/* drain the rings every round: they are the hot path */
		if (netprobe__poll(s->np, 0) < 0)
			break;
		if (s->pp && phaseprobe__poll(s->pp, 0) < 0)
			break;
	}
out:
	if (tfd >= 0)
		close(tfd);
	if (pfd >= 0)
		close(pfd);
	if (cfd >= 0)
		close(cfd);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int session__finish(struct session *s)
{
	struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };
	struct timespec pause = { 0, 20L * 1000 * 1000 };
	uint64_t stop_ns = mono_ns();
	int ret = 0;

	if (s->pp)
		phaseprobe__disarm(s->pp); /* calls still running end here, as OPEN phases */
	if (!s->write_failed)
		describe_all(s, FT_STATS_STOP);
	if (s->smp) { /* last values at the stop, then lifespan restored */
		if (!s->write_failed)
			sampler__sample(s->smp, mono_ns(), append_cb, s);
		sampler__close(s->smp, s->write_failed ? NULL : append_cb, s);
		s->smp = NULL;
	}
	netprobe__detach(s->np);
	if (s->pp)
		phaseprobe__detach(s->pp);
	nanosleep(&pause, NULL); /* let programs already running on other CPUs finish */
	while (netprobe__poll(s->np, 0) > 0)
		;
	if (s->pp) {
		while (phaseprobe__poll(s->pp, 0) > 0)
			;
		/* calls still running: OPEN phases that end at the stop */
		phaseprobe__flush_open(s->pp, stop_ns);
	}
	netprobe__flush_bins(s->np);
	netprobe__ce_flows(s->np, append_cb, s);
	netprobe__coverage(s->np, append_cb, s);
	describe_new(s);
	write_lost(s, true);
	write_clock(s, FT_CLOCK_STOP);
	end.ts_ns = mono_ns();
	end.records = s->w ? capture__records(s->w) : 0;
	end.stop_reason = (uint32_t)s->st.stop_reason;
	append(s, &end.hdr);
	if (!s->w)
		return s->write_failed ? -1 : 0;
	capture__flush(s->w);
	s->st.bytes_written = capture__bytes(s->w);
	s->st.records_written = capture__records(s->w);
	if (capture__last_error(s->w)[0])
		str_copy(s->write_error, capture__last_error(s->w), sizeof(s->write_error));
	ret = capture__close(s->w);
	/* capture__close frees the writer; keep what the summary needs */
	s->w = NULL;
	return ret || s->write_failed ? -1 : 0;
}

void session__close(struct session *s)
{
	if (!s)
		return;
	if (s->w) { /* started but never finished: keep what was written */
		capture__close(s->w);
		s->w = NULL;
	}
	if (s->go_fd >= 0)
		close(s->go_fd); /* the command never starts */
	if (s->child > 0) {
		kill(s->child, SIGTERM);
		waitpid(s->child, NULL, 0);
	}
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->ep >= 0)
		close(s->ep);
	/* the signals stay blocked: one that is pending must not kill us on the way out */
	free(s->filter);
	free(s->ifs);
	if (s->smp)
		sampler__close(s->smp, NULL, NULL); /* on an early error: lifespan restored */
	phaseprobe__close(s->pp);
	netprobe__close(s->np);
	netns_set__free(&s->ns);
	free(s);
}

/* ---- accessors ---- */

const struct session_stats *session__stats(const struct session *s)
{
	return &s->st;
}

uint64_t session__capture_bytes(const struct session *s)
{
	return s->w ? capture__bytes(s->w) : s->st.bytes_written;
}

bool session__write_failed(const struct session *s)
{
	return s->write_failed;
}

const char *session__write_error(const struct session *s)
{
	return s->write_error;
}

bool session__has_phases(const struct session *s)
{
	return s->pp != NULL;
}

uint64_t session__bin_ns(const struct session *s)
{
	return s->o->bin_ns;
}

int session__ncpus(const struct session *s)
{
	return s->ncpus;
}

int session__skipped(struct session *s, uint64_t skipped[FT_PROBE_MAX], bool known[FT_PROBE_MAX])
{
	return netprobe__skipped_now(s->np, skipped, known);
}

const char *session__hostname(const struct session *s)
{
	return s->hostname;
}
