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

/* The known settings in [A, B) but SKIP: "key value" (KV: the separator) joined by SEP. */
static void text_settings(FILE *f, const struct model_cfg *v, size_t a, size_t b, const char *sep, const char *kv,
			  const char *skip)
{
	bool any = false;

	for (size_t i = a; i < b; i++) {
		if (v[i].unknown || (skip && !strcmp(v[i].key, skip)))
			continue;
		fprintf(f, "%s%s%s%s", any ? sep : "", v[i].key, kv, v[i].value);
		any = true;
	}
	if (!any)
		fprintf(f, "(none)");
}

static void text_namespaces(FILE *f, const struct model_cfg *v, size_t n)
{
	for (size_t i = 0; i < n && v[i].scope == FT_CFG_NETNS;) {
		size_t e = object_end(v, n, i), cnt = 0;
		const struct model_cfg *mark = NULL;

		for (size_t k = i; k < e; k++)
			if (!strcmp(v[k].key, "sysctls_differing"))
				mark = &v[k];
			else
				cnt += !v[k].unknown;
		if (v[i].flags & FT_CFGF_HOST)
			fprintf(f, "  host sysctls (netns %u):\n", v[i].netns);
		else if (mark && mark->unknown)
			fprintf(f, "  netns %s (%u): sysctls unknown (%s)\n", v[i].object, v[i].netns, mark->value);
		else if (!cnt)
			fprintf(f, "  netns %s (%u): the host's sysctls\n", v[i].object, v[i].netns);
		else
			fprintf(f, "  netns %s (%u): %zu sysctl%s differ%s from the host's:\n", v[i].object, v[i].netns, cnt,
				cnt > 1 ? "s" : "", cnt > 1 ? "" : "s");
		for (size_t k = i; k < e; k++)
			if (&v[k] != mark && !v[k].unknown)
				fprintf(f, "    %-44s %s\n", v[k].key, v[k].value);
		i = e;
	}
}

static void text_qdiscs(FILE *f, const struct model_cfg *v, size_t n, uint32_t netns, uint32_t ifindex)
{
	for (size_t i = 0; i < n; i++) {
		size_t e;

		if (v[i].scope != FT_CFG_QDISC || v[i].netns != netns || v[i].id != ifindex)
			continue;
		e = object_end(v, n, i);
		/* a class without parameters (tbf's 1:1, the slot of its inner qdisc) says nothing */
		if (v[i].object[0] && (!(v[i].flags & FT_CFGF_CLASS) || e - i > 1)) {
			char where[40], h[24];

			if (v[i].parent == UINT32_MAX)
				snprintf(where, sizeof(where), "root");
			else
				snprintf(where, sizeof(where), "parent %s", qdisc_config__handle_str(v[i].parent, h, sizeof(h)));
			fprintf(f, "    %s %s%s%s (%s)", (v[i].flags & FT_CFGF_CLASS) ? "class" : "qdisc", v[i].object,
				v[i].handle ? " " : "", v[i].handle ? qdisc_config__handle_str(v[i].handle, h, sizeof(h)) : "",
				where);
			if (e - i > 1) {
				fprintf(f, "  ");
				text_settings(f, v, i, e, ", ", " ", "kind");
			}
			fprintf(f, "\n");
		}
		i = e - 1;
	}
}

static void text_ifaces(FILE *f, const struct model_cfg *v, size_t n, enum ft_config_scope scope)
{
	for (size_t i = 0; i < n; i++) {
		size_t e;
		char l[80];

		if (v[i].scope != scope)
			continue;
		e = object_end(v, n, i);
		fprintf(f, "  %s %s", scope == FT_CFG_NIC ? "NIC" : "interface", iface_label(v, n, &v[i], l, sizeof(l)));
		if (v[i].id)
			fprintf(f, " (ifindex %u)", v[i].id);
		if (scope == FT_CFG_NIC) {
			fprintf(f, ":\n");
			for (size_t k = i; k < e; k++)
				if (!v[k].unknown)
					fprintf(f, "    %-44s %s\n", v[k].key, v[k].value);
		} else {
			fprintf(f, ": ");
			text_settings(f, v, i, e, ", ", " ", NULL);
			fprintf(f, "\n");
			text_qdiscs(f, v, n, v[i].netns, v[i].id);
		}
		i = e - 1;
	}
}

/* Sockets counted by congestion control, and how many of those negotiated ECN. */
static void text_flows(FILE *f, const struct model_cfg *v, size_t n)
{
	struct cc_count {
		const char *cc;
		size_t n, ecn;
	} by[16];
	size_t nby = 0, total = 0;

	for (size_t i = 0; i < n; i++) {
		size_t e, k;
		const char *cc = "unknown";
		bool ecn = false;

		if (v[i].scope != FT_CFG_FLOW || !v[i].flow.family)
			continue;
		e = object_end(v, n, i);
		for (k = i; k < e; k++) {
			if (!strcmp(v[k].key, "cc"))
				cc = v[k].value;
			ecn |= !strcmp(v[k].key, "ecn") && !strcmp(v[k].value, "on");
		}
		for (k = 0; k < nby && strcmp(by[k].cc, cc) != 0; k++)
			;
		if (k == nby && nby < sizeof(by) / sizeof(by[0]))
			by[nby++] = (struct cc_count){ cc, 0, 0 };
		if (k < nby) {
			by[k].n++;
			by[k].ecn += ecn;
		}
		total++;
		i = e - 1;
	}
	if (!total)
		return;
	fprintf(f, "  TCP sockets: %zu (", total);
	for (size_t k = 0; k < nby; k++)
		fprintf(f, "%s%s %zu, ECN on %zu", k ? "; " : "", by[k].cc, by[k].n, by[k].ecn);
	fprintf(f, ")\n");
}

