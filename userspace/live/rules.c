// SPDX-License-Identifier: GPL-2.0-or-later
/* The evaluator of the flight recorder's rules (rules.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/util.h"
#include "probes/catalog.h"
#include "rdma/counters.h"
#include "userspace/capture/records.h"
#include "userspace/correlate/correlate.h"
#include "userspace/live/live.h"
#include "userspace/live/rules.h"

#define RULES_MAX_IFACES 1024   /* interfaces named (for `on`) */
#define RULES_MAX_REASONS 1024  /* drop reasons whose kind is known */
#define RULES_MAX_CPUS 1024     /* lost counters followed per source */
#define RULES_MAX_GROUPS 64     /* counter groups followed (link.pause, link.cnp) */
#define RULES_MAX_COUNTERS 256  /* counters of a group followed */
#define NO_NETDEV 0x80000000u   /* a group without a netdev: its place is (0, this | group) */
#define NCCL_ABORT_SYMBOL "ncclCommAbort"
#define NCCL_IN_PROGRESS 7      /* ncclInProgress: a non-blocking communicator's "not yet" */

enum { SLOT_OTHER = 0, SLOT_NCCL = 1, SLOT_NCCL_ABORT = 2, SLOT_GLOO_TIMEOUT = 3, SLOT_GLOO_ERROR = 4 };
enum { REASON_UNKNOWN = 0, REASON_CONGESTION = 1, REASON_OTHER = 2 };

/*
 * coll.slow with `usual DUR`: the durations of a group's calls that ended in
 * the last DUR, a histogram per tenth of it (as a rate's window), in bins of
 * an eighth of an octave from 1 us to 36 min (below and above: one bin
 * each), so that the median is known to within 1/16 in a bounded 10 KB
 * however many calls the window holds.
 */
#define USUAL_OCT_MIN 10        /* 2^10 ns */
#define USUAL_OCT_MAX 40        /* 2^41 ns: 36 min */
#define USUAL_BINS (2 + (USUAL_OCT_MAX - USUAL_OCT_MIN + 1) * 8)

struct usual {
	uint64_t tenth[RULES_BUCKETS];    /* the tenth of DUR (since 0) each row holds */
	uint32_t n[RULES_BUCKETS];
	uint32_t bins[RULES_BUCKETS][USUAL_BINS];
};

/* One place a rule is followed at: an interface, a collective group, or the host (key 0). */
struct place {
	uint64_t key;
	uint64_t bucket[RULES_BUCKETS], count[RULES_BUCKETS]; /* rates: the window in tenths */
	uint64_t samples[RULES_SAMPLES];  /* coll.slow: the group's latest durations */
	unsigned nsamples, next;
	struct usual *usual;              /* coll.slow with `usual DUR`, instead of samples */
	uint64_t last_hold;               /* the latest event at which the rule held */
	bool held;
};

struct rule_state {
	struct rule r;
	struct place places[RULES_MAX_PLACES];
	size_t nplaces;
	uint64_t fired;
};

struct iface_name {
	uint32_t netns, ifindex;
	char name[16], netns_name[32];
};

/* A counter group of the sampler: where it is, and each counter's metric, flags and last value. */
struct ctr_group {
	uint32_t group, netns, ifindex, n;
	uint8_t metric[RULES_MAX_COUNTERS];   /* RM_LINK_PAUSE, RM_LINK_CNP, or RM_MAX: not followed */
	uint16_t flags[RULES_MAX_COUNTERS];   /* enum ft_ctr_flags: its width and unit, for ctr__delta */
	uint64_t last[RULES_MAX_COUNTERS];
	bool have[RULES_MAX_COUNTERS];        /* last holds a value */
};

