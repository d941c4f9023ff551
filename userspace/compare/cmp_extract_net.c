// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network of one run, for compare (cmp_priv.h), from what the model
 * computed:
 *   per link (an interface with traffic): microbursts (the model's bursts
 *     at the stated share of its capacity) and the peak bin's share;
 *     congestion drops, the retransmits (all, RTO, fast) of the flows it
 *     carries (on both ends of the sender's wire and of the receiver's: a
 *     switch port's bottleneck is its flows' path too) and CE marks, per GB
 *     crossing it (both directions);
 *   per queue (a qdisc with samples): sojourn p50 and p99 (bins' mean
 *     sojourn, weighted by their samples), max, the largest backlog, drops
 *     per GB enqueued, and each bin's mean sojourn as a sample;
 *   per counter group (RDMA, NIC): the time its pause and its congestion
 *     (CNP, ECN) counters spiked;
 *   every link together (group "all links"): drops, retransmits and CE
 *     marks per GB.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "probes/qdisc_config.h"
#include "userspace/compare/cmp_priv.h"

struct net_sum {
	uint64_t bytes, drops, rtx, rto, fast, ce;
};

static int per_gb(struct cmp_run *r, const char *group, const struct net_sum *s)
{
	double gb = (double)s->bytes / 1e9;
	int ret = 0;

	if (!s->bytes)
		return 0;
	ret |= cmp_run__obs(r, group, "drops_per_gb", "1/GB", CMP_LOWER, false, (double)s->drops / gb);
	ret |= cmp_run__obs(r, group, "retrans_per_gb", "1/GB", CMP_LOWER, false, (double)s->rtx / gb);
	ret |= cmp_run__obs(r, group, "rto_per_gb", "1/GB", CMP_LOWER, false, (double)s->rto / gb);
	ret |= cmp_run__obs(r, group, "fast_per_gb", "1/GB", CMP_LOWER, false, (double)s->fast / gb);
	ret |= cmp_run__obs(r, group, "ce_per_gb", "1/GB", CMP_LOWER, false, (double)s->ce / gb);
	return ret ? -ENOMEM : 0;
}

/* The one interface of NETNS with traffic (a flow whose records named no interface), NULL when not one. */
static const struct model_iface *only_iface(const struct model *m, uint32_t netns)
{
	const struct model_iface *found = NULL;

	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		if (it->netns != netns || !(it->dir[FT_DIR_RX].bytes + it->dir[FT_DIR_TX].bytes))
			continue;
		if (found)
			return NULL;
		found = it;
	}
	return found;
}

/* Add flow F's retransmits to X. */
static void add_rtx(struct net_sum *x, const struct model_flow *f)
{
	x->rtx += f->rtx_total;
	x->rto += f->rtx[FT_RTX_RTO];
	x->fast += f->rtx[FT_RTX_FAST];
}

/* Each link's drops, retransmits and CE marks; the job's sums in *JOB (every flow's retransmits). */
static int links(struct cmp_run *r, const struct model *m, const struct corr *c, struct net_sum *job)
{
	struct net_sum *s = calloc(m->nifaces ? m->nifaces : 1, sizeof(*s));
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		s[i].bytes = it->dir[FT_DIR_RX].bytes + it->dir[FT_DIR_TX].bytes;
		s[i].ce = it->dir[FT_DIR_RX].ce_pkts + it->dir[FT_DIR_TX].ce_pkts;
	}
	for (size_t i = 0; i < m->ndrops; i++)
		if (m->drops[i].iface < m->nifaces && corr__congestion_drop(m->drops[i].name))
			s[m->drops[i].iface].drops += m->drops[i].count;
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *f = &m->flows[i];
		const struct model_iface *it = f->ifindex ? model__iface(m, f->key.netns, f->ifindex) : NULL;
		const struct model_iface *dest;
		uint32_t ws, wd;

		add_rtx(job, f);
		if (!f->rtx_total)
			continue;
		if (!it)
			it = only_iface(m, f->key.netns);
		dest = corr__flow_dest_iface(m, (uint32_t)i);
		ws = it ? corr__wire(c, (uint32_t)(it - m->ifaces)) : CORR_NONE;
		wd = dest ? corr__wire(c, (uint32_t)(dest - m->ifaces)) : CORR_NONE;
		for (size_t k = 0; k < m->nifaces; k++) {
			uint32_t w = corr__wire(c, (uint32_t)k);

			if (w != CORR_NONE && (w == ws || w == wd))
				add_rtx(&s[k], f);
		}
	}
	for (size_t i = 0; i < m->nifaces && !ret; i++) {
		const struct model_iface *it = &m->ifaces[i];
		const struct model_dir *d = it->dir;
		double peak = NAN;

		job->bytes += s[i].bytes;
		job->drops += s[i].drops;
		job->ce += s[i].ce;
		if (!s[i].bytes)
			continue;
		ret = per_gb(r, it->label, &s[i]);
		for (int k = 0; k < 2; k++)
			if (d[k].capacity_bps > 0 && isfinite(d[k].peak_util) && !(peak >= d[k].peak_util))
				peak = d[k].peak_util;
		if (!ret && isfinite(peak)) {
			ret = cmp_run__obs(r, it->label, "microbursts", "count", CMP_LOWER, false,
					   (double)(d[0].nbursts + d[1].nbursts));
			if (!ret)
				ret = cmp_run__obs(r, it->label, "burst_peak", "share", CMP_NEUTRAL, false, peak);
		}
	}
	free(s);
	return ret;
}

