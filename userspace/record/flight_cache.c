// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The records a segment repeats at its start (flight_cache.h): the latest
 * of each, by (type, key), in arrival order, with a hash table over them.
 * Records of processes that exited are marked dead and dropped when the
 * next segment begins.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/util.h"
#include "probes/cfg_rec.h"
#include "userspace/capture/records.h"
#include "userspace/record/flight_cache.h"

struct centry {
	uint16_t type;          /* 0: dead */
	uint32_t pid;           /* the process it belongs to, 0 none */
	uint64_t k0, k1;
	struct ft_rec_hdr *rec;
};

struct flight_cache {
	struct centry *e;
	size_t n, cap;          /* entries in arrival order, dead ones included */
	size_t live;
	uint32_t *tab;          /* index + 1 into e, 0 empty */
	size_t tabcap;          /* a power of two, at least twice n */
	uint32_t *gone;         /* pids that exited since the last replay */
	size_t ngone, capgone;
	uint64_t dropped;
	uint16_t daemons;
	_Alignas(8) uint8_t buf[65536]; /* a record being rewritten for replay (sizes are u16) */
};

/* The order a preamble is written in, so that every record comes after
 * what it refers to (the session's own preamble has this order too). */
static const uint16_t replay_order[] = {
	FT_REC_HOST_ID, FT_REC_CLOCK, FT_REC_PROBE, FT_REC_PROBE_SPAN, FT_REC_DROP_REASON, FT_REC_PHASE_SLOT,
	FT_REC_IFACE, FT_REC_RDMA_PORT, FT_REC_CTR_GROUP, FT_REC_CTR_NAME, FT_REC_CTR_SAMPLE,
	FT_REC_PROC, FT_REC_COMM_INFO, FT_REC_SOCK_OWNER, FT_REC_CONFIG,
};

/* Repeated as they stand when the segment begins: dated at its start. */
#define REPLAY_DATED (1ull << FT_REC_PROC | 1ull << FT_REC_COMM_INFO | 1ull << FT_REC_SOCK_OWNER | \
		      1ull << FT_REC_CONFIG | 1ull << FT_REC_PROBE_SPAN)

int flight_cache__new(struct flight_cache **c)
{
	*c = calloc(1, sizeof(**c));
	return *c ? 0 : -ENOMEM;
}

void flight_cache__free(struct flight_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].rec);
	free(c->e);
	free(c->tab);
	free(c->gone);
	free(c);
}

uint64_t flight_cache__dropped(const struct flight_cache *c)
{
	return c->dropped;
}

uint16_t flight_cache__daemons(const struct flight_cache *c)
{
	return c->daemons;
}

static size_t slot_of(const struct flight_cache *c, uint16_t type, uint64_t k0, uint64_t k1)
{
	uint64_t h = fnv1a(FNV1A_SEED, &type, sizeof(type));

	h = fnv1a(h, &k0, sizeof(k0));
	h = fnv1a(h, &k1, sizeof(k1));
	return (size_t)h & (c->tabcap - 1);
}

/* The entry of (TYPE, K0, K1), or where a new one goes (*FOUND false). */
static size_t find(const struct flight_cache *c, uint16_t type, uint64_t k0, uint64_t k1, bool *found)
{
	size_t i = slot_of(c, type, k0, k1);

	for (;; i = (i + 1) & (c->tabcap - 1)) {
		const struct centry *e;

		if (!c->tab[i]) {
			*found = false;
			return i;
		}
		e = &c->e[c->tab[i] - 1];
		if (e->type == type && e->k0 == k0 && e->k1 == k1) {
			*found = true;
			return i;
		}
	}
}

static int rebuild(struct flight_cache *c, size_t tabcap)
{
	uint32_t *tab = calloc(tabcap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	free(c->tab);
	c->tab = tab;
	c->tabcap = tabcap;
	for (size_t i = 0; i < c->n; i++) {
		bool found;

		if (c->e[i].type)
			c->tab[find(c, c->e[i].type, c->e[i].k0, c->e[i].k1, &found)] = (uint32_t)i + 1;
	}
	return 0;
}

static void kill_entry(struct flight_cache *c, struct centry *e)
{
	free(e->rec);
	e->rec = NULL;
	e->type = 0;
	c->live--;
}

/* Drop dead entries and those of processes that are gone, then rebuild the table. */
static int compact(struct flight_cache *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct centry *e = &c->e[i];

		for (size_t g = 0; e->type && e->pid && g < c->ngone; g++)
			if (c->gone[g] == e->pid)
				kill_entry(c, e);
		/* a process nobody told us ended (not followed, only seen) */
		if (e->type && e->pid && kill((pid_t)e->pid, 0) && errno == ESRCH)
			kill_entry(c, e);
		if (e->type)
			c->e[k++] = *e;
	}
	c->n = k;
	c->ngone = 0;
	return rebuild(c, c->tabcap ? c->tabcap : 64);
}

