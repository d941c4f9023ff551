// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `info`'s configuration section (info_config.h): the store of
 * userspace/model/model_config.h, shown object by object: the host's
 * sysctls and the namespaces that differ, each interface with its qdisc
 * tree, the NICs' congestion settings, the TCP sockets by congestion
 * control, the ranks' environment, what changed during the recording and
 * what could not be read.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "probes/cfg_rec.h"
#include "probes/qdisc_config.h"
#include "userspace/cli/info_config.h"
#include "userspace/model/model.h"

void info_config__add(struct model_config **c, const struct ft_rec_hdr *rec)
{
	if (rec->type != FT_REC_CONFIG && rec->type != FT_REC_HOST_NETNS)
		return;
	if (!*c && !(*c = model_config__new()))
		return;
	model_config__add(*c, rec); /* out of memory: the section shows less */
}

/* ---- walking the settings object by object ---- */

static bool same_object(const struct model_cfg *a, const struct model_cfg *b)
{
	return a->scope == b->scope && a->netns == b->netns && a->id == b->id && a->handle == b->handle &&
	       !memcmp(&a->flow, &b->flow, sizeof(a->flow)) && !strcmp(a->object, b->object);
}

/* The end of the object that starts at V[I]. */
static size_t object_end(const struct model_cfg *v, size_t n, size_t i)
{
	size_t e = i + 1;

	while (e < n && same_object(&v[i], &v[e]))
		e++;
	return e;
}

/* One object: its settings V[I..E), in the sorted list V of N. */
struct obj {
	const struct model_cfg *v;
	size_t n, i, e;
};
typedef void (*obj_fn)(void *ctx, const struct obj *o);

/* FN for each object of SCOPE; with OF, only those of OF's namespace and id (an interface's qdiscs). */
static void each_object(const struct model_cfg *v, size_t n, unsigned scope, const struct model_cfg *of, obj_fn fn,
			void *ctx)
{
	for (size_t i = 0, e; i < n; i = e) {
		struct obj o = { v, n, i, 0 };

		e = o.e = object_end(v, n, i);
		if (v[i].scope == scope && (!of || (v[i].netns == of->netns && v[i].id == of->id)))
			fn(ctx, &o);
	}
}

/* The marker KEY among an object's settings, NULL if none. */
static const struct model_cfg *marker(const struct obj *o, const char *key)
{
	for (size_t k = o->i; k < o->e; k++)
		if (!strcmp(o->v[k].key, key))
			return &o->v[k];
	return NULL;
}

/* A namespace's name as its sysctl records give it ("" for the host's or an unnamed one). */
static const char *ns_name(const struct model_cfg *v, size_t n, uint32_t netns)
{
	for (size_t i = 0; i < n && v[i].scope == FT_CFG_NETNS; i++)
		if (v[i].netns == netns)
			return v[i].object;
	return "";
}

/* "eth0@ftL1h1" (its namespace named), else "eth0". */
static const char *iface_label(const struct model_cfg *v, size_t n, const struct model_cfg *x, char *buf,
			       size_t len)
{
	const char *ns = ns_name(v, n, x->netns);

	snprintf(buf, len, "%s%s%s", x->object[0] ? x->object : "?", ns[0] ? "@" : "", ns);
	return buf;
}

/* The interface an interface or qdisc setting belongs to: its IFACE object's name. */
static const char *iface_name_of(const struct model_cfg *v, size_t n, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].scope == FT_CFG_IFACE && v[i].netns == netns && v[i].id == ifindex)
			return v[i].object;
	return "";
}

/* What a setting belongs to, for the lists of changes and failures. */
static const char *describe(const struct model_cfg *v, size_t n, const struct model_cfg *x, char *buf, size_t len)
{
	char a[80];

	switch (x->scope) {
	case FT_CFG_NETNS:
		snprintf(buf, len, "netns %s", x->object[0] ? x->object : (x->flags & FT_CFGF_HOST) ? "(host)" : "?");
		break;
	case FT_CFG_QDISC:
		if (iface_name_of(v, n, x->netns, x->id)[0])
			snprintf(a, sizeof(a), "%s", iface_name_of(v, n, x->netns, x->id));
		else
			snprintf(a, sizeof(a), "ifindex %u", x->id);
		if (!x->object[0]) { /* the tree as a whole */
			snprintf(buf, len, "qdiscs of %s", a);
		} else {
			char h[24], p[24];

			snprintf(buf, len, "%s %s %s parent %s on %s", (x->flags & FT_CFGF_CLASS) ? "class" : "qdisc",
				 x->object, qdisc_config__handle_str(x->handle, h, sizeof(h)),
				 qdisc_config__handle_str(x->parent, p, sizeof(p)), a);
		}
		break;
	case FT_CFG_FLOW:
		model__flow_str(&x->flow, a, sizeof(a));
		snprintf(buf, len, "socket %s", x->flow.family ? a : "(all)");
		break;
	case FT_CFG_RANK:
		snprintf(buf, len, "process %u (%s)", x->id, x->object);
		break;
	default: /* IFACE, NIC */
		snprintf(buf, len, "%s %s", x->scope == FT_CFG_NIC ? "NIC" : "interface", iface_label(v, n, x, a, sizeof(a)));
		break;
	}
	return buf;
}

