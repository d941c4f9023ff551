// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace merge: the captures of several hosts of one job, on one clock.
 *
 * Pass 1 reads every capture once: its identity, clock pairs and sync state,
 * its namespaces, pids, flows (which hosts talk to which), and the entry and
 * exit of each collective instance.  The clocks are then placed coarsely
 * from the realtime anchors (REALTIME - MONOTONIC, a line through the clock
 * pairs), with the hosts' maxerror as the bound.
 * Pass 2 bins each host's traffic in a few windows on that coarse clock;
 * pairs of hosts that talk are matched in both directions (userspace/
 * mergefit.h), searched only where collectives allow (no rank leaves an
 * all-reduce before the last one entered), and a line through the windows
 * gives each pair's offset and drift.  Each host is placed against the
 * reference (the first capture) along its most certain chain of pairs.
 * Pass 3 writes the merged capture: FT_REC_HOST / FT_REC_HOST_NETNS records,
 * then every host's records with timestamps and colliding ids rewritten
 * (userspace/capture/retime.h), then one END.  Written to a temporary file and
 * renamed, so a failed merge leaves nothing behind.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "probes/base/json.h"
#include "userspace/capture/mergefit.h"
#include "userspace/capture/retime.h"
#include "probes/base/util.h"

#define MERGE_MAX_HOSTS 1024
#define MAX_WINDOWS 6
#define MAX_ADDRS 64
#define COLL_BITS 15                       /* collective instances kept per host */
#define DEFAULT_WINDOW_NS 1000000000ull    /* search +-1 s when a clock gives no bound */
#define WINDOW_LEN_NS 2000000000ull

struct coll {
	uint64_t comm, seq;       /* seq 0 = empty slot */
	uint32_t op, pad;
	uint64_t max_start, min_end;
};

struct host {
	const char *path;
	struct ft_file_header hdr;
	struct ft_host_id id;
	bool have_id;
	char label[64];
	enum capture_state state;
	char error[300];
	uint64_t t_first, t_last;         /* host clock */
	/* clock pairs: realtime - mono against mono, as a line */
	size_t nclk;
	double clk_t0, clk_sw, clk_sx, clk_sy, clk_sxx, clk_sxy;
	int64_t maxerror_us;
	bool unsynced, sync_known;
	/* ids */
	uint32_t *netns; size_t nnetns, capnetns;
	uint32_t *pids; size_t npids, cappids;
	uint32_t max_slot, max_group, max_port, max_cpu;
	struct { uint32_t netns, ifindex; } *lo; size_t nlo, caplo;
	uint8_t addrs[MAX_ADDRS][16]; size_t naddrs;     /* its own (flow saddr) */
	uint8_t peers[MAX_ADDRS][16]; size_t npeers;     /* flow daddr */
	struct { uint32_t slot, op; } *slots; size_t nslots, capslots;
	struct coll *coll; size_t ncoll;
	/* coarse map to the reference: t' = t + c_off + (t - t0) * c_drift */
	int64_t c_off;
	double c_drift;
	double c_unc;                       /* ns, < 0 unknown */
	struct mf_series win[MAX_WINDOWS];
	/* result */
	double e_a, e_b;                    /* residual e(t') = a + b (t' - tref) */
	double unc;                         /* < 0 unknown */
	uint32_t pairs;
	uint32_t flags;
	struct retime rt;
};

struct pairfit {
	int a, b;
	bool bounds;
	double lo, hi;                      /* collective window for e_b - e_a, ns */
	size_t nwin;
	double t[MAX_WINDOWS], e[MAX_WINDOWS], s[MAX_WINDOWS];
	double fa, fb, unc;                 /* fit; unc < 0: none */
	bool causal_ok;
};

struct merge {
	const char *out;
	bool json, quiet, anchors_only;
	uint64_t max_window;
	struct host *h;
	size_t n;
	uint64_t bin_ns;
	int64_t ovl_lo, ovl_hi;             /* overlap on the coarse clock */
	size_t nwin;
	int64_t wstart[MAX_WINDOWS];        /* core start of each window, coarse clock */
	uint64_t wlen, pad_ns;
	double tref;                        /* coarse-clock time the fits are centred on */
	struct pairfit *pf; size_t npf, cappf;
	char **warnings; size_t nwarn;
	int argc; char **argv;
};

static void warnf(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct merge *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char **p;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!m->json && !m->quiet)
		ft_warn("merge: %s", buf);
	p = realloc(m->warnings, (m->nwarn + 1) * sizeof(*p));
	if (!p)
		return;
	m->warnings = p;
	m->warnings[m->nwarn] = strdup(buf);
	if (m->warnings[m->nwarn])
		m->nwarn++;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace merge -o OUT.ftr [OPTIONS] NODE.ftr NODE.ftr...\n"
"\n"
"Merge the captures of the hosts of one job onto one clock, so that report,\n"
"top-level verdicts and timelines see the whole job: ranks per host, collectives\n"
"matched across hosts, the straggler and the link named with their host.\n"
"\n"
"The clocks are placed coarsely from each capture's realtime anchors (the\n"
"REALTIME/MONOTONIC pairs taken at the start, every second and at the stop)\n"
"within the hosts' own sync bounds (adjtimex maxerror), then refined from the\n"
"traffic itself: bytes leaving one host and arriving at another, matched in\n"
"both directions (as NTP's four timestamps), searched only where the\n"
"collectives allow (no rank leaves an all-reduce before the last one\n"
"entered).  Each host gets an offset, a drift and an uncertainty; the first\n"
"capture is the reference clock.  See docs/multihost.md.\n"
"\n"
"Options:\n"
"  -o, --output FILE     the merged capture (required); written whole or not at all\n"
"      --window DUR      search the traffic match within +-DUR where a clock gives\n"
"                        no bound (unsynchronised) or a wider one (default 1s)\n"
"      --anchors-only    place the clocks by their realtime anchors alone (no\n"
"                        traffic matching): to compare, or for unrelated hosts\n"
"      --json            print the clock fit as JSON on stdout\n"
"  -q, --quiet           no summary\n"
"  -h, --help            this help\n"
"\n"
"Examples:\n"
"  fabtrace merge -o job.ftr job-node1.ftr job-node2.ftr job-node3.ftr\n"
"  fabtrace merge -o job.ftr job-*.ftr && fabtrace report job.ftr\n"
"  fabtrace merge --json -o job.ftr node*.ftr | jq '.hosts[] | {label, offset_ns, uncertainty_ns}'\n"
"  fabtrace merge --window 5s -o job.ftr unsynced-*.ftr\n"
"\n"
"Recording every node (one command line, %%h = the host name):\n"
"  srun --ntasks-per-node=1 --overlap sudo fabtrace record -o job-%%h.ftr -d 60s\n"
"  pdsh -w node[1-64] 'sudo fabtrace record -o /scratch/job-%%h.ftr -d 60s'\n");
}