struct wbin {
	double x;
	uint64_t w;
};

static int by_x(const void *a, const void *b)
{
	double x = ((const struct wbin *)a)->x, y = ((const struct wbin *)b)->x;

	return (x > y) - (x < y);
}

/* The Q-quantile of V (sorted by x) weighted by w: the first x whose cumulative weight reaches Q of the total. */
static double wquantile(const struct wbin *v, size_t n, uint64_t total, double q)
{
	double want = q * (double)total, cum = 0;

	for (size_t i = 0; i < n; i++) {
		cum += (double)v[i].w;
		if (cum >= want)
			return v[i].x;
	}
	return n ? v[n - 1].x : NAN;
}

static int one_queue(struct cmp_run *r, const struct model *m, size_t qi)
{
	const struct model_qdisc *q = &m->qdiscs[qi];
	struct wbin *v;
	char lab[48], grp[128];
	size_t n = 0;
	uint64_t total = 0;
	int ret = 0;

	if (!q->nbins)
		return 0;
	/* named as the configuration's settings are: a handle the kernel picked by its place */
	snprintf(grp, sizeof(grp), "%s %s on %s", q->kind[0] ? q->kind : "qdisc",
		 qdisc_config__stable_handle(q->handle, q->parent, lab, sizeof(lab)),
		 q->iface < m->nifaces ? m->ifaces[q->iface].label : "?");
	v = calloc(q->nbins, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < q->nbins && !ret; i++) {
		const struct model_qbin *b = &q->bins[i];

		if (!b->sojourn_cnt)
			continue;
		v[n].x = (double)b->sojourn_sum_ns / (double)b->sojourn_cnt / 1e9;
		v[n].w = b->sojourn_cnt;
		total += b->sojourn_cnt;
		ret = cmp_run__sample(r, grp, "sojourn", "s", (double)model__rel_ns(m, b->start_ns) / 1e9, v[n].x);
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_x);
	if (!ret && n) {
		ret |= cmp_run__obs(r, grp, "sojourn_p50", "s", CMP_LOWER, false, wquantile(v, n, total, 0.5));
		ret |= cmp_run__obs(r, grp, "sojourn_p99", "s", CMP_LOWER, false, wquantile(v, n, total, 0.99));
		ret |= cmp_run__obs(r, grp, "sojourn_max", "s", CMP_LOWER, false, (double)q->sojourn_max_ns / 1e9);
	}
	if (!ret)
		ret = cmp_run__obs(r, grp, "max_backlog", "B", CMP_LOWER, false, (double)q->max_backlog_bytes);
	if (!ret && q->enq_bytes)
		ret = cmp_run__obs(r, grp, "drops_per_gb", "1/GB", CMP_LOWER, false,
				   (double)q->drops_counter / ((double)q->enq_bytes / 1e9));
	free(v);
	return ret ? -ENOMEM : 0;
}

struct ival {
	uint64_t from, to;
};

static int by_from(const void *a, const void *b)
{
	uint64_t x = ((const struct ival *)a)->from, y = ((const struct ival *)b)->from;

	return (x > y) - (x < y);
}

/* The time the counters of group G of class CLS spiked: the union of their spikes, in seconds. */
static double spiking(const struct model *m, size_t g, unsigned cls, struct ival *v)
{
	uint64_t sum = 0, end = 0;
	size_t n = 0;

	for (size_t i = 0; i < m->nctr_events; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];
		const struct model_ctr_series *s = e->series < m->nctr_series ? &m->ctr_series[e->series] : NULL;

		if (s && s->group == g && s->cls == cls && e->end_ns > e->start_ns)
			v[n++] = (struct ival){ e->start_ns, e->end_ns };
	}
	if (n)
		qsort(v, n, sizeof(*v), by_from);
	for (size_t i = 0; i < n; i++) {
		uint64_t from = v[i].from > end ? v[i].from : end;

		if (v[i].to > from)
			sum += v[i].to - from;
		if (v[i].to > end)
			end = v[i].to;
	}
	return (double)sum / 1e9;
}

static int counters(struct cmp_run *r, const struct model *m)
{
	struct ival *v;
	int ret = 0;

	if (!m->nctr_groups)
		return 0;
	v = calloc(m->nctr_events ? m->nctr_events : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t g = 0; g < m->nctr_groups && !ret; g++) {
		const char *lab = m->ctr_groups[g].label;

		ret |= cmp_run__obs(r, lab, "pause_time", "s", CMP_LOWER, true, spiking(m, g, FT_CLS_PAUSE, v));
		ret |= cmp_run__obs(r, lab, "cnp_time", "s", CMP_LOWER, true, spiking(m, g, FT_CLS_CONGESTION, v));
	}
	free(v);
	return ret ? -ENOMEM : 0;
}

/* The burst share went into the model's options (cmp_run.c): the model's bursts are compare's. */
int cmp_extract__net(struct cmp_run *r, const struct model *m, const struct corr *c)
{
	struct net_sum job;
	int ret;

	memset(&job, 0, sizeof(job));
	ret = links(r, m, c, &job);
	if (!ret)
		ret = per_gb(r, "all links", &job);
	for (size_t i = 0; i < m->nqdiscs && !ret; i++)
		ret = one_queue(r, m, i);
	return ret ? ret : counters(r, m);
}
