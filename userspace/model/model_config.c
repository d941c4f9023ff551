// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration store (model_config.h): each setting once, with its
 * first and last value, found while loading through a hash of what it
 * belongs to; sorted at finish, then looked up by binary search.  It
 * calls nothing else of the model (model_add.c, model_finish.c and
 * model_store.c call it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/util.h"
#include "probes/cfg_rec.h"
#include "userspace/model/model.h"
#include "userspace/model/model_config.h"

struct model_config {
	struct model_cfg *items;
	size_t n, cap;
	uint32_t *slots;            /* index + 1 by identity hash, 0 empty; nslots a power of two */
	size_t nslots;
	uint32_t (*host_ns)[2];     /* merged captures: (netns, host) */
	size_t nhost_ns, caphost_ns;
	size_t damaged, unknown;
	bool finished;
};

struct model_config *model_config__new(void)
{
	return calloc(1, sizeof(struct model_config));
}

void model_config__free(struct model_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		if (c->items[i].last != c->items[i].value)
			free((char *)c->items[i].last);
		free((char *)c->items[i].value);
		free((char *)c->items[i].key);
	}
	free(c->items);
	free(c->slots);
	free(c->host_ns);
	free(c);
}

/*
 * What a setting belongs to, and its key: equal for the same setting.  A
 * process is its pid: its name (object) changes when it execs.
 */
static uint64_t ident_hash(const struct model_cfg *x)
{
	uint64_t h = fnv1a(FNV1A_SEED, &x->scope, 1);

	h = fnv1a(h, &x->netns, 4);
	h = fnv1a(h, &x->id, 4);
	h = fnv1a(h, &x->handle, 4);
	h = fnv1a(h, &x->flow, sizeof(x->flow));
	if (x->scope != FT_CFG_RANK)
		h = fnv1a(h, x->object, strlen(x->object));
	return fnv1a(h, x->key, strlen(x->key));
}

static int flow_cmp(const struct ft_flow *a, const struct ft_flow *b)
{
	return memcmp(a, b, sizeof(*a));
}

static bool same_ident(const struct model_cfg *a, const struct model_cfg *b)
{
	return a->scope == b->scope && a->netns == b->netns && a->id == b->id && a->handle == b->handle &&
	       !flow_cmp(&a->flow, &b->flow) && (a->scope == FT_CFG_RANK || !strcmp(a->object, b->object)) &&
	       !strcmp(a->key, b->key);
}