struct rules {
	struct rule_state *st;
	int n;
	rules_fire_fn fire;
	void *ctx;
	bool need[RM_MAX];
	struct live *live;                /* coll.slow, rank.late: top's aggregator, phase records only */
	struct iface_name *ifaces;
	size_t nifaces;
	uint8_t reason[RULES_MAX_REASONS];
	uint8_t *slots;                   /* SLOT_* by phase slot, LIVE_MAX_SLOTS */
	uint64_t lost[FT_SRC_MAX][RULES_MAX_CPUS], lost_sum;
	uint64_t overflow;
	struct ctr_group *groups;         /* link.pause, link.cnp only */
	size_t ngroups;
	bool stopping;
	/* job.exit with no job given: every process is followed, and the job is
	 * the ones that made a collective call (sorted) */
	bool job_from_calls;
	uint32_t *callers;
	size_t ncallers, capcallers;
};

static const struct iface_name *iface_of(const struct rules *rs, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < rs->nifaces; i++)
		if (rs->ifaces[i].netns == netns && rs->ifaces[i].ifindex == ifindex)
			return &rs->ifaces[i];
	return NULL;
}

/* "eth0@h2", "netns N ifindex I" when not named */
static void iface_label(const struct rules *rs, uint64_t key, char *b, size_t n)
{
	const struct iface_name *f = iface_of(rs, (uint32_t)(key >> 32), (uint32_t)key);

	if (!f)
		snprintf(b, n, "netns %u ifindex %u", (unsigned)(key >> 32), (unsigned)key);
	else if (f->netns_name[0])
		snprintf(b, n, "%s@%s", f->name, f->netns_name);
	else
		snprintf(b, n, "%s", f->name);
}

/* The rule's place KEY, made when new (NULL: not this rule's interface, or no room). */
static struct place *place_of(struct rules *rs, struct rule_state *s, uint64_t key, bool iface)
{
	for (size_t i = 0; i < s->nplaces; i++)
		if (s->places[i].key == key)
			return &s->places[i];
	if (iface && s->r.on) {
		const struct iface_name *f = iface_of(rs, (uint32_t)(key >> 32), (uint32_t)key);

		/* no NETNS: that interface in any namespace */
		if (!f || strcmp(f->name, s->r.on_iface) != 0 || (s->r.on_netns[0] && strcmp(f->netns_name, s->r.on_netns) != 0))
			return NULL;
	}
	if (s->nplaces == RULES_MAX_PLACES) {
		rs->overflow++;
		return NULL;
	}
	s->places[s->nplaces] = (struct place){ .key = key };
	return &s->places[s->nplaces++];
}

static bool holds(const struct rule *r, int64_t v)
{
	if (r->metric == RM_JOB_TIMEOUT) /* no threshold: the event is the condition */
		return true;
	switch (r->op) {
	case ROP_GE: return v >= r->threshold;
	case ROP_NE: return v != r->threshold;
	default:     return v > r->threshold;
	}
}

/* VALUE seen at AT: fire when the rule holds and did not within its window before. */
static void observe(struct rules *rs, struct rule_state *s, struct place *p, uint64_t at, int64_t value,
		    const char *reason)
{
	bool fresh;

	if (!holds(&s->r, value))
		return;
	fresh = !p->held || at > p->last_hold + s->r.over_ns;
	if (!p->held || at > p->last_hold)
		p->last_hold = at;
	p->held = true;
	if (fresh) {
		char where[80];
		const bool job = s->r.metric == RM_JOB_EXIT || s->r.metric == RM_JOB_TIMEOUT;
		struct flight_trigger t = {
			.kind = job ? FT_TRIG_JOB : FT_TRIG_RULE, .rule = s->r.text, .value = value,
			.threshold = s->r.threshold, .unit = rules__unit_name(s->r.metric), .reason = reason,
			.at_ns = at, .rate = s->r.has_rate ? &s->r.rate : NULL,
		};

		if (!reason) { /* the interface's name, only when it fires */
			iface_label(rs, p->key, where, sizeof(where));
			t.reason = where;
		}
		s->fired++;
		rs->fire(rs->ctx, &t);
	}
}

