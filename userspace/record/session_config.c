// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration a recording runs under, as FT_REC_CONFIG records
 * (docs/configuration.md): at the start the sysctls of the host and of
 * every traced namespace (those that differ from the host's), every traced
 * interface's settings and qdisc tree, the NIC's congestion settings, and
 * the TCP sockets there with their congestion control and ECN; on each
 * tick the sockets and interfaces that are new; at the stop whatever reads
 * differently from what was written.  A rank's environment is written by
 * the phase probes (probes/phaseprobe_procs.c), where they meet a process.
 *
 * A setting that cannot be read is written as unknown (FT_CFGF_UNKNOWN,
 * the value says why) and counted; it never stops the recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hash.h"
#include "lib/util.h"
#include "probes/cfg_rec.h"
#include "probes/iface_config.h"
#include "probes/netns.h"
#include "probes/qdisc_config.h"
#include "probes/sockdiag.h"
#include "probes/sysctl_config.h"
#include "probes/tcp_mib.h"
#include "rdma/nic_config.h"
#include "userspace/record/session_priv.h"

/* Connected sockets remembered between scans (beyond, new ones are counted, not written). */
#define MAX_FLOWS 65536
/* Namespaces are looked for again this often (ticks): new containers, new ranks. */
#define RESCAN_TICKS 10
/* A namespace's sockets are dumped on a tick when its TCP counters moved
 * (tcp_mib.h), and at least this often (ticks): a congestion control that
 * setsockopt() changed on an established socket moves no counter. */
#define FLOWS_FULL_TICKS 10

struct written {            /* a setting already in the capture */
	uint64_t key, value;    /* hashes; key 0 = free slot */
};

struct ns_done {
	uint32_t inum;
	int diag_fd;            /* sock_diag socket inside it, -1 none yet, -2 cannot be had */
	int mib_fd;             /* its TCP counters (tcp_mib.h), -1 none: dumped every tick */
	struct tcp_mib mib;     /* as read before its last dump */
	bool have_mib;
	bool sysctls;           /* its sysctls were written */
};

struct flow_seen {
	struct sockdiag_sock sock; /* as the dump gave it: what sockdiag__info asks for */
	uint32_t scan;
};

struct sess_config {
	struct written *tab;    /* open addressing, ntab a power of two */
	size_t ntab, used;
	uint32_t (*ifs)[2];     /* interfaces whose settings were written */
	size_t nifs, capifs;
	struct ns_done *ns;
	size_t nns, capns;
	struct flow_seen *flows;
	size_t nflows, capflows;
	uint32_t scan;
	uint64_t ticks;
	bool stopping;          /* only what reads differently is written */
	uint64_t unknown;       /* settings written as unknown */
	uint64_t flows_over;    /* sockets not written: MAX_FLOWS reached */
	char nic_dev[32];       /* the netdev of the NIC settings last written, and where it is */
	uint32_t nic_netns, nic_ifindex;
	char first_unknown[160];
	/* the host's sysctls, what the other namespaces are compared with */
	char **host_keys, **host_vals;
	size_t nhost;
};

/* ---- what was written: key and value hashes ---- */

static uint64_t key_hash(const struct ft_config *p, const char *key)
{
	uint64_t h = fnv1a(FNV1A_SEED, &p->scope, 1);

	h = fnv1a(h, &p->netns, offsetof(struct ft_config, object) - offsetof(struct ft_config, netns));
	h = fnv1a(h, p->object, strnlen(p->object, sizeof(p->object)));
	h = fnv1a(h, key, strlen(key) + 1);
	return h ? h : 1;
}

/* The slot of KEY (its own or the free one where it goes); NULL when the table must grow. */
static struct written *tab_slot(struct sess_config *c, uint64_t key)
{
	if (!c->ntab || (c->used + 1) * 2 > c->ntab)
		return NULL;
	for (size_t i = key & (c->ntab - 1);; i = (i + 1) & (c->ntab - 1))
		if (!c->tab[i].key || c->tab[i].key == key)
			return &c->tab[i];
}

static struct written *tab_get(struct sess_config *c, uint64_t key)
{
	struct written *w = tab_slot(c, key);

	if (!w) {
		size_t n = c->ntab ? c->ntab * 2 : 1024;
		struct written *t = calloc(n, sizeof(*t)), *old = c->tab;
		size_t nold = c->ntab;

		if (!t)
			return NULL;
		c->tab = t;
		c->ntab = n;
		c->used = 0;
		for (size_t i = 0; i < nold; i++)
			if (old[i].key) {
				*tab_slot(c, old[i].key) = old[i];
				c->used++;
			}
		free(old);
		w = tab_slot(c, key);
	}
	return w;
}

/* ---- writing one setting ---- */

/*
 * KEY = VALUE of PROTO's object; ERR (-errno) instead of a value: unknown.
 * At the stop only what reads differently is written, and failures not at
 * all (an interface or namespace gone by then says nothing new).
 */
static int emit(struct session *s, const struct ft_config *proto, const char *key, const char *value, int err)
{
	struct sess_config *c = s->cfg;
	uint64_t buf[CFGREC_MAX / 8 + 1];
	struct ft_config p = *proto;
	char why[160];

	if (err) {
		if (c->stopping)
			return 0;
		snprintf(why, sizeof(why), "cannot read: %s", strerror(-err));
		value = why;
		p.flags |= FT_CFGF_UNKNOWN;
	}
	/* sockets are remembered by their cookie (flow_seen): not here */
	if (p.scope != FT_CFG_FLOW) {
		uint64_t kh = key_hash(&p, key), vh = fnv1a(fnv1a_str(value ? value : ""), &p.flags, 1);
		struct written *w = tab_get(c, kh);

		if (w && w->key == kh && w->value == vh)
			return 0; /* unchanged, or met twice (a namespace of two interfaces) */
		if (w) {
			c->used += !w->key;
			w->key = kh;
			w->value = vh;
		}
	}
	if (err) {
		c->unknown++;
		if (!c->first_unknown[0])
			snprintf(c->first_unknown, sizeof(c->first_unknown), "%s %s: %s",
				 cfgrec__scope_name(p.scope), key, strerror(-err));
	}
	p.ts_ns = mono_ns();
	return sess_append(s, &cfgrec__build(buf, &p, key, value)->hdr) ? -EIO : 0;
}

/* ---- namespaces: sysctls ---- */

struct kv_list {
	char **keys, **vals;    /* vals[i] NULL: errs[i] */
	int *errs;
	size_t n, cap;
};

static void kv_list_free(struct kv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->keys[i]);
		free(l->vals[i]);
	}
	free(l->keys);
	free(l->vals);
	free(l->errs);
	memset(l, 0, sizeof(*l));
}