/* ---- pass 1 ---- */

static int add_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
	for (size_t i = *n; i > 0; i--) /* recent first: ids come in runs */
		if ((*a)[i - 1] == v)
			return 0;
	if (grow_array((void **)a, cap, *n + 1, sizeof(**a)))
		return -ENOMEM;
	(*a)[(*n)++] = v;
	return 0;
}

static void add_addr(uint8_t (*set)[16], size_t *n, const uint8_t *a)
{
	static const uint8_t zero[16];

	if (!memcmp(a, zero, 16) || a[0] == 127)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!memcmp(set[i], a, 16))
			return;
	if (*n < MAX_ADDRS)
		memcpy(set[(*n)++], a, 16);
}

static void add_flow(struct host *h, const struct ft_flow *f)
{
	uint8_t s[16] = { 0 }, d[16] = { 0 };

	memcpy(s, f->saddr, f->family == 4 ? 4 : 16);
	memcpy(d, f->daddr, f->family == 4 ? 4 : 16);
	add_addr(h->addrs, &h->naddrs, s);
	add_addr(h->peers, &h->npeers, d);
}

static uint32_t slot_op(const struct host *h, uint32_t slot)
{
	for (size_t i = 0; i < h->nslots; i++)
		if (h->slots[i].slot == slot)
			return h->slots[i].op;
	return 0;
}

static uint64_t coll_hash(uint64_t comm, uint64_t seq, uint32_t op)
{
	uint64_t x = comm * 0x9e3779b97f4a7c15ull ^ (seq + ((uint64_t)op << 56)) * 0xc2b2ae3d27d4eb4full;

	return (x ^ (x >> 29)) & ((1u << COLL_BITS) - 1);
}

static struct coll *coll_find(struct host *h, uint64_t comm, uint64_t seq, uint32_t op, bool add)
{
	size_t mask = ((size_t)1 << COLL_BITS) - 1;

	if (!h->coll && add) /* only hosts with collectives pay for the table */
		h->coll = calloc(mask + 1, sizeof(*h->coll));
	if (!h->coll)
		return NULL;
	for (size_t i = coll_hash(comm, seq, op), k = 0; k < 64; i = (i + 1) & mask, k++) {
		struct coll *c = &h->coll[i];

		if (!c->seq) {
			if (!add || h->ncoll >= (mask + 1) / 2)
				return NULL;
			*c = (struct coll){ .comm = comm, .seq = seq, .op = op, .min_end = UINT64_MAX };
			h->ncoll++;
			return c;
		}
		if (c->comm == comm && c->seq == seq && c->op == op)
			return c;
	}
	return NULL;
}

/* Collectives whose every output needs every input: a causal bound. */
static bool causal_op(uint32_t op)
{
	return op == FT_OP_ALLREDUCE || op == FT_OP_REDUCE_SCATTER || op == FT_OP_ALLGATHER ||
	       op == FT_OP_ALLTOALL || op == FT_OP_BARRIER;
}

static void note_t(struct host *h, uint64_t t)
{
	if (!t)
		return;
	if (!h->t_first || t < h->t_first)
		h->t_first = t;
	if (t > h->t_last)
		h->t_last = t;
}

