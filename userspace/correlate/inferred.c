// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inferred phases (corr_infer): when no phase probes ran (or
 * --phases inferred), collective phases are inferred from the traffic bins
 * alone, as the times when enough hosts were active together, merging across
 * gaps shorter than the chosen (or automatic) gap.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

struct nsent {
	uint32_t netns, iface;
};

static int cmp_nsent(const void *a, const void *b)
{
	const struct nsent *x = a, *y = b;
	int c = cmp_u32(x->netns, y->netns);

	return c ? c : cmp_u32(x->iface, y->iface);
}

static int cmp_u64p(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

struct sweep {
	uint64_t t;
	int d;          /* +1 start, -1 end */
	int pad;
};

static int cmp_sweep(const void *a, const void *b)
{
	const struct sweep *x = a, *y = b;
	int c = cmp_u64(x->t, y->t);

	return c ? c : (x->d > y->d) - (x->d < y->d); /* ends first */
}

static int cmp_host(const void *a, const void *b)
{
	const struct corr_host *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_u32(x->netns, y->netns);
}

/* Forwarding or management namespaces (see corr_infer()) are no hosts: ne[i..j) is one netns. */
static bool not_a_host(const struct model *m, const struct nsent *ne, size_t i, size_t j, size_t nns,
		       size_t nnamed)
{
	bool bridge = false;

	for (size_t q = i; q < j; q++) {
		const struct model_iface *f = &m->ifaces[ne[q].iface];

		bridge |= !strcmp(f->kind, "bridge") || !strcmp(f->kind, "openvswitch");
	}
	return bridge || (j - i >= 2 && nns >= 3) || (nnamed >= 2 && !model__netns_name(m, ne[i].netns)[0]);
}

struct hbin {
	uint64_t t, bytes, pkts;
};

static int cmp_hbin(const void *a, const void *b)
{
	return cmp_u64(((const struct hbin *)a)->t, ((const struct hbin *)b)->t);
}

/* Bytes per packet at or below which an island of traffic is only ACKs and keepalives. */
#define INFER_NOISE_PKT_BYTES 100
#define INFER_NOISE_MAX_BYTES 1500
/* Small packets end a phase only this soon after it: Linux delays an ACK by >= 40 ms. */
#define INFER_TAIL_MAX_NS 20000000ull

/*
 * The starts of the non-empty bins of one host (ne[i..j), every interface
 * and direction), sorted, into OUT (room for all its bins), without noise:
 * an island of bins (split at gaps >= FLOOR) of small packets only (mean
 * <= INFER_NOISE_PKT_BYTES, < INFER_NOISE_MAX_BYTES in all) starts no
 * phase — e.g. the delayed ACK of the previous collective's last segment,
 * 40 ms later, just before the next one — but it ends one: such an island
 * is kept when it starts less than TAIL after a kept bin (a collective's
 * last small messages; never the delayed ACK 40 ms later: see
 * INFER_TAIL_MAX_NS).  TAIL 0 keeps bulk traffic only.
 */
static int host_bins(const struct model *m, const struct nsent *ne, size_t i, size_t j, uint64_t floor,
		     uint64_t tail, uint64_t *out, size_t *nout)
{
	size_t n = 0, k = 0;
	uint64_t last = 0;
	bool have = false;
	struct hbin *hb;

	for (size_t q = i; q < j; q++)
		n += m->ifaces[ne[q].iface].dir[0].nbins + m->ifaces[ne[q].iface].dir[1].nbins;
	*nout = 0;
	hb = malloc((n ? n : 1) * sizeof(*hb));
	if (!hb)
		return -ENOMEM;
	for (size_t q = i; q < j; q++)
		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &m->ifaces[ne[q].iface].dir[d];

			for (size_t b = 0; b < x->nbins; b++)
				if (x->bins[b].bytes)
					hb[k++] = (struct hbin){ x->bins[b].start_ns, x->bins[b].bytes, x->bins[b].pkts };
		}
	if (k)
		qsort(hb, k, sizeof(*hb), cmp_hbin);
	for (size_t a = 0; a < k;) {
		size_t b = a + 1;
		uint64_t bytes = hb[a].bytes, pkts = hb[a].pkts;

		while (b < k && hb[b].t - hb[b - 1].t < floor) {
			bytes += hb[b].bytes;
			pkts += hb[b].pkts;
			b++;
		}
		if (!(bytes < INFER_NOISE_MAX_BYTES && bytes <= INFER_NOISE_PKT_BYTES * (pkts ? pkts : 1)) ||
		    (have && hb[a].t - last < tail)) {
			for (size_t q = a; q < b; q++)
				out[(*nout)++] = hb[q].t;
			last = hb[b - 1].t;
			have = true;
		}
		a = b;
	}
	free(hb);
	return 0;
}

