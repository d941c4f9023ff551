// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network sections of the text report: the capture header, interfaces
 * against link speed, microbursts, queues, retransmits, congestion-state
 * changes, drops, ECN CE marks, the conservation check, lost events and
 * probe coverage (userspace/report/report_text.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/probe_name.h"
#include "userspace/report/report_common.h"
#include "userspace/report/report_text.h"
#include "lib/util.h"

static const char *fmt_pct(double util, char *buf, size_t len)
{
	if (!(util == util)) /* NaN: capacity unknown */
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", util * 100.0);
	return buf;
}

static const char *netns_str(const struct model *m, uint32_t netns, char *buf, size_t len)
{
	const char *n = model__netns_name(m, netns);

	if (n[0])
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "netns %u", netns);
	return buf;
}

/* "OK", "OK (27 skipped)", "MISMATCH" */
static const char *conserve_label(const struct model_dir *x, char *buf, size_t len)
{
	if (x->conserve == MODEL_CONSERVE_OK_SKIPPED)
		snprintf(buf, len, "OK (%" PRIu64 " skipped)", x->skipped_pkts);
	else
		snprintf(buf, len, "%s", x->conserve == MODEL_CONSERVE_OK ? "OK" : "MISMATCH");
	return buf;
}

/* The spans in which the post-window probes PROBES ran (~0: any, the socket
 * owners included), on one line after LEAD, ending with TAIL; nothing without any. */
static void post_spans(FILE *f, const struct model *m, uint64_t probes, const char *lead, const char *tail)
{
	struct model_span sp;
	size_t n = 0;

	for (size_t k = 0; model__probe_span(m, k, &sp); k++)
		if ((sp.probes & probes) || (sp.owners && probes == ~0ull))
			fprintf(f, "%s%.1f-%.1f s", n++ ? ", " : lead, (double)model__rel_ns(m, sp.from_ns) / 1e9,
				(double)model__rel_ns(m, sp.to_ns) / 1e9);
	if (n)
		fprintf(f, "%s\n", tail);
}

/* Which probes ran in post-windows only, and when. */
static void post_probes(FILE *f, const struct model *m)
{
	struct model_span sp;
	char nb[32], lead[256];
	size_t off;

	if (!model__probe_span(m, 0, &sp))
		return;
	off = (size_t)snprintf(lead, sizeof(lead), "  in post-windows only (--post-probes):");
	for (uint32_t i = 0; i < FT_PROBE_MAX && off < sizeof(lead); i++)
		if (model__span_probes(m) & (1ull << i))
			off += (size_t)snprintf(lead + off, sizeof(lead) - off, " %s", model__probe_name(m, i, nb, sizeof(nb)));
	if (sp.owners && off < sizeof(lead))
		off += (size_t)snprintf(lead + off, sizeof(lead) - off, " socket-owners");
	if (off < sizeof(lead))
		snprintf(lead + off, sizeof(lead) - off, ", ");
	post_spans(f, m, ~0ull, lead, "");
}

