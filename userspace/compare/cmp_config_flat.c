// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A capture's configuration (userspace/model/model_config.h) flattened into
 * settings that two recordings name alike (docs/compare.md): namespace
 * inodes, ifindexes, pids and ephemeral ports differ from run to run, so
 * objects are named by their names (the namespace, the interface's label,
 * the qdisc's kind and handle), and what belongs to sockets and processes is
 * gathered into sets (the congestion controls the sockets of a namespace
 * used, the values of a variable over the processes).
 *
 *   netns NAME | netns host    sysctl  KEY   (every one the host has: a
 *                                            namespace's own value, else the host's)
 *   interface LABEL            interface KEY
 *   qdisc KIND H: on LABEL     qdisc KIND H: KEY     (class KIND H: for a class; a
 *                                            handle the kernel picked by its place:
 *                                            qdisc_config__stable_handle())
 *   NIC NAME                   NIC KEY
 *   sockets in NAME            sockets cc, ecn       (sets)
 *   processes                  env VAR               (sets)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "probes/qdisc_config.h"
#include "userspace/compare/cmp_priv.h"
#include "userspace/model/model_config.h"

/* "eth0@h2" as the model labels the interface, else "NAME@netns N". */
static const char *iface_label(const struct model *m, const struct model_cfg *x, char *buf, size_t len)
{
	const struct model_iface *it = x->id ? model__iface(m, x->netns, x->id) : NULL;

	if (it && it->label[0])
		snprintf(buf, len, "%s", it->label);
	else
		snprintf(buf, len, "%s@netns %u", x->object[0] ? x->object : "?", x->netns);
	return buf;
}

static const char *ns_label(const struct model *m, uint32_t netns, char *buf, size_t len)
{
	const char *nm = model__netns_name(m, netns);

	if (netns == model_config__host_netns(m->config))
		snprintf(buf, len, "host");
	else if (nm && nm[0])
		snprintf(buf, len, "%s", nm);
	else
		snprintf(buf, len, "netns %u", netns);
	return buf;
}

/* The sysctls of namespace X (its first setting) as it saw them: every key of the host's. */
static int netns_sysctls(struct cmp_run *r, const struct model *m, const struct model_cfg *v, size_t n,
			 const struct model_cfg *x)
{
	uint32_t host = model_config__host_netns(m->config);
	char obj[96];

	if (x->flags & FT_CFGF_HOST)
		snprintf(obj, sizeof(obj), "netns host");
	else
		snprintf(obj, sizeof(obj), "netns %s", x->object[0] ? x->object : "?");
	for (size_t i = 0; i < n; i++) {
		const struct model_cfg *h = &v[i];
		const char *val;
		bool unknown = false;

		if (h->scope != FT_CFG_NETNS || h->netns != host || h->unknown || !strcmp(h->key, "sysctls_differing"))
			continue;
		val = model_config__sysctl(m->config, x->netns, h->key, &unknown);
		if (!val || unknown)
			continue;
		if (cmp_run__setting(r, obj, "sysctl", h->key, val, false, h->changed))
			return -ENOMEM;
	}
	return 0;
}

static int one(struct cmp_run *r, const struct model *m, const struct model_cfg *x)
{
	char obj[192], cls[64], lab[96], h[24];

	switch (x->scope) {
	case FT_CFG_IFACE:
		snprintf(obj, sizeof(obj), "interface %s", iface_label(m, x, lab, sizeof(lab)));
		return cmp_run__setting(r, obj, "interface", x->key, x->value, false, x->changed);
	case FT_CFG_QDISC:
		if (!x->object[0] || !strcmp(x->key, "kind"))
			return 0; /* the tree as a whole; the kind is in the name */
		snprintf(cls, sizeof(cls), "%s %s %s", (x->flags & FT_CFGF_CLASS) ? "class" : "qdisc", x->object,
			 qdisc_config__stable_handle(x->handle, x->parent, h, sizeof(h)));
		{
			struct model_cfg as_if = *x;

			as_if.object[0] = 0;
			snprintf(obj, sizeof(obj), "%s on %s", cls, iface_label(m, &as_if, lab, sizeof(lab)));
		}
		return cmp_run__setting(r, obj, cls, x->key, x->value, false, x->changed);
	case FT_CFG_NIC:
		snprintf(obj, sizeof(obj), "NIC %s", iface_label(m, x, lab, sizeof(lab)));
		return cmp_run__setting(r, obj, "NIC", x->key, x->value, false, x->changed);
	case FT_CFG_FLOW:
		if (!x->flow.family)
			return 0; /* a namespace whose sockets could not be read */
		snprintf(obj, sizeof(obj), "sockets in %s", ns_label(m, x->flow.netns, lab, sizeof(lab)));
		return cmp_run__setting(r, obj, "sockets", x->key, x->value, true, false);
	case FT_CFG_RANK:
		if (!strcmp(x->key, "env_vars"))
			return 0;
		return cmp_run__setting(r, "processes", "env", x->key, x->value, true, false);
	default:
		return 0;
	}
}

int cmp_config__flatten(struct cmp_run *r, const struct model *m)
{
	const struct model_cfg *v;
	size_t n;

	if (!m->config)
		return 0;
	v = model_config__all(m->config, &n);
	for (size_t i = 0; i < n; i++) {
		const struct model_cfg *x = &v[i];
		int ret;

		if (x->unknown)
			continue;
		if (x->scope == FT_CFG_NETNS) {
			/* once per namespace: at its first setting */
			if (i && v[i - 1].scope == FT_CFG_NETNS && v[i - 1].netns == x->netns)
				continue;
			ret = netns_sysctls(r, m, v, n, x);
		} else {
			ret = one(r, m, x);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int by_setting(const void *a, const void *b)
{
	const struct cmp_setting *x = a, *y = b;
	int d = strcmp(x->object, y->object);

	if (!d)
		d = strcmp(x->key, y->key);
	return d ? d : strcmp(x->value, y->value);
}

/* Join the distinct values of V[I..E) (sorted) with ",", into V[I]. */
static int join_set(struct cmp_setting *v, size_t i, size_t e)
{
	size_t len = 0, k = 0;
	char *s;

	for (size_t j = i; j < e; j++)
		len += strlen(v[j].value) + 1;
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	s[0] = 0;
	for (size_t j = i; j < e; j++) {
		if (j > i && !strcmp(v[j].value, v[j - 1].value))
			continue;
		k += (size_t)sprintf(s + k, "%s%s", k ? "," : "", v[j].value);
	}
	free(v[i].value);
	v[i].value = s;
	return 0;
}

int cmp_config__finish(struct cmp_run *r)
{
	size_t o = 0;

	if (r->nsettings) /* a capture without configuration records has none (qsort takes no NULL) */
		qsort(r->settings, r->nsettings, sizeof(*r->settings), by_setting);
	for (size_t i = 0, e; i < r->nsettings; i = e) {
		struct cmp_setting *v = r->settings;

		for (e = i + 1; e < r->nsettings && !strcmp(v[e].object, v[i].object) && !strcmp(v[e].key, v[i].key); e++)
			;
		if (v[i].set && e - i > 1 && join_set(v, i, e))
			return -ENOMEM;
		for (size_t j = i + 1; j < e; j++) {
			v[i].changed |= v[j].changed;
			free(v[j].object);
			free(v[j].cls);
			free(v[j].key);
			free(v[j].value);
		}
		v[o++] = v[i];
	}
	r->nsettings = o;
	return 0;
}
