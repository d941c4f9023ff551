// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model's storage while loading (model_priv.h): keyed vectors (a
 * growable array of structs whose first ksz bytes are the key, indexed by
 * an open-addressing hash table of array indices), plain vectors,
 * creating and freeing a model with its loading state, and the flows'
 * sort order (model_finish.c and model_phases.c use it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

void mdl_kvec_init(struct kvec *v, size_t isz, size_t ksz)
{
	memset(v, 0, sizeof(*v));
	v->isz = isz;
	v->ksz = ksz;
}

void mdl_kvec_free(struct kvec *v)
{
	free(v->items);
	free(v->slots);
	v->items = NULL;
	v->slots = NULL;
	v->n = v->cap = v->nslots = 0;
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

void *mdl_kvec_at(const struct kvec *v, size_t i)
{
	return v->items + i * v->isz;
}

int mdl_kvec_reindex(struct kvec *v, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(v->slots);
	v->slots = s;
	v->nslots = nslots;
	for (size_t i = 0; i < v->n; i++) {
		size_t h = hash_bytes(mdl_kvec_at(v, i), v->ksz) & (nslots - 1);

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* Index of KEY, or -1 if absent. */
long mdl_kvec_find(const struct kvec *v, const void *key)
{
	if (!v->nslots)
		return -1;
	size_t h = hash_bytes(key, v->ksz) & (v->nslots - 1);

	while (v->slots[h]) {
		size_t i = v->slots[h] - 1;

		if (!memcmp(mdl_kvec_at(v, i), key, v->ksz))
			return (long)i;
		h = (h + 1) & (v->nslots - 1);
	}
	return -1;
}

/* Index of KEY, created zeroed (with the key copied in) if absent; -1 on ENOMEM. */
long mdl_kvec_get(struct kvec *v, const void *key, bool *created)
{
	long i = mdl_kvec_find(v, key);

	if (created)
		*created = false;
	if (i >= 0)
		return i;
	if (v->n >= UINT32_MAX - 1)
		return -1;
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 16;
		void *p = realloc(v->items, nc * v->isz);

		if (!p)
			return -1;
		v->items = p;
		v->cap = nc;
	}
	void *it = mdl_kvec_at(v, v->n);

	memset(it, 0, v->isz);
	memcpy(it, key, v->ksz);
	v->n++;
	if (v->n * 2 > v->nslots) {
		if (mdl_kvec_reindex(v, v->nslots ? v->nslots * 2 : 64)) {
			v->n--;
			return -1;
		}
	} else {
		size_t h = hash_bytes(key, v->ksz) & (v->nslots - 1);

		while (v->slots[h])
			h = (h + 1) & (v->nslots - 1);
		v->slots[h] = (uint32_t)v->n;
	}
	if (created)
		*created = true;
	return (long)(v->n - 1);
}

void *mdl_vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 256;
		void *p = realloc(v->items, nc * v->isz);

		if (!p)
			return NULL;
		v->items = p;
		v->cap = nc;
	}
	return (unsigned char *)v->items + v->isz * v->n++;
}

void mdl_vec_free(struct vec *v)
{
	free(v->items);
	v->items = NULL;
	v->n = v->cap = 0;
}

void model_opts__init(struct model_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->burst_threshold = 0.5;
	o->burst_gap_ns = 0;
	o->conserve_tol_bytes = 0;
	o->conserve_tol_frac = 0; /* exact, but for packets in flight (see mdl_conserve()) */
	o->spike_rate = 1000;
}

struct model *model__new(const struct ft_file_header *hdr, const struct model_opts *o)
{
	struct model *m;

	if (!hdr || !hdr->bin_ns) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->priv = calloc(1, sizeof(*m->priv));
	if (m->priv && !(m->priv->ctr = model_ctr__new())) {
		free(m->priv);
		m->priv = NULL;
	}
	if (!m->priv) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->hdr = *hdr;
	if (o)
		m->opts = *o;
	else
		model_opts__init(&m->opts);
	if (!(m->opts.burst_threshold >= 0)) /* also NaN */
		m->opts.burst_threshold = 0.5;
	if (!(m->opts.conserve_tol_frac >= 0))
		m->opts.conserve_tol_frac = 0;
	if (!m->opts.burst_gap_ns)
		m->opts.burst_gap_ns = hdr->bin_ns;
	if (!(m->opts.spike_rate > 0))
		m->opts.spike_rate = 1000;
	m->start_ns = m->capture_start_ns = hdr->start_mono_ns;

	struct model_priv *p = m->priv;

	mdl_kvec_init(&p->ifaces, sizeof(struct model_iface), 8);
	mdl_kvec_init(&p->qdiscs, sizeof(struct model_qdisc), 12);
	mdl_kvec_init(&p->flows, sizeof(struct model_flow), sizeof(struct ft_flow));
	mdl_kvec_init(&p->drops, sizeof(struct model_drop), 12);
	mdl_kvec_init(&p->lost, sizeof(struct model_lost), 8);
	mdl_kvec_init(&p->cong, sizeof(struct model_cong_pair), 2);
	mdl_kvec_init(&p->reasons, sizeof(struct reason_name), 4);
	mdl_kvec_init(&p->probes, sizeof(struct model_probe), 4);
	mdl_kvec_init(&p->coverage, sizeof(struct capture_cov), 4);
	mdl_kvec_init(&p->slots, sizeof(struct model_slot), 4);
	mdl_kvec_init(&p->comms, sizeof(struct model_comm), 16);
	mdl_kvec_init(&p->procs, sizeof(struct model_proc), 4);
	mdl_kvec_init(&p->owners, sizeof(struct model_owner), offsetof(struct model_owner, tid));
	p->phases.isz = sizeof(struct model_phase);
	p->req_dones.isz = sizeof(struct model_req_done);
	p->rtx.isz = sizeof(struct rtx_raw);
	p->dropev.isz = sizeof(struct drop_raw);
	p->congev.isz = sizeof(struct cong_raw);
	p->resumeev.isz = sizeof(struct resume_raw);
	p->lostev.isz = sizeof(struct model_lost_ev);
	return m;
}

static void priv_free(struct model_priv *p)
{
	if (!p)
		return;
	mdl_kvec_free(&p->ifaces);
	mdl_kvec_free(&p->qdiscs);
	mdl_kvec_free(&p->flows);
	mdl_kvec_free(&p->drops);
	mdl_kvec_free(&p->lost);
	mdl_window_free(&p->win);
	mdl_kvec_free(&p->cong);
	mdl_kvec_free(&p->reasons);
	mdl_kvec_free(&p->probes);
	mdl_kvec_free(&p->coverage);
	mdl_kvec_free(&p->slots);
	mdl_kvec_free(&p->comms);
	mdl_kvec_free(&p->procs);
	mdl_kvec_free(&p->owners);
	mdl_vec_free(&p->phases);
	mdl_vec_free(&p->req_dones);
	mdl_vec_free(&p->rtx);
	mdl_vec_free(&p->dropev);
	mdl_vec_free(&p->congev);
	mdl_vec_free(&p->resumeev);
	mdl_vec_free(&p->lostev);
	model_ctr__free(p->ctr);
	free(p->raw);
	free(p->qraw);
	free(p);
}

void model__free(struct model *m)
{
	if (!m)
		return;
	/* the public arrays alias the kvec items and the raw arrays */
	priv_free(m->priv);
	model_config__free(m->config);
	free(m->bursts);
	free(m->rtx_events);
	free(m->cong_events);
	free(m->resume_events);
	free(m->drop_events);
	free(m->ctr_events);
	free(m->lost_evs);
	free(m->triggers);
	free(m->spans);
	free(m->sched_waits);
	free(m);
}

int mdl_cmp_flow_key(const struct ft_flow *x, const struct ft_flow *y)
{
	int c = cmp_u32(x->netns, y->netns);

	if (!c)
		c = cmp_u32(x->family, y->family);
	if (!c)
		c = memcmp(x->saddr, y->saddr, sizeof(x->saddr));
	if (!c)
		c = cmp_u32(x->sport, y->sport);
	if (!c)
		c = memcmp(x->daddr, y->daddr, sizeof(x->daddr));
	if (!c)
		c = cmp_u32(x->dport, y->dport);
	return c ? c : cmp_u32(x->proto, y->proto);
}