void report_text__header(FILE *f, const struct model *m, const struct report_opts *o)
{
	char a[64], b[64], c[64];

	fprintf(f, "Capture: %s\n", o->path ? o->path : "(model)");
	fprintf(f, "  host %s, kernel %s, recorded by fabtrace %s, %u CPUs\n",
		m->hdr.hostname[0] ? m->hdr.hostname : "?", m->hdr.kernel[0] ? m->hdr.kernel : "?",
		m->hdr.tool_version[0] ? m->hdr.tool_version : "?", m->hdr.ncpus);
	if (m->hdr.command[0])
		fprintf(f, "  command: %.*s\n", (int)sizeof(m->hdr.command), m->hdr.command);
	if (m->hdr.flags & FT_FILE_PROFILE_ALWAYS)
		fprintf(f, "  profile: always (bins, drops, retransmits, congestion states, CE, counters, phases; "
			"no qdisc sojourn or depth, RTT samples or socket owners)\n");
	fprintf(f, "  start %s (times below: +seconds from here), duration %s, bin %s\n",
		fmt_wall(model__wall_ns(m, m->capture_start_ns), a, sizeof(a)),
		fmt_ns(m->duration_ns, b, sizeof(b)), fmt_ns(m->hdr.bin_ns, c, sizeof(c)));
	if (m->opts.window)
		fprintf(f, "  window +%.6fs to +%.6fs of a capture of %s (--from/--to): only its records; "
			"conservation not checked\n", (double)(m->start_ns - m->capture_start_ns) / 1e9,
			(double)(m->end_ns - m->capture_start_ns) / 1e9,
			fmt_ns(m->capture_end_ns - m->capture_start_ns, a, sizeof(a)));
	if (m->truncated)
		fprintf(f, "  capture: TRUNCATED, %" PRIu64 " records readable\n", m->records);
	else
		fprintf(f, "  capture: complete (stopped by %s), %" PRIu64 " records\n",
			capture__stop_reason_name(m->end.stop_reason), m->records);
	if (m->unknown_records)
		fprintf(f, "  %" PRIu64 " records of unknown types skipped (written by a newer fabtrace)\n",
			m->unknown_records);
	if (m->nprobes) {
		char nb[32];

		fprintf(f, "  probes:");
		for (size_t i = 0; i < m->nprobes; i++)
			if (m->probes[i].attached)
				fprintf(f, " %s", model__probe_name(m, m->probes[i].id, nb, sizeof(nb)));
		fputc('\n', f);
		for (size_t i = 0; i < m->nprobes; i++)
			if (!m->probes[i].attached)
				fprintf(f, "  probe %s not attached: %s\n",
					model__probe_name(m, m->probes[i].id, nb, sizeof(nb)),
					m->probes[i].why[0] ? m->probes[i].why : "not requested");
	}
	post_probes(f, m);
	if (m->lost_total || m->skipped_runs || m->truncated || report__count_conserve(m, MODEL_CONSERVE_MISMATCH) ||
	    report__enqueue_only(m))
		fputc('\n', f);
	if (report__enqueue_only(m))
		fprintf(f, "!! NOTE: %s\n", ENQUEUE_NOTE);
	if (m->lost_total)
		fprintf(f, "!! WARNING: %" PRIu64 " events were lost (ring buffer full); counts below are lower bounds\n",
			m->lost_total);
	if (m->skipped_runs)
		fprintf(f, "!! WARNING: the kernel skipped %" PRIu64 " probe runs (tracepoint hits the programs did "
			"not see, see Lost events); counts below are lower bounds\n", m->skipped_runs);
	if (m->truncated)
		fprintf(f, "!! WARNING: capture truncated: %s\n",
			m->truncated_why[0] ? m->truncated_why : "no end record");
	if (report__count_conserve(m, MODEL_CONSERVE_MISMATCH))
		fprintf(f, "!! WARNING: %zu interface directions fail the conservation check (see Conservation)\n",
			report__count_conserve(m, MODEL_CONSERVE_MISMATCH));
}

#define OVER_LINE_NOTE "over 100% of the line rate: the bin holds GSO/TSO super-packets counted whole " \
	"when sent, or skbs released together; not a faster wire"

/*
 * "12.0%", or "119.8%*" over 100 %: a bin can hold more than the wire carries
 * in its width (GSO/TSO super-packets counted whole when sent, skbs a token
 * bucket releases together), and a shaper's bucket lets it exceed its rate for
 * a moment.  *OVER is set so that the table can say why under it.
 */
static const char *fmt_pct_marked(double util, bool *over, char *buf, size_t len)
{
	if (util == util && util > 1.0005) {
		snprintf(buf, len, "%.1f%%*", util * 100.0);
		*over = true;
		return buf;
	}
	return fmt_pct(util, buf, len);
}

