// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a merge reads of each host's capture (capture/merge.c says the
 * whole): pass 1, its identity, clock pairs and sync state, namespaces,
 * pids, flows and the entry and exit of each collective instance; pass 2,
 * its traffic binned in the merge's windows on the coarse clock.  Both
 * through the record visitor (records.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/merge_priv.h"
#include "userspace/capture/records.h"

/* V (SIZE bytes) into the set *A of *N unless it is there.  0 or -ENOMEM. */
static int add_unique(void **a, size_t *n, size_t *cap, const void *v, size_t size)
{
	for (size_t i = *n; i > 0; i--) /* recent first: ids come in runs */
		if (!memcmp((const uint8_t *)*a + (i - 1) * size, v, size))
			return 0;
	if (grow_array(a, cap, *n + 1, size))
		return -ENOMEM;
	memcpy((uint8_t *)*a + (*n)++ * size, v, size);
	return 0;
}

static int add_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
	return add_unique((void **)a, n, cap, &v, sizeof(v));
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

struct coll *mrg_coll_find(struct host *h, uint64_t comm, uint64_t seq, uint32_t op, bool add)
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

static int p1_host_id(void *ctx, const struct ft_host_id *r)
{
	struct host *h = ctx;

	if (!h->have_id)
		h->id = *r;
	h->have_id = true;
	return 0;
}

static int p1_clock(void *ctx, const struct ft_clock *c)
{
	struct host *h = ctx;
	double t, e;

	if (!c->mono_ns)
		return 0;
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
	return 0;
}

static int p1_iface(void *ctx, const struct ft_iface_info *f)
{
	struct host *h = ctx;
	uint64_t tif = (uint64_t)f->netns << 32 | f->ifindex;

	if (add_u32(&h->netns, &h->nnetns, &h->capnetns, f->netns) ||
	    ((f->flags & FT_IFACE_TRACED) &&
	     add_unique((void **)&h->tif, &h->ntif, &h->captif, &tif, sizeof(tif))))
		return -ENOMEM;
	if (!strncmp(f->name, "lo", sizeof(f->name))) {
		if (grow_array((void **)&h->lo, &h->caplo, h->nlo + 1, sizeof(*h->lo)))
			return -ENOMEM;
		h->lo[h->nlo].netns = f->netns;
		h->lo[h->nlo++].ifindex = f->ifindex;
	}
	return 0;
}

static int p1_iface_bin(void *ctx, const struct ft_iface_bin *b)
{
	note_t(ctx, b->start_ns);
	return 0;
}

static int p1_phase_slot(void *ctx, const struct ft_phase_slot *s)
{
	struct host *h = ctx;

	if (grow_array((void **)&h->slots, &h->capslots, h->nslots + 1, sizeof(*h->slots)))
		return -ENOMEM;
	h->slots[h->nslots].slot = s->slot;
	h->slots[h->nslots++].op = s->op;
	if (s->slot > h->max_slot)
		h->max_slot = s->slot;
	return 0;
}

static int p1_phase(void *ctx, const struct ft_phase *p)
{
	struct host *h = ctx;
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
		return 0;
	op = slot_op(h, p->slot);
	if (!causal_op(op))
		return 0;
	c = mrg_coll_find(h, p->comm, p->seq, op, true);
	if (c) {
		if (p->start_ns > c->max_start)
			c->max_start = p->start_ns;
		if (p->end_ns < c->min_end)
			c->min_end = p->end_ns;
	}
	return 0;
}

static int p1_proc(void *ctx, const struct ft_proc *p)
{
	struct host *h = ctx;

	return add_u32(&h->pids, &h->npids, &h->cappids, p->pid) ? -ENOMEM : 0;
}

static int p1_sock_owner(void *ctx, const struct ft_sock_owner *r)
{
	add_flow(ctx, &r->flow);
	return 0;
}

static int p1_tcp_sample(void *ctx, const struct ft_tcp_sample *r)
{
	add_flow(ctx, &r->flow);
	return 0;
}

/* the highest ids of this host: the next host's are moved past them */
static int raise_to(uint32_t *max, uint32_t id)
{
	*max = id > *max ? id : *max;
	return 0;
}

static int p1_rdma_port(void *ctx, const struct ft_rdma_port *r)
{
	return raise_to(&((struct host *)ctx)->max_port, r->port_id);
}

static int p1_ctr_group(void *ctx, const struct ft_ctr_group *r)
{
	return raise_to(&((struct host *)ctx)->max_group, r->group);
}

static int p1_lost(void *ctx, const struct ft_lost *r)
{
	return raise_to(&((struct host *)ctx)->max_cpu, r->cpu);
}

static int p1_end(void *ctx, const struct ft_end *r)
{
	struct host *h = ctx;

	note_t(h, r->ts_ns);
	h->stop_reason = r->stop_reason;
	return 0;
}

static const struct capture_visitor pass1_visitor = {
	.host_id = p1_host_id, .clock = p1_clock, .iface = p1_iface, .iface_bin = p1_iface_bin,
	.phase_slot = p1_phase_slot, .phase = p1_phase, .proc = p1_proc, .sock_owner = p1_sock_owner,
	.tcp_sample = p1_tcp_sample, .rdma_port = p1_rdma_port, .ctr_group = p1_ctr_group,
	.lost = p1_lost, .end = p1_end,
};

int mrg_pass1(struct host *h)
{
	struct capture_reader *r = NULL;
	char err[CAPTURE_ERR_MAX];

	if (capture__open(&r, h->path, err, sizeof(err))) {
		ft_err("merge: %s", err);
		return -1;
	}
	h->hdr = *capture__header(r);
	note_t(h, h->hdr.start_mono_ns);
	capture__index_blocks(r, &h->blocks, NULL);
	if (capture__visit_reader(r, &pass1_visitor, h)) {
		ft_err("merge: out of memory");
		capture__free(r);
		return -1;
	}
	h->state = capture__state(r);
	if (h->state != CAPTURE_OK) {
		h->flags |= FT_HOST_DAMAGED; /* said in the merged capture too */
		str_copy(h->error, capture__error(r), sizeof(h->error));
	}
	capture__free(r);
	return 0;
}

/* ---- pass 2: traffic in windows ---- */

static bool is_lo(const struct host *h, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < h->nlo; i++)
		if (h->lo[i].netns == netns && h->lo[i].ifindex == ifindex)
			return true;
	return false;
}

