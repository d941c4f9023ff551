// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading a finished model: lookups by key, names of enums, the
 * flow string.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/probe_name.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

const struct model_iface *model__iface(const struct model *m, uint32_t netns, uint32_t ifindex)
{
	uint32_t key[2] = { netns, ifindex };
	long i;

	if (!m || !m->ifaces)
		return NULL;
	i = mdl_kvec_find(&m->priv->ifaces, key);
	return i < 0 ? NULL : &m->ifaces[i];
}

const char *model__netns_name(const struct model *m, uint32_t netns)
{
	for (size_t i = 0; i < m->nifaces; i++)
		if (m->ifaces[i].netns == netns && m->ifaces[i].netns_name[0])
			return m->ifaces[i].netns_name;
	return "";
}

const char *model__host_name(const struct model *m, uint32_t netns, char *buf, size_t len)
{
	const char *n = model__netns_name(m, netns);

	if (n[0])
		snprintf(buf, len, "%s", n);
	else if (m->hdr.hostname[0])
		snprintf(buf, len, "%.*s", (int)sizeof(m->hdr.hostname), m->hdr.hostname);
	else
		snprintf(buf, len, "netns %u", netns);
	return buf;
}

const char *model__drop_reason_name(const struct model *m, uint32_t reason)
{
	long i = mdl_kvec_find(&m->priv->reasons, &reason);

	return i < 0 ? NULL : ((const struct reason_name *)mdl_kvec_at(&m->priv->reasons, (size_t)i))->name;
}

const struct model_flow *model__flow(const struct model *m, const struct ft_flow *f)
{
	struct ft_flow key;
	long i;

	if (!m || !m->finished || !f)
		return NULL;
	mdl_flow_key(f, &key);
	i = mdl_kvec_find(&m->priv->flows, &key);
	return i < 0 ? NULL : &m->flows[i];
}

const struct model_slot *model__slot(const struct model *m, uint32_t slot)
{
	size_t lo = 0, hi = m->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->slots[mid].slot == slot)
			return &m->slots[mid];
		if (m->slots[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct model_proc *model__proc(const struct model *m, uint32_t pid)
{
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->procs[mid].pid == pid)
			return &m->procs[mid];
		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *model__probe_name(const struct model *m, uint32_t id, char *buf, size_t len)
{
	const char *recorded = NULL;

	for (size_t i = 0; i < m->nprobes && !recorded; i++)
		if (m->probes[i].id == id)
			recorded = m->probes[i].name;
	return capture__probe_name(id, recorded, buf, len);
}

bool model__probe_span(const struct model *m, size_t k, struct model_span *out)
{
	size_t n = 0;
	uint32_t depth = 0;

	for (size_t i = 0; i < m->nspans; i++) {
		const struct ft_probe_span *r = &m->spans[i];

		if (r->on) {
			if (!depth++)
				*out = (struct model_span){ .from_ns = r->ts_ns, .to_ns = m->capture_end_ns,
							    .probes = r->probes, .snapshot = r->snapshot,
							    .owners = r->owners != 0 };
			out->probes |= r->probes;
			out->owners |= r->owners != 0;
			continue;
		}
		if (!depth || --depth)
			continue; /* an `off` of none open, or one of several hosts' */
		out->to_ns = r->ts_ns > out->from_ns ? r->ts_ns : out->from_ns;
		if (n++ == k)
			return true;
	}
	return depth && n == k;
}

uint64_t model__span_probes(const struct model *m)
{
	uint64_t probes = 0;

	for (size_t i = 0; i < m->nspans; i++)
		probes |= m->spans[i].probes;
	return probes;
}

const char *model__queues_missing(const struct model *m)
{
	const uint64_t q = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ);

	return (model__span_probes(m) & q) ? NULL : capture__queues_missing(&m->hdr);
}

const char *model__trigger_name(unsigned trigger)
{
	static const char *const n[] = { "unknown", "rto", "fast", "tlp", "syn" };

	return trigger < MODEL_NTRIGGER ? n[trigger] : "unknown";
}

const char *model__ca_state_name(unsigned state, char *buf, size_t len)
{
	static const char *const n[] = { "open", "disorder", "cwr", "recovery", "loss" };

	if (state < 5)
		return n[state];
	snprintf(buf, len, "state %u", state);
	return buf;
}

const char *model__source_name(unsigned source)
{
	static const char *const n[] = { "net", "tcp", "user", "phase" };

	_Static_assert(sizeof(n) / sizeof(n[0]) == FT_SRC_MAX, "a name per enum ft_source");
	return source < FT_SRC_MAX ? n[source] : "unknown";
}

const char *model__conserve_name(enum model_conserve c)
{
	switch (c) {
	case MODEL_CONSERVE_OK: return "ok";
	case MODEL_CONSERVE_MISMATCH: return "mismatch";
	case MODEL_CONSERVE_OK_SKIPPED: return "ok_skipped";
	case MODEL_CONSERVE_UNTRACED: return "untraced";
	default: return "unknown";
	}
}

const char *model__flow_str(const struct ft_flow *f, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = f->family == 6 ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, f->saddr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (!inet_ntop(af, f->daddr, b, sizeof(b)))
		snprintf(b, sizeof(b), "?");
	if (f->family == 6)
		snprintf(buf, len, "[%s]:%u -> [%s]:%u", a, f->sport, b, f->dport);
	else
		snprintf(buf, len, "%s:%u -> %s:%u", a, f->sport, b, f->dport);
	return buf;
}

double model__ctr_point_rate(const struct model *m, const struct model_ctr_point *pt)
{
	return model_ctr__point_rate(m->rdma_ports, m->ctr_groups, m->ctr_series, pt);
}

double model__ctr_growth(const struct model *m, size_t si, uint64_t from, uint64_t to)
{
	return model_ctr__growth(&m->ctr_series[si], m->ctr_points, from, to);
}
