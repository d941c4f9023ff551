// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collectives of one run, for compare (cmp_priv.h): per (op, size,
 * ranks) group its time p50 and p99 and bus bandwidth (the correlator's op
 * statistics), the shares of its time budget (waiting, usual, the
 * network's, unexplained; the network's per link: docs/verdicts.md), and
 * every collective's duration as a sample (the page's CDFs); the job's
 * budget likewise, as group "job"; and the job's shape (its groups, its
 * ranks).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/compare/cmp_priv.h"

/* "allreduce 1.0 MB x4": a group's name (the job's shape and its metrics). */
static const char *group_name(const struct corr_opstat *s, char *buf, size_t len)
{
	char b[32];

	snprintf(buf, len, "%s %s x%u%s", corr__op_name(s->op), fmt_bytes((double)s->size_bytes, b, sizeof(b)),
		 s->nranks, s->enqueue_only ? " enqueue" : "");
	return buf;
}

/* The wire a cost was on, for its name ("eth0@h2"); NULL when it has none. */
static const char *cost_link(const struct model *m, const struct corr *c, const struct corr_cost *k)
{
	uint32_t w;

	if (k->iface == CORR_NONE || k->iface >= m->nifaces)
		return NULL;
	w = corr__wire(c, k->iface);
	return m->ifaces[w < m->nifaces ? w : k->iface].label;
}

/* The budget of the instances of one group summed, its network share split by link. */
struct gsum {
	uint64_t total, waiting, usual, network, unexplained;
	struct {
		char link[64];
		uint64_t ns;
	} links[16];
	size_t nlinks;
};

static void add_link(struct gsum *g, const char *link, uint64_t ns)
{
	size_t k;

	for (k = 0; k < g->nlinks && strcmp(g->links[k].link, link) != 0; k++)
		;
	if (k == g->nlinks) {
		if (g->nlinks == sizeof(g->links) / sizeof(g->links[0]))
			return; /* more links than a group names: the total still holds them */
		str_copy(g->links[k].link, link, sizeof(g->links[k].link));
		g->links[k].ns = 0;
		g->nlinks++;
	}
	g->links[k].ns += ns;
}

static int shares(struct cmp_run *r, const char *group, const struct gsum *g)
{
	double t = (double)g->total;
	char grp[160];
	int ret = 0;

	if (!g->total)
		return 0;
	ret |= cmp_run__obs(r, group, "waiting_share", "share", CMP_LOWER, true, (double)g->waiting / t);
	ret |= cmp_run__obs(r, group, "usual_share", "share", CMP_NEUTRAL, true, (double)g->usual / t);
	ret |= cmp_run__obs(r, group, "network_share", "share", CMP_LOWER, true, (double)g->network / t);
	ret |= cmp_run__obs(r, group, "unexplained_share", "share", CMP_LOWER, true, (double)g->unexplained / t);
	for (size_t k = 0; k < g->nlinks && !ret; k++) {
		snprintf(grp, sizeof(grp), "%s via %s", group, g->links[k].link);
		ret = cmp_run__obs(r, grp, "network_share", "share", CMP_LOWER, true, (double)g->links[k].ns / t);
	}
	return ret ? -ENOMEM : 0;
}

static int one_group(struct cmp_run *r, const struct model *m, const struct corr *c, uint32_t gi)
{
	const struct corr_opstat *s = &c->opstats[gi];
	struct gsum g;
	char name[96];
	int ret = 0;

	memset(&g, 0, sizeof(g));
	group_name(s, name, sizeof(name));
	if (s->count) {
		ret |= cmp_run__obs(r, name, "time_p50", "s", CMP_LOWER, false, (double)s->span_p50_ns / 1e9);
		ret |= cmp_run__obs(r, name, "time_p99", "s", CMP_LOWER, false, (double)s->span_p99_ns / 1e9);
	}
	if (isfinite(s->busbw_mean))
		ret |= cmp_run__obs(r, name, "busbw", "B/s", CMP_HIGHER, false, s->busbw_mean);
	for (size_t i = 0; i < c->ninstances && !ret; i++) {
		const struct corr_instance *in = &c->instances[i];
		const struct corr_budget *b = &in->budget;

		if (in->opstat != gi || in->open || in->partial)
			continue;
		ret = cmp_run__sample(r, name, "duration", "s", (double)model__rel_ns(m, in->first_entry) / 1e9,
				      (double)in->span_ns / 1e9);
		g.total += b->total_ns;
		g.waiting += b->waiting_ns;
		g.usual += b->usual_ns;
		g.network += b->network_ns;
		g.unexplained += b->unexplained_ns;
		for (size_t k = 0; k < b->ncosts; k++) {
			const struct corr_cost *cost = &c->costs[b->first_cost + k];
			const char *link = cost_link(m, c, cost);

			if (link && cost->cost_ns)
				add_link(&g, link, cost->cost_ns);
		}
	}
	return ret ? -ENOMEM : shares(r, name, &g);
}

/* The job: time in collectives and its budget's shares, the network's per link. */
static int job(struct cmp_run *r, const struct model *m, const struct corr *c)
{
	const struct corr_job_budget *b = &c->budget;
	struct gsum g;

	if (!b->total_ns)
		return 0;
	memset(&g, 0, sizeof(g));
	g.total = b->total_ns;
	g.waiting = b->waiting_ns;
	g.usual = b->expected_ns;
	g.network = b->network_ns;
	g.unexplained = b->unexplained_ns;
	for (size_t k = 0; k < b->nlinks; k++)
		if (b->links[k].iface < m->nifaces && b->links[k].ns)
			add_link(&g, m->ifaces[b->links[k].iface].label, b->links[k].ns);
	if (cmp_run__obs(r, "job", "coll_time", "s", CMP_LOWER, false, (double)b->total_ns / 1e9))
		return -ENOMEM;
	return shares(r, "job", &g);
}

/* The job's shape: its groups with their counts, its ranks. */
static int shape(struct cmp_run *r, const struct corr *c)
{
	for (size_t i = 0; i < c->nopstats; i++) {
		struct cmp_shape_group *g;

		if (grow_array((void **)&r->groups, &r->cap_groups, r->ngroups + 1, sizeof(*r->groups)))
			return -ENOMEM;
		g = &r->groups[r->ngroups++];
		group_name(&c->opstats[i], g->name, sizeof(g->name));
		g->count = c->opstats[i].count;
	}
	for (size_t i = 0; i < c->nranks; i++)
		r->nranks += c->ranks[i].rank >= 0;
	return 0;
}

int cmp_extract__coll(struct cmp_run *r, const struct model *m, const struct corr *c)
{
	int ret = shape(r, c);

	for (uint32_t i = 0; i < c->nopstats && !ret; i++)
		ret = one_group(r, m, c, i);
	return ret ? ret : job(r, m, c);
}