/* N events of METRIC at AT on (NETNS, IFINDEX): each such rule's rate over its window. */
static void count_event(struct rules *rs, enum rule_metric metric, uint32_t netns, uint32_t ifindex, uint64_t at,
			uint64_t n)
{
	for (int i = 0; i < rs->n; i++) {
		struct rule_state *s = &rs->st[i];
		uint64_t bw = s->r.over_ns / RULES_BUCKETS, b = at / bw, sum = 0;
		struct place *p;
		unsigned k = (unsigned)(b % RULES_BUCKETS);

		if (s->r.metric != metric || !(p = place_of(rs, s, (uint64_t)netns << 32 | ifindex, true)))
			continue;
		if (p->bucket[k] > b)
			continue;       /* older than the window */
		if (p->bucket[k] < b) {
			p->bucket[k] = b;
			p->count[k] = 0;
		}
		p->count[k] += n;
		for (unsigned j = 0; j < RULES_BUCKETS; j++)
			if (p->bucket[j] + RULES_BUCKETS > b)
				sum += p->count[j];
		observe(rs, s, p, at, (int64_t)(sum * 1000000000ull / s->r.over_ns), NULL);
	}
}

static int on_iface(void *ctx, const struct ft_iface_info *r)
{
	struct rules *rs = ctx;
	struct iface_name *f = (struct iface_name *)iface_of(rs, r->netns, r->ifindex);

	if (!f) {
		if (rs->nifaces == RULES_MAX_IFACES)
			return 0;
		f = &rs->ifaces[rs->nifaces++];
	}
	*f = (struct iface_name){ .netns = r->netns, .ifindex = r->ifindex };
	str_copy(f->name, r->name, sizeof(f->name));
	str_copy(f->netns_name, r->netns_name, sizeof(f->netns_name));
	return 0;
}

static int on_drop_reason(void *ctx, const struct ft_drop_reason *r)
{
	struct rules *rs = ctx;
	char name[sizeof(r->name) + 1];

	if (r->reason >= RULES_MAX_REASONS)
		return 0;
	memcpy(name, r->name, sizeof(r->name));
	name[sizeof(r->name)] = '\0';
	rs->reason[r->reason] = corr__congestion_drop(name) ? REASON_CONGESTION : REASON_OTHER;
	return 0;
}

static int on_drop(void *ctx, const struct ft_drop *r)
{
	struct rules *rs = ctx;

	/* congestion drops, as the report counts them as evidence; a reason not named is not one */
	if (r->ifindex && r->reason < RULES_MAX_REASONS && rs->reason[r->reason] == REASON_CONGESTION)
		count_event(rs, RM_LINK_DROPS, r->netns, r->ifindex, r->ts_ns, 1);
	return 0;
}

static int on_retrans(void *ctx, const struct ft_retrans *r)
{
	if (!capture__retrans_sent(r))
		return 0; /* nothing went out */
	/* the flow's route; 0/0: not routed */
	count_event(ctx, RM_LINK_RETRANS, r->flow.netns, r->flow.ifindex, r->ts_ns, r->segs ? r->segs : 1);
	return 0;
}

static int on_bin(void *ctx, const struct ft_iface_bin *r)
{
	if (r->ce_pkts)
		count_event(ctx, RM_LINK_CE, r->netns, r->ifindex, r->start_ns, r->ce_pkts);
	return 0;
}

/* ---- the counter sampler's groups: link.pause, link.cnp ---- */

static struct ctr_group *group_of(struct rules *rs, uint32_t group)
{
	for (size_t i = 0; i < rs->ngroups; i++)
		if (rs->groups[i].group == group)
			return &rs->groups[i];
	return NULL;
}

/* Name a place for a group's netdev that no interface record names ("mlx5_0/1", "eth0@h1"). */
static void name_place(struct rules *rs, uint32_t netns, uint32_t ifindex, const char *label)
{
	struct iface_name *f;
	const char *at = strchr(label, '@');

	if (iface_of(rs, netns, ifindex) || rs->nifaces == RULES_MAX_IFACES)
		return;
	f = &rs->ifaces[rs->nifaces++];
	*f = (struct iface_name){ .netns = netns, .ifindex = ifindex };
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(at ? (size_t)(at - label) : strlen(label)), label);
	if (at)
		str_copy(f->netns_name, at + 1, sizeof(f->netns_name));
}