static int pass1_record(struct host *h, const struct ft_rec_hdr *r)
{
	switch (r->type) {
	case FT_REC_HOST_ID:
		if (!h->have_id)
			memcpy(&h->id, r, sizeof(h->id));
		h->have_id = true;
		break;
	case FT_REC_CLOCK: {
		const struct ft_clock *c = (const void *)r;
		double t, e;

		if (!c->mono_ns)
			break;
		if (!h->nclk)
			h->clk_t0 = (double)c->mono_ns;
		t = (double)c->mono_ns - h->clk_t0;
		e = (double)(c->realtime_ns - (int64_t)c->mono_ns);
		e -= (double)h->hdr.realtime_offset_ns; /* small numbers for the fit */
		h->clk_sw += 1;
		h->clk_sx += t;
		h->clk_sy += e;
		h->clk_sxx += t * t;
		h->clk_sxy += t * e;
		h->nclk++;
		if (c->sync == FT_SYNC_UNSYNCED)
			h->unsynced = true;
		else if (c->sync == FT_SYNC_OK)
			h->sync_known = true;
		if (c->maxerror_us > h->maxerror_us)
			h->maxerror_us = c->maxerror_us;
		break;
	}
	case FT_REC_IFACE: {
		const struct ft_iface_info *f = (const void *)r;

		if (add_u32(&h->netns, &h->nnetns, &h->capnetns, f->netns))
			return -ENOMEM;
		if (!strncmp(f->name, "lo", sizeof(f->name))) {
			if (grow_array((void **)&h->lo, &h->caplo, h->nlo + 1, sizeof(*h->lo)))
				return -ENOMEM;
			h->lo[h->nlo].netns = f->netns;
			h->lo[h->nlo++].ifindex = f->ifindex;
		}
		break;
	}
	case FT_REC_IFACE_BIN:
		note_t(h, ((const struct ft_iface_bin *)(const void *)r)->start_ns);
		break;
	case FT_REC_PHASE_SLOT: {
		const struct ft_phase_slot *s = (const void *)r;

		if (grow_array((void **)&h->slots, &h->capslots, h->nslots + 1, sizeof(*h->slots)))
			return -ENOMEM;
		h->slots[h->nslots].slot = s->slot;
		h->slots[h->nslots++].op = s->op;
		if (s->slot > h->max_slot)
			h->max_slot = s->slot;
		break;
	}
	case FT_REC_PHASE: {
		const struct ft_phase *p = (const void *)r;
		uint32_t op;
		struct coll *c;

		note_t(h, p->start_ns);
		note_t(h, p->end_ns);
		if (p->slot > h->max_slot)
			h->max_slot = p->slot;
		if (add_u32(&h->pids, &h->npids, &h->cappids, p->pid) ||
		    add_u32(&h->netns, &h->nnetns, &h->capnetns, p->netns))
			return -ENOMEM;
		if (!p->seq || (p->flags & (FT_PHASE_OPEN | FT_PHASE_NONBLOCKING)))
			break;
		op = slot_op(h, p->slot);
		if (!causal_op(op))
			break;
		c = coll_find(h, p->comm, p->seq, op, true);
		if (c) {
			if (p->start_ns > c->max_start)
				c->max_start = p->start_ns;
			if (p->end_ns < c->min_end)
				c->min_end = p->end_ns;
		}
		break;
	}
	case FT_REC_PROC: {
		const struct ft_proc *p = (const void *)r;

		if (add_u32(&h->pids, &h->npids, &h->cappids, p->pid))
			return -ENOMEM;
		break;
	}
	case FT_REC_SOCK_OWNER:
		add_flow(h, &((const struct ft_sock_owner *)(const void *)r)->flow);
		break;
	case FT_REC_TCP_SAMPLE:
		add_flow(h, &((const struct ft_tcp_sample *)(const void *)r)->flow);
		break;
	case FT_REC_RDMA_PORT:
		if (((const struct ft_rdma_port *)(const void *)r)->port_id > h->max_port)
			h->max_port = ((const struct ft_rdma_port *)(const void *)r)->port_id;
		break;
	case FT_REC_CTR_GROUP:
		if (((const struct ft_ctr_group *)(const void *)r)->group > h->max_group)
			h->max_group = ((const struct ft_ctr_group *)(const void *)r)->group;
		break;
	case FT_REC_LOST:
		if (((const struct ft_lost *)(const void *)r)->cpu > h->max_cpu)
			h->max_cpu = ((const struct ft_lost *)(const void *)r)->cpu;
		break;
	case FT_REC_END:
		note_t(h, ((const struct ft_end *)(const void *)r)->ts_ns);
		break;
	default:
		break;
	}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int pass1(struct merge *m, struct host *h)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];

	if (capture__open(&r, h->path, err, sizeof(err))) {
		ft_err("merge: %s", err);
		return -1;
	}
	h->hdr = *capture__header(r);
	note_t(h, h->hdr.start_mono_ns);
	while (capture__next(r, &rec) == 1)
		if (pass1_record(h, rec)) {
			ft_err("merge: out of memory");
			capture__free(r);
			return -1;
		}
	h->state = capture__state(r);
	if (h->state != CAPTURE_OK) {
		str_copy(h->error, capture__error(r), sizeof(h->error));
		warnf(m, "%s: %s; merging what is readable", base_name(h->path),
		      h->error[0] ? h->error : "capture is incomplete");
	}
	capture__free(r);
	return 0;
}

/* ---- coarse placement ---- */

/* realtime - mono of host H at host time T (ns, relative to its header's offset) */
static void rt_line(const struct host *h, double *a, double *b)
{
	double det = h->clk_sw * h->clk_sxx - h->clk_sx * h->clk_sx;

	*a = 0;
	*b = 0;
	if (!h->nclk)
		return;
	if (h->nclk < 2 || det <= 0) {
		*a = h->clk_sy / h->clk_sw;
		return;
	}
	*b = (h->clk_sw * h->clk_sxy - h->clk_sx * h->clk_sy) / det;
	*a = (h->clk_sy - *b * h->clk_sx) / h->clk_sw;
}

static void coarse(struct merge *m)
{
	const struct host *ref = &m->h[0];
	double ar, br, t0r = ref->nclk ? ref->clk_t0 : 0;

	rt_line(ref, &ar, &br);
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		double a, b, t0 = h->nclk ? h->clk_t0 : 0;

		rt_line(h, &a, &b);
		/* real = t + R_h + a + b (t - t0) = t' + R_r + ar + br (t' - t0r) */
		double rh = (double)h->hdr.realtime_offset_ns, rr = (double)ref->hdr.realtime_offset_ns;
		double ts = (double)h->hdr.start_mono_ns;
		double real = ts + rh + a + b * (ts - t0);
		double tp = (real - rr - ar + br * t0r) / (1 + br);

		h->c_off = i ? (int64_t)llround(tp - ts) : 0;
		h->c_drift = i ? (1 + b) / (1 + br) - 1 : 0;
		h->rt.t0_ns = h->hdr.start_mono_ns;
		if (!h->nclk || h->unsynced || !h->sync_known || !ref->nclk || ref->unsynced || !ref->sync_known)
			h->c_unc = -1;
		else
			h->c_unc = (double)(h->maxerror_us + ref->maxerror_us) * 1000.0;
		if (!i)
			h->c_unc = 0;
	}
}

static int64_t to_coarse(const struct host *h, uint64_t t)
{
	return (int64_t)t + h->c_off + (int64_t)llround(((double)t - (double)h->rt.t0_ns) * h->c_drift);
}

/* ---- pass 2: traffic in windows ---- */

static bool is_lo(const struct host *h, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < h->nlo; i++)
		if (h->lo[i].netns == netns && h->lo[i].ifindex == ifindex)
			return true;
	return false;
}