static int upsert(struct flight_cache *c, uint16_t type, uint32_t pid, uint64_t k0, uint64_t k1,
		  const struct ft_rec_hdr *rec)
{
	struct ft_rec_hdr *copy;
	bool found;
	size_t t;

	if (c->n >= (size_t)2 * FLIGHT_CACHE_MAX && compact(c)) /* many processes came and went */
		return -ENOMEM;
	if ((c->n + 1) * 2 > c->tabcap && rebuild(c, c->tabcap ? c->tabcap * 2 : 64))
		return -ENOMEM;
	t = find(c, type, k0, k1, &found);
	if (!found && c->live >= FLIGHT_CACHE_MAX)
		return -ENOMEM;
	copy = malloc(rec->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, rec->size);
	if (found) {
		struct centry *e = &c->e[c->tab[t] - 1];

		free(e->rec);
		e->rec = copy;
		return 0;
	}
	if (grow_array((void **)&c->e, &c->cap, c->n + 1, sizeof(*c->e))) {
		free(copy);
		return -ENOMEM;
	}
	c->e[c->n] = (struct centry){ .type = type, .pid = pid, .k0 = k0, .k1 = k1, .rec = copy };
	c->tab[t] = (uint32_t)++c->n;
	c->live++;
	return 0;
}

/* PID exited: its proc entry goes now, its other records at the next segment. */
static void proc_gone(struct flight_cache *c, uint32_t pid)
{
	bool found;
	size_t t;

	if (!c->tabcap)
		return;
	t = find(c, FT_REC_PROC, pid, 0, &found);
	if (found)
		kill_entry(c, &c->e[c->tab[t] - 1]);
	if (!grow_array((void **)&c->gone, &c->capgone, c->ngone + 1, sizeof(*c->gone)))
		c->gone[c->ngone++] = pid;
}

/* PID (re)appears: records left from an earlier process of that pid go. */
static void proc_born(struct flight_cache *c, uint32_t pid)
{
	bool was_gone = false;

	for (size_t g = 0; g < c->ngone; g++)
		if (c->gone[g] == pid) {
			c->gone[g] = c->gone[--c->ngone];
			was_gone = true;
			break;
		}
	if (!was_gone)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].type && c->e[i].pid == pid)
			kill_entry(c, &c->e[i]);
}

static int note_host_id(void *ctx, const struct ft_host_id *r)
{
	return upsert(ctx, r->hdr.type, 0, 0, 0, &r->hdr);
}

static int note_clock(void *ctx, const struct ft_clock *r)
{
	((struct flight_cache *)ctx)->daemons = r->daemons; /* a segment gets a fresh pair */
	return 0;
}

static int note_probe(void *ctx, const struct ft_probe_info *r)
{
	return upsert(ctx, r->hdr.type, 0, r->id, 0, &r->hdr);
}

/* The post-window probes' span that is open: a segment begun inside it opens it again. */
static int note_probe_span(void *ctx, const struct ft_probe_span *r)
{
	struct flight_cache *c = ctx;
	bool found;
	size_t t;

	if (r->on)
		return upsert(c, r->hdr.type, 0, 0, 0, &r->hdr);
	if (!c->tabcap)
		return 0;
	t = find(c, FT_REC_PROBE_SPAN, 0, 0, &found);
	if (found)
		kill_entry(c, &c->e[c->tab[t] - 1]);
	return 0;
}

static int note_drop_reason(void *ctx, const struct ft_drop_reason *r)
{
	return upsert(ctx, r->hdr.type, 0, r->reason, 0, &r->hdr);
}

static int note_phase_slot(void *ctx, const struct ft_phase_slot *r)
{
	return upsert(ctx, r->hdr.type, 0, r->slot, 0, &r->hdr);
}

static int note_iface(void *ctx, const struct ft_iface_info *r)
{
	return upsert(ctx, r->hdr.type, 0, (uint64_t)r->netns << 32 | r->ifindex, 0, &r->hdr);
}

static int note_rdma_port(void *ctx, const struct ft_rdma_port *r)
{
	return upsert(ctx, r->hdr.type, 0, r->port_id, 0, &r->hdr);
}

static int note_ctr_group(void *ctx, const struct ft_ctr_group *r)
{
	return upsert(ctx, r->hdr.type, 0, r->group, 0, &r->hdr);
}

static int note_ctr_name(void *ctx, const struct ft_ctr_name *r)
{
	return upsert(ctx, r->hdr.type, 0, (uint64_t)r->group << 32 | r->index, 0, &r->hdr);
}