void report_text__ifaces(FILE *f, const struct model *m)
{
	char line[32], shp[32], by[32], mean[32], busy[32], peak[32], sus[32], u1[16], u2[16], u3[16], u4[16];
	bool over_line = false, over_cap = false;

	fprintf(f, "\nInterfaces (mean = over the capture, sustained = busiest 100 ms: %% of the capacity, the\n"
		   "  shaper where there is one; busy = over non-empty bins, peak = busiest bin: %% of the line rate)\n");
	if (!m->nifaces) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-24s %-3s %11s %11s %10s %10s %17s %17s %17s %17s %6s %8s\n", "INTERFACE", "DIR", "LINE RATE",
		"SHAPER", "BYTES", "PKTS", "MEAN", "BUSY", "PEAK", "SUSTAINED", "BURSTS", "CE");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];
			char mean_s[48], busy_s[48], peak_s[48], sus_s[48];

			if (x->line_bps > 0)
				fmt_rate_bps(x->line_bps, line, sizeof(line));
			else
				snprintf(line, sizeof(line), "unknown");
			if (x->shaper_bps > 0)
				fmt_rate_bps(x->shaper_bps, shp, sizeof(shp));
			else
				snprintf(shp, sizeof(shp), "-");
			fmt_bytes((double)x->bytes, by, sizeof(by));
			snprintf(mean_s, sizeof(mean_s), "%s %s", fmt_rate_bps(x->mean_bps, mean, sizeof(mean)),
				 fmt_pct_marked(x->mean_util, &over_cap, u1, sizeof(u1)));
			snprintf(busy_s, sizeof(busy_s), "%s %s", fmt_rate_bps(x->busy_mean_bps, busy, sizeof(busy)),
				 fmt_pct_marked(x->busy_line_util, &over_line, u2, sizeof(u2)));
			snprintf(peak_s, sizeof(peak_s), "%s %s", fmt_rate_bps(x->peak_bps, peak, sizeof(peak)),
				 fmt_pct_marked(x->peak_line_util, &over_line, u3, sizeof(u3)));
			snprintf(sus_s, sizeof(sus_s), "%s %s", fmt_rate_bps(x->sustained_bps, sus, sizeof(sus)),
				 fmt_pct_marked(x->sustained_util, &over_cap, u4, sizeof(u4)));
			fprintf(f, "  %-24s %-3s %11s %11s %10s %10" PRIu64 " %17s %17s %17s %17s %6zu %8" PRIu64 "\n",
				d == 0 ? it->label : "", report__dir_name(d), line, shp, by, x->pkts, mean_s, busy_s, peak_s,
				sus_s, x->nbursts, x->ce_pkts);
		}
	}
	if (over_line)
		fprintf(f, "  * %s\n", OVER_LINE_NOTE);
	if (over_cap)
		fprintf(f, "  * over 100%% of the shaper: its token bucket's burst allowance lets it exceed the rate "
			"for a moment\n");
}

void report_text__bursts(FILE *f, const struct model *m, const struct report_opts *o)
{
	size_t n;
	const struct model_burst **v = report__top_bursts(m, o, &n);
	char rel[32], wall[40], dur[32], by[32], pk[32], u[16];
	bool over = false;

	fprintf(f, "\nMicrobursts (bins at >= %.1f%% of the line rate, merged across gaps < %s): %zu",
		m->opts.burst_threshold * 100.0, fmt_ns(m->opts.burst_gap_ns, dur, sizeof(dur)), m->nbursts);
	if (n < m->nbursts)
		fprintf(f, ", top %zu by %s", n, report__sort_name(o->sort));
	fputc('\n', f);
	if (!n) {
		fprintf(f, "  none\n");
		free(v);
		return;
	}
	fprintf(f, "  %-24s %-3s %12s %-27s %10s %10s %8s %18s\n", "INTERFACE", "DIR", "START", "WALL CLOCK",
		"DURATION", "BYTES", "PKTS", "PEAK");
	for (size_t i = 0; i < n; i++) {
		const struct model_burst *b = v[i];
		char peak_s[48];

		snprintf(peak_s, sizeof(peak_s), "%s %s", fmt_rate_bps(b->peak_bps, pk, sizeof(pk)),
			 fmt_pct_marked(b->peak_util, &over, u, sizeof(u)));
		fprintf(f, "  %-24s %-3s %12s %-27s %10s %10s %8" PRIu64 " %18s\n", m->ifaces[b->iface].label,
			report__dir_name((int)b->dir), fmt_rel(model__rel_ns(m, b->start_ns), rel, sizeof(rel)),
			fmt_wall(model__wall_ns(m, b->start_ns), wall, sizeof(wall)),
			fmt_ns(b->duration_ns, dur, sizeof(dur)), fmt_bytes((double)b->bytes, by, sizeof(by)),
			b->pkts, peak_s);
	}
	if (over)
		fprintf(f, "  * %s\n", OVER_LINE_NOTE);
	free(v);
}