static int pass2(struct merge *m, struct host *h)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];
	size_t n = (size_t)((m->wlen + 2 * m->pad_ns) / m->bin_ns);

	for (size_t k = 0; k < m->nwin; k++) {
		h->win[k].n = n;
		h->win[k].pad = (size_t)(m->pad_ns / m->bin_ns);
		h->win[k].tx = calloc(n, sizeof(float));
		h->win[k].rx = calloc(n, sizeof(float));
		if (!h->win[k].tx || !h->win[k].rx)
			return -1;
	}
	if (capture__open(&r, h->path, err, sizeof(err))) {
		ft_err("merge: %s", err);
		return -1;
	}
	while (capture__next(r, &rec) == 1) {
		const struct ft_iface_bin *b = (const void *)rec;
		int64_t t;

		if (rec->type != FT_REC_IFACE_BIN || is_lo(h, b->netns, b->ifindex))
			continue;
		t = to_coarse(h, b->start_ns);
		for (size_t k = 0; k < m->nwin; k++) {
			int64_t lo = m->wstart[k] - (int64_t)m->pad_ns;

			if (t < lo || t >= lo + (int64_t)(n * m->bin_ns))
				continue;
			float *a = b->dir == FT_DIR_TX ? h->win[k].tx : h->win[k].rx;

			a[(t - lo) / (int64_t)m->bin_ns] += (float)b->bytes;
		}
	}
	capture__free(r);
	/* compress the big bins: a match should follow the shape, not one burst */
	for (size_t k = 0; k < m->nwin; k++)
		for (size_t i = 0; i < n; i++) {
			h->win[k].tx[i] = sqrtf(h->win[k].tx[i]);
			h->win[k].rx[i] = sqrtf(h->win[k].rx[i]);
		}
	return 0;
}

static bool talk(const struct host *a, const struct host *b)
{
	if (!a->naddrs || !b->naddrs)
		return true; /* no flow information: try */
	for (size_t i = 0; i < a->npeers; i++)
		for (size_t j = 0; j < b->naddrs; j++)
			if (!memcmp(a->peers[i], b->addrs[j], 16))
				return true;
	for (size_t i = 0; i < b->npeers; i++)
		for (size_t j = 0; j < a->naddrs; j++)
			if (!memcmp(b->peers[i], a->addrs[j], 16))
				return true;
	return false;
}

/* e = e_b - e_a must satisfy, for every shared instance,
 * S_b - E_a <= e <= E_b - S_a (times on the coarse clock). */
static void coll_bounds(const struct host *a, const struct host *b, struct pairfit *p)
{
	size_t cnt = 0;

	p->lo = -INFINITY;
	p->hi = INFINITY;
	if (!a->coll || !b->coll)
		return;
	for (size_t i = 0; i < ((size_t)1 << COLL_BITS); i++) {
		const struct coll *x = &a->coll[i];
		struct coll *y;

		if (!x->seq || x->min_end == UINT64_MAX)
			continue;
		y = coll_find((struct host *)b, x->comm, x->seq, x->op, false);
		if (!y || y->min_end == UINT64_MAX)
			continue;
		double sa = (double)to_coarse(a, x->max_start), ea = (double)to_coarse(a, x->min_end);
		double sb = (double)to_coarse(b, y->max_start), eb = (double)to_coarse(b, y->min_end);

		if (sb - ea > p->lo)
			p->lo = sb - ea;
		if (eb - sa < p->hi)
			p->hi = eb - sa;
		cnt++;
	}
	p->bounds = cnt > 0;
}

static void fit_pairs(struct merge *m)
{
	const double bin = (double)m->bin_ns;

	for (size_t i = 0; i < m->n; i++)
		for (size_t j = i + 1; j < m->n; j++) {
			struct host *a = &m->h[i], *b = &m->h[j];
			struct pairfit *p;
			int64_t lo = -(int64_t)(m->pad_ns / m->bin_ns), hi = -lo;

			if (!talk(a, b))
				continue;
			if (grow_array((void **)&m->pf, &m->cappf, m->npf + 1, sizeof(*m->pf)))
				return;
			p = &m->pf[m->npf];
			memset(p, 0, sizeof(*p));
			p->a = (int)i;
			p->b = (int)j;
			p->unc = -1;
			coll_bounds(a, b, p);
			if (p->bounds && p->lo <= p->hi + 2 * bin) {
				int64_t l = (int64_t)floor(p->lo / bin) - 1, h = (int64_t)ceil(p->hi / bin) + 1;

				lo = l > lo ? l : lo;
				hi = h < hi ? h : hi;
			} else if (p->bounds) {
				warnf(m, "%s and %s: their collectives contradict each other on any clock offset "
				      "(instances mismatched?); not used as bounds", a->label, b->label);
				p->bounds = false;
			}
			for (size_t k = 0; k < m->nwin; k++) {
				struct mf_est e = mergefit__pair(&a->win[k], &b->win[k], lo, hi);

				if (getenv("FABTRACE_MERGE_DEBUG"))
					fprintf(stderr, "merge: %s-%s window %zu [%lld,%lld] bins: %s e %.1f rtt %lld "
						"score %.3f second %.3f (bounds %d %.0f %.0f)\n", a->label, b->label, k,
						(long long)lo, (long long)hi, e.valid ? "valid" : "no", (double)e.e_bins2 / 2,
						(long long)e.rtt_bins, e.score, e.second, p->bounds, p->lo, p->hi);

				if (!e.valid || e.rtt_bins < -2)
					continue;
				p->t[p->nwin] = (double)m->wstart[k] + (double)m->wlen / 2 - m->tref;
				p->e[p->nwin] = (double)e.e_bins2 / 2 * bin;
				p->s[p->nwin] = ((double)llabs(e.rtt_bins) / 2 + 2) * bin; /* + a bin each side for the binning */
				p->nwin++;
			}
			m->npf++;
			if (!p->nwin)
				continue;
			mergefit__line(p->t, p->e, p->s, p->nwin, 0, &p->fa, &p->fb);
			double worst = 0, res = 0, tmin = p->t[0], tmax = p->t[0];

			for (size_t k = 0; k < p->nwin; k++) {
				worst = p->s[k] > worst ? p->s[k] : worst;
				tmin = p->t[k] < tmin ? p->t[k] : tmin;
				tmax = p->t[k] > tmax ? p->t[k] : tmax;
			}
			/* the clock pairs already give the drift (to ppb); the traffic's own
			 * slope counts only where it moves the offset by more than the
			 * matches' uncertainty across the windows */
			if (fabs(p->fb) * (tmax - tmin) <= 2 * worst) {
				double sw = 0, se = 0;

				p->fb = 0;

				for (size_t k = 0; k < p->nwin; k++) {
					sw += 1 / (p->s[k] * p->s[k]);
					se += p->e[k] / (p->s[k] * p->s[k]);
				}
				p->fa = se / sw;
			}
			worst = 0;

			for (size_t k = 0; k < p->nwin; k++) {
				double d = fabs(p->e[k] - (p->fa + p->fb * p->t[k]));

				worst = p->s[k] > worst ? p->s[k] : worst;
				res = d > res ? d : res;
			}
			p->unc = worst + res;
			p->causal_ok = !p->bounds || (p->fa >= p->lo - p->unc && p->fa <= p->hi + p->unc);
			if (!p->causal_ok) {
				warnf(m, "%s and %s: the traffic match (%+.3f ms) breaks the collectives' causal order; "
				      "pair not used", a->label, b->label, p->fa / 1e6);
				p->unc = -1;
			}
		}
}