/* A host's traffic of pass 2: its bins into the windows, on the coarse clock. */
struct pass2 {
	const struct merge *m;
	struct host *h;
};

/* Host H's series of window K: false if it has none, else its span [*LO, *HI) on the coarse clock. */
static bool p2_window(const struct merge *m, const struct host *h, size_t k, int64_t *lo, int64_t *hi)
{
	*lo = mrg_sat_sub(m->win[k].start, (int64_t)m->pad_ns);
	*hi = mrg_sat_add(*lo, (int64_t)(h->win[k].n * m->bin_ns));
	return h->win[k].tx != NULL;
}

static int p2_bin(void *ctx, const struct ft_iface_bin *b)
{
	const struct pass2 *p = ctx;
	const struct merge *m = p->m;
	struct host *h = p->h;
	int64_t t, lo, hi;

	if (is_lo(h, b->netns, b->ifindex))
		return 0;
	t = mrg_to_coarse(h, b->start_ns);
	for (size_t k = 0; k < m->nwin; k++) {
		if (!p2_window(m, h, k, &lo, &hi) || t < lo || t >= hi)
			continue;
		float *a = b->dir == FT_DIR_TX ? h->win[k].tx : h->win[k].rx;

		a[(t - lo) / (int64_t)m->bin_ns] += (float)b->bytes;
	}
	return 0;
}

/* Pass 2 reads the bins of its windows alone: a block of none passes (capture_skip_fn). */
static enum capture_block_use p2_skip(void *ctx, const struct capture_block_sum *b)
{
	const struct pass2 *p = ctx;
	const struct merge *m = p->m;
	const struct host *h = p->h;
	int64_t first, last, lo, hi;

	if (!(b->types & 1ull << FT_REC_IFACE_BIN))
		return CAPTURE_BLOCK_PASS;
	first = mrg_to_coarse(h, b->min_ns); /* the clock only moves forward: the bins lie in between */
	last = mrg_to_coarse(h, b->max_ns);
	for (size_t k = 0; k < m->nwin; k++)
		if (p2_window(m, h, k, &lo, &hi) && last >= lo && first < hi)
			return CAPTURE_BLOCK_READ;
	return CAPTURE_BLOCK_PASS;
}

int mrg_pass2(const struct merge *m, struct host *h)
{
	static const struct capture_visitor v = { .iface_bin = p2_bin };
	struct pass2 p = { .m = m, .h = h };
	struct capture_reader *r = NULL;
	char err[CAPTURE_ERR_MAX];
	int64_t first = mrg_to_coarse(h, h->t_first), last = mrg_to_coarse(h, h->t_last);

	/* only the windows this host recorded through: a pair matches where both did */
	for (size_t k = 0; k < m->nwin; k++) {
		size_t n = (size_t)((m->win[k].len + 2 * m->pad_ns) / m->bin_ns);

		if (!h->t_first || !mergefit__inside(&m->win[k], first, last))
			continue;
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
	capture__skip_blocks(r, &h->blocks, p2_skip, &p);
	(void)capture__visit_reader(r, &v, &p);
	capture__free(r);
	/* compress the big bins: a match should follow the shape, not one burst */
	for (size_t k = 0; k < m->nwin; k++)
		for (size_t i = 0; i < h->win[k].n; i++) {
			h->win[k].tx[i] = sqrtf(h->win[k].tx[i]);
			h->win[k].rx[i] = sqrtf(h->win[k].rx[i]);
		}
	return 0;
}
