// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Links and queues at finish: interface labels and capacity, merging
 * per-CPU bins, per-direction statistics, bursts, the conservation check
 * against the interface counters, and merged qdisc bins with their stats.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

static int cmp_bin(const void *a, const void *b)
{
	const struct model_bin *x = a, *y = b;
	int c = cmp_u32(x->iface, y->iface);

	if (!c)
		c = cmp_u32(x->dir, y->dir);
	return c ? c : cmp_u64(x->start_ns, y->start_ns);
}

static int cmp_qbin(const void *a, const void *b)
{
	const struct model_qbin *x = a, *y = b;
	int c = cmp_u32(x->qdisc, y->qdisc);

	return c ? c : cmp_u64(x->start_ns, y->start_ns);
}

/* Qdiscs sorted by their interface's order, then handle. */

double model__bin_bps(const struct model *m, uint64_t bytes)
{
	return (double)bytes * 8.0 * 1e9 / (double)m->hdr.bin_ns;
}

static int burst_push(struct model *m, size_t *cap, const struct model_burst *b)
{
	if (m->nbursts == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		void *p = realloc(m->bursts, nc * sizeof(*m->bursts));

		if (!p)
			return -ENOMEM;
		m->bursts = p;
		*cap = nc;
	}
	m->bursts[m->nbursts++] = *b;
	return 0;
}

/*
 * Hot bins (utilisation >= threshold) become bursts; a hot bin that starts
 * less than burst_gap_ns after the end of the current burst extends it.
 * A burst's bytes/pkts are everything inside it, the cold bins it spans
 * included; nbins counts the hot ones.
 */
int mdl_detect_bursts(struct model *m, struct model_dir *d, uint32_t iface, uint32_t dir,
			 size_t *bcap)
{
	const double eps = 1e-9;
	struct model_burst cur;
	bool open = false;
	uint64_t pend_bytes = 0, pend_pkts = 0, end = 0;
	/* a microburst is about the wire: against the line rate, not a shaper's
	 * long-term rate (every packet of a shaped link would be a "burst") */
	double ref = d->line_bps > 0 ? d->line_bps : d->capacity_bps;

	d->first_burst = m->nbursts;
	d->nbursts = 0;
	if (!(ref > 0))
		return 0;
	for (size_t i = 0; i < d->nbins; i++) {
		const struct model_bin *b = &d->bins[i];
		double bps = model__bin_bps(m, b->bytes);
		double util = bps / ref;
		bool hot = util >= m->opts.burst_threshold - eps && b->bytes > 0;

		if (!hot) {
			if (open) {
				pend_bytes += b->bytes;
				pend_pkts += b->pkts;
			}
			continue;
		}
		if (open && b->start_ns >= end && b->start_ns - end < m->opts.burst_gap_ns) {
			cur.bytes += pend_bytes + b->bytes;
			cur.pkts += pend_pkts + b->pkts;
			cur.nbins++;
			if (bps > cur.peak_bps)
				cur.peak_bps = bps;
		} else {
			if (open) {
				cur.peak_util = cur.peak_bps / ref;
				if (burst_push(m, bcap, &cur))
					return -ENOMEM;
				d->nbursts++;
			}
			memset(&cur, 0, sizeof(cur));
			cur.iface = iface;
			cur.dir = dir;
			cur.start_ns = b->start_ns;
			cur.bytes = b->bytes;
			cur.pkts = b->pkts;
			cur.nbins = 1;
			cur.peak_bps = bps;
			open = true;
		}
		pend_bytes = pend_pkts = 0;
		end = b->start_ns + m->hdr.bin_ns;
		cur.duration_ns = end - cur.start_ns;
	}
	if (open) {
		cur.peak_util = cur.peak_bps / ref;
		if (burst_push(m, bcap, &cur))
			return -ENOMEM;
		d->nbursts++;
	}
	return 0;
}

/*
 * Highest rate over any window of MODEL_SUSTAIN_NS (or the capture, if
 * shorter): what a link sustains, as opposed to the peak of one bin.
 * Bins are sorted, so a window slides over them in one pass.
 */