static void place(struct merge *m)
{
	size_t n = m->n;
	double *w = malloc(n * n * sizeof(*w)), *dist = malloc(n * sizeof(*dist));
	int *prev = malloc(n * sizeof(*prev));

	if (!w || !dist || !prev)
		goto out;
	for (size_t i = 0; i < n * n; i++)
		w[i] = -1;
	for (size_t k = 0; k < m->npf; k++)
		if (m->pf[k].unc >= 0) {
			w[(size_t)m->pf[k].a * n + (size_t)m->pf[k].b] = m->pf[k].unc;
			w[(size_t)m->pf[k].b * n + (size_t)m->pf[k].a] = m->pf[k].unc;
		}
	mergefit__chain(n, w, prev, dist);
	m->h[0].flags |= FT_HOST_REFERENCE;
	m->h[0].unc = 0;
	for (size_t j = 1; j < n; j++) {
		struct host *h = &m->h[j];

		if (dist[j] < 0) {
			h->flags |= FT_HOST_COARSE;
			h->unc = h->c_unc;
			continue;
		}
		h->flags |= FT_HOST_TRAFFIC;
		h->unc = dist[j];
		for (int v = (int)j; prev[v] >= 0; v = prev[v]) {
			int u = prev[v];

			for (size_t k = 0; k < m->npf; k++) {
				const struct pairfit *p = &m->pf[k];

				if (p->unc < 0)
					continue;
				if (p->a == u && p->b == v) {
					h->e_a += p->fa;
					h->e_b += p->fb;
					h->pairs += (uint32_t)p->nwin;
					break;
				}
				if (p->a == v && p->b == u) {
					h->e_a -= p->fa;
					h->e_b -= p->fb;
					h->pairs += (uint32_t)p->nwin;
					break;
				}
			}
		}
	}
	for (size_t j = 0; j < n; j++) {
		struct host *h = &m->h[j];
		double t0c = (double)to_coarse(h, h->rt.t0_ns) - m->tref;

		if (h->unsynced)
			h->flags |= FT_HOST_UNSYNCED;
		/* final: t' = coarse(t) - e(coarse(t)) */
		h->rt.offset_ns = h->c_off - (int64_t)llround(h->e_a + h->e_b * t0c);
		h->rt.drift = (1 + h->c_drift) * (1 - h->e_b) - 1;
	}
out:
	free(w);
	free(dist);
	free(prev);
}

/* ---- ids ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool same_machine(const struct host *a, const struct host *b)
{
	return a->have_id && b->have_id && a->id.boot_id[0] && !strncmp(a->id.boot_id, b->id.boot_id, sizeof(a->id.boot_id));
}

static bool share(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		if (a[i] == b[j])
			return true;
		if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return false;
}

static void assign_ids(struct merge *m)
{
	uint32_t next_ns = 0x7f000000u, slot = 0, group = 0, port = 0, cpu = 0;

	for (size_t i = 0; i < m->n; i++) {
		if (m->h[i].npids)
			qsort(m->h[i].pids, m->h[i].npids, sizeof(uint32_t), cmp_u32);
		if (m->h[i].nnetns)
			qsort(m->h[i].netns, m->h[i].nnetns, sizeof(uint32_t), cmp_u32);
	}
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		bool pid_clash = false;

		h->rt.bin_ns = m->bin_ns;
		/* one host's ids after the other's: they stay small and dense */
		h->rt.slot_base = slot;
		h->rt.group_base = group;
		h->rt.port_base = port;
		h->rt.cpu_base = cpu;
		slot += h->max_slot + 1;
		group += h->max_group + 1;
		port += h->max_port + 1;
		cpu += (h->max_cpu + 1 > h->hdr.ncpus ? h->max_cpu + 1 : h->hdr.ncpus);
		for (size_t j = 0; j < i; j++) {
			if (same_machine(h, &m->h[j]))
				continue; /* one kernel: its pids and namespaces are one space */
			pid_clash |= share(h->pids, h->npids, m->h[j].pids, m->h[j].npids);
			for (size_t k = 0; k < h->nnetns; k++) {
				uint32_t v = h->netns[k];

				if (!share(&v, 1, m->h[j].netns, m->h[j].nnetns))
					continue;
				bool mapped = false;

				for (uint32_t q = 0; q < h->rt.nnetns; q++)
					mapped |= h->rt.netns[q][0] == v;
				if (!mapped && h->rt.nnetns < RETIME_MAX_NETNS) {
					h->rt.netns[h->rt.nnetns][0] = v;
					h->rt.netns[h->rt.nnetns++][1] = next_ns++;
				}
			}
		}
		if (pid_clash)
			h->rt.pid_base = (uint32_t)i << 22;
	}
}