static int kv_list_add(void *ctx, const char *key, const char *value, int err)
{
	struct kv_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		char **k = realloc(l->keys, cap * sizeof(*k)), **v;
		int *e;

		if (!k)
			return -ENOMEM;
		l->keys = k;
		v = realloc(l->vals, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->vals = v;
		e = realloc(l->errs, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		l->errs = e;
		l->cap = cap;
	}
	l->keys[l->n] = strdup(key);
	l->vals[l->n] = value ? strdup(value) : NULL;
	l->errs[l->n] = err;
	if (!l->keys[l->n] || (value && !l->vals[l->n])) {
		free(l->keys[l->n]);
		free(l->vals[l->n]);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int read_sysctls(void *arg)
{
	return sysctl_config__read(NULL, kv_list_add, arg);
}

static const char *host_value(const struct sess_config *c, const char *key)
{
	for (size_t i = 0; i < c->nhost; i++)
		if (!strcmp(c->host_keys[i], key))
			return c->host_vals[i];
	return NULL;
}

static struct ns_done *ns_done(struct sess_config *c, uint32_t inum)
{
	for (size_t i = 0; i < c->nns; i++)
		if (c->ns[i].inum == inum)
			return &c->ns[i];
	if (grow_array((void **)&c->ns, &c->capns, c->nns + 1, sizeof(*c->ns)))
		return NULL;
	c->ns[c->nns] = (struct ns_done){ .inum = inum, .diag_fd = -1, .mib_fd = -1 };
	return &c->ns[c->nns++];
}

/*
 * The sysctls of namespace N: all of them for the host's (our own), and
 * for another those that differ from the host's or cannot be read, then
 * "sysctls_differing" = how many differ (or why none could be read).
 */
static int netns_sysctls(struct session *s, struct netns *n)
{
	struct sess_config *c = s->cfg;
	struct ft_config p = { .scope = FT_CFG_NETNS, .netns = n->inum };
	struct kv_list l = {0};
	char err[200], cnt[16];
	int ret, differ = 0;

	str_copy(p.object, n->name, sizeof(p.object));
	if (n->self)
		p.flags |= FT_CFGF_HOST;
	ret = netns__run_in(n->self ? NULL : n->path, read_sysctls, &l, err, sizeof(err));
	if (ret) {
		kv_list_free(&l);
		return ret == -ENOMEM || ret == -EIO ? ret : emit(s, &p, "sysctls_differing", NULL, ret);
	}
	for (size_t i = 0; !ret && i < l.n; i++) {
		const char *hv = host_value(c, l.keys[i]);

		if (!n->self && !l.errs[i] && hv && !strcmp(hv, l.vals[i]))
			continue;
		differ += !n->self;
		ret = emit(s, &p, l.keys[i], l.vals[i], l.errs[i]);
	}
	if (n->self && !c->stopping) { /* what the others are compared with */
		c->host_keys = l.keys;
		c->host_vals = l.vals;
		c->nhost = l.n;
		free(l.errs);
		memset(&l, 0, sizeof(l));
	}
	kv_list_free(&l);
	snprintf(cnt, sizeof(cnt), "%d", differ);
	return ret || n->self ? ret : emit(s, &p, "sysctls_differing", cnt, 0);
}

/* ---- interfaces: link settings, offloads, the qdisc tree ---- */

struct iface_ctx {
	struct session *s;
	struct ft_config p;
};

static int iface_kv(void *arg, const char *key, const char *value, int err)
{
	struct iface_ctx *x = arg;

	return emit(x->s, &x->p, key, value, err);
}

static int qdisc_kv(void *arg, const struct qdisc_desc *d, const char *key, const char *value)
{
	struct iface_ctx *x = arg;
	struct ft_config p = x->p;

	p.scope = FT_CFG_QDISC;
	p.handle = d->handle;
	p.parent = d->parent;
	p.flags = d->is_class ? FT_CFGF_CLASS : 0;
	str_copy(p.object, d->kind, sizeof(p.object));
	return emit(x->s, &p, key, value, 0);
}

static int iface_settings(struct session *s, uint32_t netns, uint32_t ifindex)
{
	struct netns *n = netns_set__find_inum(&s->ns, netns);
	struct iface_ctx x = { .s = s, .p = { .scope = FT_CFG_IFACE, .netns = netns, .id = ifindex } };
	struct link_info l;
	char err[200], speed[16];
	int ret;

	if (!n)
		return 0;
	ret = netns__open(n, err, sizeof(err));
	if (ret)
		return emit(s, &x.p, "link", NULL, ret);
	if (netns__link(n, ifindex, &l))
		return 0; /* gone meanwhile */
	str_copy(x.p.object, l.info.name, sizeof(x.p.object));
	snprintf(speed, sizeof(speed), "%u", l.info.speed_mbps);
	/* left out where the driver reports none (lo, most virtual devices) */
	ret = l.info.speed_mbps ? emit(s, &x.p, "speed_mbps", speed, 0) : 0;
	if (!ret)
		ret = iface_config__read(n->nl_fd, n->ioctl_fd, ifindex, iface_kv, &x);
	if (ret == -ENOENT)
		return 0;
	if (ret && ret != -EIO && ret != -ENOMEM)
		ret = emit(s, &x.p, "link", NULL, ret);
	if (!ret) {
		ret = qdisc_config__dump(n->nl_fd, ifindex, qdisc_kv, &x);
		if (ret && ret != -EIO && ret != -ENOMEM) {
			x.p.scope = FT_CFG_QDISC;
			ret = emit(s, &x.p, "qdiscs", NULL, ret);
		}
	}
	return ret;
}

static bool if_done(struct sess_config *c, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < c->nifs; i++)
		if (c->ifs[i][0] == netns && c->ifs[i][1] == ifindex)
			return true;
	return false;
}

/* Every traced interface the session knows, those not written yet (all at the stop). */
static int ifaces(struct session *s)
{
	struct sess_config *c = s->cfg;
	int ret = 0;

	for (int i = 0; !ret && i < s->n_ifs; i++) {
		const struct known_if *k = &s->ifs[i];
		struct netns *n = netns_set__find_inum(&s->ns, k->netns);
		struct ns_done *d;

		if (!n || !k->described || !sess_if_traced(s, k->netns, k->ifindex) ||
		    (!c->stopping && if_done(c, k->netns, k->ifindex)))
			continue; /* (a namespace gone or never found: nothing to read) */
		d = ns_done(c, k->netns);
		if (!d || (!c->stopping &&
			   grow_array((void **)&c->ifs, &c->capifs, c->nifs + 1, sizeof(*c->ifs))))
			return -ENOMEM;
		if (!d->sysctls) { /* its namespace's sysctls, once */
			d->sysctls = true;
			if (!n->self && (ret = netns_sysctls(s, n)))
				break;
		}
		if (!c->stopping) {
			c->ifs[c->nifs][0] = k->netns;
			c->ifs[c->nifs][1] = k->ifindex;
			c->nifs++;
		}
		ret = iface_settings(s, k->netns, k->ifindex);
	}
	return ret;
}

/* ---- the NIC's congestion settings (sysfs, debugfs) ---- */

static int nic_kv(void *arg, const char *netdev, const char *key, const char *value, int err)
{
	struct session *s = arg;
	struct sess_config *c = s->cfg;
	struct ft_config p = { .scope = FT_CFG_NIC };

	if (strcmp(c->nic_dev, netdev) != 0) { /* sysfs shows our own namespace's netdevs */
		struct netns *self = netns_set__find_inum(&s->ns, s->ns.self_inum);
		struct link_info l = {0};

		str_copy(c->nic_dev, netdev, sizeof(c->nic_dev));
		str_copy(l.info.name, netdev, sizeof(l.info.name));
		c->nic_netns = c->nic_ifindex = 0;
		if (self && netns__links(self, sess_match_name, &l) > 0) {
			c->nic_netns = self->inum;
			c->nic_ifindex = l.info.ifindex;
		}
	}
	str_copy(p.object, netdev, sizeof(p.object));
	p.netns = c->nic_netns;
	p.id = c->nic_ifindex;
	return emit(s, &p, key, value, err);
}

static int nic_settings(struct session *s)
{
	const char *root = s->o->so.sysfs_root;
	int ret;

	if (!root)
		root = getenv("FABTRACE_SYSFS_ROOT");
	ret = nic_config__read(root && *root ? root : "/sys", nic_kv, s);
	return ret < 0 ? ret : 0;
}

/* ---- TCP sockets: their congestion control and ECN ---- */

static struct flow_seen *flow_find(struct sess_config *c, uint32_t netns, uint64_t cookie)
{
	for (size_t i = 0; i < c->nflows; i++)
		if (c->flows[i].sock.cookie == cookie && c->flows[i].sock.flow.netns == netns)
			return &c->flows[i];
	return NULL;
}

static int on_sock(void *arg, const struct sockdiag_sock *k)
{
	struct session *s = arg;
	struct sess_config *c = s->cfg;
	struct ft_config p = { .scope = FT_CFG_FLOW, .netns = k->flow.netns, .flow = k->flow };
	struct flow_seen *f = flow_find(c, k->flow.netns, k->cookie);
	int ret = 0;

	if (f) {
		f->scan = c->scan;
		if (!strcmp(f->sock.cc, k->cc))
			return 0;
		str_copy(f->sock.cc, k->cc, sizeof(f->sock.cc)); /* changed by setsockopt: written again */
		return k->cc[0] ? emit(s, &p, "cc", k->cc, 0) : 0;
	}
	if (c->nflows >= MAX_FLOWS ||
	    grow_array((void **)&c->flows, &c->capflows, c->nflows + 1, sizeof(*c->flows))) {
		c->flows_over++;
		return 0;
	}
	f = &c->flows[c->nflows++];
	f->sock = *k;
	f->scan = c->scan;
	if (k->cc[0])
		ret = emit(s, &p, "cc", k->cc, 0);
	return ret;
}

/* ECN of the sockets the last dump of namespace NETNS found new (on_sock
 * appends them: flows FIRST on): one tcp_info each, after the dump
 * (sockdiag__info); ECN is settled once a socket is established. */
static int new_socks_ecn(struct session *s, int fd, uint32_t netns, size_t first)
{
	struct sess_config *c = s->cfg;
	int ret = 0;

	for (size_t i = first; !ret && i < c->nflows; i++) {
		struct flow_seen *f = &c->flows[i];
		struct ft_config p = { .scope = FT_CFG_FLOW, .netns = netns, .flow = f->sock.flow };

		if (sockdiag__info(fd, &f->sock) || !f->sock.have_info)
			continue; /* closed meanwhile, or a kernel that does not tell */
		ret = emit(s, &p, "ecn", f->sock.ecn ? "on" : "off", 0);
	}
	return ret;
}

/* Close what namespace D's sockets were read through (they keep it alive). */
static void ns_close(struct ns_done *d)
{
	if (d->diag_fd >= 0)
		close(d->diag_fd);
	if (d->mib_fd >= 0)
		close(d->mib_fd);
	d->diag_fd = -2;
	d->mib_fd = -1;
}

/* In the namespace: its sock_diag socket, and its TCP counters where they can be read. */
static int open_diag(void *arg)
{
	struct ns_done *d = arg;
	int fd = sockdiag__open();

	if (fd < 0)
		return fd;
	d->diag_fd = fd;
	fd = tcp_mib__open();
	d->mib_fd = fd < 0 ? -1 : fd;
	return 0;
}

/*
 * Need namespace D's sockets be dumped now?  At the stop, on every
 * FLOWS_FULL_TICKS-th scan, and when its TCP counters moved since they were
 * read before the last dump (read before this one: what changes during it
 * moves them again).  Its flows are kept as seen when not.
 */
static bool flows_due(struct sess_config *c, struct ns_done *d)
{
	struct tcp_mib now;
	bool due;

	if (d->mib_fd < 0 || tcp_mib__read(d->mib_fd, &now)) {
		d->have_mib = false;
		return true;
	}
	due = c->stopping || !d->have_mib || c->scan % FLOWS_FULL_TICKS == 0 || tcp_mib__changed(&d->mib, &now);
	d->mib = now;
	d->have_mib = true;
	if (!due)
		for (size_t i = 0; i < c->nflows; i++)
			if (c->flows[i].sock.flow.netns == d->inum)
				c->flows[i].scan = c->scan;
	return due;
}

/* The sockets of every traced namespace; those gone since the last scan are forgotten. */
static int flows(struct session *s)
{
	struct sess_config *c = s->cfg;
	int ret = 0;

	c->scan++;
	for (int i = 0; !ret && i < s->ns.n; i++) {
		struct netns *n = &s->ns.ns[i];
		struct ns_done *d;

		if (!netns_traced(s, n->inum) || !(d = ns_done(c, n->inum)))
			continue;
		if (!d->sysctls && !n->self && !c->stopping) { /* the defaults its sockets start from */
			d->sysctls = true;
			if ((ret = netns_sysctls(s, n)))
				break;
		}
		if (d->diag_fd == -1) {
			char err[200];
			int e = netns__run_in(n->self ? NULL : n->path, open_diag, d, err, sizeof(err));

			if (e) { /* said once: its sockets are unknown */
				struct ft_config p = { .scope = FT_CFG_FLOW, .netns = n->inum };

				ns_close(d); /* opened, but not back out: not used */
				ret = emit(s, &p, "sockets", NULL, e);
				continue;
			}
		}
		if (d->diag_fd < 0 || !flows_due(c, d))
			continue;
		size_t first = c->nflows;
		int ecn_ret;

		ret = sockdiag__dump(d->diag_fd, n->inum, on_sock, s);
		ecn_ret = new_socks_ecn(s, d->diag_fd, n->inum, first); /* what a cut-short dump found, too */
		ret = ret ? ret : ecn_ret;
		if (ret && ret != -EIO && ret != -ENOMEM)
			ret = 0; /* the namespace went away meanwhile */
	}
	for (size_t i = 0; i < c->nflows;) {
		if (c->flows[i].scan != c->scan)
			c->flows[i] = c->flows[--c->nflows];
		else
			i++;
	}
	return ret;
}

/*
 * Forget the namespaces the session no longer knows (a scan dropped them):
 * their sock_diag sockets would keep them alive, and a new namespace that
 * gets the same inode number has its sysctls, interfaces and sockets read
 * afresh.
 */
static void prune_namespaces(struct session *s)
{
	struct sess_config *c = s->cfg;

	for (size_t i = 0; i < c->nifs;) {
		if (netns_set__find_inum(&s->ns, c->ifs[i][0]))
			i++;
		else
			memcpy(c->ifs[i], c->ifs[--c->nifs], sizeof(c->ifs[i]));
	}
	for (size_t i = 0; i < c->nns;) {
		struct ns_done *d = &c->ns[i];

		if (netns_set__find_inum(&s->ns, d->inum)) {
			i++;
			continue;
		}
		ns_close(d);
		*d = c->ns[--c->nns];
	}
}

/* ---- the session's calls ---- */

int sess_config_start(struct session *s)
{
	struct netns *self;
	int ret;

	if (s->o->format_version == 1)
		return 0; /* a version 1 capture has no configuration records (the writer drops them) */
	s->cfg = calloc(1, sizeof(*s->cfg));
	if (!s->cfg)
		return 0; /* no configuration records: the recording goes on */
	self = netns_set__find_inum(&s->ns, s->ns.self_inum);
	ret = self ? netns_sysctls(s, self) : 0;
	if (self)
		ns_done(s->cfg, self->inum);
	if (!ret)
		ret = ifaces(s);
	if (!ret)
		ret = nic_settings(s);
	if (!ret)
		ret = flows(s);
	if (ret == -EIO)
		return ret;
	if (s->cfg->unknown && !s->o->quiet)
		ft_warn("%s: %llu configuration setting%s could not be read (first: %s); recorded as unknown",
			s->o->cmd_name, (unsigned long long)s->cfg->unknown, s->cfg->unknown > 1 ? "s" : "",
			s->cfg->first_unknown);
	return 0;
}

void sess_config_tick(struct session *s)
{
	struct sess_config *c = s->cfg;

	if (!c || s->write_failed)
		return;
	if (++c->ticks % RESCAN_TICKS == 0) {
		char err[160];

		netns_set__scan(&s->ns, err, sizeof(err));
	}
	prune_namespaces(s); /* after any scan: this tick's or one before */
	if (!ifaces(s))
		flows(s);
}

void sess_config_stop(struct session *s)
{
	struct sess_config *c = s->cfg;
	int ret = 0;

	if (!c || s->write_failed)
		return;
	c->stopping = true;
	for (size_t i = 0; !ret && i < c->nns; i++) {
		struct netns *n = netns_set__find_inum(&s->ns, c->ns[i].inum);

		if (n && (n->self || c->ns[i].sysctls))
			ret = netns_sysctls(s, n);
	}
	if (!ret && !ifaces(s) && !nic_settings(s))
		flows(s);
}

void sess_config_free(struct session *s)
{
	struct sess_config *c = s->cfg;

	if (!c)
		return;
	for (size_t i = 0; i < c->nns; i++)
		ns_close(&c->ns[i]);
	for (size_t i = 0; i < c->nhost; i++) {
		free(c->host_keys[i]);
		free(c->host_vals[i]);
	}
	free(c->host_keys);
	free(c->host_vals);
	free(c->tab);
	free(c->ifs);
	free(c->ns);
	free(c->flows);
	free(c);
	s->cfg = NULL;
}