/*
 * The gap that separates phases, from the traffic itself: the idle gaps
 * between the hosts' bulk bins are bimodal when the workload alternates
 * communication and compute (short stalls inside a collective, the compute
 * time between them).  Split the gaps of at least FLOOR in two classes by
 * Otsu's method on their logarithms (the split with the largest
 * between-class variance; the upper class holds at least two gaps), taking
 * only clear breaks: splits at least half as wide, in log space, as the
 * widest one (a spread of stalls otherwise draws the split into them).
 * The threshold is the geometric middle of the split.  If the classes are
 * not clearly apart (means less than 3x apart, or less than 1.5x across the
 * split), the gaps are one kind -- taken to be the pauses between phases --
 * and the threshold is the geometric middle of FLOOR and the smallest gap.
 * T (sorted bin starts) is scratch.
 */
static uint64_t auto_gap(uint64_t *t, size_t n, uint64_t bin, uint64_t floor)
{
	size_t ng = 0, best = 0;
	double total = 0, below = 0, score = -1, mu0 = 0, mu1 = 0, widest = 1;

	for (size_t i = 1; i < n; i++)
		if (t[i] - t[i - 1] > bin && t[i] - t[i - 1] >= floor)
			t[ng++] = t[i] - t[i - 1];  /* ng < i: overwrites only what was read */
	if (ng < 3)
		return floor;
	qsort(t, ng, sizeof(*t), cmp_u64p);
	for (size_t i = 0; i < ng; i++)
		total += log((double)t[i]);
	for (size_t i = 1; i + 2 <= ng; i++)
		if ((double)t[i] / (double)t[i - 1] > widest)
			widest = (double)t[i] / (double)t[i - 1];
	for (size_t i = 1; i + 2 <= ng; i++) {   /* classes [0, i) and [i, ng) */
		double w0 = (double)i / (double)ng, m0, m1, sc;

		below += log((double)t[i - 1]);
		if ((double)t[i] / (double)t[i - 1] < sqrt(widest))
			continue;
		m0 = below / (double)i;
		m1 = (total - below) / (double)(ng - i);
		sc = w0 * (1 - w0) * (m1 - m0) * (m1 - m0);
		if (sc > score) {
			score = sc;
			best = i;
			mu0 = m0;
			mu1 = m1;
		}
	}
	if (best && mu1 - mu0 >= log(3.0) && (double)t[best] >= 1.5 * (double)t[best - 1])
		return (uint64_t)sqrt((double)t[best - 1] * (double)t[best]);
	return (uint64_t)sqrt((double)floor * (double)t[0]);
}

/*
 * Hosts are network namespaces with traced interfaces (loopback aside),
 * except forwarding ones: a namespace with a bridge, or with two or more
 * interfaces while at least two other namespaces have interfaces (the
 * lab's switch; its ports mirror the hosts' traffic); and when two or more
 * namespaces have names (`ip netns`), the unnamed ones (the initial
 * namespace: management traffic, not the fabric).  A host is active in
 * its non-empty bins (any interface, either direction), merged across gaps
 * shorter than the gap; an inferred phase is a time when at least
 * infer_min_hosts hosts are active together, merged across the same gap.
 * The gap is infer_gap_ns if set, else auto_gap() over all hosts' bins,
 * never below max(1 ms, 10 bins).
 */