static double sustained_bps(const struct model *m, const struct model_dir *d)
{
	uint64_t win = MODEL_SUSTAIN_NS, sum = 0, best = 0;
	size_t lo = 0;

	if (m->duration_ns && m->duration_ns < win)
		win = m->duration_ns;
	if (win < m->hdr.bin_ns)
		win = m->hdr.bin_ns;
	for (size_t hi = 0; hi < d->nbins; hi++) {
		sum += d->bins[hi].bytes;
		/* a difference, not start + win: that wraps near 2^64 and lo ran past hi */
		while (lo < hi && d->bins[hi].start_ns - d->bins[lo].start_ns >= win)
			sum -= d->bins[lo++].bytes;
		if (sum > best)
			best = sum;
	}
	return (double)best * 8e9 / (double)win;
}

void mdl_dir_stats(struct model *m, struct model_dir *d)
{
	uint64_t active = 0;

	d->bytes = d->pkts = d->ce_pkts = 0;
	d->peak_bps = 0;
	d->peak_start_ns = 0;
	for (size_t i = 0; i < d->nbins; i++) {
		const struct model_bin *b = &d->bins[i];
		double bps = model__bin_bps(m, b->bytes);

		d->bytes += b->bytes;
		d->pkts += b->pkts;
		d->ce_pkts += b->ce_pkts;
		if (b->bytes || b->pkts)
			active++;
		if (bps > d->peak_bps) {
			d->peak_bps = bps;
			d->peak_start_ns = b->start_ns;
		}
	}
	d->active_ns = active * m->hdr.bin_ns;
	d->sustained_bps = sustained_bps(m, d);
	d->mean_bps = m->duration_ns ? (double)d->bytes * 8e9 / (double)m->duration_ns : NAN;
	d->busy_mean_bps = d->active_ns ? (double)d->bytes * 8e9 / (double)d->active_ns : 0;
	if (d->capacity_bps > 0) {
		d->mean_util = d->mean_bps / d->capacity_bps;
		d->busy_util = d->busy_mean_bps / d->capacity_bps;
		d->peak_util = d->peak_bps / d->capacity_bps;
		d->sustained_util = d->sustained_bps / d->capacity_bps;
	} else {
		d->mean_util = d->busy_util = d->peak_util = d->sustained_util = NAN;
	}
	d->peak_line_util = d->line_bps > 0 ? d->peak_bps / d->line_bps : d->peak_util;
	d->busy_line_util = d->line_bps > 0 ? d->busy_mean_bps / d->line_bps : d->busy_util;
}

/*
 * Time around each counter read within which a packet may be counted on one
 * side and binned on the other: a received packet is counted by the device
 * before the stack (and the probe) sees it, by up to a backlog's delay.
 */
#define CONSERVE_EDGE_NS 1000000ull

/*
 * The bins of D between the START and STOP counter reads, and the bytes of
 * the bins near either read.  The kernel read the counters between
 * ts_ns - read_ns and ts_ns; a bin is "between" when it starts after the
 * middle of the first read and before the middle of the second, and "edge"
 * when it overlaps a read's span widened by CONSERVE_EDGE_NS.  Captures that
 * do not give read_ns compare every bin, with no edge.
 */
static void conserve_split(const struct model *m, const struct model_iface *f, struct model_dir *d)
{
	const struct ft_iface_stats *r[2] = { &f->start, &f->stop };
	uint64_t lo[2], hi[2], mid[2];
	bool timed = f->start.read_ns && f->stop.read_ns;

	d->between_bytes = d->between_pkts = d->edge_bytes = d->edge_pkts = 0;
	for (int k = 0; k < 2; k++) {
		uint64_t asked = r[k]->ts_ns > r[k]->read_ns ? r[k]->ts_ns - r[k]->read_ns : 0;

		mid[k] = asked + r[k]->read_ns / 2;
		lo[k] = asked > CONSERVE_EDGE_NS ? asked - CONSERVE_EDGE_NS : 0;
		hi[k] = r[k]->ts_ns + CONSERVE_EDGE_NS;
	}
	for (size_t i = 0; i < d->nbins; i++) {
		const struct model_bin *b = &d->bins[i];
		uint64_t end = b->start_ns + m->hdr.bin_ns;
		bool between = !timed || (b->start_ns >= mid[0] && b->start_ns < mid[1]);
		bool edge = false; /* counted, perhaps, on the other side of a read */

		for (int k = 0; timed && k < 2; k++)
			edge |= end > lo[k] && b->start_ns < hi[k];
		if (between) {
			d->between_bytes += b->bytes;
			d->between_pkts += b->pkts;
		}
		if (edge) {
			d->edge_bytes += b->bytes;
			d->edge_pkts += b->pkts;
		}
	}
}