static int on_ctr_group(void *ctx, const struct ft_ctr_group *r)
{
	struct rules *rs = ctx;
	struct ctr_group *g;
	char label[sizeof(r->label) + 1];

	if (!rs->groups || group_of(rs, r->group) || rs->ngroups == RULES_MAX_GROUPS)
		return 0;
	g = &rs->groups[rs->ngroups++];
	memset(g, 0, sizeof(*g));
	memset(g->metric, RM_MAX, sizeof(g->metric));
	g->group = r->group;
	g->n = r->ncounters < RULES_MAX_COUNTERS ? r->ncounters : RULES_MAX_COUNTERS;
	g->netns = r->ifindex ? r->netns : 0;
	g->ifindex = r->ifindex ? r->ifindex : NO_NETDEV | r->group;
	memcpy(label, r->label, sizeof(r->label));
	label[sizeof(r->label)] = '\0';
	name_place(rs, g->netns, g->ifindex, label);
	return 0;
}

static int on_ctr_name(void *ctx, const struct ft_ctr_name *r)
{
	struct ctr_group *g = ((struct rules *)ctx)->groups ? group_of(ctx, r->group) : NULL;

	if (!g || r->index >= g->n)
		return 0;
	g->flags[r->index] = r->flags;
	/* pause frames (a duration counter is time, not frames); CNPs and ECN-marked RoCE packets */
	if (r->cls == FT_CLS_PAUSE && !(r->flags & (FT_CTRF_USEC | FT_CTRF_TICKS)))
		g->metric[r->index] = RM_LINK_PAUSE;
	else if (r->cls == FT_CLS_CONGESTION)
		g->metric[r->index] = RM_LINK_CNP;
	return 0;
}

static int on_ctr_sample(void *ctx, const struct ft_ctr_sample *r)
{
	struct rules *rs = ctx;
	struct ctr_group *g = rs->groups ? group_of(rs, r->group) : NULL;
	const uint64_t *v = (const uint64_t *)(r + 1);   /* the visitor checked the n values are there */
	uint64_t grew[RM_MAX] = { 0 };
	uint32_t n;

	if (!g)
		return 0;
	n = r->n < g->n ? r->n : g->n;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x;

		memcpy(&x, &v[i], sizeof(x));
		if (g->metric[i] == RM_MAX || x == FT_CTR_NA)
			continue;
		/* the growth the report counts (a wrap's, a reset's from 0); a first value is the base */
		if (g->have[i])
			grew[g->metric[i]] += ctr__scale(ctr__delta(g->last[i], x, g->flags[i], NULL), g->flags[i]);
		g->last[i] = x;
		g->have[i] = true;
	}
	if (grew[RM_LINK_PAUSE])
		count_event(rs, RM_LINK_PAUSE, g->netns, g->ifindex, r->ts_ns, grew[RM_LINK_PAUSE]);
	if (grew[RM_LINK_CNP])
		count_event(rs, RM_LINK_CNP, g->netns, g->ifindex, r->ts_ns, grew[RM_LINK_CNP]);
	return 0;
}

static int on_qdisc(void *ctx, const struct ft_qdisc_bin *r)
{
	struct rules *rs = ctx;

	if (!r->sojourn_cnt)
		return 0;
	for (int i = 0; i < rs->n; i++) {
		struct rule_state *s = &rs->st[i];
		struct place *p;

		if (s->r.metric != RM_QUEUE_SOJOURN ||
		    !(p = place_of(rs, s, (uint64_t)r->netns << 32 | r->ifindex, true)))
			continue;
		observe(rs, s, p, r->start_ns, (int64_t)r->sojourn_max_ns, NULL);
	}
	return 0;
}