/* ---- text ---- */

/* The known settings of O but SKIP: "key value" (KV: the separator) joined by SEP. */
static void text_settings(FILE *f, const struct obj *o, const char *sep, const char *kv, const char *skip)
{
	bool any = false;

	for (size_t i = o->i; i < o->e; i++) {
		const struct model_cfg *x = &o->v[i];

		if (x->unknown || (skip && !strcmp(x->key, skip)))
			continue;
		fprintf(f, "%s%s%s%s", any ? sep : "", x->key, kv, x->value);
		any = true;
	}
	if (!any)
		fprintf(f, "(none)");
}

/* One setting a line, but SKIP. */
static void text_lines(FILE *f, const struct obj *o, const char *skip)
{
	for (size_t k = o->i; k < o->e; k++)
		if (!o->v[k].unknown && (!skip || strcmp(o->v[k].key, skip) != 0))
			fprintf(f, "    %-44s %s\n", o->v[k].key, o->v[k].value);
}

static void text_namespace(void *ctx, const struct obj *o)
{
	FILE *f = ctx;
	const struct model_cfg *x = &o->v[o->i], *mark = marker(o, "sysctls_differing");
	size_t cnt = 0;

	for (size_t k = o->i; k < o->e; k++)
		cnt += &o->v[k] != mark && !o->v[k].unknown;
	if (x->flags & FT_CFGF_HOST)
		fprintf(f, "  host sysctls (netns %u):\n", x->netns);
	else if (mark && mark->unknown)
		fprintf(f, "  netns %s (%u): sysctls unknown (%s)\n", x->object, x->netns, mark->value);
	else if (!cnt)
		fprintf(f, "  netns %s (%u): the host's sysctls\n", x->object, x->netns);
	else
		fprintf(f, "  netns %s (%u): %zu sysctl%s differ%s from the host's:\n", x->object, x->netns, cnt,
			cnt > 1 ? "s" : "", cnt > 1 ? "" : "s");
	text_lines(f, o, "sysctls_differing");
}

static void text_qdisc(void *ctx, const struct obj *o)
{
	FILE *f = ctx;
	const struct model_cfg *x = &o->v[o->i];
	char where[40], h[24];

	/* the tree as a whole (its "unknown" record), or a class without parameters
	 * (tbf's 1:1, the slot of its inner qdisc): nothing to say here */
	if (!x->object[0] || ((x->flags & FT_CFGF_CLASS) && o->e - o->i == 1))
		return;
	if (x->parent == UINT32_MAX)
		snprintf(where, sizeof(where), "root");
	else
		snprintf(where, sizeof(where), "parent %s", qdisc_config__handle_str(x->parent, h, sizeof(h)));
	fprintf(f, "    %s %s%s%s (%s)", (x->flags & FT_CFGF_CLASS) ? "class" : "qdisc", x->object, x->handle ? " " : "",
		x->handle ? qdisc_config__handle_str(x->handle, h, sizeof(h)) : "", where);
	if (o->e - o->i > 1) {
		fprintf(f, "  ");
		text_settings(f, o, ", ", " ", "kind");
	}
	fprintf(f, "\n");
}

static void text_iface(void *ctx, const struct obj *o)
{
	FILE *f = ctx;
	const struct model_cfg *x = &o->v[o->i];
	char l[80];

	fprintf(f, "  %s %s", x->scope == FT_CFG_NIC ? "NIC" : "interface", iface_label(o->v, o->n, x, l, sizeof(l)));
	if (x->id)
		fprintf(f, " (ifindex %u)", x->id);
	if (x->scope == FT_CFG_NIC) {
		fprintf(f, ":\n");
		text_lines(f, o, NULL);
		return;
	}
	fprintf(f, ": ");
	text_settings(f, o, ", ", " ", NULL);
	fprintf(f, "\n");
	each_object(o->v, o->n, FT_CFG_QDISC, x, text_qdisc, f);
}