void mdl_conserve(struct model *m, struct model_iface *f)
{
	bool untraced = f->known && !(f->flags & FT_IFACE_TRACED) &&
			!f->dir[0].nbins && !f->dir[1].nbins;

	for (int dir = 0; dir < 2; dir++) {
		struct model_dir *d = &f->dir[dir];
		uint64_t b0, b1, p0, p1;

		/* no bins expected: interface not selected, or that direction's probe
		 * not attached (first: such a direction is not one left unchecked) */
		if (untraced || !(m->hdr.probes & (1ull << (dir == FT_DIR_RX ? FT_PROBE_IFACE_RX
										 : FT_PROBE_IFACE_TX)))) {
			d->conserve = MODEL_CONSERVE_UNTRACED;
			continue;
		}
		if (!f->have_start || !f->have_stop || m->opts.window) {
			d->conserve = MODEL_CONSERVE_UNKNOWN;
			continue;
		}
		if (dir == FT_DIR_RX) {
			b0 = f->start.rx_bytes; b1 = f->stop.rx_bytes;
			p0 = f->start.rx_packets; p1 = f->stop.rx_packets;
		} else {
			b0 = f->start.tx_bytes; b1 = f->stop.tx_bytes;
			p0 = f->start.tx_packets; p1 = f->stop.tx_packets;
		}
		bool backwards = b1 < b0 || p1 < p0; /* counters reset: device recreated */

		conserve_split(m, f, d);
		d->counter_bytes = b1 >= b0 ? b1 - b0 : 0;
		d->counter_pkts = p1 >= p0 ? p1 - p0 : 0;
		d->diff_bytes = (int64_t)(d->between_bytes - d->counter_bytes);
		d->diff_pkts = (int64_t)(d->between_pkts - d->counter_pkts);
		double frac = m->opts.conserve_tol_frac * (double)d->counter_bytes;
		uint64_t tol = (uint64_t)frac;

		/* In flight at the start and at the stop snapshot: at most one
		 * full-size frame each, beyond what the bins at the reads hold
		 * (traffic that flowed while they were read); anything more is
		 * data the probes missed. */
		uint64_t inflight = 2ull * ((f->mtu ? f->mtu : 1500) + 14) + d->edge_bytes;

		if (tol < inflight)
			tol = inflight;
		if (tol < m->opts.conserve_tol_bytes)
			tol = m->opts.conserve_tol_bytes;
		d->tol_bytes = tol;
		uint64_t adiff = d->diff_bytes < 0 ? (uint64_t)(-(d->diff_bytes + 1)) + 1
						   : (uint64_t)d->diff_bytes;
		int64_t slack = 2 + (int64_t)d->edge_pkts;
		bool pkts_ok = d->diff_pkts >= -slack && d->diff_pkts <= slack;

		d->conserve = !backwards && adiff <= tol && (pkts_ok || tol > inflight)
				      ? MODEL_CONSERVE_OK : MODEL_CONSERVE_MISMATCH;
	}
}

static uint64_t skipped_runs_of(const struct model *m, uint32_t probe)
{
	for (size_t i = 0; i < m->ncoverage; i++)
		if (m->coverage[i].probe == probe)
			return m->coverage[i].skipped;
	return 0;
}

/* The most skbs one dequeue hands on to a device without byte queue limits
 * (the kernel's try_bulk_dequeue_skb_slow(): the first and 8 more). */
#define DEQUEUE_BULK_MAX 9