static int on_lost(void *ctx, const struct ft_lost *r)
{
	struct rules *rs = ctx;
	uint64_t *v;
	char why[64];

	if (r->source >= FT_SRC_MAX || r->cpu >= RULES_MAX_CPUS)
		return 0;
	v = &rs->lost[r->source][r->cpu];
	if (r->lost <= *v)    /* cumulative: only growth counts */
		return 0;
	rs->lost_sum += r->lost - *v;
	*v = r->lost;
	snprintf(why, sizeof(why), "%llu events lost in all", (unsigned long long)rs->lost_sum);
	for (int i = 0; i < rs->n; i++)
		if (rs->st[i].r.metric == RM_LOST) {
			struct place *p = place_of(rs, &rs->st[i], 0, false);

			if (p)
				observe(rs, &rs->st[i], p, r->ts_ns, (int64_t)rs->lost_sum, why);
		}
	return 0;
}

#define NO_RANK INT32_MIN /* an event of no rank: only rules without `on rank:N` follow it */

/* Whether rule R follows an event of rank RANK (`on rank:N`: only that rank's). */
static bool rank_followed(const struct rule *r, int32_t rank)
{
	return !r->on_rank || r->rank == rank;
}

/* Each rule of METRIC that follows RANK, at the host's one place. */
static void observe_rank(struct rules *rs, enum rule_metric metric, int32_t rank, uint64_t at, int64_t value,
			 const char *why)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->st[i].r.metric == metric && rank_followed(&rs->st[i].r, rank)) {
			struct place *p = place_of(rs, &rs->st[i], 0, false);

			if (p)
				observe(rs, &rs->st[i], p, at, value, why);
		}
}

/* Each rule of METRIC at the host's one place (an event of no rank). */
static void observe_all(struct rules *rs, enum rule_metric metric, uint64_t at, int64_t value, const char *why)
{
	observe_rank(rs, metric, NO_RANK, at, value, why);
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool is_caller(const struct rules *rs, uint32_t pid)
{
	return rs->ncallers && bsearch(&pid, rs->callers, rs->ncallers, sizeof(pid), cmp_pid);
}

/* PID made a collective call: with no job given, it is the job's (kept sorted; a job has few). */
static void add_caller(struct rules *rs, uint32_t pid)
{
	size_t i = rs->ncallers;

	if (!rs->job_from_calls || is_caller(rs, pid) ||
	    grow_array((void **)&rs->callers, &rs->capcallers, rs->ncallers + 1, sizeof(*rs->callers)))
		return;
	for (; i > 0 && rs->callers[i - 1] > pid; i--)
		rs->callers[i] = rs->callers[i - 1];
	rs->callers[i] = pid;
	rs->ncallers++;
}

static int on_proc(void *ctx, const struct ft_proc *r)
{
	struct rules *rs = ctx;
	int st = r->exit_code, code;
	char comm[sizeof(r->comm) + 1], why[96];

	if (r->event != FT_PROC_EXIT || !st || (rs->job_from_calls && !is_caller(rs, r->pid)))
		return 0;
	/* the ones the recorder itself ended at the stop are not the job's failure */
	if (rs->stopping && WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL))
		return 0;
	code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	memcpy(comm, r->comm, sizeof(r->comm));
	comm[sizeof(r->comm)] = '\0';
	if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "pid %u (%s) killed by signal %d", r->pid, comm, WTERMSIG(st));
	else
		snprintf(why, sizeof(why), "pid %u (%s) exited %d", r->pid, comm, code);
	observe_all(rs, RM_JOB_EXIT, r->ts_ns, code, why);
	return 0;
}

static int on_slot(void *ctx, const struct ft_phase_slot *r)
{
	struct rules *rs = ctx;
	char sym[sizeof(r->symbol) + 1];

	if (r->slot >= LIVE_MAX_SLOTS)
		return 0;
	if (r->lib_kind == FT_LIB_GLOO) {
		char name[sizeof(r->name) + 1];

		memcpy(name, r->name, sizeof(r->name));
		name[sizeof(r->name)] = '\0';
		if (!strcmp(name, CATALOG_GLOO_TIMEOUT))
			rs->slots[r->slot] = SLOT_GLOO_TIMEOUT;
		else if (!strcmp(name, CATALOG_GLOO_ERROR))
			rs->slots[r->slot] = SLOT_GLOO_ERROR;
		return 0;
	}
	if (r->lib_kind != FT_LIB_NCCL)
		return 0;
	memcpy(sym, r->symbol, sizeof(r->symbol));
	sym[sizeof(r->symbol)] = '\0';
	rs->slots[r->slot] = strcmp(sym, NCCL_ABORT_SYMBOL) != 0 ? SLOT_NCCL : SLOT_NCCL_ABORT;
	return 0;
}

