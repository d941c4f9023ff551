// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A traced netdev's counter groups (sampler_priv.h): its ethtool statistics
 * (ETHTOOL_GSTATS), and with --profile always its root qdisc's own counters
 * (rtnetlink; one dump of each namespace's qdiscs a period serves all its
 * netdevs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "counters.h"
#include "probes/qdisc_config.h"
#include "sampler_priv.h"
#include "sysattr.h"

static bool eth_selected(const char *filter, const char *name)
{
	if (sampler_match_all(filter))
		return true;
	return ctr__glob_match(filter ? filter : ctr__default_nic_filter, name);
}

int sampler_add_eth_groups(struct sampler *s, const struct sampler_netdev *nd, const char *filter)
{
	struct eth_src *src;
	uint32_t *sel = NULL, nsel = 0;
	const char *label;
	int rc;

	if (nd->ioctl_fd < 0 || !nd->name[0])
		return 0;
	src = &s->eth[s->neth];
	memset(src, 0, sizeof(*src));
	src->nd = *nd;
	rc = ethstats__open(&src->st, nd->ioctl_fd, nd->name);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return 0; /* EOPNOTSUPP (no stats), ENODEV (gone already): nothing to sample */
	if (!src->nd.ifindex && ethstats__ifindex(nd->ioctl_fd, nd->name, &src->nd.ifindex) != 0)
		src->nd.ifindex = 0;
	sel = calloc(src->st.n, sizeof(*sel));
	if (!sel) {
		ethstats__free(&src->st);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < src->st.n; i++)
		if (eth_selected(filter, src->st.names + (size_t)i * ETHSTATS_NAME_LEN))
			sel[nsel++] = i;
	if (!nsel) {
		free(sel);
		ethstats__free(&src->st);
		return 0;
	}
	label = nd->label[0] ? nd->label : nd->name;
	s->neth++; /* owned from here on: freed by sampler__close */
	rc = 0;
	for (uint32_t first = 0, k = 0; first < nsel; first += SAMPLER_MAX_VALUES, k++) {
		size_t n;
		struct group *g = sampler_new_chunk(s, FT_CTR_ETHTOOL, label, k, nsel, &n);

		if (!g) {
			rc = -ENOMEM;
			break;
		}
		g->eth = s->neth - 1;
		g->first = k == 0;
		g->rec.netns = src->nd.netns;
		g->rec.ifindex = src->nd.ifindex;
		for (size_t i = 0; i < n; i++) {
			struct ctr *c = &g->ctrs[i];
			uint32_t pos = sel[first + i];
			const char *name = src->st.names + (size_t)pos * ETHSTATS_NAME_LEN;

			sysattr__copy(c->name, name, sizeof(c->name));
			ctr__classify(FT_CTR_ETHTOOL, c->name, &c->cls, &c->flags);
			c->pos = pos;
			for (uint32_t j = 0; j < pos; j++)
				if (!strcmp(src->st.names + (size_t)j * ETHSTATS_NAME_LEN, name))
					c->dup++;
		}
	}
	free(sel);
	return rc;
}

int sampler_add_qdisc_group(struct sampler *s, const struct sampler_netdev *nd)
{
	const struct qdisc_stats *q;
	struct qd_src *src = NULL;
	char label[96], h[16];
	struct group *g;
	bool first = true;

	if (nd->nl_fd < 0 || !nd->ifindex)
		return 0;
	for (size_t i = 0; i < s->nqd && !src; i++)
		if (s->qd[i].nl_fd == nd->nl_fd)
			src = &s->qd[i];
	for (size_t i = 0; src && i < s->ngroups && first; i++)
		first = !(s->groups[i].rec.kind == FT_CTR_QDISC && s->groups[i].eth == (size_t)(src - s->qd));
	if (!src) { /* the namespace's first netdev: its qdiscs read now */
		src = &s->qd[s->nqd++];
		*src = (struct qd_src){ .nl_fd = nd->nl_fd };
		src->err = qdisc_stats__dump(src->nl_fd, &src->roots);
		if (src->err == -ENOMEM)
			return -ENOMEM;
	}
	q = qdisc_stats__find(&src->roots, nd->ifindex);
	if (!q)
		return 0;
	/* "tbf 1: on eth0@h1", cut to the record's label by new_group */
	snprintf(label, sizeof(label), "%s %s on %s", q->kind, qdisc_config__handle_str(q->handle, h, sizeof(h)),
		 nd->label[0] ? nd->label : nd->name);
	g = sampler_new_group(s, FT_CTR_QDISC, label, QS_MAX);
	if (!g)
		return -ENOMEM;
	g->eth = (size_t)(src - s->qd);
	g->first = first;
	g->rec.netns = nd->netns;
	g->rec.ifindex = nd->ifindex;
	for (size_t i = 0; i < QS_MAX; i++) { /* recorded, not interpreted: the drop records are the evidence */
		sysattr__copy(g->ctrs[i].name, qdisc_stats_names[i], sizeof(g->ctrs[i].name));
		g->ctrs[i].flags = i == QS_SENT_BYTES ? FT_CTRF_BYTES : FT_CTRF_PACKETS;
	}
	return 0;
}

/* Find the DUP-th stat named NAME in the netdev's current list. */
static uint32_t find_stat(const struct ethstats *st, const char *name, uint32_t dup)
{
	for (uint32_t j = 0; j < st->n; j++)
		if (!strncmp(st->names + (size_t)j * ETHSTATS_NAME_LEN, name, ETHSTATS_NAME_LEN) && dup-- == 0)
			return j;
	return NO_POS;
}

/* The ethtool read of a netdev (first group of it): sets src->err, remaps names when the set changed. */
static void read_eth_src(struct sampler *s, size_t gi)
{
	struct eth_src *src = &s->eth[s->groups[gi].eth];
	uint32_t ifindex = 0;
	int rc;

	/* gone, or the name now belongs to another device */
	rc = ethstats__ifindex(src->nd.ioctl_fd, src->nd.name, &ifindex);
	if (!rc && src->nd.ifindex && ifindex != src->nd.ifindex)
		rc = -ENODEV;
	if (!rc)
		rc = ethstats__read(&src->st);
	if (rc == 1) {
		for (size_t g = gi; g < s->ngroups && s->groups[g].eth == s->groups[gi].eth &&
				    s->groups[g].rec.kind == FT_CTR_ETHTOOL; g++)
			for (size_t i = 0; i < s->groups[g].n; i++) {
				struct ctr *c = &s->groups[g].ctrs[i];

				c->pos = find_stat(&src->st, c->name, c->dup);
			}
		rc = 0;
	}
	src->err = rc;
}

int sampler_read_eth(struct sampler *s, size_t gi)
{
	struct group *g = &s->groups[gi];
	struct eth_src *src = &s->eth[g->eth];
	uint64_t *vals = (uint64_t *)(g->smp + 1);

	if (g->first)
		read_eth_src(s, gi);
	for (size_t i = 0; i < g->n; i++) {
		uint32_t pos = g->ctrs[i].pos;

		vals[i] = !src->err && pos != NO_POS && pos < src->st.n ? src->st.values[pos] : FT_CTR_NA;
	}
	return -src->err;
}

/* A root qdisc's counters (its namespace dumped by the first of its groups this period);
 * N/A while it cannot be read (gone, replaced by noqueue). */
int sampler_read_qdisc(struct sampler *s, size_t gi)
{
	struct group *g = &s->groups[gi];
	struct qd_src *src = &s->qd[g->eth];
	uint64_t *vals = (uint64_t *)(g->smp + 1);
	const struct qdisc_stats *q;

	if (g->first)
		src->err = qdisc_stats__dump(src->nl_fd, &src->roots);
	q = qdisc_stats__find(&src->roots, g->rec.ifindex);
	for (size_t i = 0; i < g->n; i++)
		vals[i] = q ? q->v[i] : FT_CTR_NA;
	return q ? 0 : src->err ? -src->err : ENOENT;
}