static void make_labels(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		const char *name = h->have_id ? h->id.hostname : h->hdr.hostname;
		bool dup = false;

		for (size_t j = 0; j < m->n; j++) {
			const char *o = m->h[j].have_id ? m->h[j].id.hostname : m->h[j].hdr.hostname;

			dup |= j != i && !strncmp(name, o, 64);
		}
		if (dup && h->have_id && h->id.netns_name[0])
			snprintf(h->label, sizeof(h->label), "%.31s/%.31s", name, h->id.netns_name);
		else if (dup)
			snprintf(h->label, sizeof(h->label), "%.50s#%u", name, (unsigned)(i + 1) % 10000u);
		else
			snprintf(h->label, sizeof(h->label), "%.63s", name);
	}
}

/* ---- pass 3: the merged capture ---- */

static int write_host(struct merge *m, struct capture_writer *w, struct host *h, uint64_t *last)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];
	uint8_t buf[65536];

	(void)m;
	if (capture__open(&r, h->path, err, sizeof(err))) {
		ft_err("merge: %s", err);
		return -1;
	}
	while (capture__next(r, &rec) == 1) {
		struct ft_rec_hdr *x = (struct ft_rec_hdr *)(void *)buf;

		if (rec->type == FT_REC_END) {
			uint64_t t = retime__ts(&h->rt, ((const struct ft_end *)(const void *)rec)->ts_ns);

			*last = t > *last ? t : *last;
			continue;
		}
		memcpy(buf, rec, rec->size);
		if (x->type == FT_REC_IFACE) {
			struct ft_iface_info *f = (void *)buf;
			bool moved = false;

			for (uint32_t k = 0; k < h->rt.nnetns; k++)
				moved |= h->rt.netns[k][0] == f->netns;
			/* a host's own namespace gets its host's name, so views name the
			 * host; a namespace whose inode clashed with another host's keeps
			 * its name after the host's */
			if (!f->netns_name[0]) {
				str_copy(f->netns_name, h->label, sizeof(f->netns_name));
			} else if (moved) {
				char nm[sizeof(f->netns_name) + 1];

				memcpy(nm, f->netns_name, sizeof(f->netns_name));
				nm[sizeof(f->netns_name)] = '\0';
				snprintf(f->netns_name, sizeof(f->netns_name), "%.15s:%.15s", h->label, nm);
			}
		}
		retime__record(&h->rt, x);
		if (capture__append(w, x)) {
			ft_err("merge: %s", capture__last_error(w));
			capture__free(r);
			return -1;
		}
	}
	capture__free(r);
	return 0;
}

static int write_merged(struct merge *m)
{
	struct ft_file_header hdr = m->h[0].hdr;
	struct capture_writer *w = NULL;
	char err[CAPTURE_ERR_MAX], *tmp;
	const char *slash = strrchr(m->out, '/');
	uint64_t last = 0, start = UINT64_MAX;
	size_t off = 0;
	int rc = -1;

	tmp = malloc(strlen(m->out) + 32);
	if (!tmp)
		return -1;
	sprintf(tmp, "%.*s.%s.merge-%ld", slash ? (int)(slash - m->out + 1) : 0, m->out,
		slash ? slash + 1 : m->out, (long)getpid());
	for (size_t i = 0; i < m->n; i++) {
		uint64_t s = retime__ts(&m->h[i].rt, m->h[i].hdr.start_mono_ns);

		start = s < start ? s : start;
	}
	hdr.start_mono_ns = start;
	hdr.realtime_offset_ns = m->h[0].hdr.realtime_offset_ns;
	hdr.flags |= FT_FILE_MERGED;
	uint32_t maxcpu = 0;

	for (size_t i = 0; i < m->n; i++)
		maxcpu = m->h[i].hdr.ncpus > maxcpu ? m->h[i].hdr.ncpus : maxcpu;
	hdr.ncpus = maxcpu;
	memset(hdr.command, 0, sizeof(hdr.command));
	for (int i = 0; i < m->argc && off + 1 < sizeof(hdr.command); i++) {
		int k = snprintf(hdr.command + off, sizeof(hdr.command) - off, "%s%s", i ? " " : "", m->argv[i]);

		if (k < 0)
			break;
		off += (size_t)k;
	}
	if (capture__create(&w, tmp, &hdr, (uid_t)-1, (gid_t)-1, err, sizeof(err))) {
		ft_err("merge: %s", err);
		free(tmp);
		return -1;
	}
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		struct ft_host x = { .hdr = { FT_REC_HOST, sizeof(x), 0 } };

		x.index = (uint32_t)i;
		x.flags = h->flags;
		x.offset_ns = h->rt.offset_ns;
		x.drift_ppb = (int64_t)llround(h->rt.drift * 1e9);
		x.t0_ns = h->rt.t0_ns;
		x.uncertainty_ns = h->unc < 0 ? UINT64_MAX : (uint64_t)llround(h->unc);
		x.coarse_offset_ns = h->c_off;
		x.pid_base = h->rt.pid_base;
		x.pairs = h->pairs;
		str_copy(x.hostname, h->have_id ? h->id.hostname : h->hdr.hostname, sizeof(x.hostname));
		str_copy(x.label, h->label, sizeof(x.label));
		str_copy(x.source, base_name(h->path), sizeof(x.source));
		if (capture__append(w, &x.hdr))
			goto fail;
		for (size_t k = 0; k < h->nnetns; k++) {
			struct ft_host_netns hn = { .hdr = { FT_REC_HOST_NETNS, sizeof(hn), 0 } };

			hn.host = (uint32_t)i;
			hn.netns = h->netns[k];
			retime__record(&h->rt, &hn.hdr);
			if (capture__append(w, &hn.hdr))
				goto fail;
		}
	}
	for (size_t i = 0; i < m->n; i++)
		if (write_host(m, w, &m->h[i], &last))
			goto fail;
	{
		struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };

		end.ts_ns = last ? last : start;
		end.records = capture__records(w);
		end.stop_reason = FT_STOP_DURATION;
		if (capture__append(w, &end.hdr))
			goto fail;
	}
	if (capture__close(w)) {
		w = NULL;
		ft_err("merge: writing %s failed", tmp);
		goto fail;
	}
	w = NULL;
	if (rename(tmp, m->out)) {
		ft_err("merge: %s: %s", m->out, strerror(errno));
		goto fail;
	}
	rc = 0;
	goto done;