/* A Gloo operation's timeout or failed work; a NCCL call that returned an error (ncclRemoteError,
 * ncclSystemError, ...) or ncclCommAbort. */
static int on_phase(void *ctx, const struct ft_phase *r)
{
	struct rules *rs = ctx;
	uint8_t k = r->slot < LIVE_MAX_SLOTS ? rs->slots[r->slot] : SLOT_OTHER;
	char why[96];

	add_caller(rs, r->pid);
	if (k == SLOT_OTHER)
		return 0;
	/* Gloo's: the entry is the event, the process may die inside (std::terminate on the pairs'
	 * closure), leaving the call open */
	if (k == SLOT_GLOO_TIMEOUT) {
		snprintf(why, sizeof(why), "pid %u: a Gloo operation timed out (its pairs closed)", r->pid);
		observe_all(rs, RM_JOB_TIMEOUT, r->start_ns, 0, why);
	} else if (k == SLOT_GLOO_ERROR) {
		snprintf(why, sizeof(why), "pid %u: a Gloo collective failed (a timeout or a lost peer)", r->pid);
		observe_all(rs, RM_JOB_TIMEOUT, r->start_ns, 0, why);
	} else if (r->flags & FT_PHASE_OPEN) {
		return 0;
	} else if (k == SLOT_NCCL_ABORT) {
		snprintf(why, sizeof(why), "pid %u called ncclCommAbort", r->pid);
		observe_all(rs, RM_JOB_TIMEOUT, r->start_ns, 0, why);
	} else if (r->ret && r->ret != NCCL_IN_PROGRESS) {
		snprintf(why, sizeof(why), "pid %u: a NCCL call returned %d", r->pid, r->ret);
		observe_all(rs, RM_JOB_TIMEOUT, r->end_ns, r->ret, why);
	}
	return 0;
}

/* A rank's communicator, before its first call returns: the process is the job's. */
static int on_comm_info(void *ctx, const struct ft_comm_info *r)
{
	add_caller(ctx, r->pid);
	return 0;
}

static const struct capture_visitor RULES_VISITOR = {
	.iface = on_iface, .drop_reason = on_drop_reason, .drop = on_drop, .retrans = on_retrans,
	.iface_bin = on_bin, .qdisc_bin = on_qdisc, .lost = on_lost, .proc = on_proc,
	.phase_slot = on_slot, .phase = on_phase, .ctr_group = on_ctr_group, .ctr_name = on_ctr_name,
	.ctr_sample = on_ctr_sample, .comm_info = on_comm_info,
};

/* ---- collectives, through top's aggregator ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned usual_bin(uint64_t ns)
{
	unsigned e;

	if (ns < 1ull << USUAL_OCT_MIN)
		return 0;
	e = 63u - (unsigned)__builtin_clzll(ns);
	if (e > USUAL_OCT_MAX)
		return USUAL_BINS - 1;
	return 1 + (e - USUAL_OCT_MIN) * 8 + (unsigned)((ns >> (e - 3)) & 7);
}

/* The middle of bin B, in ns. */
static uint64_t usual_mid(unsigned b)
{
	unsigned e;

	if (b == 0)
		return 1ull << (USUAL_OCT_MIN - 1);
	if (b == USUAL_BINS - 1)
		return 1ull << (USUAL_OCT_MAX + 1);
	e = USUAL_OCT_MIN + (b - 1) / 8;
	return ((8ull + (b - 1) % 8) << (e - 3)) + (1ull << (e - 4));
}