/* Sockets counted by congestion control, and how many of those negotiated ECN. */
struct cc_counts {
	struct {
		const char *cc;
		size_t n, ecn;
	} by[16];
	size_t nby, total;
};

static void count_flow(void *ctx, const struct obj *o)
{
	struct cc_counts *t = ctx;
	const struct model_cfg *cc = marker(o, "cc"), *ecn = marker(o, "ecn");
	const char *name = cc ? cc->value : "unknown";
	size_t k;

	if (!o->v[o->i].flow.family)
		return; /* a namespace whose sockets could not be read */
	for (k = 0; k < t->nby && strcmp(t->by[k].cc, name) != 0; k++)
		;
	if (k == t->nby && t->nby < sizeof(t->by) / sizeof(t->by[0])) {
		t->by[k].cc = name;
		t->by[k].n = t->by[k].ecn = 0;
		t->nby++;
	}
	if (k < t->nby) {
		t->by[k].n++;
		t->by[k].ecn += ecn && !strcmp(ecn->value, "on");
	}
	t->total++;
}

static void text_flows(FILE *f, const struct model_cfg *v, size_t n)
{
	struct cc_counts t = { .nby = 0 };

	each_object(v, n, FT_CFG_FLOW, NULL, count_flow, &t);
	if (!t.total)
		return;
	fprintf(f, "  TCP sockets: %zu (", t.total);
	for (size_t k = 0; k < t.nby; k++)
		fprintf(f, "%s%s %zu, ECN on %zu", k ? "; " : "", t.by[k].cc, t.by[k].n, t.by[k].ecn);
	fprintf(f, ")\n");
}

static void text_rank(void *ctx, const struct obj *o)
{
	FILE *f = ctx;

	fprintf(f, "  process %u (%s): ", o->v[o->i].id, o->v[o->i].object);
	text_settings(f, o, ", ", "=", "env_vars");
	fprintf(f, "\n");
}

void info_config__print(struct model_config *c, FILE *out)
{
	size_t n, changed = 0;
	const struct model_cfg *v;
	char b[200];
	FILE *f;

	if (!c || model_config__finish(c))
		return;
	v = model_config__all(c, &n);
	if (!n && !model_config__damaged(c))
		return;
	/* the values are the traced host's strings (and its processes' environment): no control characters */
	f = text_safe_stream(out);
	if (!f)
		return;
	fprintf(f, "configuration:\n");
	each_object(v, n, FT_CFG_NETNS, NULL, text_namespace, f);
	each_object(v, n, FT_CFG_IFACE, NULL, text_iface, f);
	each_object(v, n, FT_CFG_NIC, NULL, text_iface, f);
	text_flows(f, v, n);
	each_object(v, n, FT_CFG_RANK, NULL, text_rank, f);
	for (size_t i = 0; i < n; i++)
		changed += v[i].changed;
	if (changed)
		fprintf(f, "  changed during the recording: %zu\n", changed);
	for (size_t i = 0; i < n; i++)
		if (v[i].changed)
			fprintf(f, "    %s %s: %s -> %s\n", describe(v, n, &v[i], b, sizeof(b)), v[i].key, v[i].value,
				v[i].last);
	if (model_config__unknown(c))
		fprintf(f, "  could not be read: %zu\n", model_config__unknown(c));
	for (size_t i = 0; i < n; i++)
		if (v[i].unknown)
			fprintf(f, "    %s %s: %s\n", describe(v, n, &v[i], b, sizeof(b)), v[i].key, v[i].value);
	if (model_config__damaged(c))
		fprintf(f, "  damaged configuration records: %zu (skipped)\n", model_config__damaged(c));
	fclose(f);
}

/* ---- JSON ---- */

/* {key: value} of O's known settings but SKIP as NAME, then "unknown": {key: why}. */
static void json_settings(struct json *j, const char *name, const struct obj *o, const char *skip)
{
	json_key(j, name);
	json_object_begin(j);
	for (size_t i = o->i; i < o->e; i++)
		if (!o->v[i].unknown && (!skip || strcmp(o->v[i].key, skip) != 0))
			json_kv_string(j, o->v[i].key, o->v[i].value);
	json_object_end(j);
	json_key(j, "unknown");
	json_object_begin(j);
	for (size_t i = o->i; i < o->e; i++)
		if (o->v[i].unknown)
			json_kv_string(j, o->v[i].key, o->v[i].value);
	json_object_end(j);
}