static void text_ranks(FILE *f, const struct model_cfg *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t e;

		if (v[i].scope != FT_CFG_RANK)
			continue;
		e = object_end(v, n, i);
		fprintf(f, "  process %u (%s): ", v[i].id, v[i].object);
		text_settings(f, v, i, e, ", ", "=", "env_vars");
		fprintf(f, "\n");
		i = e - 1;
	}
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
	text_namespaces(f, v, n);
	text_ifaces(f, v, n, FT_CFG_IFACE);
	text_ifaces(f, v, n, FT_CFG_NIC);
	text_flows(f, v, n);
	text_ranks(f, v, n);
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

/* {key: value} of the known settings in [A, B) but SKIP, then "unknown": {key: why} if any. */
static void json_settings(struct json *j, const char *name, const struct model_cfg *v, size_t a, size_t b,
			  const char *skip)
{
	bool unknown = false;

	json_key(j, name);
	json_object_begin(j);
	for (size_t i = a; i < b; i++) {
		unknown |= v[i].unknown;
		if (!v[i].unknown && (!skip || strcmp(v[i].key, skip) != 0))
			json_kv_string(j, v[i].key, v[i].value);
	}
	json_object_end(j);
	json_key(j, "unknown");
	json_object_begin(j);
	for (size_t i = a; unknown && i < b; i++)
		if (v[i].unknown)
			json_kv_string(j, v[i].key, v[i].value);
	json_object_end(j);
}

static void json_namespaces(struct json *j, const struct model_cfg *v, size_t n)
{
	json_key(j, "namespaces");
	json_array_begin(j);
	for (size_t i = 0; i < n && v[i].scope == FT_CFG_NETNS;) {
		size_t e = object_end(v, n, i);
		const struct model_cfg *mark = NULL;

		for (size_t k = i; k < e; k++)
			if (!strcmp(v[k].key, "sysctls_differing"))
				mark = &v[k];
		json_object_begin(j);
		json_kv_u64(j, "netns", v[i].netns);
		json_kv_string(j, "name", v[i].object);
		json_kv_bool(j, "host", (v[i].flags & FT_CFGF_HOST) != 0);
		if (mark && !mark->unknown)
			json_kv_u64(j, "sysctls_differing", strtoull(mark->value, NULL, 10));
		else
			json_kv_string(j, "sysctls_differing", NULL);
		json_settings(j, "sysctls", v, i, e, "sysctls_differing");
		json_object_end(j);
		i = e;
	}
	json_array_end(j);
}

static void json_qdiscs(struct json *j, const struct model_cfg *v, size_t n, uint32_t netns, uint32_t ifindex)
{
	json_key(j, "qdiscs");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		size_t e;
		char h[24];

		if (v[i].scope != FT_CFG_QDISC || v[i].netns != netns || v[i].id != ifindex)
			continue;
		e = object_end(v, n, i);
		json_object_begin(j);
		json_kv_string(j, "kind", v[i].object);
		json_kv_string(j, "handle", qdisc_config__handle_str(v[i].handle, h, sizeof(h)));
		json_kv_string(j, "parent", qdisc_config__handle_str(v[i].parent, h, sizeof(h)));
		json_kv_bool(j, "class", (v[i].flags & FT_CFGF_CLASS) != 0);
		json_settings(j, "params", v, i, e, "kind");
		json_object_end(j);
		i = e - 1;
	}
	json_array_end(j);
}

static void json_ifaces(struct json *j, const char *name, const struct model_cfg *v, size_t n,
			enum ft_config_scope scope)
{
	json_key(j, name);
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		size_t e;

		if (v[i].scope != scope)
			continue;
		e = object_end(v, n, i);
		json_object_begin(j);
		json_kv_string(j, "name", v[i].object);
		json_kv_u64(j, "netns", v[i].netns);
		json_kv_string(j, "netns_name", ns_name(v, n, v[i].netns));
		json_kv_u64(j, "ifindex", v[i].id);
		json_settings(j, "settings", v, i, e, NULL);
		if (scope == FT_CFG_IFACE)
			json_qdiscs(j, v, n, v[i].netns, v[i].id);
		json_object_end(j);
		i = e - 1;
	}
	json_array_end(j);
}

static void json_flows(struct json *j, const struct model_cfg *v, size_t n)
{
	json_key(j, "flows");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		size_t e;
		char fl[120];

		if (v[i].scope != FT_CFG_FLOW)
			continue;
		e = object_end(v, n, i);
		json_object_begin(j);
		json_kv_u64(j, "netns", v[i].netns);
		json_kv_string(j, "flow", v[i].flow.family ? model__flow_str(&v[i].flow, fl, sizeof(fl)) : NULL);
		json_settings(j, "settings", v, i, e, NULL);
		json_object_end(j);
		i = e - 1;
	}
	json_array_end(j);
}

static void json_ranks(struct json *j, const struct model_cfg *v, size_t n)
{
	json_key(j, "processes");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		size_t e;

		if (v[i].scope != FT_CFG_RANK)
			continue;
		e = object_end(v, n, i);
		json_object_begin(j);
		json_kv_u64(j, "pid", v[i].id);
		json_kv_string(j, "comm", v[i].object);
		json_settings(j, "env", v, i, e, "env_vars");
		json_object_end(j);
		i = e - 1;
	}
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
	json_namespaces(j, v, n);
	json_ifaces(j, "interfaces", v, n, FT_CFG_IFACE);
	json_ifaces(j, "nics", v, n, FT_CFG_NIC);
	json_flows(j, v, n);
	json_ranks(j, v, n);
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