void report_text__queues(FILE *f, const struct model *m)
{
	char h[24], bl[32], sm[32], sx[32], eb[32], at[32], nm[64];

	fprintf(f, "\nQueues\n");
	if (!m->nqdiscs && model__queues_missing(m)) {
		fprintf(f, "  not recorded: %s; queue sojourn and depth are unknown, not 0\n",
			model__queues_missing(m));
		return;
	}
	post_spans(f, m, (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ),
		   "  recorded in post-windows only (--post-probes): ", "; outside them unknown, not 0");
	if (!m->nqdiscs) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-24s %-8s %-7s %12s %12s %8s %10s %10s %10s %10s %12s %12s\n", "INTERFACE", "QDISC",
		"HANDLE", "MAX BACKLOG", "AT", "MAX PKTS", "SOJ MEAN", "SOJ MAX", "ENQ PKTS", "ENQ BYTES",
		"DROPS(CNTR)", "DROPS(RECS)");
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		if (q->sojourn_cnt)  /* (a corrupt capture's mean may not fit in 64 bits) */
			fmt_ns(q->sojourn_mean_ns < 1.8e19 ? (uint64_t)(q->sojourn_mean_ns + 0.5) : UINT64_MAX, sm,
			       sizeof(sm));
		else
			snprintf(sm, sizeof(sm), "-");
		fprintf(f, "  %-24s %-8s %-7s %12s %12s %8u %10s %10s %10" PRIu64 " %10s %12" PRIu64 " %12" PRIu64 "\n",
			report__iface_str(m, q->iface, q->netns, q->ifindex, nm, sizeof(nm)), q->kind[0] ? q->kind : "?",
			report__fmt_handle(q->handle, h, sizeof(h)), fmt_bytes((double)q->max_backlog_bytes, bl, sizeof(bl)),
			fmt_rel(model__rel_ns(m, q->max_backlog_ns), at, sizeof(at)), q->max_qlen_pkts, sm,
			q->sojourn_cnt ? fmt_ns(q->sojourn_max_ns, sx, sizeof(sx)) : "-", q->enq_pkts,
			fmt_bytes((double)q->enq_bytes, eb, sizeof(eb)), q->drops_counter, q->drop_recs);
	}
	if (m->sojourn_dropped)
		fprintf(f, "  %" PRIu64 " sojourn sample%s left out: a followed packet that had already left (more "
			"bytes were queued after it than its FIFO held; docs/design-notes.md)\n", m->sojourn_dropped,
			m->sojourn_dropped == 1 ? "" : "s");
}

/* "rank 2 (pid 1234 allreduce)" or "pid 1234 (comm)" for a flow's first socket owner, "-" if none. */
static const char *owner_str(const struct model *m, const struct corr *c, const struct model_flow *w,
			     char *buf, size_t len)
{
	const struct model_owner *ow = w->nowners ? &m->owners[w->first_owner] : NULL;
	int64_t rank = ow ? corr__rank_of_pid(c, ow->pid) : -1;

	if (!ow)
		snprintf(buf, len, "-");
	else if (rank >= 0)
		snprintf(buf, len, "rank %" PRId64 " (pid %u)%s", rank, ow->pid, w->nowners > 1 ? " +" : "");
	else
		snprintf(buf, len, "pid %u (%s)%s", ow->pid, ow->comm, w->nowners > 1 ? " +" : "");
	return buf;
}