int corr_infer(struct corr *c)
{
	const struct model *m = c->m;
	uint64_t bin = m->hdr.bin_ns, gap = c->opts.infer_gap_ns;
	struct nsent *ne = NULL;
	size_t nne = 0, nns = 0, nnamed = 0, nhost = 0, cap_act = 0, nsw = 0;
	uint64_t *starts = NULL;
	struct sweep *sw = NULL;
	int err = -ENOMEM;
	unsigned k = c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2;

	uint64_t floor = 10 * bin > 1000000 ? 10 * bin : 1000000;

	c->nactivity = c->ninferred = c->nhosts = 0;
	ne = malloc((m->nifaces ? m->nifaces : 1) * sizeof(*ne));
	if (!ne)
		goto out;
	for (size_t i = 0; i < m->nifaces; i++)
		if (!is_loopback(&m->ifaces[i]))
			ne[nne++] = (struct nsent){ m->ifaces[i].netns, (uint32_t)i };
	if (nne)
		qsort(ne, nne, sizeof(*ne), cmp_nsent);
	for (size_t i = 0; i < nne; i++)
		nns += !i || ne[i].netns != ne[i - 1].netns;
	for (size_t i = 0; i < nne; i++)
		nnamed += (!i || ne[i].netns != ne[i - 1].netns) && model__netns_name(m, ne[i].netns)[0];
	c->hosts = calloc(nns ? nns : 1, sizeof(*c->hosts));
	if (!c->hosts)
		goto out;

	if (!gap) {
		size_t nall = 0, na = 0, k2 = 0;

		for (size_t q = 0; q < nne; q++)
			nall += m->ifaces[ne[q].iface].dir[0].nbins + m->ifaces[ne[q].iface].dir[1].nbins;
		starts = malloc((nall ? nall : 1) * sizeof(*starts));
		if (!starts)
			goto out;
		for (size_t i = 0; i < nne;) {
			size_t j = i;

			while (j < nne && ne[j].netns == ne[i].netns)
				j++;
			if (!not_a_host(m, ne, i, j, nns, nnamed)) {
				err = host_bins(m, ne, i, j, floor, 0, starts + na, &k2);
				if (err)
					goto out;
				na += k2;
				err = -ENOMEM;
			}
			i = j;
		}
		if (na)
			qsort(starts, na, sizeof(*starts), cmp_u64p);
		gap = auto_gap(starts, na, bin, floor);
		c->infer_gap_auto = true;
	}
	if (gap < floor && !c->opts.infer_gap_ns)
		gap = floor;
	c->infer_gap_ns = gap;

	for (size_t i = 0; i < nne;) {
		size_t j = i, nb = 0, ns = 0;
		struct corr_host *h;

		while (j < nne && ne[j].netns == ne[i].netns) {
			const struct model_iface *f = &m->ifaces[ne[j].iface];

			nb += f->dir[0].nbins + f->dir[1].nbins;
			j++;
		}
		if (not_a_host(m, ne, i, j, nns, nnamed)) {
			i = j;
			continue;
		}
		h = &c->hosts[nhost++];
		h->netns = ne[i].netns;
		{
			const char *nm = model__netns_name(m, h->netns);

			if (nm[0])
				snprintf(h->name, sizeof(h->name), "%s", nm);
			else
				snprintf(h->name, sizeof(h->name), "netns %u", h->netns);
		}
		h->first_act = c->nactivity;
		free(starts);
		starts = malloc((nb ? nb : 1) * sizeof(*starts));
		if (!starts)
			goto out;
		err = host_bins(m, ne, i, j, floor, gap < INFER_TAIL_MAX_NS ? gap : INFER_TAIL_MAX_NS, starts, &ns);
		if (err)
			goto out;
		err = -ENOMEM;
		for (size_t q = 0; q < ns; q++) {
			struct corr_interval *cur = h->nact ? &c->activity[c->nactivity - 1] : NULL;

			if (cur && starts[q] < cur->end_ns + gap) {
				if (starts[q] + bin > cur->end_ns)
					cur->end_ns = starts[q] + bin;
				continue;
			}
			if (c->nactivity == cap_act) {
				size_t nc = cap_act ? cap_act * 2 : 64;
				struct corr_interval *na = realloc(c->activity, nc * sizeof(*na));

				if (!na)
					goto out;
				c->activity = na;
				cap_act = nc;
			}
			c->activity[c->nactivity].start_ns = starts[q];
			c->activity[c->nactivity].end_ns = starts[q] + bin;
			c->nactivity++;
			h->nact++;
		}
		i = j;
	}
	c->nhosts = nhost;
	if (nhost)
		qsort(c->hosts, nhost, sizeof(*c->hosts), cmp_host);

	/* sweep: times with >= k hosts active */
	sw = malloc((c->nactivity ? c->nactivity : 1) * 2 * sizeof(*sw));
	if (!sw)
		goto out;
	for (size_t i = 0; i < c->nactivity; i++) {
		sw[nsw++] = (struct sweep){ c->activity[i].start_ns, 1, 0 };
		sw[nsw++] = (struct sweep){ c->activity[i].end_ns, -1, 0 };
	}
	if (nsw)
		qsort(sw, nsw, sizeof(*sw), cmp_sweep);
	{
		int cnt = 0, maxc = 0;
		uint64_t st = 0;
		size_t capi = 0;

		for (size_t i = 0; i < nsw; i++) {
			int before = cnt;

			cnt += sw[i].d;
			if (cnt > maxc)
				maxc = cnt;
			if (before < (int)k && cnt >= (int)k) {
				st = sw[i].t;
				maxc = cnt;
			} else if (before >= (int)k && cnt < (int)k && sw[i].t > st) {
				struct corr_inferred *p = c->ninferred ? &c->inferred[c->ninferred - 1] : NULL;

				if (p && st < p->end_ns + gap) {
					p->end_ns = sw[i].t;
					if ((uint32_t)maxc > p->max_hosts)
						p->max_hosts = (uint32_t)maxc;
					continue;
				}
				if (c->ninferred == capi) {
					size_t nc = capi ? capi * 2 : 64;
					struct corr_inferred *na = realloc(c->inferred, nc * sizeof(*na));

					if (!na)
						goto out;
					c->inferred = na;
					capi = nc;
				}
				p = &c->inferred[c->ninferred++];
				memset(p, 0, sizeof(*p));
				p->start_ns = st;
				p->end_ns = sw[i].t;
				p->max_hosts = (uint32_t)maxc;
			}
		}
	}

	/* TX bytes of the hosts' interfaces inside each phase; drop the small ones */
	for (size_t i = 0; i < c->ninferred; i++) {
		struct corr_inferred *p = &c->inferred[i];

		for (size_t q = 0; q < nne; q++) {
			const struct model_dir *x = &m->ifaces[ne[q].iface].dir[FT_DIR_TX];
			bool host = false;

			for (size_t h = 0; h < c->nhosts && !host; h++)
				host = c->hosts[h].netns == ne[q].netns;
			if (!host)
				continue;
			for (size_t b = corr_first_ts_at(x->bins, x->nbins, sizeof(*x->bins), p->start_ns);
			     b < x->nbins && x->bins[b].start_ns < p->end_ns; b++)
				p->tx_bytes += x->bins[b].bytes;
		}
	}
	if (c->opts.infer_min_bytes) {
		size_t n = 0;

		for (size_t i = 0; i < c->ninferred; i++)
			if (c->inferred[i].tx_bytes >= c->opts.infer_min_bytes)
				c->inferred[n++] = c->inferred[i];
		c->ninferred = n;
	}
	err = 0;
out:
	free(ne);
	free(starts);
	free(sw);
	return err;
}