fail:
	if (w) {
		if (capture__last_error(w)[0])
			ft_err("merge: %s", capture__last_error(w));
		capture__close(w);
	}
	unlink(tmp);
done:
	free(tmp);
	return rc;
}

/* ---- summary ---- */

static void print_summary(const struct merge *m)
{
	char b1[32], b2[32];

	if (m->json) {
		struct json j;

		json_init(&j, stdout, false);
		json_object_begin(&j);
		json_kv_string(&j, "output", m->out);
		json_kv_u64(&j, "bin_ns", m->bin_ns);
		json_kv_u64(&j, "windows", m->nwin);
		json_key(&j, "hosts");
		json_array_begin(&j);
		for (size_t i = 0; i < m->n; i++) {
			const struct host *h = &m->h[i];

			json_object_begin(&j);
			json_kv_u64(&j, "index", i);
			json_kv_string(&j, "label", h->label);
			json_kv_string(&j, "source", h->path);
			json_kv_bool(&j, "reference", i == 0);
			json_kv_string(&j, "method", i == 0 ? "reference" :
				       (h->flags & FT_HOST_TRAFFIC) ? "traffic" : "realtime");
			json_kv_i64(&j, "offset_ns", h->rt.offset_ns);
			json_kv_i64(&j, "coarse_offset_ns", h->c_off);
			/* how far its realtime clock was off the reference's, as found */
			json_kv_double(&j, "clock_error_ns", h->e_a + h->e_b *
				       ((double)to_coarse(h, h->rt.t0_ns) - m->tref), 0);
			json_kv_double(&j, "drift_ppb", h->rt.drift * 1e9, 1);
			if (h->unc < 0)
				json_kv_string(&j, "uncertainty_ns", NULL);
			else
				json_kv_double(&j, "uncertainty_ns", h->unc, 0);
			if (h->c_unc < 0)
				json_kv_string(&j, "coarse_uncertainty_ns", NULL);
			else
				json_kv_double(&j, "coarse_uncertainty_ns", h->c_unc, 0);
			json_kv_bool(&j, "unsynchronised", h->unsynced);
			json_kv_u64(&j, "pairs", h->pairs);
			json_kv_u64(&j, "pid_base", h->rt.pid_base);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "pairs");
		json_array_begin(&j);
		for (size_t k = 0; k < m->npf; k++) {
			const struct pairfit *p = &m->pf[k];

			json_object_begin(&j);
			json_kv_string(&j, "a", m->h[p->a].label);
			json_kv_string(&j, "b", m->h[p->b].label);
			json_kv_u64(&j, "windows", p->nwin);
			if (p->unc < 0) {
				json_kv_string(&j, "offset_ns", NULL);
				json_kv_string(&j, "uncertainty_ns", NULL);
			} else {
				json_kv_double(&j, "offset_ns", p->fa, 0);
				json_kv_double(&j, "uncertainty_ns", p->unc, 0);
			}
			if (p->bounds) {
				json_kv_double(&j, "causal_lo_ns", p->lo, 0);
				json_kv_double(&j, "causal_hi_ns", p->hi, 0);
			}
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "warnings");
		json_array_begin(&j);
		for (size_t i = 0; i < m->nwarn; i++)
			json_string(&j, m->warnings[i]);
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	if (m->quiet)
		return;
	fprintf(stderr, "fabtrace: merged %zu hosts into %s (%zu traffic windows of %s)\n", m->n, m->out, m->nwin,
		fmt_ns(m->wlen, b1, sizeof(b1)));
	for (size_t i = 0; i < m->n; i++) {
		const struct host *h = &m->h[i];

		if (!i) {
			fprintf(stderr, "  %-24s reference clock\n", h->label);
			continue;
		}
		fprintf(stderr, "  %-24s offset %+.6f s (realtime anchors %+.6f s), drift %+.0f ppb, +- %s%s\n",
			h->label, (double)h->rt.offset_ns / 1e9, (double)h->c_off / 1e9, h->rt.drift * 1e9,
			h->unc < 0 ? "unknown" : fmt_ns((uint64_t)llround(h->unc), b2, sizeof(b2)),
			(h->flags & FT_HOST_TRAFFIC) ? " (from traffic)" : " (realtime anchors only)");
	}
}

static void free_merge(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];

		free(h->netns);
		free(h->pids);
		free(h->lo);
		free(h->slots);
		free(h->coll);
		for (size_t k = 0; k < MAX_WINDOWS; k++) {
			free(h->win[k].tx);
			free(h->win[k].rx);
		}
	}
	for (size_t i = 0; i < m->nwarn; i++)
		free(m->warnings[i]);
	free(m->warnings);
	free(m->pf);
	free(m->h);
}