/*
 * The packets one dequeued skb counts as in the transmit bins: tx_leave()
 * (bpf/net.bpf.c) counts a GSO skb that the device cannot take whole as the
 * segments the stack cuts from it after the dequeue, so with the device's
 * offloads off one skb is tens of packets.  The most, over the interfaces
 * with a recorded qdisc, of their transmit packets per skb their qdiscs
 * enqueued, rounded up; 1 without one.  A mean, not a bound: a skipped
 * dequeue's skbs may have been larger than the capture's average, which the
 * bulk of DEQUEUE_BULK_MAX skbs per run (veth dequeues one) leaves room for.
 */
static uint64_t pkts_per_dequeued_skb(const struct model *m)
{
	uint64_t most = 1;

	for (size_t i = 0; i < m->nifaces; i++) {
		uint64_t skbs = 0, pkts = m->ifaces[i].dir[FT_DIR_TX].pkts;

		for (size_t q = 0; q < m->nqdiscs; q++)
			if (m->qdiscs[q].iface == i)
				skbs += m->qdiscs[q].enq_pkts;
		if (skbs && (pkts + skbs - 1) / skbs > most)
			most = (pkts + skbs - 1) / skbs;
	}
	return most;
}

/*
 * The packets the kernel's skipped runs may have kept out of direction
 * DIR's bins: one per skipped run of the binning probe, and with the
 * transmit bins at tcx egress (never skipped), where a full profile's
 * qdisc_dequeue counts the packets of interfaces with a qdisc
 * (bpf/net.bpf.c, targ_tx_leave), up to a bulk of skbs per skipped dequeue,
 * each as many packets as pkts_per_dequeued_skb(); an always profile's
 * qdisc_dequeue (in post-windows only) bins nothing, so adds none.
 */
uint64_t model__skipped_binning_pkts(const struct model *m, int dir)
{
	const char *tx_hook = NULL;
	bool deq_bins = false;
	uint64_t deq;

	if (dir == FT_DIR_RX)
		return skipped_runs_of(m, FT_PROBE_IFACE_RX);
	for (size_t i = 0; i < m->nprobes; i++) {
		if (m->probes[i].id == FT_PROBE_IFACE_TX && m->probes[i].attached)
			tx_hook = m->probes[i].hook;
		/* attached for the whole capture: the full profile's; the always
		 * profile's post-window dequeue (attached: false) bins nothing */
		if (m->probes[i].id == FT_PROBE_QDISC_DEQ && m->probes[i].attached)
			deq_bins = true;
	}
	deq = deq_bins && tx_hook && !strncmp(tx_hook, "tcx/", 4) ? skipped_runs_of(m, FT_PROBE_QDISC_DEQ) : 0;
	return skipped_runs_of(m, FT_PROBE_IFACE_TX) +
	       (deq ? deq * DEQUEUE_BULK_MAX * pkts_per_dequeued_skb(m) : 0);
}

/*
 * A probe run the kernel skipped is an skb missing from the bins (each run
 * bins one skb; a dequeue, a bulk of them) on whichever interface it passed.  When the shortfalls of a
 * direction's mismatched interfaces, summed, fit in that direction's skipped
 * runs, the mismatches are explained: OK_SKIPPED, not MISMATCH.  A surplus,
 * or a shortfall larger than the skips, stays a MISMATCH.  An interface
 * already OK spends none of the skips: its shortfall is within the frames in
 * flight at the reads (with many interfaces, those alone outgrew the skips).
 */
void mdl_conserve_explain_skipped(struct model *m, int dir)
{
	uint64_t skipped = model__skipped_binning_pkts(m, dir);
	uint64_t short_pkts = 0;

	if (!skipped)
		return;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_dir *d = &m->ifaces[i].dir[dir];

		if (d->conserve == MODEL_CONSERVE_MISMATCH && d->diff_pkts < 0)
			short_pkts += (uint64_t)(-d->diff_pkts);
	}
	if (short_pkts > skipped)
		return;
	for (size_t i = 0; i < m->nifaces; i++) {
		struct model_dir *d = &m->ifaces[i].dir[dir];

		/* a surplus, or bytes missing without packets missing, stays unexplained */
		if (d->conserve == MODEL_CONSERVE_MISMATCH && d->diff_pkts < 0 && d->diff_bytes < 0) {
			d->conserve = MODEL_CONSERVE_OK_SKIPPED;
			d->skipped_pkts = (uint64_t)(-d->diff_pkts);
		}
	}
}