/* The median of the calls in the window that ends in tenth T (0: fewer than RULES_MIN_SAMPLES). */
static uint64_t usual_median(const struct usual *u, uint64_t t)
{
	uint64_t n = 0, cum = 0;
	bool in[RULES_BUCKETS];

	for (unsigned j = 0; j < RULES_BUCKETS; j++) {
		in[j] = u->n[j] && u->tenth[j] + RULES_BUCKETS > t;
		n += in[j] ? u->n[j] : 0;
	}
	if (n < RULES_MIN_SAMPLES)
		return 0;
	for (unsigned b = 0; b < USUAL_BINS; b++) {
		for (unsigned j = 0; j < RULES_BUCKETS; j++)
			cum += in[j] ? u->bins[j][b] : 0;
		if (cum > n / 2) /* the (n/2)th of the sorted calls, as the latest calls' median takes */
			return usual_mid(b);
	}
	return 0;
}

static void usual_add(struct usual *u, uint64_t t, uint64_t dur)
{
	unsigned k = (unsigned)(t % RULES_BUCKETS);

	if (u->tenth[k] > t)
		return; /* older than the window */
	if (u->tenth[k] < t || !u->n[k]) {
		u->tenth[k] = t;
		u->n[k] = 0;
		memset(u->bins[k], 0, sizeof(u->bins[k]));
	}
	u->n[k]++;
	u->bins[k][usual_bin(dur)]++;
}

/* The usual duration of P's group before a call that ended at END (0: not known yet). */
static uint64_t group_usual(const struct rule *r, const struct place *p, uint64_t end)
{
	uint64_t v[RULES_SAMPLES];

	if (r->usual_ns)
		return p->usual ? usual_median(p->usual, end / (r->usual_ns / RULES_BUCKETS)) : 0;
	if (p->nsamples < RULES_MIN_SAMPLES)
		return 0;
	memcpy(v, p->samples, p->nsamples * sizeof(v[0]));
	qsort(v, p->nsamples, sizeof(v[0]), cmp_u64);
	return v[p->nsamples / 2] ? v[p->nsamples / 2] : 1;
}

/* A call of P's group took DUR, ending at END: part of its usual from now on.  -1 on ENOMEM. */
static int group_add(const struct rule *r, struct place *p, uint64_t end, uint64_t dur)
{
	if (r->usual_ns) {
		if (!p->usual && !(p->usual = calloc(1, sizeof(*p->usual))))
			return -1;
		usual_add(p->usual, end / (r->usual_ns / RULES_BUCKETS), dur);
		return 0;
	}
	p->samples[p->next] = dur;
	p->next = (p->next + 1) % RULES_SAMPLES;
	if (p->nsamples < RULES_SAMPLES)
		p->nsamples++;
	return 0;
}

/* A call took END - START: against the usual of its group (op, size within a power of two): the median
 * of its latest calls, or with `usual DUR` of its calls of the last DUR; with `on rank:N`, that rank's
 * calls against that rank's usual. */
static void on_coll(void *ctx, const struct live *l, uint32_t proc, uint16_t op, uint64_t start, uint64_t end,
		    uint64_t size)
{
	struct rules *rs = ctx;
	uint64_t dur = end > start ? end - start : 0, key = (uint64_t)op << 8 | (unsigned)(64 - __builtin_clzll(size | 1));
	int32_t rank = proc < l->nprocs ? l->procs[proc].rank : NO_RANK;

	for (int i = 0; i < rs->n; i++) {
		struct rule_state *s = &rs->st[i];
		struct place *p;
		uint64_t med;

		if (s->r.metric != RM_COLL_SLOW || !rank_followed(&s->r, rank) ||
		    !(p = place_of(rs, s, key, false)))
			continue;
		med = group_usual(&s->r, p, end);
		if (med) {
			char why[128];

			snprintf(why, sizeof(why), "%s of pid %u took %.3f ms, its group's usual %.3f ms",
				 corr__op_name(op), proc < l->nprocs ? l->procs[proc].pid : 0, dur / 1e6, med / 1e6);
			observe(rs, s, p, start, (int64_t)(dur * 1000 / med), why);
		}
		if (group_add(&s->r, p, end, dur))
			rs->overflow++; /* no memory for its window: not followed */
	}
}