static void plan_windows(struct merge *m)
{
	double maxunc = 0;
	bool unknown = false;

	m->ovl_lo = INT64_MIN;
	m->ovl_hi = INT64_MAX;
	for (size_t i = 0; i < m->n; i++) {
		const struct host *h = &m->h[i];
		int64_t a = to_coarse(h, h->t_first), b = to_coarse(h, h->t_last);

		m->ovl_lo = a > m->ovl_lo ? a : m->ovl_lo;
		m->ovl_hi = b < m->ovl_hi ? b : m->ovl_hi;
		if (h->c_unc < 0)
			unknown = true;
		else if (h->c_unc > maxunc)
			maxunc = h->c_unc;
	}
	m->pad_ns = unknown || maxunc > (double)m->max_window ? m->max_window : (uint64_t)maxunc;
	if (m->pad_ns < 20 * m->bin_ns)
		m->pad_ns = 20 * m->bin_ns;
	m->pad_ns = m->pad_ns / m->bin_ns * m->bin_ns;
	m->nwin = 0;
	m->tref = m->ovl_hi > m->ovl_lo ? ((double)m->ovl_lo + (double)m->ovl_hi) / 2 : 0;
	if (m->ovl_hi - m->ovl_lo < (int64_t)(200 * m->bin_ns))
		return;
	uint64_t span = (uint64_t)(m->ovl_hi - m->ovl_lo);
	size_t k = (size_t)(span / WINDOW_LEN_NS);

	k = k < 1 ? 1 : k > MAX_WINDOWS ? MAX_WINDOWS : k;
	m->wlen = span / k < WINDOW_LEN_NS ? span / k : WINDOW_LEN_NS;
	m->wlen = m->wlen / m->bin_ns * m->bin_ns;
	m->nwin = k;
	for (size_t i = 0; i < k; i++)
		m->wstart[i] = m->ovl_lo + (int64_t)((span / k) * i + (span / k - m->wlen) / 2);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "window", required_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'J' }, { "quiet", no_argument, NULL, 'q' },
		{ "anchors-only", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct merge m = { .max_window = DEFAULT_WINDOW_NS, .argc = argc, .argv = argv };
	char ob[64];
	int c, rc = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			m.out = optarg;
			break;
		case 'W':
			if (parse_duration(optarg, 1000000000ull, &m.max_window) || !m.max_window) {
				ft_err("merge: bad --window '%s'; give a duration such as 500ms or 2s", optarg);
				return 2;
			}
			break;
		case 'J':
			m.json = true;
			util_set_json(true);
			break;
		case 'q':
			m.quiet = true;
			break;
		case 'A':
			m.anchors_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err("merge: bad usage: %s '%s'; see 'fabtrace merge --help'",
			       c == ':' ? "missing value for" : "unknown option",
			       fmt_bad_opt(optopt, argv[optind - 1], ob, sizeof(ob)));
			return 2;
		}
	}
	if (!m.out) {
		ft_err("merge: no output; give -o FILE, e.g. fabtrace merge -o job.ftr node1.ftr node2.ftr");
		return 2;
	}
	{
		struct stat st;

		if (lstat(m.out, &st) == 0 && (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))) {
			ft_err("merge: %s: %s; choose another path", m.out, S_ISLNK(st.st_mode) ?
			       "is a symbolic link; refusing to write through it" : "exists and is not a regular file");
			return 1;
		}
	}
	if (argc - optind < 1) {
		ft_err("merge: no captures to merge; e.g. fabtrace merge -o job.ftr node1.ftr node2.ftr");
		return 2;
	}
	if (argc - optind > MERGE_MAX_HOSTS) {
		ft_err("merge: %d captures; at most %d can be merged", argc - optind, MERGE_MAX_HOSTS);
		return 2;
	}
	m.n = (size_t)(argc - optind);
	m.h = calloc(m.n, sizeof(*m.h));
	if (!m.h)
		return 1;
	for (size_t i = 0; i < m.n; i++) {
		m.h[i].path = argv[optind + (int)i];
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m.h[j].path, m.h[i].path)) {
				ft_err("merge: %s is given twice", m.h[i].path);
				goto out;
			}
		if (pass1(&m, &m.h[i]))
			goto out;
		if (i && m.h[i].hdr.bin_ns != m.h[0].hdr.bin_ns) {
			ft_err("merge: %s has %llu ns bins, %s %llu ns; record every host with the same --bin",
			       m.h[i].path, (unsigned long long)m.h[i].hdr.bin_ns, m.h[0].path,
			       (unsigned long long)m.h[0].hdr.bin_ns);
			goto out;
		}
	}
	m.bin_ns = m.h[0].hdr.bin_ns ? m.h[0].hdr.bin_ns : 100000;
	make_labels(&m);
	for (size_t i = 0; i < m.n; i++) {
		if (m.h[i].unsynced)
			warnf(&m, "%s: its clock said it was unsynchronised; its place comes from the traffic "
			      "alone (or is unknown)", m.h[i].label);
		else if (!m.h[i].nclk)
			warnf(&m, "%s: no clock pairs (an older capture); its realtime anchor is the header's",
			      m.h[i].label);
	}
	coarse(&m);
	if (!m.anchors_only)
		plan_windows(&m);
	for (size_t i = 0; i < m.n && m.nwin; i++)
		if (pass2(&m, &m.h[i])) {
			ft_err("merge: out of memory");
			goto out;
		}
	if (m.nwin && m.n > 1)
		fit_pairs(&m);
	else if (m.n > 1 && !m.anchors_only)
		warnf(&m, "the captures overlap by less than %s; clocks placed by their realtime anchors only",
		      fmt_ns(200 * m.bin_ns, ob, sizeof(ob)));
	place(&m);
	for (size_t i = 1; i < m.n; i++)
		if (!(m.h[i].flags & FT_HOST_TRAFFIC))
			warnf(&m, "%s: no traffic matched with another host; placed by its realtime anchor%s",
			      m.h[i].label, m.h[i].c_unc < 0 ? " with no bound (its skew against others means nothing)" : "");
	assign_ids(&m);
	if (write_merged(&m))
		goto out;
	print_summary(&m);
	rc = 0;
out:
	free_merge(&m);
	return rc;
}