int merge_bins(struct model *m, const uint32_t *remap)
{
	struct model_priv *p = m->priv;
	size_t n = 0;

	for (size_t i = 0; i < p->nraw; i++)
		p->raw[i].iface = remap[p->raw[i].iface];
	if (p->nraw)
		qsort(p->raw, p->nraw, sizeof(*p->raw), cmp_bin);
	for (size_t i = 0; i < p->nraw; i++) {
		const struct model_bin *b = &p->raw[i];

		if (n && p->raw[n - 1].iface == b->iface && p->raw[n - 1].dir == b->dir &&
		    p->raw[n - 1].start_ns == b->start_ns) {
			struct model_bin *t = &p->raw[n - 1];

			t->bytes += b->bytes;
			t->pkts += b->pkts;
			t->ce_pkts += b->ce_pkts;
		} else {
			p->raw[n++] = *b;
		}
	}
	if (n && n < p->capraw / 2) {
		void *q = realloc(p->raw, n * sizeof(*p->raw));

		if (q) {
			p->raw = q;
			p->capraw = n;
		}
	}
	p->nraw = n;
	m->bins = p->raw;
	m->nbins = n;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && m->bins[j].iface == m->bins[i].iface && m->bins[j].dir == m->bins[i].dir)
			j++;
		struct model_dir *d = &m->ifaces[m->bins[i].iface].dir[m->bins[i].dir];

		d->bins = &m->bins[i];
		d->nbins = j - i;
		i = j;
	}
	return 0;
}

void merge_qbins(struct model *m, const uint32_t *qremap)
{
	struct model_priv *p = m->priv;
	size_t n = 0;

	for (size_t i = 0; i < p->nqraw; i++)
		p->qraw[i].qdisc = qremap[p->qraw[i].qdisc];
	if (p->nqraw)
		qsort(p->qraw, p->nqraw, sizeof(*p->qraw), cmp_qbin);
	for (size_t i = 0; i < p->nqraw; i++) {
		const struct model_qbin *b = &p->qraw[i];

		if (n && p->qraw[n - 1].qdisc == b->qdisc && p->qraw[n - 1].start_ns == b->start_ns) {
			struct model_qbin *t = &p->qraw[n - 1];

			if (b->max_backlog > t->max_backlog)
				t->max_backlog = b->max_backlog;
			if (b->sojourn_max_ns > t->sojourn_max_ns)
				t->sojourn_max_ns = b->sojourn_max_ns;
			if (b->max_qlen > t->max_qlen)
				t->max_qlen = b->max_qlen;
			if (b->drops > t->drops)
				t->drops = b->drops;
			t->enq_bytes += b->enq_bytes;
			t->enq_pkts += b->enq_pkts;
			t->sojourn_sum_ns += b->sojourn_sum_ns;
			t->sojourn_cnt += b->sojourn_cnt;
		} else {
			p->qraw[n++] = *b;
		}
	}
	p->nqraw = n;
	m->qbins = p->qraw;
	m->nqbins = n;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && m->qbins[j].qdisc == m->qbins[i].qdisc)
			j++;
		m->qdiscs[m->qbins[i].qdisc].bins = &m->qbins[i];
		m->qdiscs[m->qbins[i].qdisc].nbins = j - i;
		i = j;
	}
}

/* A qdisc that sends in the order it queues (FIFO), whose samples the bound below can test. */
static bool qdisc_is_fifo(const char *kind)
{
	static const char *const fifo[] = { "tbf", "pfifo", "bfifo", "pfifo_head_drop" };

	for (size_t i = 0; i < sizeof(fifo) / sizeof(fifo[0]); i++)
		if (!strncmp(kind, fifo[i], 16))
			return true;
	return false;
}

