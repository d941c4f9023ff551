// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Chrome Trace Event Format (JSON object form), opened by ui.perfetto.dev
 * and chrome://tracing.  Layout:
 *
 *   process per host (pid = 1 + host index, hosts sorted by name)
 *     thread per rank      steps, named phases, calls and their wait /
 *                          transfer sub-phases as complete events (X) where
 *                          they nest; intervals that overlap without nesting
 *                          (non-blocking calls) as async slices (b/e, cat
 *                          "rank-async", one id per extra lane)
 *     thread "events"      instants (i): retransmits, drops with reason, CE
 *                          marks, counter spikes
 *     counters (C)         per interface TX/RX Mbit/s, per qdisc backlog and
 *                          sojourn, per RDMA/NIC counter growth per second;
 *                          every C event carries pid and tid
 *   process "collectives"  one async slice per matched collective (verdict in
 *                          its name and args), global instants for lost events
 *
 * Flow arrows (flow_out / flow_in with bind_id, Perfetto's "v2" flows) link
 * the members of one collective across ranks in entry order.  Timestamps are
 * microseconds since the capture start with three decimals (exact ns).
 * Every track is written in time order; counter tracks are reduced to at
 * most PF_MAX_BUCKETS values per window (max per bucket) so an hour-long
 * capture stays loadable.  The files of the renderer: viz/perfetto.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "viz/perfetto.h"

/* ---- the document ---- */

static int setup(struct pf *p, const struct viz_ctx *v)
{
	const struct model *m = p->m;
	const struct corr *c = p->c;
	size_t *per_host;
	int err = viz__hosts(v, &p->hosts);

	if (err)
		return err;
	p->coll_pid = (uint32_t)p->hosts.n + 1;
	p->iface_host = calloc(m->nifaces ? m->nifaces : 1, sizeof(*p->iface_host));
	p->rank_tid = calloc(c && c->nranks ? c->nranks : 1, sizeof(*p->rank_tid));
	p->rank_pid = calloc(c && c->nranks ? c->nranks : 1, sizeof(*p->rank_pid));
	per_host = calloc(p->hosts.n + 1, sizeof(*per_host));
	if (!p->iface_host || !p->rank_tid || !p->rank_pid || !per_host) {
		free(per_host);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nifaces; i++)
		p->iface_host[i] = pf_host_of_netns(p, m->ifaces[i].netns);
	for (size_t r = 0; c && r < c->nranks; r++) {
		size_t h = viz__host_index(&p->hosts, c->ranks[r].host);

		p->rank_pid[r] = (uint32_t)h + 1;
		p->rank_tid[r] = p->rank_pid[r] * PF_TID_MUL + 1 + (uint32_t)per_host[h]++;
	}
	free(per_host);
	for (size_t i = 0; c && i < c->ncalls; i++)
		p->ncalls += viz__visible(c->calls[i].start_ns, c->calls[i].end_ns, p->from, p->to);
	p->subphases = p->ncalls <= PF_DETAIL_CALLS;
	return c ? pf_flow_roles(p) : 0;
}

static void cleanup(struct pf *p)
{
	viz__hosts_free(&p->hosts);
	free(p->iface_host);
	free(p->rank_tid);
	free(p->rank_pid);
	free(p->flow_role);
}

static int emit_host(struct pf *p, uint32_t h)
{
	const struct corr *c = p->c;
	uint32_t pid = h + 1, tid_ev = pid * PF_TID_MUL + PF_TID_EVENTS, tid_ctr = pid * PF_TID_MUL + PF_TID_COUNTERS;
	int err;

	pf_meta(p, pid, tid_ev, "process_name", p->hosts.name[h], 0);
	pf_meta(p, pid, tid_ev, "process_sort_index", NULL, (long)pid);
	for (size_t r = 0; c && r < c->nranks; r++) {
		char label[128], pidn[32];

		if (p->rank_pid[r] != pid)
			continue;
		viz__rank_label(c, (uint32_t)r, label, sizeof(label));
		snprintf(pidn, sizeof(pidn), " pid %u", c->ranks[r].pid);
		strncat(label, pidn, sizeof(label) - strlen(label) - 1);
		pf_meta(p, pid, p->rank_tid[r], "thread_name", label, 0);
		pf_meta(p, pid, p->rank_tid[r], "thread_sort_index", NULL, (long)(p->rank_tid[r] % PF_TID_MUL));
	}
	pf_meta(p, pid, tid_ev, "thread_name", "network events", 0);
	pf_meta(p, pid, tid_ev, "thread_sort_index", NULL, (long)PF_TID_EVENTS);
	pf_meta(p, pid, tid_ctr, "thread_name", "fabric counters", 0);
	pf_meta(p, pid, tid_ctr, "thread_sort_index", NULL, (long)PF_TID_COUNTERS);
	for (size_t r = 0; c && r < c->nranks; r++)
		if (p->rank_pid[r] == pid && (err = pf_rank(p, (uint32_t)r)))
			return err;
	err = pf_instants(p, h, pid, tid_ev, "t");
	if (err)
		return err;
	pf_counters(p, h, pid, tid_ctr);
	return 0;
}

int viz__perfetto(const struct viz_ctx *v, FILE *f)
{
	struct pf p = { 0 };
	struct json *j = &p.j;
	char a[32], b[32], text[256];
	uint64_t span;
	uint32_t ctid;
	int err;

	if (!v || !v->m || !f)
		return -EINVAL;
	json_init(j, f, false);
	p.m = v->m;
	p.c = v->c;
	viz__window(v, false, &p.from, &p.to);
	span = p.to - p.from;
	p.res = p.m->hdr.bin_ns ? p.m->hdr.bin_ns : 1;
	if (span / p.res > PF_MAX_BUCKETS)
		p.res *= (span / p.res + PF_MAX_BUCKETS - 1) / PF_MAX_BUCKETS;
	err = setup(&p, v);
	if (err)
		goto out;
	ctid = p.coll_pid * PF_TID_MUL + 1;
	json_object_begin(j);
	json_kv_string(j, "displayTimeUnit", "ns");
	json_kv_object_begin(j, "otherData");
	json_kv_string(j, "generator", "fabtrace " FT_VERSION);
	json_kv_string(j, "host", p.m->hdr.hostname);
	snprintf(text, sizeof(text), "+%s..+%s", viz__secs(p.m, p.from, a, sizeof(a)), viz__secs(p.m, p.to, b, sizeof(b)));
	json_kv_string(j, "window_s", text);
	json_kv_u64(j, "counter_resolution_ns", p.res);
	json_kv_u64(j, "lost_events", p.m->lost_total);
	if (!p.subphases) {
		snprintf(text, sizeof(text), "%zu calls in the window: wait/transfer sub-phases are in the calls' args "
			 "(at most %u calls get them as slices; narrow the window with --from/--to)", p.ncalls,
			 PF_DETAIL_CALLS);
		json_kv_string(j, "note", text);
	}
	json_object_end(j);
	json_break(j);
	json_kv_array_begin(j, "traceEvents");
	for (uint32_t h = 0; h < p.hosts.n && !err; h++)
		err = emit_host(&p, h);
	if (err)
		goto out;
	pf_meta(&p, p.coll_pid, ctid, "process_name", "collectives", 0);
	pf_meta(&p, p.coll_pid, ctid, "process_sort_index", NULL, (long)p.coll_pid);
	pf_meta(&p, p.coll_pid, ctid, "thread_name", "matched collectives", 0);
	if (p.c && (err = pf_collectives(&p)))
		goto out;
	err = pf_lost(&p);
	if (err)
		goto out;
	/* events on no host (drops without a device, node-wide counters) */
	err = pf_instants(&p, (uint32_t)p.hosts.n, p.coll_pid, ctid, "g");
	if (err)
		goto out;
	pf_counters(&p, (uint32_t)p.hosts.n, p.coll_pid, ctid);
	json_break(j);
	json_array_end(j);
	json_object_end(j);
	json_finish(j);
	err = fflush(f) || ferror(f) ? -EIO : 0;
out:
	cleanup(&p);
	return err;
}