static int reindex(struct model_config *c, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(c->slots);
	c->slots = s;
	c->nslots = nslots;
	for (size_t i = 0; i < c->n; i++) {
		size_t h = ident_hash(&c->items[i]) & (nslots - 1);

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* A flow as the model keys it: ifindex and padding zeroed, IPv4 without trailing bytes. */
static void flow_key(const struct ft_flow *f, struct ft_flow *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->saddr, f->saddr, f->family == 4 ? 4 : 16);
	memcpy(k->daddr, f->daddr, f->family == 4 ? 4 : 16);
	k->sport = f->sport;
	k->dport = f->dport;
	k->family = f->family;
	k->proto = f->proto;
	k->netns = f->netns;
}

/* Keys that count or mark what was read, not settings: never "changed". */
static bool is_marker(const char *key)
{
	return !strcmp(key, "env_vars") || !strcmp(key, "sysctls_differing");
}

static int add_host_netns(struct model_config *c, const struct ft_host_netns *h)
{
	if (grow_array((void **)&c->host_ns, &c->caphost_ns, c->nhost_ns + 1, sizeof(*c->host_ns)))
		return -ENOMEM;
	c->host_ns[c->nhost_ns][0] = h->netns;
	c->host_ns[c->nhost_ns][1] = h->host;
	c->nhost_ns++;
	return 0;
}

int model_config__add(struct model_config *c, const struct ft_rec_hdr *rec)
{
	const struct ft_config *r = (const void *)rec;
	struct model_cfg x = {0};
	const char *key, *value;
	size_t h;

	if (rec->type == FT_REC_HOST_NETNS && rec->size >= sizeof(struct ft_host_netns))
		return add_host_netns(c, (const void *)rec);
	if (rec->type != FT_REC_CONFIG)
		return 0;
	if (c->finished || cfgrec__parse(rec, &key, &value) || !key[0]) {
		c->damaged++;
		return 0;
	}
	x.scope = r->scope;
	x.flags = r->flags;
	x.unknown = (r->flags & FT_CFGF_UNKNOWN) != 0;
	x.netns = r->netns;
	x.id = r->id;
	x.handle = r->handle;
	x.parent = r->parent;
	if (r->scope == FT_CFG_FLOW)
		flow_key(&r->flow, &x.flow);
	memcpy(x.object, r->object, sizeof(r->object));
	x.key = key;
	if (c->nslots) {
		for (h = ident_hash(&x) & (c->nslots - 1); c->slots[h]; h = (h + 1) & (c->nslots - 1)) {
			struct model_cfg *it = &c->items[c->slots[h] - 1];

			if (!same_ident(it, &x))
				continue;
			if (r->ts_ns < it->last_ns || (r->flags & FT_CFGF_UNKNOWN))
				return 0; /* an older reading, or one that failed: the last good value stays */
			if (strcmp(it->last, value) != 0) {
				char *v = strdup(value);

				if (!v)
					return -ENOMEM;
				if (it->last != it->value)
					free((char *)it->last);
				it->last = v;
				it->changed = strcmp(it->value, v) != 0 && !is_marker(it->key);
			}
			it->last_ns = r->ts_ns;
			memcpy(it->object, r->object, sizeof(r->object)); /* a process's name after its exec */
			return 0;
		}
	}
	if (grow_array((void **)&c->items, &c->cap, c->n + 1, sizeof(*c->items)))
		return -ENOMEM;
	{
		char *k = strdup(key), *v = strdup(value);

		if (!k || !v) {
			free(k);
			free(v);
			return -ENOMEM;
		}
		x.key = k;
		x.value = x.last = v;
	}
	x.first_ns = x.last_ns = r->ts_ns;
	c->items[c->n++] = x;
	c->unknown += x.unknown;
	if (c->n * 2 > c->nslots)
		return reindex(c, c->nslots ? c->nslots * 2 : 256);
	for (h = ident_hash(&x) & (c->nslots - 1); c->slots[h]; h = (h + 1) & (c->nslots - 1))
		;
	c->slots[h] = (uint32_t)c->n;
	return 0;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* scope, netns, id, handle, flow, object, key */
static int cmp_cfg(const void *pa, const void *pb)
{
	const struct model_cfg *a = pa, *b = pb;
	int d = cmp_u32(a->scope, b->scope);

	if (!d)
		d = cmp_u32(a->netns, b->netns);
	if (!d)
		d = cmp_u32(a->id, b->id);
	if (!d)
		d = cmp_u32(a->handle, b->handle);
	if (!d)
		d = flow_cmp(&a->flow, &b->flow);
	if (!d)
		d = strcmp(a->object, b->object);
	return d ? d : strcmp(a->key, b->key);
}

int model_config__finish(struct model_config *c)
{
	if (!c || c->finished)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->nhost_ns; k++)
			if (c->host_ns[k][0] == c->items[i].netns)
				c->items[i].host = c->host_ns[k][1];
	if (c->n)
		qsort(c->items, c->n, sizeof(*c->items), cmp_cfg);
	/* a process is named as it was last seen, in every one of its settings */
	for (size_t i = 0, e; i < c->n; i = e) {
		size_t last = i;

		for (e = i + 1; e < c->n && c->items[i].scope == FT_CFG_RANK && c->items[e].scope == FT_CFG_RANK &&
				c->items[e].id == c->items[i].id;
		     e++)
			if (c->items[e].last_ns > c->items[last].last_ns)
				last = e;
		for (size_t k = i; k < e; k++)
			memcpy(c->items[k].object, c->items[last].object, sizeof(c->items[k].object));
	}
	if (c->n)
		qsort(c->items, c->n, sizeof(*c->items), cmp_cfg);
	free(c->slots);
	c->slots = NULL;
	c->nslots = 0;
	c->finished = true;
	return 0;
}

const struct model_cfg *model_config__all(const struct model_config *c, size_t *n)
{
	*n = c ? c->n : 0;
	return c ? c->items : NULL;
}

size_t model_config__damaged(const struct model_config *c)
{
	return c ? c->damaged : 0;
}

size_t model_config__unknown(const struct model_config *c)
{
	return c ? c->unknown : 0;
}

/* The first item at or after (scope, netns, id), by binary search. */
static size_t lower(const struct model_config *c, unsigned scope, uint32_t netns, uint32_t id)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct model_cfg *x = &c->items[mid];
		int d = cmp_u32(x->scope, scope);

		if (!d)
			d = cmp_u32(x->netns, netns);
		if (!d)
			d = cmp_u32(x->id, id);
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct model_cfg *model_config__of(const struct model_config *c, unsigned scope, uint32_t netns,
					 uint32_t id, size_t *n)
{
	size_t a, b;

	*n = 0;
	if (!c || !c->finished)
		return NULL;
	a = lower(c, scope, netns, id);
	for (b = a; b < c->n && c->items[b].scope == scope && c->items[b].netns == netns && c->items[b].id == id; b++)
		;
	*n = b - a;
	return b > a ? &c->items[a] : NULL;
}

/* KEY among N settings of one object (HANDLE ~0: any); NULL when absent. */
static const struct model_cfg *find_key(const struct model_cfg *v, size_t n, uint32_t handle, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if ((handle == UINT32_MAX || v[i].handle == handle) && !strcmp(v[i].key, key))
			return &v[i];
	return NULL;
}

/* The host netns the sysctls of NETNS fall back on: of its host in a merged capture. */
static uint32_t host_netns_of(const struct model_config *c, uint32_t netns)
{
	uint32_t host = 0, any = 0;

	for (size_t k = 0; k < c->nhost_ns; k++)
		if (c->host_ns[k][0] == netns)
			host = c->host_ns[k][1];
	for (size_t i = 0; i < c->n && c->items[i].scope <= FT_CFG_NETNS; i++) {
		const struct model_cfg *x = &c->items[i];

		if (x->scope != FT_CFG_NETNS || !(x->flags & FT_CFGF_HOST))
			continue;
		if (x->host == host)
			return x->netns;
		any = any ? any : x->netns;
	}
	return c->nhost_ns ? 0 : any;
}

uint32_t model_config__host_netns(const struct model_config *c)
{
	return c && c->finished ? host_netns_of(c, 0) : 0;
}

const char *model_config__sysctl(const struct model_config *c, uint32_t netns, const char *key, bool *unknown)
{
	const struct model_cfg *v, *x, *mark;
	size_t n;
	uint32_t host;

	if (unknown)
		*unknown = false;
	v = model_config__of(c, FT_CFG_NETNS, netns, 0, &n);
	x = find_key(v, n, UINT32_MAX, key);
	mark = find_key(v, n, UINT32_MAX, "sysctls_differing");
	if (!x && mark && mark->unknown) /* its namespace could not be entered */
		x = mark;
	/* the namespace was read and this one did not differ: the host's */
	if (!x && mark && (host = host_netns_of(c, netns)) != 0 && host != netns) {
		v = model_config__of(c, FT_CFG_NETNS, host, 0, &n);
		x = find_key(v, n, UINT32_MAX, key);
	}
	if (x && x->unknown) {
		if (unknown)
			*unknown = true;
		return NULL;
	}
	return x ? x->last : NULL;
}

static const char *known(const struct model_cfg *x)
{
	return x && !x->unknown ? x->last : NULL;
}

const char *model_config__iface(const struct model_config *c, uint32_t netns, uint32_t ifindex, const char *key)
{
	size_t n;
	const struct model_cfg *v = model_config__of(c, FT_CFG_IFACE, netns, ifindex, &n);

	return known(find_key(v, n, UINT32_MAX, key));
}

const char *model_config__qdisc(const struct model_config *c, uint32_t netns, uint32_t ifindex,
				uint32_t handle, const char *key)
{
	size_t n;
	const struct model_cfg *v = model_config__of(c, FT_CFG_QDISC, netns, ifindex, &n);

	return known(find_key(v, n, handle, key));
}

const char *model_config__flow(const struct model_config *c, const struct ft_flow *f, const char *key)
{
	struct ft_flow k;
	size_t n;
	const struct model_cfg *v = model_config__of(c, FT_CFG_FLOW, f->netns, 0, &n);

	flow_key(f, &k);
	for (size_t i = 0; i < n; i++)
		if (!flow_cmp(&v[i].flow, &k) && !strcmp(v[i].key, key))
			return known(&v[i]);
	return NULL;
}

const char *model_config__env(const struct model_config *c, uint32_t pid, const char *key)
{
	size_t n;
	const struct model_cfg *v = model_config__of(c, FT_CFG_RANK, 0, pid, &n);

	return known(find_key(v, n, UINT32_MAX, key));
}

bool model_config__env_read(const struct model_config *c, uint32_t pid)
{
	size_t n;
	const struct model_cfg *v = model_config__of(c, FT_CFG_RANK, 0, pid, &n);

	return find_key(v, n, UINT32_MAX, "env_vars") != NULL;
}

/* ---- the model's part ---- */

int model__config_add(struct model *m, const struct ft_rec_hdr *rec)
{
	if (!m->config && !(m->config = model_config__new()))
		return -ENOMEM;
	return model_config__add(m->config, rec);
}

const char *model__config_sysctl(const struct model *m, uint32_t netns, const char *key)
{
	return model_config__sysctl(m->config, netns, key, NULL);
}

const char *model__config_qdisc(const struct model *m, uint32_t netns, uint32_t ifindex, uint32_t handle,
				const char *key)
{
	return model_config__qdisc(m->config, netns, ifindex, handle, key);
}

const char *model__config_iface(const struct model *m, uint32_t netns, uint32_t ifindex, const char *key)
{
	return model_config__iface(m->config, netns, ifindex, key);
}

const char *model__config_flow(const struct model *m, const struct ft_flow *f, const char *key)
{
	return model_config__flow(m->config, f, key);
}

const char *model__config_env(const struct model *m, uint32_t pid, const char *key)
{
	return model_config__env(m->config, pid, key);
}
