// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wires and where flows land: which traced interfaces are the two ends of
 * one wire (a rank's NIC and the switch port facing it), the name a wire
 * goes by, and the interface a flow's receiver sits behind.  The budget's
 * costs, its links and the descriptions all ask these questions.
 */
#include <string.h>
#include <stdlib.h>
#include <errno.h>

#include "lib/util.h"
#include "userspace/correlate/corr_internal.h"

/*
 * A traced interface outside the ranks' namespaces is on their path when it
 * is the other end of one's wire: a switch port that sends what a rank's
 * NIC receives and receives what it sends.  The captures do not name a
 * wire's ends, so the traffic does: both directions' bytes equal within 2 %
 * (a veth pair's are equal), and bin by bin the same bytes at the same
 * times (a collective's symmetric traffic makes many totals equal): the
 * best match, when it shares at least 80 % of the bytes.
 */
static bool same_bytes(uint64_t x, uint64_t y)
{
	uint64_t d = x > y ? x - y : y - x, big = x > y ? x : y;

	return big && d * 50 <= big;
}

static bool netns_has_rank(const struct corr *c, uint32_t netns)
{
	for (size_t r = 0; r < c->nranks; r++)
		if (c->ranks[r].netns == netns)
			return true;
	return false;
}

/* Bytes that D1 and D2 have in the same bins (both sorted by start). */
static uint64_t same_bins(const struct model_dir *d1, const struct model_dir *d2)
{
	uint64_t s = 0;

	for (size_t i = 0, k = 0; i < d1->nbins && k < d2->nbins;) {
		if (d1->bins[i].start_ns < d2->bins[k].start_ns) {
			i++;
		} else if (d1->bins[i].start_ns > d2->bins[k].start_ns) {
			k++;
		} else {
			s += d1->bins[i].bytes < d2->bins[k].bytes ? d1->bins[i].bytes : d2->bins[k].bytes;
			i++;
			k++;
		}
	}
	return s;
}

int corr_find_peers(struct corr *c)
{
	const struct model *m = c->m;

	c->iface_peer = malloc((m->nifaces ? m->nifaces : 1) * sizeof(*c->iface_peer));
	c->iface_wire = malloc((m->nifaces ? m->nifaces : 1) * sizeof(*c->iface_wire));
	if (!c->iface_peer || !c->iface_wire)
		return -ENOMEM;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *x = &m->ifaces[i];
		uint32_t found = CORR_NONE;

		c->iface_peer[i] = CORR_NONE;
		if (is_loopback(x) || !x->dir[FT_DIR_TX].bytes || !x->dir[FT_DIR_RX].bytes)
			continue;
		uint64_t best = 0, all = x->dir[FT_DIR_TX].bytes + x->dir[FT_DIR_RX].bytes;

		for (size_t k = 0; k < m->nifaces; k++) {
			const struct model_iface *y = &m->ifaces[k];
			uint64_t same;

			if (k == i || y->netns == x->netns || is_loopback(y) ||
			    !same_bytes(x->dir[FT_DIR_TX].bytes, y->dir[FT_DIR_RX].bytes) ||
			    !same_bytes(x->dir[FT_DIR_RX].bytes, y->dir[FT_DIR_TX].bytes))
				continue;
			same = same_bins(&x->dir[FT_DIR_TX], &y->dir[FT_DIR_RX]) +
			       same_bins(&x->dir[FT_DIR_RX], &y->dir[FT_DIR_TX]);
			if (same > best) {
				best = same;
				found = (uint32_t)k;
			}
		}
		c->iface_peer[i] = best * 5 >= all * 4 ? found : CORR_NONE;
	}
	/* a wire is named by its rank host's end (the NIC), as users think of a host's link */
	for (size_t i = 0; i < m->nifaces; i++) {
		uint32_t p = c->iface_peer[i];

		c->iface_wire[i] = p != CORR_NONE && !netns_has_rank(c, m->ifaces[i].netns) &&
				   netns_has_rank(c, m->ifaces[p].netns) ? p : (uint32_t)i;
	}
	return 0;
}

bool corr_pset_iface(const struct corr *c, const struct corr_pset *ps, size_t ii)
{
	const struct model_iface *f = &c->m->ifaces[ii];
	uint32_t p = c->iface_peer ? c->iface_peer[ii] : CORR_NONE;

	if (is_loopback(f))
		return false;
	return corr_pset_netns(ps, f->netns) || (p != CORR_NONE && corr_pset_netns(ps, c->m->ifaces[p].netns));
}

uint32_t corr__wire(const struct corr *c, uint32_t iface)
{
	return iface != CORR_NONE && iface < c->m->nifaces && c->iface_wire ? c->iface_wire[iface] : iface;
}

const struct model_iface *corr__flow_dest_iface(const struct model *m, uint32_t flow)
{
	const struct ft_flow *f = &m->flows[flow].key;
	size_t alen = f->family == 6 ? 16 : 4;

	/* the receiver's interface: where a flow of the capture has that address as its source */
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *g = &m->flows[i];
		const struct model_iface *x;

		if (g->key.family != f->family || memcmp(g->key.saddr, f->daddr, alen) != 0 || !g->ifindex)
			continue;
		x = model__iface(m, g->key.netns, g->ifindex);
		if (x)
			return x;
	}
	return NULL;
}