void report_text__retrans(FILE *f, const struct model *m, const struct corr *c)
{
	char fl[128], ns[48], r1[32], r2[32], ow[64];

	fprintf(f, "\nRetransmits: %" PRIu64 " skbs, %" PRIu64 " segments (", m->retrans, m->retrans_segs);
	for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
		unsigned k = t % MODEL_NTRIGGER; /* unknown last */

		fprintf(f, "%s%s %" PRIu64, t > 1 ? ", " : "", model__trigger_name(k), m->retrans_by_trigger[k]);
	}
	fprintf(f, ")\n");
	if (m->retrans_unsent)
		fprintf(f, "  not counted: %" PRIu64 " attempt%s that sent nothing (the original still in the host's queue, "
			"or the send failed)\n", m->retrans_unsent, m->retrans_unsent == 1 ? "" : "s");
	if (!m->retrans) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-48s %-16s %-8s %8s %12s %12s  %s\n", "FLOW", "NETNS", "TRIGGER", "COUNT", "FIRST", "LAST",
		"OWNER");
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
			unsigned k = t % MODEL_NTRIGGER;

			if (!w->rtx[k])
				continue;
			fprintf(f, "  %-48s %-16s %-8s %8" PRIu64 " %12s %12s  %s\n", model__flow_str(&w->key, fl, sizeof(fl)),
				netns_str(m, w->key.netns, ns, sizeof(ns)), model__trigger_name(k), w->rtx[k],
				fmt_rel(model__rel_ns(m, w->rtx_first_ns[k]), r1, sizeof(r1)),
				fmt_rel(model__rel_ns(m, w->rtx_last_ns[k]), r2, sizeof(r2)),
				owner_str(m, c, w, ow, sizeof(ow)));
		}
	}
}

void report_text__cong(FILE *f, const struct model *m)
{
	char fl[128], ns[48], a[24], b[24], s1[32], s2[32], s3[32];
	bool any = false;

	fprintf(f, "\nCongestion state changes: %" PRIu64 "\n", m->cong_changes);
	if (!m->cong_changes && !(m->hdr.probes & (1ull << FT_PROBE_CONG_STATE)) && m->hdr.probes) {
		fprintf(f, "  not recorded: the cong_state probe was not attached%s\n",
			m->hdr.flags & FT_FILE_PROFILE_ALWAYS ? " (--profile always)" : "");
		return;
	}
	for (size_t i = 0; i < m->ncong_pairs; i++)
		fprintf(f, "  %-10s -> %-10s %8" PRIu64 "\n",
			model__ca_state_name(m->cong_pairs[i].old_state, a, sizeof(a)),
			model__ca_state_name(m->cong_pairs[i].new_state, b, sizeof(b)), m->cong_pairs[i].count);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->cong_changes)
			continue;
		if (!any)
			fprintf(f, "  by flow:\n");
		any = true;
		fprintf(f, "    %-48s %-16s %8" PRIu64 "\n", model__flow_str(&w->key, fl, sizeof(fl)),
			netns_str(m, w->key.netns, ns, sizeof(ns)), w->cong_changes);
	}
	if (!m->cong_changes)
		fprintf(f, "  none\n");

	any = false;
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->samples)
			continue;
		if (!any) {
			fprintf(f, "\nTCP samples (srtt and cwnd per flow)\n");
			fprintf(f, "  %-48s %-16s %8s %26s %20s\n", "FLOW", "NETNS", "SAMPLES",
				"SRTT MIN/MAX/LAST", "CWND MIN/MAX/LAST");
		}
		any = true;
		char srtt[80], cw[64];

		snprintf(srtt, sizeof(srtt), "%s/%s/%s", fmt_ns((uint64_t)w->srtt_min_us * 1000, s1, sizeof(s1)),
			 fmt_ns((uint64_t)w->srtt_max_us * 1000, s2, sizeof(s2)),
			 fmt_ns((uint64_t)w->srtt_last_us * 1000, s3, sizeof(s3)));
		snprintf(cw, sizeof(cw), "%u/%u/%u", w->cwnd_min, w->cwnd_max, w->cwnd_last);
		fprintf(f, "  %-48s %-16s %8" PRIu64 " %26s %20s\n", model__flow_str(&w->key, fl, sizeof(fl)),
			netns_str(m, w->key.netns, ns, sizeof(ns)), w->samples, srtt, cw);
	}
}