/* Every rank of a collective arrived, WHO last: each rank.late rule (with `on rank:N`, when WHO is rank N). */
static void on_matched(void *ctx, const struct live *l, uint16_t op, uint32_t who, uint64_t first, uint64_t last)
{
	char why[128];

	if (who == LIVE_NONE || who >= l->nprocs)
		return;
	snprintf(why, sizeof(why), "pid %u (rank %d) entered %s %.3f ms after the first", l->procs[who].pid,
		 l->procs[who].rank, corr__op_name(op), (last - first) / 1e6);
	observe_rank(ctx, RM_RANK_LATE, l->procs[who].rank, last, (int64_t)(last - first), why);
}

/* The records top's aggregator needs for collectives: the phase probes'. */
static bool phase_record(uint16_t type)
{
	return type == FT_REC_PHASE || type == FT_REC_PHASE_SLOT || type == FT_REC_PROC ||
	       type == FT_REC_COMM_INFO || type == FT_REC_REQ_DONE;
}

/* ---- the sink ---- */

struct rules *rules__new(const struct rule *r, int n, uint64_t bin_ns, rules_fire_fn fire, void *ctx)
{
	struct rules *rs = calloc(1, sizeof(*rs));

	if (!rs || n < 0 || n > RULES_MAX)
		goto fail;
	rs->st = calloc((size_t)(n ? n : 1), sizeof(*rs->st));
	rs->ifaces = calloc(RULES_MAX_IFACES, sizeof(*rs->ifaces));
	rs->slots = calloc(LIVE_MAX_SLOTS, sizeof(*rs->slots));
	if (!rs->st || !rs->ifaces || !rs->slots)
		goto fail;
	rs->n = n;
	rs->fire = fire;
	rs->ctx = ctx;
	for (int i = 0; i < n; i++) {
		rs->st[i].r = r[i];
		rs->need[r[i].metric] = true;
	}
	if (rs->need[RM_LINK_PAUSE] || rs->need[RM_LINK_CNP]) {
		rs->groups = calloc(RULES_MAX_GROUPS, sizeof(*rs->groups));
		if (!rs->groups)
			goto fail;
	}
	if (rs->need[RM_COLL_SLOW] || rs->need[RM_RANK_LATE]) {
		struct live_opts lo;

		live_opts__init(&lo, bin_ns ? bin_ns : 100000);
		rs->live = live__new(&lo, 0);
		if (!rs->live)
			goto fail;
		rs->live->hooks = (struct live_hooks){ .coll = on_coll, .matched = on_matched, .ctx = rs };
	}
	return rs;
fail:
	rules__free(rs);
	return NULL;
}

void rules__free(struct rules *rs)
{
	if (!rs)
		return;
	live__free(rs->live);
	for (int i = 0; rs->st && i < rs->n; i++)
		for (size_t k = 0; k < rs->st[i].nplaces; k++)
			free(rs->st[i].places[k].usual);
	free(rs->st);
	free(rs->ifaces);
	free(rs->slots);
	free(rs->groups);
	free(rs->callers);
	free(rs);
}

int rules__sink(void *ctx, const struct ft_rec_hdr *rec)
{
	struct rules *rs = ctx;

	capture__visit(&RULES_VISITOR, rs, rec);
	if (rs->live && phase_record(rec->type))
		live__add(rs->live, rec);
	return 0;
}

void rules__tick(struct rules *rs, uint64_t now_ns)
{
	if (rs->live)
		live__tick(rs->live, now_ns);
}

void rules__stopping(struct rules *rs)
{
	rs->stopping = true;
}

void rules__job_from_calls(struct rules *rs)
{
	rs->job_from_calls = rs->need[RM_JOB_EXIT];
}

uint64_t rules__fired(const struct rules *rs, int i)
{
	return i >= 0 && i < rs->n ? rs->st[i].fired : 0;
}

uint64_t rules__overflow(const struct rules *rs)
{
	return rs->overflow;
}