static void json_namespace(void *ctx, const struct obj *o)
{
	struct json *j = ctx;
	const struct model_cfg *x = &o->v[o->i], *mark = marker(o, "sysctls_differing");

	json_object_begin(j);
	json_kv_u64(j, "netns", x->netns);
	json_kv_string(j, "name", x->object);
	json_kv_bool(j, "host", (x->flags & FT_CFGF_HOST) != 0);
	if (mark && !mark->unknown)
		json_kv_u64(j, "sysctls_differing", strtoull(mark->value, NULL, 10));
	else
		json_kv_string(j, "sysctls_differing", NULL);
	json_settings(j, "sysctls", o, "sysctls_differing");
	json_object_end(j);
}

static void json_qdisc(void *ctx, const struct obj *o)
{
	struct json *j = ctx;
	const struct model_cfg *x = &o->v[o->i];
	char h[24];

	json_object_begin(j);
	json_kv_string(j, "kind", x->object);
	json_kv_string(j, "handle", qdisc_config__handle_str(x->handle, h, sizeof(h)));
	json_kv_string(j, "parent", qdisc_config__handle_str(x->parent, h, sizeof(h)));
	json_kv_bool(j, "class", (x->flags & FT_CFGF_CLASS) != 0);
	json_settings(j, "params", o, "kind");
	json_object_end(j);
}

static void json_iface(void *ctx, const struct obj *o)
{
	struct json *j = ctx;
	const struct model_cfg *x = &o->v[o->i];

	json_object_begin(j);
	json_kv_string(j, "name", x->object);
	json_kv_u64(j, "netns", x->netns);
	json_kv_string(j, "netns_name", ns_name(o->v, o->n, x->netns));
	json_kv_u64(j, "ifindex", x->id);
	json_settings(j, "settings", o, NULL);
	if (x->scope == FT_CFG_IFACE) {
		json_key(j, "qdiscs");
		json_array_begin(j);
		each_object(o->v, o->n, FT_CFG_QDISC, x, json_qdisc, j);
		json_array_end(j);
	}
	json_object_end(j);
}

static void json_flow(void *ctx, const struct obj *o)
{
	struct json *j = ctx;
	const struct model_cfg *x = &o->v[o->i];
	char fl[120];

	json_object_begin(j);
	json_kv_u64(j, "netns", x->netns);
	json_kv_string(j, "flow", x->flow.family ? model__flow_str(&x->flow, fl, sizeof(fl)) : NULL);
	json_settings(j, "settings", o, NULL);
	json_object_end(j);
}

static void json_rank(void *ctx, const struct obj *o)
{
	struct json *j = ctx;

	json_object_begin(j);
	json_kv_u64(j, "pid", o->v[o->i].id);
	json_kv_string(j, "comm", o->v[o->i].object);
	json_settings(j, "env", o, "env_vars");
	json_object_end(j);
}

/* NAME: [one object per object of SCOPE, by FN] */
static void json_array(struct json *j, const char *name, const struct model_cfg *v, size_t n, unsigned scope,
		       obj_fn fn)
{
	json_key(j, name);
	json_array_begin(j);
	each_object(v, n, scope, NULL, fn, j);
	json_array_end(j);
}

void info_config__json(struct model_config *c, struct json *j)
{
	const struct model_cfg *v;
	size_t n;
	char b[200];

	if (!c || model_config__finish(c))
		return;
	v = model_config__all(c, &n);
	if (!n && !model_config__damaged(c))
		return;
	json_key(j, "config");
	json_object_begin(j);
	json_array(j, "namespaces", v, n, FT_CFG_NETNS, json_namespace);
	json_array(j, "interfaces", v, n, FT_CFG_IFACE, json_iface);
	json_array(j, "nics", v, n, FT_CFG_NIC, json_iface);
	json_array(j, "flows", v, n, FT_CFG_FLOW, json_flow);
	json_array(j, "processes", v, n, FT_CFG_RANK, json_rank);
	json_key(j, "changed");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		if (!v[i].changed)
			continue;
		json_object_begin(j);
		json_kv_string(j, "scope", cfgrec__scope_name(v[i].scope));
		json_kv_string(j, "object", describe(v, n, &v[i], b, sizeof(b)));
		json_kv_string(j, "key", v[i].key);
		json_kv_string(j, "from", v[i].value);
		json_kv_string(j, "to", v[i].last);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_u64(j, "unknown", model_config__unknown(c));
	json_kv_u64(j, "damaged", model_config__damaged(c));
	json_object_end(j);
}