/*
 * Sojourn samples that cannot be: the sampled sojourn follows one skb per
 * qdisc, and when that skb leaves unseen (a drop the probe missed while
 * the kernel skipped it) a later skb at its address is measured from the
 * old stamp (docs/design-notes.md).  In a FIFO a packet leaves before the
 * bytes queued after it: when more bytes were queued after a sample's
 * enqueue (the bins wholly between its enqueue and its dequeue) than the
 * queue can hold at its dequeue (the backlog after the last enqueue at or
 * before that bin), the sampled packet had already left and the sample
 * belongs to a broken chain.  Such a sample is taken out of its bin (its
 * count and sum; the bin's largest becomes what the rest's sum allows) and
 * counted in q->sojourn_dropped.  No rate is assumed, so a queue stalled by
 * a busy CPU keeps its real samples.  Other qdiscs (htb, fq_codel, mq's
 * children) serve several queues and are left as measured.
 */
void mdl_qdisc_bound_sojourn(struct model *m, struct model_qdisc *q)
{
	struct model_qbin *bins = q->nbins ? &m->qbins[q->bins - m->qbins] : NULL;
	uint64_t bin = m->hdr.bin_ns, *sum;

	if (!q->nbins || !bin || !qdisc_is_fifo(q->kind))
		return;
	sum = malloc((q->nbins + 1) * sizeof(*sum)); /* enq bytes before bin i */
	if (!sum)
		return; /* left as measured */
	sum[0] = 0;
	for (size_t i = 0; i < q->nbins; i++)
		sum[i + 1] = sum[i] + bins[i].enq_bytes;
	for (size_t k = 0, last_enq = SIZE_MAX; k < q->nbins; k++) {
		struct model_qbin *b = &bins[k];
		uint64_t s = b->sojourn_max_ns, held = b->max_backlog, enq_after, from;
		size_t lo, hi;

		if (!b->sojourn_cnt || !s) {
			if (b->enq_pkts)
				last_enq = k;
			continue;
		}
		/* what can be queued at the dequeue: bin k's backlog and that of the
		 * last bin with an enqueue before it */
		if (last_enq != SIZE_MAX && bins[last_enq].max_backlog > held)
			held = bins[last_enq].max_backlog;
		if (b->enq_pkts)
			last_enq = k;
		/* the bins wholly after the latest possible enqueue and wholly before
		 * the earliest possible dequeue */
		from = b->start_ns + bin > s ? b->start_ns + bin - s : 0;
		lo = 0;
		hi = k;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (bins[mid].start_ns < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = k; hi > lo && bins[hi - 1].start_ns + bin > b->start_ns; hi--)
			;
		enq_after = hi > lo ? sum[hi] - sum[lo] : 0;
		if (enq_after <= held)
			continue;
		b->sojourn_sum_ns = b->sojourn_sum_ns > s ? b->sojourn_sum_ns - s : 0;
		b->sojourn_cnt--;
		b->sojourn_max_ns = b->sojourn_cnt ? b->sojourn_sum_ns : 0;
		if (b->sojourn_max_ns > s)
			b->sojourn_max_ns = s;
		q->sojourn_dropped++;
	}
	free(sum);
}

void mdl_qdisc_stats(struct model_qdisc *q)
{
	for (size_t i = 0; i < q->nbins; i++) {
		const struct model_qbin *b = &q->bins[i];

		if (!i || b->max_backlog > q->max_backlog_bytes) {
			q->max_backlog_bytes = b->max_backlog;
			q->max_backlog_ns = b->start_ns;
		}
		if (b->max_qlen > q->max_qlen_pkts)
			q->max_qlen_pkts = b->max_qlen;
		q->enq_pkts += b->enq_pkts;
		q->enq_bytes += b->enq_bytes;
		q->sojourn_cnt += b->sojourn_cnt;
		q->sojourn_sum_ns += b->sojourn_sum_ns;
		if (b->sojourn_max_ns > q->sojourn_max_ns)
			q->sojourn_max_ns = b->sojourn_max_ns;
	}
	q->sojourn_mean_ns = q->sojourn_cnt ? (double)q->sojourn_sum_ns / (double)q->sojourn_cnt : NAN;
	if (q->nbins) {
		q->drops_first = q->bins[0].drops;
		q->drops_last = q->bins[q->nbins - 1].drops;
		q->drops_counter = q->drops_last >= q->drops_first ? q->drops_last - q->drops_first : 0;
	}
}