void report_text__drops(FILE *f, const struct model *m)
{
	char nm[64], r1[32], r2[32];
	uint64_t cong = report__congestion_drops(m);

	fprintf(f, "\nDrops by reason: %" PRIu64, m->drops_total);
	if (m->drops_total)
		fprintf(f, " (%" PRIu64 " congestion, weighed as evidence; %" PRIu64 " other, shown only)",
			cong, m->drops_total - cong);
	fputc('\n', f);
	if (!m->ndrops) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-32s %-24s %8s %12s %12s  %s\n", "REASON", "INTERFACE", "COUNT", "FIRST", "LAST", "EVIDENCE");
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct model_drop *d = &m->drops[i];

		fprintf(f, "  %-32s %-24s %8" PRIu64 " %12s %12s  %s\n", d->name,
			report__iface_str(m, d->iface, d->netns, d->ifindex, nm, sizeof(nm)), d->count,
			fmt_rel(model__rel_ns(m, d->first_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, d->last_ns), r2, sizeof(r2)),
			corr__congestion_drop(d->name) ? "congestion" : "-");
	}
}

void report_text__ce(FILE *f, const struct model *m)
{
	char fl[128], ns[48], r1[32], r2[32];
	bool any = false;

	fprintf(f, "\nECN CE marks\n");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];
		uint64_t ce = it->dir[0].ce_pkts + it->dir[1].ce_pkts;

		if (!ce)
			continue;
		fprintf(f, "  %-24s %10" PRIu64 " CE packets received\n", it->label, ce);
		any = true;
	}
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->have_ce)
			continue;
		fprintf(f, "  %-48s %-16s %10" PRIu64 " CE packets, %s .. %s\n", model__flow_str(&w->key, fl, sizeof(fl)),
			netns_str(m, w->key.netns, ns, sizeof(ns)), w->ce_pkts,
			fmt_rel(model__rel_ns(m, w->ce_first_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, w->ce_last_ns), r2, sizeof(r2)));
		any = true;
	}
	if (!any)
		fprintf(f, "  none\n");
}

void report_text__conserve(FILE *f, const struct model *m)
{
	bool any = false;
	char st[48];

	fprintf(f, "\nConservation (bytes binned between the two counter reads vs the interface counters' change)\n");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];

			if (!report__conserve_checked(x->conserve))
				continue;
			if (!any)
				fprintf(f, "  %-24s %-3s %14s %14s %12s %10s %10s  %s\n", "INTERFACE", "DIR", "BINNED",
					"COUNTERS", "DIFF", "TOLERANCE", "DIFF PKTS", "STATUS");
			any = true;
			fprintf(f, "  %-24s %-3s %14" PRIu64 " %14" PRIu64 " %+12" PRId64 " %10" PRIu64 " %+10" PRId64 "  %s\n",
				it->label, report__dir_name(d), x->between_bytes, x->counter_bytes, x->diff_bytes, x->tol_bytes,
				x->diff_pkts, conserve_label(x, st, sizeof(st)));
		}
	}
	if (!any)
		fprintf(f, "  no interface has both start and stop counters\n");
	if (report__count_conserve(m, MODEL_CONSERVE_OK_SKIPPED))
		fprintf(f, "  OK (N skipped): short by N packets, no more than the kernel's skipped probe runs may "
			"have kept out (%" PRIu64 " rx, %" PRIu64 " tx packets; see Lost events): explained, not lost\n",
			model__skipped_binning_pkts(m, FT_DIR_RX), model__skipped_binning_pkts(m, FT_DIR_TX));
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		if (it->dir[0].conserve == MODEL_CONSERVE_UNKNOWN && (it->have_start || it->have_stop ||
								      it->dir[0].nbins || it->dir[1].nbins))
			fprintf(f, "  %s: not checked (%s counters missing)\n", it->label,
				!it->have_start && !it->have_stop ? "start and stop" :
				!it->have_start ? "start" : "stop");
	}
}