static int note_ctr_sample(void *ctx, const struct ft_ctr_sample *r)
{
	return upsert(ctx, r->hdr.type, 0, r->group, 0, &r->hdr);
}

static int note_proc(void *ctx, const struct ft_proc *r)
{
	if (r->event == FT_PROC_EXIT) {
		proc_gone(ctx, r->pid);
		return 0;
	}
	if (r->event == FT_PROC_FORK)
		proc_born(ctx, r->pid);
	return upsert(ctx, r->hdr.type, r->pid, r->pid, 0, &r->hdr);
}

static int note_comm_info(void *ctx, const struct ft_comm_info *r)
{
	return upsert(ctx, r->hdr.type, r->pid, (uint64_t)r->pid << 32 | r->slot, r->comm, &r->hdr);
}

static int note_sock_owner(void *ctx, const struct ft_sock_owner *r)
{
	return upsert(ctx, r->hdr.type, r->pid, r->pid, fnv1a(FNV1A_SEED, &r->flow, sizeof(r->flow)), &r->hdr);
}

/*
 * A setting the recording runs under, by its object and key as the model
 * tells settings apart (model_config.c): the latest value.  A rank's
 * belongs to its process; a socket's is left to the segments that saw it
 * (sockets come and go, and nothing says when one closed).
 */
static int note_config(void *ctx, const struct ft_config *r)
{
	const char *key, *value;
	uint64_t k0;

	if (r->scope == FT_CFG_FLOW || cfgrec__parse(&r->hdr, &key, &value))
		return 0;
	k0 = fnv1a(FNV1A_SEED, &r->scope, sizeof(r->scope));
	k0 = fnv1a(k0, &r->netns, sizeof(r->netns));
	k0 = fnv1a(k0, &r->id, sizeof(r->id));
	k0 = fnv1a(k0, &r->handle, sizeof(r->handle));
	if (r->scope != FT_CFG_RANK) /* a process is its pid: its name changes when it execs */
		k0 = fnv1a(k0, r->object, strnlen(r->object, sizeof(r->object)));
	return upsert(ctx, r->hdr.type, r->scope == FT_CFG_RANK ? r->id : 0, k0, fnv1a(FNV1A_SEED, key, strlen(key)),
		      &r->hdr);
}

/* the types a segment repeats (replay_order), and the clock's daemons */
static const struct capture_visitor note_visitor = {
	.host_id = note_host_id, .clock = note_clock, .probe = note_probe, .probe_span = note_probe_span,
	.drop_reason = note_drop_reason, .phase_slot = note_phase_slot, .iface = note_iface,
	.rdma_port = note_rdma_port, .ctr_group = note_ctr_group, .ctr_name = note_ctr_name,
	.ctr_sample = note_ctr_sample, .proc = note_proc, .comm_info = note_comm_info,
	.sock_owner = note_sock_owner, .config = note_config,
};

int flight_cache__note(struct flight_cache *c, const struct ft_rec_hdr *rec)
{
	int rc = capture__visit(&note_visitor, c, rec);

	if (rc == -ENOMEM)
		c->dropped++;
	return rc;
}

/* A copy of E's record as the new segment repeats it: a process's records
 * and the settings are dated AT_NS, a proc is existing then. */
static const struct ft_rec_hdr *replayed(struct flight_cache *c, const struct centry *e, uint64_t at_ns)
{
	uint16_t at = capture__rec_fields(e->type)->time[0];

	memcpy(c->buf, e->rec, e->rec->size);
	if (((REPLAY_DATED >> e->type) & 1) && at)
		memcpy(c->buf + at, &at_ns, sizeof(at_ns));
	if (e->type == FT_REC_PROC) {
		struct ft_proc *p = (void *)c->buf;

		p->event = FT_PROC_EXISTING;
		p->exit_code = 0;
	}
	return (const struct ft_rec_hdr *)(const void *)c->buf;
}

long flight_cache__replay(struct flight_cache *c, const struct ft_clock *clock, uint64_t at_ns,
			  flight_emit_fn emit, void *ctx)
{
	long n = 0;
	int rc;

	if (compact(c))
		return -ENOMEM;
	for (size_t t = 0; t < sizeof(replay_order) / sizeof(replay_order[0]); t++) {
		if (replay_order[t] == FT_REC_CLOCK) {
			rc = emit(ctx, &clock->hdr);
			if (rc)
				return rc;
			n++;
			continue;
		}
		for (size_t i = 0; i < c->n; i++) {
			if (c->e[i].type != replay_order[t])
				continue;
			rc = emit(ctx, replayed(c, &c->e[i], at_ns));
			if (rc)
				return rc;
			n++;
		}
	}
	return n;
}
