// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model__finish(): the capture span, the final order of interfaces,
 * queues, flows, drops, lost counts, probes and coverage (with the index
 * remaps this needs), then links (model_links.c), phases (model_phases.c)
 * and counters (model_counters.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/iface_label.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

/* ---- finish ---- */



/*
 * Interfaces: named ones first, by namespace name then interface name, then
 * (netns, ifindex); unnamed ones ("netns N ifindex I") after, by number.
 */
static int cmp_iface(const void *a, const void *b)
{
	const struct model_iface *x = a, *y = b;
	int c;

	if (x->known != y->known)
		return x->known ? -1 : 1;
	if (x->known) {
		c = strcmp(x->netns_name, y->netns_name);
		if (c)
			return c;
		c = strcmp(x->name, y->name);
		if (c)
			return c;
	}
	c = cmp_u32(x->netns, y->netns);
	return c ? c : cmp_u32(x->ifindex, y->ifindex);
}

/* Qdiscs sorted by their interface's order, then handle. */
static int cmp_qdisc(const void *a, const void *b)
{
	const struct model_qdisc *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u32(x->handle, y->handle);
	return c ? c : cmp_u32(x->parent, y->parent);
}

static int cmp_flow(const void *a, const void *b)
{
	return mdl_cmp_flow_key(&((const struct model_flow *)a)->key, &((const struct model_flow *)b)->key);
}
static int cmp_cong(const void *a, const void *b)
{
	const struct model_cong_pair *x = a, *y = b;
	int c = cmp_u32(x->old_state, y->old_state);

	return c ? c : cmp_u32(x->new_state, y->new_state);
}

static int cmp_drop(const void *a, const void *b)
{
	const struct model_drop *x = a, *y = b;
	int c = cmp_u64(y->count, x->count);

	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = cmp_u32(x->reason, y->reason);
	if (!c)
		c = cmp_u32(x->iface, y->iface);
	if (!c)
		c = cmp_u32(x->netns, y->netns);
	return c ? c : cmp_u32(x->ifindex, y->ifindex);
}

static int cmp_lost(const void *a, const void *b)
{
	const struct model_lost *x = a, *y = b;
	int c = cmp_u32(x->source, y->source);

	return c ? c : cmp_u32(x->cpu, y->cpu);
}

static int cmp_lost_ev(const void *a, const void *b)
{
	const struct model_lost_ev *x = a, *y = b;
	int c = cmp_u64(x->ts_ns, y->ts_ns);

	if (!c)
		c = cmp_u32(x->source, y->source);
	return c ? c : cmp_u32(x->cpu, y->cpu);
}

static int cmp_probe(const void *a, const void *b)
{
	return cmp_u32(((const struct model_probe *)a)->id, ((const struct model_probe *)b)->id);
}

static int cmp_coverage(const void *a, const void *b)
{
	return cmp_u32(((const struct capture_cov *)a)->probe, ((const struct capture_cov *)b)->probe);
}


/* Index of the interface NETNS/IFINDEX, UINT32_MAX if none (netns 0: no netdev). */
static uint32_t iface_index(const struct model *m, uint32_t netns, uint32_t ifindex)
{
	const struct model_iface *f = netns ? model__iface(m, netns, ifindex) : NULL;

	return f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
}

/*
 * The counter sampler's arrays (model_counters.c, ERR its result) into the
 * model, with the interfaces of the ports' and groups' netdevs.  Returns ERR.
 */
static int take_counters(struct model *m, int err, const struct model_ctr_out *co)
{
	m->rdma_ports = co->ports;
	m->nrdma_ports = co->nports;
	m->ctr_groups = co->groups;
	m->nctr_groups = co->ngroups;
	m->ctr_series = co->series;
	m->nctr_series = co->nseries;
	m->ctr_points = co->points;
	m->nctr_points = co->npoints;
	m->ctr_events = co->events;
	m->nctr_events = co->nevents;
	m->sampler_evs = co->sampler_evs;
	m->nsampler_evs = co->nsampler_evs;
	for (size_t i = 0; i < m->nrdma_ports; i++)
		m->rdma_ports[i].iface = iface_index(m, m->rdma_ports[i].rec.netdev_netns,
						     m->rdma_ports[i].rec.netdev_ifindex);
	/* a group without a netdev of its own has its port's (model_counters.c) */
	for (size_t i = 0; i < m->nctr_groups; i++)
		m->ctr_groups[i].iface = iface_index(m, m->ctr_groups[i].netns, m->ctr_groups[i].ifindex);
	return err;
}

int model__finish(struct model *m)
{
	struct model_ctr_out co = { 0 };
	struct model_priv *p;
	uint32_t *remap = NULL, *qremap = NULL;
	size_t bcap = 0;
	int err;

	if (!m)
		return -EINVAL;
	if (m->finished)
		return 0;
	p = m->priv;
	err = mdl_add_held(m);
	if (err || (err = model_config__finish(m->config)))
		return err;
	err = -ENOMEM;

	/* capture span */
	if (m->have_end && m->end.ts_ns >= m->start_ns)
		m->end_ns = m->end.ts_ns;
	else if (p->any_ts && p->max_ts > m->start_ns)
		m->end_ns = p->max_ts;
	else
		m->end_ns = m->start_ns;
	m->capture_start_ns = m->start_ns;
	m->capture_end_ns = m->end_ns;
	if (m->opts.window) { /* the window, within the capture */
		uint64_t from = m->start_ns + m->opts.window_from_ns;

		if (m->opts.window_to_ns > m->opts.window_from_ns &&
		    m->start_ns + m->opts.window_to_ns < m->end_ns)
			m->end_ns = m->start_ns + m->opts.window_to_ns;
		m->start_ns = from < m->end_ns ? from : m->end_ns;
	}
	m->duration_ns = m->end_ns - m->start_ns;

	/* interfaces: label, sort, remap indices */
	size_t ni = p->ifaces.n;
	struct model_iface *ifs = (struct model_iface *)p->ifaces.items;

	for (size_t i = 0; i < ni; i++)
		iface_label(ifs[i].label, sizeof(ifs[i].label), ifs[i].known, ifs[i].name, ifs[i].netns_name,
			    ifs[i].netns, ifs[i].ifindex);
	remap = calloc(ni ? ni : 1, sizeof(*remap));
	if (!remap)
		goto out;
	/*
	 * Sort, learning the old -> new index mapping: qdisc_drop_recs (computed
	 * later) carries each entry's old index through the sort.
	 */
	for (size_t i = 0; i < ni; i++)
		ifs[i].qdisc_drop_recs = i;
	if (ni)
		qsort(ifs, ni, sizeof(*ifs), cmp_iface);
	for (size_t i = 0; i < ni; i++) {
		remap[ifs[i].qdisc_drop_recs] = (uint32_t)i;
		ifs[i].qdisc_drop_recs = 0;
	}
	if (ni && mdl_kvec_reindex(&p->ifaces, p->ifaces.nslots))
		goto out;
	m->ifaces = ifs;
	m->nifaces = ni;

	if (merge_bins(m, remap))
		goto out;

	for (size_t i = 0; i < ni; i++) {
		for (int dir = 0; dir < 2; dir++) {
			struct model_dir *d = &ifs[i].dir[dir];

			d->capacity_bps = iface_capacity_bps(ifs[i].speed_mbps, ifs[i].tx_rate_kbps, dir);
			d->line_bps = (double)ifs[i].speed_mbps * 1e6;
			d->shaper_bps = dir == FT_DIR_TX ? (double)ifs[i].tx_rate_kbps * 1e3 : 0;
			mdl_dir_stats(m, d);
			if (mdl_detect_bursts(m, d, (uint32_t)i, (uint32_t)dir, &bcap))
				goto out;
		}
	}

	/* drops: names, interface, qdisc drop records */
	m->drops = (struct model_drop *)p->drops.items;
	m->ndrops = p->drops.n;
	for (size_t i = 0; i < m->ndrops; i++) {
		struct model_drop *d = &m->drops[i];
		const char *nm = model__drop_reason_name(m, d->reason);
		const struct model_iface *f = model__iface(m, d->netns, d->ifindex);

		if (nm && nm[0])
			snprintf(d->name, sizeof(d->name), "%s", nm);
		else
			snprintf(d->name, sizeof(d->name), "reason %u", d->reason);
		d->iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		if (f && !strncmp(d->name, "QDISC_", 6))
			m->ifaces[d->iface].qdisc_drop_recs += d->count;
		m->drops_total += d->count;
	}
	if (m->ndrops)
		qsort(m->drops, m->ndrops, sizeof(*m->drops), cmp_drop);

	/* qdiscs */
	size_t nq = p->qdiscs.n;
	struct model_qdisc *qs = (struct model_qdisc *)p->qdiscs.items;

	for (size_t i = 0; i < nq; i++) {
		const struct model_iface *f = model__iface(m, qs[i].netns, qs[i].ifindex);

		qs[i].iface = f ? (uint32_t)(f - m->ifaces) : UINT32_MAX;
		qs[i].drop_recs = i; /* old index, replaced below */
	}
	qremap = calloc(nq ? nq : 1, sizeof(*qremap));
	if (!qremap)
		goto out;
	if (nq)
		qsort(qs, nq, sizeof(*qs), cmp_qdisc);
	for (size_t i = 0; i < nq; i++) {
		qremap[qs[i].drop_recs] = (uint32_t)i;
		qs[i].drop_recs = qs[i].iface != UINT32_MAX ? m->ifaces[qs[i].iface].qdisc_drop_recs : 0;
	}
	if (nq && mdl_kvec_reindex(&p->qdiscs, p->qdiscs.nslots))
		goto out;
	m->qdiscs = qs;
	m->nqdiscs = nq;
	merge_qbins(m, qremap);
	for (size_t i = 0; i < nq; i++) {
		mdl_qdisc_bound_sojourn(m, &qs[i]);
		mdl_qdisc_stats(&qs[i]);
		m->sojourn_dropped += qs[i].sojourn_dropped;
	}

	/* flows */
	m->flows = (struct model_flow *)p->flows.items;
	m->nflows = p->flows.n;
	if (m->nflows) {
		qsort(m->flows, m->nflows, sizeof(*m->flows), cmp_flow);
		if (mdl_kvec_reindex(&p->flows, p->flows.nslots))
			goto out;
	}
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];

		m->retrans += f->rtx_total;
		m->retrans_segs += f->rtx_segs;
		m->retrans_unsent += f->rtx_unsent;
		m->cong_changes += f->cong_changes;
		for (int t = 0; t < MODEL_NTRIGGER; t++)
			m->retrans_by_trigger[t] += f->rtx[t];
	}
	m->cong_pairs = (struct model_cong_pair *)p->cong.items;
	m->ncong_pairs = p->cong.n;
	if (m->ncong_pairs)
		qsort(m->cong_pairs, m->ncong_pairs, sizeof(*m->cong_pairs), cmp_cong);

	/* lost: last cumulative value per (source, cpu), summed */
	m->lost = (struct model_lost *)p->lost.items;
	m->nlost = p->lost.n;
	if (m->nlost)
		qsort(m->lost, m->nlost, sizeof(*m->lost), cmp_lost);
	for (size_t i = 0; i < m->nlost; i++) {
		m->lost[i].lost = m->lost[i].lost > m->lost[i].base ? m->lost[i].lost - m->lost[i].base : 0;
		unsigned s = m->lost[i].source < FT_SRC_MAX ? m->lost[i].source : FT_SRC_MAX;

		m->lost_by_source[s] += m->lost[i].lost;
		m->lost_total += m->lost[i].lost;
	}

	/* growths of the lost counters, by time (owned by the model) */
	m->lost_evs = (struct model_lost_ev *)p->lostev.items;
	m->nlost_evs = p->lostev.n;
	p->lostev.items = NULL;
	p->lostev.n = p->lostev.cap = 0;
	if (m->nlost_evs)
		qsort(m->lost_evs, m->nlost_evs, sizeof(*m->lost_evs), cmp_lost_ev);

	m->probes = (struct model_probe *)p->probes.items;
	m->nprobes = p->probes.n;
	if (m->nprobes)
		qsort(m->probes, m->nprobes, sizeof(*m->probes), cmp_probe);

	/* coverage: tracepoint hits the programs did not see, kept apart from lost_total */
	m->coverage = (struct capture_cov *)p->coverage.items;
	m->ncoverage = p->coverage.n;
	if (m->ncoverage)
		qsort(m->coverage, m->ncoverage, sizeof(*m->coverage), cmp_coverage);
	m->coverage_state = capture__cov_state(m->coverage, m->ncoverage, &m->skipped_runs,
					       &m->coverage_unknown);

	for (size_t i = 0; i < ni; i++)
		mdl_conserve(m, &ifs[i]);
	for (int dir = 0; dir < 2; dir++)
		mdl_conserve_explain_skipped(m, dir);

	mdl_finish_sched(m);
	if (mdl_finish_phases(m))
		goto out;
	if (take_counters(m, model_ctr__finish(p->ctr, m->opts.spike_rate, &co), &co))
		goto out;

	/* drop hash tables that are no longer consistent with sorted arrays */
	free(p->cong.slots); p->cong.slots = NULL; p->cong.nslots = 0;
	free(p->lost.slots); p->lost.slots = NULL; p->lost.nslots = 0;
	free(p->drops.slots); p->drops.slots = NULL; p->drops.nslots = 0;
	free(p->probes.slots); p->probes.slots = NULL; p->probes.nslots = 0;
	free(p->coverage.slots); p->coverage.slots = NULL; p->coverage.nslots = 0;
	m->finished = true;
	err = 0;
out:
	free(remap);
	free(qremap);
	return err;
}