/* Tracepoint hits the kernel did not run a probe for (FT_REC_COVERAGE). */
static void text_coverage(FILE *f, const struct model *m)
{
	char nb[32];
	size_t n;

	for (size_t i = 0; i < m->ncoverage; i++) {
		const struct capture_cov *c = &m->coverage[i];
		const char *name = model__probe_name(m, c->probe, nb, sizeof(nb));

		if (!c->known)
			fprintf(f, "  %s probe coverage unknown (its tracepoint hits were not counted)\n", name);
		else if (c->skipped)
			fprintf(f, "  kernel skipped %" PRIu64 " of %" PRIu64 " %s probe runs "
				"(tracepoint hits the program did not see)\n", c->skipped, c->hits, name);
	}
	n = 0;
	for (size_t i = 0; i < m->ncoverage; i++) {
		const struct capture_cov *c = &m->coverage[i];

		if (!c->known || (!c->hits && !c->runs))
			continue;
		fprintf(f, "%s %s %" PRIu64 "/%" PRIu64, n++ ? "," : "  tracepoint hits/program runs:",
			model__probe_name(m, c->probe, nb, sizeof(nb)), c->hits, c->runs);
	}
	if (n)
		fputc('\n', f);
	switch (m->coverage_state) {
	case CAPTURE_COV_UNKNOWN:
		fprintf(f, "  probe coverage: unknown (the capture has no coverage counters)\n");
		break;
	case CAPTURE_COV_INCOMPLETE:
		fprintf(f, "  probe coverage: incomplete (%" PRIu64 " probe runs skipped by the kernel; "
			"not included in the lost count above)\n", m->skipped_runs);
		break;
	case CAPTURE_COV_PARTIAL:
		fprintf(f, "  probe coverage: complete for the probes counted (every tracepoint hit ran "
			"its program), unknown for %zu\n", m->coverage_unknown);
		break;
	case CAPTURE_COV_COMPLETE:
		fprintf(f, "  probe coverage: complete (every tracepoint hit ran its program)\n");
		break;
	}
}

void report_text__lost(FILE *f, const struct model *m, const struct corr *c)
{
	fprintf(f, "\nLost events: %" PRIu64 " lost", m->lost_total);
	fprintf(f, " (net %" PRIu64 ", tcp %" PRIu64 ", user %" PRIu64, m->lost_by_source[FT_SRC_NET],
		m->lost_by_source[FT_SRC_TCP], m->lost_by_source[FT_SRC_USER]);
	if (c->have_probes || m->nslots || m->lost_by_source[FT_SRC_PHASE])
		fprintf(f, ", phase %" PRIu64, m->lost_by_source[FT_SRC_PHASE]);
	if (m->lost_by_source[FT_SRC_MAX])
		fprintf(f, ", unknown %" PRIu64, m->lost_by_source[FT_SRC_MAX]);
	fprintf(f, ")\n");
	for (size_t i = 0; i < m->nlost; i++)
		if (m->lost[i].lost)
			fprintf(f, "  %-5s cpu %-4u %12" PRIu64 "\n", model__source_name(m->lost[i].source),
				m->lost[i].cpu, m->lost[i].lost);
	if (!m->nlost)
		fprintf(f, "  (the capture has no loss counters)\n");
	text_coverage(f, m);
}
