// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace report: summarise a capture from its model, as text or as one
 * JSON document (docs/report-json.md).  Both printers walk the model in the
 * same deterministic order (the model sorts everything in model__finish) and
 * print floats with fixed precision, so outputs can be golden-tested.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "userspace/capture/capture.h"
#include "userspace/correlate/corr_plugin.h"
#include "userspace/cli/commands.h"
#include "probes/base/json.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "userspace/report/report_counters.h"
#include "userspace/report/report_headline.h"
#include "userspace/report/report_hosts.h"
#include "probes/base/util.h"
#include "viz/viz.h"

#define REPORT_SCHEMA "fabtrace-report/1"
#define ENQUEUE_NOTE "NCCL calls mark enqueue, not completion: their times are host-side enqueue " \
		     "times, not the collective's duration on the GPU"

/* ---- formatting helpers ---- */

static const char *fmt_pct(double util, char *buf, size_t len)
{
	if (!(util == util)) /* NaN: capacity unknown */
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", util * 100.0);
	return buf;
}

static const char *fmt_handle(uint32_t h, char *buf, size_t len)
{
	if (h & 0xffff)
		snprintf(buf, len, "%x:%x", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%x:", h >> 16);
	return buf;
}

static const char *dir_name(int dir)
{
	return dir == FT_DIR_TX ? "tx" : "rx";
}

static const char *proto_name(unsigned p, char *buf, size_t len)
{
	if (p == 6)
		return "tcp";
	if (p == 17)
		return "udp";
	if (p == 132)
		return "sctp";
	snprintf(buf, len, "proto %u", p);
	return buf;
}

static void addr_str(const struct ft_flow *f, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
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

static const char *iface_str(const struct model *m, uint32_t iface, uint32_t netns,
			     uint32_t ifindex, char *buf, size_t len)
{
	if (iface != UINT32_MAX && iface < m->nifaces)
		snprintf(buf, len, "%s", m->ifaces[iface].label);
	else if (!netns && !ifindex)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "netns %u ifindex %u", netns, ifindex);
	return buf;
}

static const char *sort_name(enum report_sort s)
{
	return s == REPORT_SORT_PEAK ? "peak" : s == REPORT_SORT_TIME ? "time" : "bytes";
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int cmp_burst_time(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = cmp_u64(x->start_ns, y->start_ns);

	if (!c)
		c = cmp_u64(x->iface, y->iface);
	return c ? c : cmp_u64(x->dir, y->dir);
}

static int cmp_burst_bytes(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = cmp_u64(y->bytes, x->bytes);

	if (!c)
		c = x->peak_bps > y->peak_bps ? -1 : x->peak_bps < y->peak_bps;
	return c ? c : cmp_burst_time(a, b);
}

static int cmp_burst_peak(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = x->peak_bps > y->peak_bps ? -1 : x->peak_bps < y->peak_bps;

	if (!c)
		c = cmp_u64(y->bytes, x->bytes);
	return c ? c : cmp_burst_time(a, b);
}

/* The bursts to show, sorted; *n in: all, out: shown.  NULL with *n = 0 if none. */
static const struct model_burst **top_bursts(const struct model *m, const struct report_opts *o,
					     size_t *n)
{
	const struct model_burst **v;

	*n = 0;
	if (!m->nbursts)
		return NULL;
	v = malloc(m->nbursts * sizeof(const struct model_burst *));
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->nbursts; i++)
		v[i] = &m->bursts[i];
	qsort(v, m->nbursts, sizeof(const struct model_burst *),
	      o->sort == REPORT_SORT_PEAK ? cmp_burst_peak :
	      o->sort == REPORT_SORT_TIME ? cmp_burst_time : cmp_burst_bytes);
	*n = o->top && o->top < m->nbursts ? o->top : m->nbursts;
	return v;
}

static size_t count_conserve(const struct model *m, enum model_conserve c)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++)
			n += m->ifaces[i].dir[d].conserve == c;
	return n;
}

static bool conserve_checked(enum model_conserve c)
{
	return c == MODEL_CONSERVE_OK || c == MODEL_CONSERVE_MISMATCH || c == MODEL_CONSERVE_OK_SKIPPED;
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

static uint64_t skipped_of(const struct model *m, uint32_t probe)
{
	for (size_t i = 0; i < m->ncoverage; i++)
		if (m->coverage[i].probe == probe)
			return m->coverage[i].skipped;
	return 0;
}

/* ---- text ---- */

/* NCCL calls were traced (not merely attached: system-wide every libnccl is). */
/* Processes timed by the NCCL profiler plugin are not (corr_plugin.h). */
static bool any_enqueue_only(const struct model *m)
{
	return corr_plugin__enqueue_uncovered(m);
}

static void text_header(FILE *f, const struct model *m, const struct report_opts *o)
{
	char a[64], b[64], c[64];

	fprintf(f, "Capture: %s\n", o->path ? o->path : "(model)");
	fprintf(f, "  host %s, kernel %s, recorded by fabtrace %s, %u CPUs\n",
		m->hdr.hostname[0] ? m->hdr.hostname : "?", m->hdr.kernel[0] ? m->hdr.kernel : "?",
		m->hdr.tool_version[0] ? m->hdr.tool_version : "?", m->hdr.ncpus);
	if (m->hdr.command[0])
		fprintf(f, "  command: %.*s\n", (int)sizeof(m->hdr.command), m->hdr.command);
	fprintf(f, "  start %s (times below: +seconds from here), duration %s, bin %s\n",
		fmt_wall(model__wall_ns(m, m->start_ns), a, sizeof(a)),
		fmt_ns(m->duration_ns, b, sizeof(b)), fmt_ns(m->hdr.bin_ns, c, sizeof(c)));
	if (m->truncated)
		fprintf(f, "  capture: TRUNCATED, %" PRIu64 " records readable\n", m->records);
	else
		fprintf(f, "  capture: complete (stopped by %s), %" PRIu64 " records\n",
			capture__stop_reason_name(m->end.stop_reason), m->records);
	if (m->unknown_records)
		fprintf(f, "  %" PRIu64 " records of unknown types skipped (written by a newer fabtrace)\n",
			m->unknown_records);
	if (m->nprobes) {
		fprintf(f, "  probes:");
		for (size_t i = 0; i < m->nprobes; i++)
			if (m->probes[i].attached)
				fprintf(f, " %s", m->probes[i].name);
		fputc('\n', f);
		for (size_t i = 0; i < m->nprobes; i++)
			if (!m->probes[i].attached)
				fprintf(f, "  probe %s not attached: %s\n", m->probes[i].name,
					m->probes[i].why[0] ? m->probes[i].why : "not requested");
	}
	if (m->lost_total || m->skipped_runs || m->truncated || count_conserve(m, MODEL_CONSERVE_MISMATCH) ||
	    any_enqueue_only(m))
		fputc('\n', f);
	if (any_enqueue_only(m))
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
	if (count_conserve(m, MODEL_CONSERVE_MISMATCH))
		fprintf(f, "!! WARNING: %zu interface directions fail the conservation check (see Conservation)\n",
			count_conserve(m, MODEL_CONSERVE_MISMATCH));
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

static void text_ifaces(FILE *f, const struct model *m)
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
				d == 0 ? it->label : "", dir_name(d), line, shp, by, x->pkts, mean_s, busy_s, peak_s,
				sus_s, x->nbursts, x->ce_pkts);
		}
	}
	if (over_line)
		fprintf(f, "  * %s\n", OVER_LINE_NOTE);
	if (over_cap)
		fprintf(f, "  * over 100%% of the shaper: its token bucket's burst allowance lets it exceed the rate "
			"for a moment\n");
}

static void text_bursts(FILE *f, const struct model *m, const struct report_opts *o)
{
	size_t n;
	const struct model_burst **v = top_bursts(m, o, &n);
	char rel[32], wall[40], dur[32], by[32], pk[32], u[16];
	bool over = false;

	fprintf(f, "\nMicrobursts (bins at >= %.1f%% of the line rate, merged across gaps < %s): %zu",
		m->opts.burst_threshold * 100.0, fmt_ns(m->opts.burst_gap_ns, dur, sizeof(dur)), m->nbursts);
	if (n < m->nbursts)
		fprintf(f, ", top %zu by %s", n, sort_name(o->sort));
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
			dir_name((int)b->dir), fmt_rel(model__rel_ns(m, b->start_ns), rel, sizeof(rel)),
			fmt_wall(model__wall_ns(m, b->start_ns), wall, sizeof(wall)),
			fmt_ns(b->duration_ns, dur, sizeof(dur)), fmt_bytes((double)b->bytes, by, sizeof(by)),
			b->pkts, peak_s);
	}
	if (over)
		fprintf(f, "  * %s\n", OVER_LINE_NOTE);
	free(v);
}

static void text_queues(FILE *f, const struct model *m)
{
	char h[24], bl[32], sm[32], sx[32], eb[32], at[32], nm[64];

	fprintf(f, "\nQueues\n");
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
			iface_str(m, q->iface, q->netns, q->ifindex, nm, sizeof(nm)), q->kind[0] ? q->kind : "?",
			fmt_handle(q->handle, h, sizeof(h)), fmt_bytes((double)q->max_backlog_bytes, bl, sizeof(bl)),
			fmt_rel(model__rel_ns(m, q->max_backlog_ns), at, sizeof(at)), q->max_qlen_pkts, sm,
			q->sojourn_cnt ? fmt_ns(q->sojourn_max_ns, sx, sizeof(sx)) : "-", q->enq_pkts,
			fmt_bytes((double)q->enq_bytes, eb, sizeof(eb)), q->drops_counter, q->drop_recs);
	}
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

static void text_retrans(FILE *f, const struct model *m, const struct corr *c)
{
	char fl[128], ns[48], r1[32], r2[32], ow[64];

	fprintf(f, "\nRetransmits: %" PRIu64 " skbs, %" PRIu64 " segments (", m->retrans, m->retrans_segs);
	for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
		unsigned k = t % MODEL_NTRIGGER; /* unknown last */

		fprintf(f, "%s%s %" PRIu64, t > 1 ? ", " : "", model__trigger_name(k), m->retrans_by_trigger[k]);
	}
	fprintf(f, ")\n");
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

static void text_cong(FILE *f, const struct model *m)
{
	char fl[128], ns[48], a[24], b[24], s1[32], s2[32], s3[32];
	bool any = false;

	fprintf(f, "\nCongestion state changes: %" PRIu64 "\n", m->cong_changes);
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

static uint64_t congestion_drops(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->ndrops; i++)
		if (corr__congestion_drop(m->drops[i].name))
			n += m->drops[i].count;
	return n;
}

static void text_drops(FILE *f, const struct model *m)
{
	char nm[64], r1[32], r2[32];
	uint64_t cong = congestion_drops(m);

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
			iface_str(m, d->iface, d->netns, d->ifindex, nm, sizeof(nm)), d->count,
			fmt_rel(model__rel_ns(m, d->first_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, d->last_ns), r2, sizeof(r2)),
			corr__congestion_drop(d->name) ? "congestion" : "-");
	}
}

static void text_ce(FILE *f, const struct model *m)
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

static void text_conserve(FILE *f, const struct model *m)
{
	bool any = false;
	char st[48];

	fprintf(f, "\nConservation (binned bytes vs the interface counters' change from start to stop)\n");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];

			if (!conserve_checked(x->conserve))
				continue;
			if (!any)
				fprintf(f, "  %-24s %-3s %14s %14s %12s %10s %10s  %s\n", "INTERFACE", "DIR", "BINNED",
					"COUNTERS", "DIFF", "TOLERANCE", "DIFF PKTS", "STATUS");
			any = true;
			fprintf(f, "  %-24s %-3s %14" PRIu64 " %14" PRIu64 " %+12" PRId64 " %10" PRIu64 " %+10" PRId64 "  %s\n",
				it->label, dir_name(d), x->bytes, x->counter_bytes, x->diff_bytes, x->tol_bytes,
				x->diff_pkts, conserve_label(x, st, sizeof(st)));
		}
	}
	if (!any)
		fprintf(f, "  no interface has both start and stop counters\n");
	if (count_conserve(m, MODEL_CONSERVE_OK_SKIPPED))
		fprintf(f, "  OK (N skipped): short by N packets, no more than the probe runs the kernel skipped "
			"(%" PRIu64 " rx, %" PRIu64 " tx; see Lost events): explained, not lost\n",
			skipped_of(m, FT_PROBE_IFACE_RX), skipped_of(m, FT_PROBE_IFACE_TX));
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
		const struct model_coverage *c = &m->coverage[i];
		const char *name = model__probe_name(m, c->probe, nb, sizeof(nb));

		if (!c->known)
			fprintf(f, "  %s probe coverage unknown (its tracepoint hits were not counted)\n", name);
		else if (c->skipped)
			fprintf(f, "  kernel skipped %" PRIu64 " of %" PRIu64 " %s probe runs "
				"(tracepoint hits the program did not see)\n", c->skipped, c->hits, name);
	}
	n = 0;
	for (size_t i = 0; i < m->ncoverage; i++) {
		const struct model_coverage *c = &m->coverage[i];

		if (!c->known || (!c->hits && !c->runs))
			continue;
		fprintf(f, "%s %s %" PRIu64 "/%" PRIu64, n++ ? "," : "  tracepoint hits/program runs:",
			model__probe_name(m, c->probe, nb, sizeof(nb)), c->hits, c->runs);
	}
	if (n)
		fputc('\n', f);
	if (!m->ncoverage)
		fprintf(f, "  probe coverage: unknown (the capture has no coverage counters)\n");
	else if (m->skipped_runs)
		fprintf(f, "  probe coverage: incomplete (%" PRIu64 " probe runs skipped by the kernel; "
			"not included in the lost count above)\n", m->skipped_runs);
	else if (m->coverage_unknown)
		fprintf(f, "  probe coverage: complete for the probes counted (every tracepoint hit ran "
			"its program), unknown for %zu\n", m->coverage_unknown);
	else
		fprintf(f, "  probe coverage: complete (every tracepoint hit ran its program)\n");
}

static void text_lost(FILE *f, const struct model *m, const struct corr *c)
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

/* ---- collective phases (userspace/correlate/correlate.h) ---- */

/* nccl-tests style GB/s (1e9 bytes per second), "-" when unknown. */
static const char *fmt_gbps(double bytes_per_s, char *buf, size_t len)
{
	if (!(bytes_per_s == bytes_per_s))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f GB/s", bytes_per_s / 1e9);
	return buf;
}

/*
 * "0x44000000", "ptr#0/4" (order of first use / size), "MPI_COMM_WORLD" (the
 * name every rank gave it), "tag/4" (numbered by
 * the library, size 4; "tag#1/4" for a second group of that size), "-"
 */
static const char *comm_str(const struct corr_instance *in, char *buf, size_t len)
{
	if (in->comm_kind == CORR_COMM_HANDLE)
		snprintf(buf, len, "0x%" PRIx64, in->comm);
	else if (in->comm_kind == CORR_COMM_POINTER)
		snprintf(buf, len, "ptr#%u/%u", in->comm_order, in->comm_size);
	else if (in->comm_kind == CORR_COMM_NAMED)
		snprintf(buf, len, "%s", in->comm_name);
	else if (in->comm_kind == CORR_COMM_LIBSEQ && in->comm_order)
		snprintf(buf, len, "tag#%u/%u", in->comm_order, in->comm_size);
	else if (in->comm_kind == CORR_COMM_LIBSEQ)
		snprintf(buf, len, "tag/%u", in->comm_size);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *comm_kind_name(uint32_t k)
{
	return k == CORR_COMM_HANDLE ? "handle" : k == CORR_COMM_POINTER ? "pointer" :
	       k == CORR_COMM_LIBSEQ ? "library" : k == CORR_COMM_NAMED ? "named" : "none";
}

/* "3" (world rank) or "pid 1234" */
static const char *rank_label(const struct corr *c, uint32_t r, char *buf, size_t len)
{
	if (r == CORR_NONE || r >= c->nranks)
		snprintf(buf, len, "-");
	else if (c->ranks[r].rank >= 0)
		snprintf(buf, len, "%d", c->ranks[r].rank);
	else
		snprintf(buf, len, "pid %u", c->ranks[r].pid);
	return buf;
}

static const char *verdict_upper(enum corr_verdict v)
{
	switch (v) {
	case CORR_NETWORK: return "NETWORK";
	case CORR_RANK: return "RANK";
	case CORR_UNKNOWN: return "UNKNOWN";
	default: return "ok";
	}
}

static size_t top_n(const struct report_opts *o, size_t n)
{
	return o->top && o->top < n ? o->top : n;
}

static void text_collectives(FILE *f, const struct corr *c)
{
	char sz[32], a[32], b[32], d[32], e[32], g[32], h[32];

	fprintf(f, "\nCollectives by op (span = first entry .. last exit over the ranks; all-arrived = last exit - "
		   "last entry;\n  busbw = size / all-arrived x nccl-tests factor): %zu instances\n", c->ninstances);
	if (!c->nopstats) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-14s %5s %10s %6s %10s %10s %10s %10s %11s %14s %5s %5s %5s %5s\n", "OP", "RANKS", "SIZE",
		"COUNT", "SPAN MEAN", "P50", "P99", "MAX", "ALL-ARRIVED", "BUSBW MEAN", "NET", "RANK", "UNKN", "OK");
	for (size_t i = 0; i < c->nopstats; i++) {
		const struct corr_opstat *g2 = &c->opstats[i];

		fprintf(f, "  %-14s %5u %10s %6" PRIu64 " %10s %10s %10s %10s %11s %14s %5" PRIu64 " %5" PRIu64
			" %5" PRIu64 " %5" PRIu64 "%s\n", corr__op_name(g2->op), g2->nranks,
			fmt_bytes((double)g2->size_bytes, sz, sizeof(sz)), g2->count,
			fmt_ns(g2->span_mean_ns, a, sizeof(a)), fmt_ns(g2->span_p50_ns, b, sizeof(b)),
			fmt_ns(g2->span_p99_ns, d, sizeof(d)), fmt_ns(g2->span_max_ns, e, sizeof(e)),
			fmt_ns(g2->all_arrived_mean_ns, g, sizeof(g)), fmt_gbps(g2->busbw_mean, h, sizeof(h)),
			g2->verdicts[CORR_NETWORK], g2->verdicts[CORR_RANK], g2->verdicts[CORR_UNKNOWN],
			g2->verdicts[CORR_OK], g2->enqueue_only ? "  (enqueue only)" : "");
	}
}

static void text_ranks(FILE *f, const struct corr *c)
{
	char rl[32], a[32], b[32], d[32], by[32];

	fprintf(f, "\nRanks (wait = last entry - own entry, summed; last = times it entered a collective last, "
		   "late = by how much)\n");
	if (!c->nranks) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-8s %8s %-20s %-16s %7s %7s %12s %12s %6s %12s\n", "RANK", "PID", "HOST", "COMM", "CALLS",
		"COLL", "IN COLL", "WAITING", "LAST", "LATE");
	for (size_t i = 0; i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		fprintf(f, "  %-8s %8u %-20s %-16s %7" PRIu64 " %7" PRIu64 " %12s %12s %6" PRIu64 " %12s\n",
			rank_label(c, (uint32_t)i, rl, sizeof(rl)), r->pid, r->host, r->comm[0] ? r->comm : "?",
			r->calls, r->collectives, fmt_ns(r->coll_time_ns, a, sizeof(a)),
			fmt_ns(r->wait_ns, b, sizeof(b)), r->straggler_count, fmt_ns(r->late_ns, d, sizeof(d)));
	}
	fprintf(f, "  calls per rank and op:\n");
	for (size_t i = 0; i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		fprintf(f, "    %-8s", rank_label(c, (uint32_t)i, rl, sizeof(rl)));
		for (size_t k = 0; k < r->nops; k++) {
			const struct corr_rank_op *op = &c->rank_ops[r->first_op + k];

			fprintf(f, "%s %s %" PRIu64 " (%s)", k ? "," : "", corr__op_name(op->op), op->calls,
				fmt_bytes((double)op->bytes, by, sizeof(by)));
			if (op->open)
				fprintf(f, " %" PRIu64 " open", op->open);
		}
		fputc('\n', f);
	}
}

static void text_steps(FILE *f, const struct model *m, const struct corr *c)
{
	char rel[32], a[32], b[32], cm[40];

	if (!c->nsteps && !c->nmarks)
		return;
	fprintf(f, "\nSteps (marker API): %zu\n", c->nsteps);
	if (c->nsteps)
		fprintf(f, "  %-10s %12s %10s %10s %5s   (then its collectives: op #seq, comm, span, verdict; "
			"and named phases)\n", "STEP", "START", "DURATION", "RANK MEAN", "RANKS");
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct corr_step *st = &c->steps[i];

		fprintf(f, "  %-10" PRIu64 " %12s %10s %10s %5u%s\n", st->step,
			fmt_rel(model__rel_ns(m, st->start_ns), rel, sizeof(rel)),
			fmt_ns(st->end_ns - st->start_ns, a, sizeof(a)), fmt_ns(st->dur_mean_ns, b, sizeof(b)),
			st->nranks, st->open ? "  (open: no end marker)" : "");
		for (size_t k = 0; k < st->nchildren; k++) {
			const struct corr_instance *in = &c->instances[c->step_children[st->first_child + k]];

			fprintf(f, "      %s #%" PRIu64 " comm %s: %s, %s\n", corr__op_name(in->op), in->seq,
				comm_str(in, cm, sizeof(cm)), fmt_ns(in->span_ns, a, sizeof(a)),
				corr__verdict_name(in->verdict));
		}
		for (size_t k = 0; k < st->nphases; k++) {
			const struct corr_step_phase *ph = &c->step_phases[st->first_phase + k];

			fprintf(f, "      phase %s: %" PRIu64 " x, mean %s, max %s\n", ph->name, ph->count,
				fmt_ns(ph->total_ns / ph->count, a, sizeof(a)), fmt_ns(ph->max_ns, b, sizeof(b)));
		}
	}
	if (c->nmarks) {
		fprintf(f, "  named phases:\n");
		fprintf(f, "    %-32s %8s %6s %10s %10s\n", "NAME", "COUNT", "RANKS", "MEAN", "MAX");
		for (size_t i = 0; i < c->nmarks; i++) {
			const struct corr_mark *mk = &c->marks[i];

			fprintf(f, "    %-32s %8" PRIu64 " %6u %10s %10s%s\n", mk->name, mk->count, mk->nranks,
				fmt_ns(mk->total_ns / mk->count, a, sizeof(a)), fmt_ns(mk->max_ns, b, sizeof(b)),
				mk->open ? " (some open)" : "");
		}
	}
	if (c->unmatched_ends)
		fprintf(f, "  %" PRIu64 " marker ends without a begin (ignored)\n", c->unmatched_ends);
}

static void text_slowest(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	size_t n = top_n(o, c->nby_span);
	char rel[32], a[32], b[32], d[32], sz[32], bw[32], cm[40], rl[32];
	char *desc;

	fprintf(f, "\nSlowest collectives (by span): %zu", c->nby_span);
	if (n < c->nby_span)
		fprintf(f, ", top %zu", n);
	fprintf(f, "; verdicts: network %" PRIu64 ", rank %" PRIu64 ", unknown %" PRIu64 ", ok %" PRIu64 "\n",
		c->verdicts[CORR_NETWORK], c->verdicts[CORR_RANK], c->verdicts[CORR_UNKNOWN], c->verdicts[CORR_OK]);
	if (!n) {
		fprintf(f, "  none\n");
		return;
	}
	desc = malloc(1024);
	if (!desc)
		return;
	fprintf(f, "  %-4s %-14s %6s %-12s %12s %10s %10s %11s %10s %14s %-9s %s\n", "#", "OP", "SEQ", "COMM",
		"START", "SPAN", "SKEW", "ALL-ARRIVED", "SIZE", "BUSBW", "STRAGGLER", "VERDICT");
	for (size_t i = 0; i < n; i++) {
		const struct corr_instance *in = &c->instances[c->by_span[i]];

		fprintf(f, "  %-4zu %-14s %6" PRIu64 " %-12s %12s %10s %10s %11s %10s %14s %-9s %s\n", i + 1,
			corr__op_name(in->op), in->seq, comm_str(in, cm, sizeof(cm)),
			fmt_rel(model__rel_ns(m, in->first_entry), rel, sizeof(rel)), fmt_ns(in->span_ns, a, sizeof(a)),
			fmt_ns(in->skew_ns, b, sizeof(b)), fmt_ns(in->all_arrived_ns, d, sizeof(d)),
			fmt_bytes((double)in->size_bytes, sz, sizeof(sz)), fmt_gbps(in->busbw, bw, sizeof(bw)),
			rank_label(c, in->straggler, rl, sizeof(rl)), verdict_upper(in->verdict));
		fprintf(f, "       %s\n", corr__describe(c, c->by_span[i], desc, 1024));
	}
	free(desc);
}

/* "+1.00 ms", "-200 us", "+0 ns" */
static const char *fmt_signed_ns(int64_t ns, char *buf, size_t len)
{
	char a[32];
	uint64_t v = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+', fmt_ns(v, a, sizeof(a)));
	return buf;
}

static void text_inferred(FILE *f, const struct model *m, const struct corr *c)
{
	char r1[32], r2[32], a[32], by[32], e1[32], e2[32];

	fprintf(f, "\nInferred phases (INFERRED from traffic, not traced: >= %u hosts active together, "
		   "activity merged across gaps < %s%s): %zu\n", c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2,
		fmt_ns(c->infer_gap_ns, a, sizeof(a)), c->infer_gap_auto ? ", chosen from the traffic" : "",
		c->ninferred);
	fprintf(f, "  hosts:");
	for (size_t i = 0; i < c->nhosts; i++)
		fprintf(f, " %s", c->hosts[i].name);
	fprintf(f, "%s\n", c->nhosts ? "" : " none (no traced interfaces outside forwarding namespaces)");
	if (!c->ninferred)
		return;
	fprintf(f, "  %-6s %-8s %12s %12s %10s %5s %10s", "#", "LABEL", "START", "END", "DURATION", "HOSTS", "TX BYTES");
	if (c->compare.valid)
		fprintf(f, " %7s %12s %12s", "MATCHED", "START ERR", "END ERR");
	fputc('\n', f);
	for (size_t i = 0; i < c->ninferred; i++) {
		const struct corr_inferred *p = &c->inferred[i];

		fprintf(f, "  %-6zu %-8s %12s %12s %10s %5u %10s", i + 1, "inferred",
			fmt_rel(model__rel_ns(m, p->start_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, p->end_ns), r2, sizeof(r2)), fmt_ns(p->end_ns - p->start_ns, a, sizeof(a)),
			p->max_hosts, fmt_bytes((double)p->tx_bytes, by, sizeof(by)));
		if (c->compare.valid && p->matched)
			fprintf(f, " %7u %12s %12s", p->matched, fmt_signed_ns(p->start_err_ns, e1, sizeof(e1)),
				fmt_signed_ns(p->end_err_ns, e2, sizeof(e2)));
		else if (c->compare.valid)
			fprintf(f, " %7u %12s %12s", 0u, "-", "-");
		fputc('\n', f);
	}
	if (c->compare.valid) {
		const struct corr_compare *x = &c->compare;

		fprintf(f, "  inferred vs probe windows: %zu collective windows across hosts, %zu covered; %zu of %zu "
			   "inferred phases match one, %zu one-to-one;\n  |start error| max %s mean %s, |end error| max %s "
			   "mean %s\n", x->nreal, x->real_covered, x->inferred_matched, x->ninferred, x->one_to_one,
			fmt_ns(x->max_abs_start_err_ns, r1, sizeof(r1)),
			fmt_ns((uint64_t)(x->mean_abs_start_err_ns + 0.5), r2, sizeof(r2)),
			fmt_ns(x->max_abs_end_err_ns, e1, sizeof(e1)),
			fmt_ns((uint64_t)(x->mean_abs_end_err_ns + 0.5), e2, sizeof(e2)));
	}
}

static void text_phases(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	if (!c->have_probes) {
		fprintf(f, "\nCollective phases: none traced (the capture has no phase probe records)%s\n",
			c->inferred_on ? "; the phases below are inferred from traffic" : "");
	} else if (!c->show_probes) {
		fprintf(f, "\nCollective phases: %zu phase records, not shown (--phases inferred)\n", m->nphases);
	} else {
		fprintf(f, "\nCollective phases (phase probes): %zu records, %zu ranks, %zu calls, %zu collective "
			   "instances\n", m->nphases, c->nranks, c->ncalls, c->ninstances);
		if (c->seq_shifted)
			fprintf(f, "  attached mid-run: the collective counts of %zu (communicator, process) pairs "
				"were shifted into step with the others' (by the calls' overlap in time)\n",
				c->seq_shifted);
		if (c->enqueue_only)
			fprintf(f, "!! %s\n", ENQUEUE_NOTE);
		if (c->plugin.calls)
			fprintf(f, "  NCCL profiler plugin: %" PRIu64 " calls timed as NCCL ran them (%" PRIu64
				" by kernel-channel GPU timer, %" PRIu64 " by proxy progress, %" PRIu64
				" host-side only), %" PRIu64 " proxy operations (%" PRIu64 " bytes); %" PRIu64
				" enqueue-time NCCL calls replaced\n",
				c->plugin.calls, c->plugin.gpu_timed, c->plugin.proxy_timed, c->plugin.host_timed,
				c->plugin.proxy_ops, c->plugin.proxy_bytes, c->plugin.dropped_enqueue);
		text_collectives(f, c);
		text_ranks(f, c);
		text_steps(f, m, c);
		text_slowest(f, m, c, o);
	}
	if (c->inferred_on)
		text_inferred(f, m, c);
}

static void write_text(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	struct headline h;

	headline__build(&h, m, c, o->path);
	headline__text(f, &h);
	if (o->brief)
		return;
	fprintf(f, "\n");
	text_header(f, m, o);
	text_ifaces(f, m);
	text_bursts(f, m, o);
	text_queues(f, m);
	text_retrans(f, m, c);
	text_cong(f, m);
	text_drops(f, m);
	text_ce(f, m);
	text_conserve(f, m);
	text_lost(f, m, c);
	report_ctr__text(f, m, o->top);
	text_phases(f, m, c, o);
	report_hosts__text(f, o->path, m, c); /* merged captures only */
}

/* ---- JSON ---- */

static void j_time(struct json *j, const struct model *m, const char *prefix, uint64_t ts)
{
	char k[64], w[48];

	snprintf(k, sizeof(k), "%s_rel_ns", prefix);
	json_kv_i64(j, k, model__rel_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall_ns", prefix);
	json_kv_i64(j, k, model__wall_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall", prefix);
	json_kv_string(j, k, fmt_wall(model__wall_ns(m, ts), w, sizeof(w)));
}

static void j_iface_ref(struct json *j, const struct model *m, uint32_t iface, uint32_t netns,
			uint32_t ifindex)
{
	char nm[64];

	json_kv_string(j, "interface", iface_str(m, iface, netns, ifindex, nm, sizeof(nm)));
	json_kv_u64(j, "netns", netns);
	json_kv_u64(j, "ifindex", ifindex);
}

/* A flow, and the processes that used its socket (socket owners) with their ranks. */
static void j_flow(struct json *j, const struct model *m, const struct corr *c, const struct model_flow *w)
{
	char a[INET6_ADDRSTRLEN], p[24];

	json_key(j, "flow");
	json_object_begin(j);
	json_kv_u64(j, "family", w->key.family);
	json_kv_string(j, "proto", proto_name(w->key.proto, p, sizeof(p)));
	addr_str(&w->key, w->key.saddr, a, sizeof(a));
	json_kv_string(j, "saddr", a);
	json_kv_u64(j, "sport", w->key.sport);
	addr_str(&w->key, w->key.daddr, a, sizeof(a));
	json_kv_string(j, "daddr", a);
	json_kv_u64(j, "dport", w->key.dport);
	json_kv_u64(j, "netns", w->key.netns);
	json_kv_string(j, "netns_name", model__netns_name(m, w->key.netns));
	json_kv_u64(j, "ifindex", w->ifindex);
	json_object_end(j);
	json_key(j, "owners");
	json_array_begin(j);
	for (size_t o = 0; o < w->nowners; o++) {
		const struct model_owner *ow = &m->owners[w->first_owner + o];
		int64_t rank = corr__rank_of_pid(c, ow->pid);

		json_object_begin(j);
		json_kv_u64(j, "pid", ow->pid);
		json_kv_string(j, "comm", ow->comm);
		if (rank >= 0)
			json_kv_i64(j, "rank", rank);
		else
			json_kv_string(j, "rank", NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_header(struct json *j, const struct model *m, const struct report_opts *o)
{
	json_kv_string(j, "schema", REPORT_SCHEMA);
	json_key(j, "capture");
	json_object_begin(j);
	json_kv_string(j, "path", o->path ? o->path : "");
	json_kv_string(j, "host", m->hdr.hostname);
	json_kv_string(j, "kernel", m->hdr.kernel);
	json_kv_string(j, "tool_version", m->hdr.tool_version);
	json_kv_string(j, "command", m->hdr.command);
	json_kv_u64(j, "ncpus", m->hdr.ncpus);
	json_kv_u64(j, "start_mono_ns", m->start_ns);
	j_time(j, m, "start", m->start_ns);
	json_kv_i64(j, "realtime_offset_ns", m->hdr.realtime_offset_ns);
	json_kv_u64(j, "duration_ns", m->duration_ns);
	json_kv_u64(j, "bin_ns", m->hdr.bin_ns);
	json_kv_string(j, "state", m->truncated ? "truncated" : "complete");
	json_kv_string(j, "truncated_reason", m->truncated ? m->truncated_why : "");
	json_kv_string(j, "stop_reason", m->have_end ? capture__stop_reason_name(m->end.stop_reason) : "");
	json_kv_u64(j, "records", m->records);
	json_kv_u64(j, "unknown_records", m->unknown_records);
	json_object_end(j);

	json_key(j, "options");
	json_object_begin(j);
	json_kv_double(j, "burst_threshold_util", m->opts.burst_threshold, 4);
	json_kv_u64(j, "burst_gap_ns", m->opts.burst_gap_ns);
	json_kv_u64(j, "top", o->top);
	json_kv_string(j, "sort", sort_name(o->sort));
	json_object_end(j);

	json_key(j, "warnings");
	json_array_begin(j);
	if (m->lost_total) {
		char w[128];

		snprintf(w, sizeof(w), "%" PRIu64 " events were lost (ring buffer full); counts are lower bounds",
			 m->lost_total);
		json_string(j, w);
	}
	if (m->skipped_runs) {
		char w[160];

		snprintf(w, sizeof(w), "the kernel skipped %" PRIu64 " probe runs (tracepoint hits the "
			 "programs did not see); counts are lower bounds", m->skipped_runs);
		json_string(j, w);
	}
	if (m->truncated) {
		char w[320];

		snprintf(w, sizeof(w), "capture truncated: %s",
			 m->truncated_why[0] ? m->truncated_why : "no end record");
		json_string(j, w);
	}
	if (count_conserve(m, MODEL_CONSERVE_MISMATCH)) {
		char w[128];

		snprintf(w, sizeof(w), "%zu interface directions fail the conservation check",
			 count_conserve(m, MODEL_CONSERVE_MISMATCH));
		json_string(j, w);
	}
	if (any_enqueue_only(m))
		json_string(j, ENQUEUE_NOTE);
	json_array_end(j);

	json_key(j, "probes");
	json_array_begin(j);
	for (size_t i = 0; i < m->nprobes; i++) {
		json_object_begin(j);
		json_kv_u64(j, "id", m->probes[i].id);
		json_kv_string(j, "name", m->probes[i].name);
		json_kv_string(j, "hook", m->probes[i].hook);
		json_kv_bool(j, "attached", m->probes[i].attached != 0);
		json_kv_string(j, "why", m->probes[i].why);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_dir(struct json *j, const struct model *m, const struct model_dir *x)
{
	json_object_begin(j);
	json_kv_double(j, "capacity_bps", x->capacity_bps > 0 ? x->capacity_bps : (double)NAN, 0);
	json_kv_double(j, "line_bps", x->line_bps > 0 ? x->line_bps : (double)NAN, 0);
	json_kv_double(j, "shaper_bps", x->shaper_bps > 0 ? x->shaper_bps : (double)NAN, 0);
	json_kv_u64(j, "total_bytes", x->bytes);
	json_kv_u64(j, "total_pkts", x->pkts);
	json_kv_u64(j, "ce_pkts", x->ce_pkts);
	json_kv_u64(j, "bins", x->nbins);
	json_kv_u64(j, "active_ns", x->active_ns);
	json_kv_double(j, "mean_bps", x->mean_bps, 0);
	json_kv_double(j, "busy_mean_bps", x->busy_mean_bps, 0);
	json_kv_double(j, "peak_bps", x->peak_bps, 0);
	json_kv_double(j, "sustained_peak_bps", x->sustained_bps, 0);
	if (x->nbins)
		json_kv_i64(j, "peak_start_rel_ns", model__rel_ns(m, x->peak_start_ns));
	else
		json_kv_string(j, "peak_start_rel_ns", NULL);
	json_kv_double(j, "mean_util", x->mean_util, 4);
	json_kv_double(j, "busy_util", x->busy_util, 4);
	json_kv_double(j, "peak_util", x->peak_util, 4);
	json_kv_double(j, "peak_line_util", x->peak_line_util, 4);
	json_kv_double(j, "busy_line_util", x->busy_line_util, 4);
	json_kv_double(j, "sustained_util", x->sustained_util, 4);
	json_kv_u64(j, "bursts", x->nbursts);
	json_object_end(j);
}

static void j_ifaces(struct json *j, const struct model *m)
{
	json_key(j, "interfaces");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		json_object_begin(j);
		json_kv_string(j, "interface", it->label);
		json_kv_string(j, "name", it->name);
		json_kv_string(j, "netns_name", it->netns_name);
		json_kv_u64(j, "netns", it->netns);
		json_kv_u64(j, "ifindex", it->ifindex);
		json_kv_bool(j, "known", it->known);
		json_kv_string(j, "kind", it->kind);
		json_kv_u64(j, "mtu_bytes", it->mtu);
		json_kv_u64(j, "speed_mbps", it->speed_mbps);
		json_kv_u64(j, "tx_rate_kbps", it->tx_rate_kbps);
		json_kv_bool(j, "traced", (it->flags & FT_IFACE_TRACED) != 0);
		json_key(j, "rx");
		j_dir(j, m, &it->dir[FT_DIR_RX]);
		json_key(j, "tx");
		j_dir(j, m, &it->dir[FT_DIR_TX]);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_bursts(struct json *j, const struct model *m, const struct report_opts *o)
{
	size_t n;
	const struct model_burst **v = top_bursts(m, o, &n);

	json_key(j, "microbursts");
	json_object_begin(j);
	json_kv_u64(j, "total", m->nbursts);
	json_kv_u64(j, "shown", n);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct model_burst *b = v[i];
		const struct model_iface *it = &m->ifaces[b->iface];

		json_object_begin(j);
		j_iface_ref(j, m, b->iface, it->netns, it->ifindex);
		json_kv_string(j, "dir", dir_name((int)b->dir));
		j_time(j, m, "start", b->start_ns);
		json_kv_u64(j, "duration_ns", b->duration_ns);
		json_kv_u64(j, "total_bytes", b->bytes);
		json_kv_u64(j, "total_pkts", b->pkts);
		json_kv_u64(j, "hot_bins", b->nbins);
		json_kv_double(j, "peak_bps", b->peak_bps, 0);
		json_kv_double(j, "peak_util", b->peak_util, 4);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	free(v);
}

static void j_queues(struct json *j, const struct model *m)
{
	char h[24];

	json_key(j, "queues");
	json_array_begin(j);
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		json_object_begin(j);
		j_iface_ref(j, m, q->iface, q->netns, q->ifindex);
		json_kv_string(j, "kind", q->kind);
		json_kv_string(j, "handle", fmt_handle(q->handle, h, sizeof(h)));
		json_kv_string(j, "parent", fmt_handle(q->parent, h, sizeof(h)));
		json_kv_u64(j, "bins", q->nbins);
		json_kv_u64(j, "max_backlog_bytes", q->max_backlog_bytes);
		json_kv_i64(j, "max_backlog_rel_ns", model__rel_ns(m, q->max_backlog_ns));
		json_kv_u64(j, "max_backlog_pkts", q->max_qlen_pkts);
		json_kv_u64(j, "enq_pkts", q->enq_pkts);
		json_kv_u64(j, "enq_bytes", q->enq_bytes);
		json_kv_u64(j, "sojourn_samples", q->sojourn_cnt);
		json_kv_double(j, "sojourn_mean_ns", q->sojourn_mean_ns, 1);
		json_kv_u64(j, "sojourn_max_ns", q->sojourn_max_ns);
		json_kv_u64(j, "drops_counter_pkts", q->drops_counter);
		json_kv_u64(j, "drop_records", q->drop_recs);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_retrans(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "retransmits");
	json_object_begin(j);
	json_kv_u64(j, "total", m->retrans);
	json_kv_u64(j, "segments", m->retrans_segs);
	json_key(j, "by_trigger");
	json_object_begin(j);
	for (unsigned t = 1; t <= MODEL_NTRIGGER; t++)
		json_kv_u64(j, model__trigger_name(t % MODEL_NTRIGGER), m->retrans_by_trigger[t % MODEL_NTRIGGER]);
	json_object_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
			unsigned k = t % MODEL_NTRIGGER;

			if (!w->rtx[k])
				continue;
			json_object_begin(j);
			j_flow(j, m, c, w);
			json_kv_string(j, "trigger", model__trigger_name(k));
			json_kv_u64(j, "count", w->rtx[k]);
			json_kv_i64(j, "first_rel_ns", model__rel_ns(m, w->rtx_first_ns[k]));
			json_kv_i64(j, "last_rel_ns", model__rel_ns(m, w->rtx_last_ns[k]));
			json_object_end(j);
		}
	}
	json_array_end(j);
	json_object_end(j);
}

static void j_cong(struct json *j, const struct model *m, const struct corr *c)
{
	char a[24], b[24];

	json_key(j, "congestion_states");
	json_object_begin(j);
	json_kv_u64(j, "total_changes", m->cong_changes);
	json_key(j, "transitions");
	json_array_begin(j);
	for (size_t i = 0; i < m->ncong_pairs; i++) {
		json_object_begin(j);
		json_kv_string(j, "from", model__ca_state_name(m->cong_pairs[i].old_state, a, sizeof(a)));
		json_kv_string(j, "to", model__ca_state_name(m->cong_pairs[i].new_state, b, sizeof(b)));
		json_kv_u64(j, "count", m->cong_pairs[i].count);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "flows");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		if (!m->flows[i].cong_changes)
			continue;
		json_object_begin(j);
		j_flow(j, m, c, &m->flows[i]);
		json_kv_u64(j, "changes", m->flows[i].cong_changes);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_key(j, "tcp_samples");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->samples)
			continue;
		json_object_begin(j);
		j_flow(j, m, c, w);
		json_kv_u64(j, "samples", w->samples);
		json_kv_u64(j, "srtt_min_us", w->srtt_min_us);
		json_kv_u64(j, "srtt_max_us", w->srtt_max_us);
		json_kv_u64(j, "srtt_last_us", w->srtt_last_us);
		json_kv_u64(j, "cwnd_min_pkts", w->cwnd_min);
		json_kv_u64(j, "cwnd_max_pkts", w->cwnd_max);
		json_kv_u64(j, "cwnd_last_pkts", w->cwnd_last);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_drops(struct json *j, const struct model *m)
{
	json_key(j, "drops");
	json_object_begin(j);
	json_kv_u64(j, "total", m->drops_total);
	json_kv_u64(j, "congestion", congestion_drops(m));
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct model_drop *d = &m->drops[i];

		json_object_begin(j);
		json_kv_string(j, "reason", d->name);
		json_kv_u64(j, "reason_id", d->reason);
		j_iface_ref(j, m, d->iface, d->netns, d->ifindex);
		json_kv_u64(j, "count", d->count);
		json_kv_bool(j, "congestion", corr__congestion_drop(d->name));
		json_kv_i64(j, "first_rel_ns", model__rel_ns(m, d->first_ns));
		json_kv_i64(j, "last_rel_ns", model__rel_ns(m, d->last_ns));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void j_ce(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "ce");
	json_object_begin(j);
	json_key(j, "interfaces");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		if (!it->dir[0].ce_pkts && !it->dir[1].ce_pkts)
			continue;
		json_object_begin(j);
		j_iface_ref(j, m, (uint32_t)i, it->netns, it->ifindex);
		json_kv_u64(j, "rx_ce_pkts", it->dir[FT_DIR_RX].ce_pkts);
		json_kv_u64(j, "tx_ce_pkts", it->dir[FT_DIR_TX].ce_pkts);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "flows");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->have_ce)
			continue;
		json_object_begin(j);
		j_flow(j, m, c, w);
		json_kv_u64(j, "ce_pkts", w->ce_pkts);
		json_kv_i64(j, "first_rel_ns", model__rel_ns(m, w->ce_first_ns));
		json_kv_i64(j, "last_rel_ns", model__rel_ns(m, w->ce_last_ns));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void j_conserve(struct json *j, const struct model *m)
{
	json_key(j, "conservation");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];
			bool checked = conserve_checked(x->conserve);

			json_object_begin(j);
			j_iface_ref(j, m, (uint32_t)i, it->netns, it->ifindex);
			json_kv_string(j, "dir", dir_name(d));
			json_kv_string(j, "status", model__conserve_name(x->conserve));
			json_kv_u64(j, "binned_bytes", x->bytes);
			json_kv_u64(j, "binned_pkts", x->pkts);
			if (checked) {
				json_kv_u64(j, "counter_bytes", x->counter_bytes);
				json_kv_u64(j, "counter_pkts", x->counter_pkts);
				json_kv_i64(j, "diff_bytes", x->diff_bytes);
				json_kv_i64(j, "diff_pkts", x->diff_pkts);
				json_kv_u64(j, "tolerance_bytes", x->tol_bytes);
				json_kv_u64(j, "skipped_pkts", x->skipped_pkts);
			} else {
				json_kv_string(j, "counter_bytes", NULL);
				json_kv_string(j, "counter_pkts", NULL);
				json_kv_string(j, "diff_bytes", NULL);
				json_kv_string(j, "diff_pkts", NULL);
				json_kv_string(j, "tolerance_bytes", NULL);
				json_kv_string(j, "skipped_pkts", NULL);
			}
			json_object_end(j);
		}
	}
	json_array_end(j);
}

/* "complete", "incomplete" (runs skipped), "partial" (some unknown), "unknown" */
static const char *coverage_status(const struct model *m)
{
	if (!m->ncoverage)
		return "unknown";
	if (m->skipped_runs)
		return "incomplete";
	return m->coverage_unknown ? "partial" : "complete";
}

static void j_lost(struct json *j, const struct model *m)
{
	json_key(j, "lost");
	json_object_begin(j);
	json_kv_u64(j, "total_lost", m->lost_total);
	json_key(j, "by_source");
	json_object_begin(j);
	for (unsigned s = 0; s <= FT_SRC_MAX; s++)
		json_kv_u64(j, model__source_name(s), m->lost_by_source[s]);
	json_object_end(j);
	json_key(j, "per_cpu");
	json_array_begin(j);
	for (size_t i = 0; i < m->nlost; i++) {
		json_object_begin(j);
		json_kv_string(j, "source", model__source_name(m->lost[i].source));
		json_kv_u64(j, "source_id", m->lost[i].source);
		json_kv_u64(j, "cpu", m->lost[i].cpu);
		json_kv_u64(j, "lost", m->lost[i].lost);
		json_object_end(j);
	}
	json_array_end(j);
	/* kernel-skipped probe runs: a separate loss, not part of total_lost */
	json_kv_u64(j, "skipped_runs", m->skipped_runs);
	json_kv_string(j, "coverage_status", coverage_status(m));
	json_key(j, "coverage");
	json_array_begin(j);
	for (size_t i = 0; i < m->ncoverage; i++) {
		const struct model_coverage *c = &m->coverage[i];
		char nb[32];

		json_object_begin(j);
		json_kv_string(j, "probe", model__probe_name(m, c->probe, nb, sizeof(nb)));
		json_kv_u64(j, "probe_id", c->probe);
		json_kv_bool(j, "known", c->known);
		if (c->known) {
			json_kv_u64(j, "hits", c->hits);
			json_kv_u64(j, "runs", c->runs);
			json_kv_u64(j, "skipped", c->skipped);
		} else {
			json_kv_string(j, "hits", NULL);
			json_kv_u64(j, "runs", c->runs);
			json_kv_string(j, "skipped", NULL);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* ---- JSON: collective phases ---- */

static void j_rank_ref(struct json *j, const struct corr *c, const char *prefix, uint32_t r)
{
	char k[48];

	snprintf(k, sizeof(k), "%srank", prefix);
	if (r != CORR_NONE && r < c->nranks && c->ranks[r].rank >= 0)
		json_kv_i64(j, k, c->ranks[r].rank);
	else
		json_kv_string(j, k, NULL);
	snprintf(k, sizeof(k), "%spid", prefix);
	if (r != CORR_NONE && r < c->nranks)
		json_kv_u64(j, k, c->ranks[r].pid);
	else
		json_kv_string(j, k, NULL);
	snprintf(k, sizeof(k), "%shost", prefix);
	json_kv_string(j, k, r != CORR_NONE && r < c->nranks ? c->ranks[r].host : NULL);
}

static void j_rel_or_null(struct json *j, const struct model *m, const char *key, uint64_t ts)
{
	if (ts)
		json_kv_i64(j, key, model__rel_ns(m, ts));
	else
		json_kv_string(j, key, NULL);
}

static void j_phases_head(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "phases");
	json_object_begin(j);
	json_kv_string(j, "mode", corr__mode_name(c->opts.phases));
	json_kv_string(j, "source", c->show_probes ? "probes" : c->inferred_on ? "inferred" : "none");
	json_kv_u64(j, "records", m->nphases);
	json_kv_u64(j, "request_completions", m->nreq_dones);
	json_kv_u64(j, "seq_shifted", c->seq_shifted);
	json_kv_bool(j, "enqueue_only", c->enqueue_only);
	json_kv_string(j, "enqueue_only_note", c->enqueue_only ? ENQUEUE_NOTE : "");
	json_key(j, "nccl_plugin");
	json_object_begin(j);
	json_kv_u64(j, "calls", c->plugin.calls);
	json_kv_u64(j, "gpu_timed", c->plugin.gpu_timed);
	json_kv_u64(j, "proxy_timed", c->plugin.proxy_timed);
	json_kv_u64(j, "host_timed", c->plugin.host_timed);
	json_kv_u64(j, "proxy_ops", c->plugin.proxy_ops);
	json_kv_u64(j, "proxy_bytes", c->plugin.proxy_bytes);
	json_kv_u64(j, "dropped_enqueue", c->plugin.dropped_enqueue);
	json_object_end(j);
	json_key(j, "thresholds");
	json_object_begin(j);
	json_kv_u64(j, "queue_delay_ns", c->opts.th.queue_delay_ns);
	json_kv_double(j, "util", c->opts.th.util, 4);
	json_kv_double(j, "skew_frac", c->opts.th.skew_frac, 4);
	json_kv_u64(j, "skew_min_ns", c->opts.th.skew_min_ns);
	json_kv_double(j, "slow_factor", c->opts.th.slow_factor, 4);
	json_object_end(j);
	json_key(j, "slots");
	json_array_begin(j);
	for (size_t i = 0; i < m->nslots; i++) {
		const struct model_slot *sl = &m->slots[i];

		json_object_begin(j);
		json_kv_u64(j, "slot", sl->slot);
		json_kv_string(j, "lib_kind", corr__lib_name(sl->lib_kind));
		json_kv_string(j, "op", corr__op_name(sl->op));
		json_kv_string(j, "name", sl->name);
		json_kv_string(j, "symbol", sl->symbol);
		json_kv_string(j, "lib", sl->lib);
		json_kv_bool(j, "collective", (sl->flags & FT_SLOT_COLLECTIVE) != 0);
		json_kv_bool(j, "nonblocking", (sl->flags & FT_SLOT_NONBLOCKING) != 0);
		json_kv_bool(j, "enqueue_only", (sl->flags & FT_SLOT_ENQUEUE_ONLY) != 0);
		json_kv_bool(j, "completion", (sl->flags & FT_SLOT_COMPLETION) != 0);
		json_kv_bool(j, "marker", (sl->flags & FT_SLOT_MARKER) != 0);
		json_kv_bool(j, "plugin", (sl->flags & FT_SLOT_PLUGIN) != 0);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void j_processes(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "processes");
	json_array_begin(j);
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct corr_proc *p = &c->procs[i];

		json_object_begin(j);
		json_kv_u64(j, "pid", p->pid);
		json_kv_u64(j, "ppid", p->ppid);
		json_kv_string(j, "comm", p->comm);
		json_kv_u64(j, "netns", p->netns);
		json_kv_string(j, "host", p->host);
		if (p->rank != CORR_NONE && c->ranks[p->rank].rank >= 0)
			json_kv_i64(j, "rank", c->ranks[p->rank].rank);
		else
			json_kv_string(j, "rank", NULL);
		json_kv_bool(j, "traced_calls", p->rank != CORR_NONE);
		json_kv_bool(j, "followed", p->have_proc);
		json_kv_bool(j, "existing", (p->events & (1u << FT_PROC_EXISTING)) != 0);
		json_kv_bool(j, "forked", (p->events & (1u << FT_PROC_FORK)) != 0);
		json_kv_u64(j, "execs", p->nexec);
		j_rel_or_null(j, m, "exec_rel_ns", p->exec_ns);
		json_kv_bool(j, "exited", (p->events & (1u << FT_PROC_EXIT)) != 0);
		j_rel_or_null(j, m, "exit_rel_ns", p->exit_ns);
		if (p->events & (1u << FT_PROC_EXIT))
			json_kv_i64(j, "exit_code", p->exit_code);
		else
			json_kv_string(j, "exit_code", NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_ranks(struct json *j, const struct corr *c)
{
	json_key(j, "ranks");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		json_object_begin(j);
		if (r->rank >= 0)
			json_kv_i64(j, "rank", r->rank);
		else
			json_kv_string(j, "rank", NULL);
		if (r->world_size >= 0)
			json_kv_i64(j, "world_size", r->world_size);
		else
			json_kv_string(j, "world_size", NULL);
		json_kv_u64(j, "pid", r->pid);
		json_kv_string(j, "host", r->host);
		json_kv_u64(j, "netns", r->netns);
		json_kv_string(j, "comm", r->comm);
		json_kv_u64(j, "calls", r->calls);
		json_kv_u64(j, "collectives", r->collectives);
		json_kv_u64(j, "collective_time_ns", r->coll_time_ns);
		json_kv_u64(j, "wait_ns", r->wait_ns);
		json_kv_u64(j, "straggler_count", r->straggler_count);
		json_kv_u64(j, "late_ns", r->late_ns);
		json_key(j, "ops");
		json_array_begin(j);
		for (size_t k = 0; k < r->nops; k++) {
			const struct corr_rank_op *op = &c->rank_ops[r->first_op + k];

			json_object_begin(j);
			json_kv_string(j, "op", corr__op_name(op->op));
			json_kv_u64(j, "calls", op->calls);
			json_kv_u64(j, "bytes", op->bytes);
			json_kv_u64(j, "size_bytes", op->size_bytes);
			json_kv_u64(j, "time_ns", op->time_ns);
			json_kv_u64(j, "open", op->open);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_evidence(struct json *j, const struct model *m, const struct corr *c, size_t idx)
{
	struct corr_evidence ev;
	char h[24], fl[128];

	json_key(j, "evidence");
	if (corr__evidence(c, idx, &ev)) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_bool(j, "observed", ev.sum.observed);
	json_kv_i64(j, "window_start_rel_ns", model__rel_ns(m, ev.start_ns));
	json_kv_i64(j, "window_end_rel_ns", model__rel_ns(m, ev.end_ns));
	json_kv_string(j, "link", ev.sum.link != CORR_NONE ? m->ifaces[ev.sum.link].label : NULL);
	if (ev.sum.qdisc != CORR_NONE) {
		const struct model_qdisc *q = &m->qdiscs[ev.sum.qdisc];

		snprintf(fl, sizeof(fl), "%s %s", q->kind[0] ? q->kind : "qdisc", fmt_handle(q->handle, h, sizeof(h)));
		json_kv_string(j, "qdisc", fl);
	} else {
		json_kv_string(j, "qdisc", NULL);
	}
	json_kv_u64(j, "queue_delay_ns", ev.sum.queue_delay_ns);
	json_kv_u64(j, "max_sojourn_ns", ev.sum.max_sojourn_ns);
	json_kv_u64(j, "max_backlog_bytes", ev.sum.max_backlog_bytes);
	json_kv_double(j, "peak_util", ev.sum.peak_util, 4);
	json_kv_string(j, "peak_util_interface",
		       ev.sum.peak_iface != CORR_NONE ? m->ifaces[ev.sum.peak_iface].label : NULL);
	json_kv_string(j, "peak_util_dir", ev.sum.peak_iface != CORR_NONE ? dir_name((int)ev.sum.peak_dir) : NULL);
	json_kv_u64(j, "bursts", ev.sum.bursts);
	json_kv_u64(j, "drops", ev.sum.drops);
	json_kv_u64(j, "congestion_drops", ev.sum.cong_drops);
	json_kv_u64(j, "retransmits", ev.sum.retrans);
	json_kv_u64(j, "tail_loss_probes", ev.sum.retrans_tlp);
	json_kv_u64(j, "ce_pkts", ev.sum.ce_pkts);
	report_ctr__evidence_json(j, m, &ev);
	json_key(j, "drops_by_reason");
	json_array_begin(j);
	for (size_t i = 0; i < ev.ndrops; i++) {
		const char *nm = model__drop_reason_name(m, ev.drops[i].reason);
		char rb[32];

		if (!nm || !nm[0]) {
			snprintf(rb, sizeof(rb), "reason %u", ev.drops[i].reason);
			nm = rb;
		}
		json_object_begin(j);
		json_kv_string(j, "reason", nm);
		json_kv_string(j, "interface", m->ifaces[ev.drops[i].iface].label);
		json_kv_u64(j, "count", ev.drops[i].count);
		json_kv_bool(j, "congestion", ev.drops[i].congestion);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "retransmit_flows");
	json_array_begin(j);
	for (size_t i = 0; i < ev.nflows; i++) {
		json_object_begin(j);
		j_flow(j, m, c, &m->flows[ev.flows[i].flow]);
		json_kv_u64(j, "retransmits", ev.flows[i].retrans);
		json_kv_string(j, "attributed_by", ev.flows[i].owned ? "socket_owner" : "netns");
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "links");
	json_array_begin(j);
	for (size_t i = 0; i < ev.nlinks; i++) {
		const struct corr_link_ev *l = &ev.links[i];
		const struct model_iface *it = &m->ifaces[l->iface];

		json_object_begin(j);
		j_iface_ref(j, m, l->iface, it->netns, it->ifindex);
		json_kv_u64(j, "rx_bytes", l->bytes[FT_DIR_RX]);
		json_kv_u64(j, "tx_bytes", l->bytes[FT_DIR_TX]);
		json_kv_double(j, "rx_peak_util", l->peak_util[FT_DIR_RX], 4);
		json_kv_double(j, "tx_peak_util", l->peak_util[FT_DIR_TX], 4);
		json_kv_u64(j, "bursts", l->bursts);
		json_kv_u64(j, "ce_pkts", l->ce_pkts);
		if (l->qdisc != CORR_NONE) {
			const struct model_qdisc *q = &m->qdiscs[l->qdisc];

			snprintf(fl, sizeof(fl), "%s %s", q->kind[0] ? q->kind : "qdisc",
				 fmt_handle(q->handle, h, sizeof(h)));
			json_kv_string(j, "qdisc", fl);
		} else {
			json_kv_string(j, "qdisc", NULL);
		}
		json_kv_u64(j, "max_backlog_bytes", l->max_backlog_bytes);
		json_kv_u64(j, "max_sojourn_ns", l->max_sojourn_ns);
		json_kv_u64(j, "queue_delay_ns", l->queue_delay_ns);
		json_kv_u64(j, "qdisc_drops_counter_pkts", l->qdisc_drops);
		json_kv_u64(j, "drops", l->drops);
		json_kv_u64(j, "congestion_drops", l->cong_drops);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	corr__evidence_free(&ev);
}

static void j_why(struct json *j, unsigned why)
{
	static const struct { unsigned bit; const char *name; } w[] = {
		{ CORR_WHY_QUEUE, "queue" }, { CORR_WHY_DROPS, "drops" }, { CORR_WHY_RETRANS, "retransmits" },
		{ CORR_WHY_CE, "ce" }, { CORR_WHY_UTIL, "saturated" }, { CORR_WHY_STRAGGLER, "straggler" },
		{ CORR_WHY_SLOW, "slow" }, { CORR_WHY_UNOBSERVED, "network_not_traced" },
		{ CORR_WHY_CNP, "counter_congestion" }, { CORR_WHY_PAUSE, "counter_pause" },
		{ CORR_WHY_RDMA_LOSS, "counter_loss" },
	};

	json_key(j, "why");
	json_array_begin(j);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (why & w[i].bit)
			json_string(j, w[i].name);
	json_array_end(j);
}

static void j_instance(struct json *j, const struct model *m, const struct corr *c, size_t idx, bool detail)
{
	const struct corr_instance *in = &c->instances[idx];
	char cm[40];

	json_object_begin(j);
	json_kv_u64(j, "id", idx);
	json_kv_string(j, "op", corr__op_name(in->op));
	json_kv_string(j, "comm", comm_str(in, cm, sizeof(cm)));
	json_kv_string(j, "comm_kind", comm_kind_name(in->comm_kind));
	json_kv_u64(j, "seq", in->seq);
	json_kv_u64(j, "nranks", in->nranks);
	json_kv_u64(j, "members", in->nmembers);
	json_kv_u64(j, "size_bytes", in->size_bytes);
	json_kv_i64(j, "start_rel_ns", model__rel_ns(m, in->first_entry));
	json_kv_i64(j, "last_entry_rel_ns", model__rel_ns(m, in->last_entry));
	json_kv_i64(j, "end_rel_ns", model__rel_ns(m, in->last_exit));
	json_kv_u64(j, "duration_ns", in->span_ns);
	json_kv_u64(j, "skew_ns", in->skew_ns);
	json_kv_u64(j, "straggler_own_late_ns", in->own_late_ns);
	json_kv_u64(j, "all_arrived_ns", in->all_arrived_ns);
	json_kv_double(j, "algbw_bytes_per_s", in->algbw, 0);
	json_kv_double(j, "busbw_bytes_per_s", in->busbw, 0);
	json_kv_double(j, "busbw_factor", in->busbw_factor, 4);
	j_rank_ref(j, c, "straggler_", in->straggler);
	if (in->step >= 0)
		json_kv_i64(j, "step", in->step);
	else
		json_kv_string(j, "step", NULL);
	json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
	json_kv_bool(j, "slow", in->slow);
	json_kv_double(j, "slow_ratio", in->slow_ratio, 4);
	json_kv_bool(j, "enqueue_only", in->enqueue_only);
	json_kv_bool(j, "open", in->open);
	json_kv_bool(j, "partial", in->partial);
	json_kv_bool(j, "op_mismatch", in->op_mismatch);
	j_why(j, in->why);
	if (detail) {
		char *desc = malloc(1024);

		json_kv_string(j, "summary", desc ? corr__describe(c, idx, desc, 1024) : "");
		free(desc);
		j_evidence(j, m, c, idx);
		json_key(j, "ranks");
		json_array_begin(j);
		for (size_t k = 0; k < in->nmembers; k++) {
			const struct corr_call *call = &c->calls[c->members[in->first_member + k]];
			uint64_t d = call->end_ns > call->start_ns ? call->end_ns - call->start_ns : 0;
			double bw = d && call->size_bytes ? (double)call->size_bytes * 1e9 / (double)d : NAN;

			json_object_begin(j);
			j_rank_ref(j, c, "", call->rank);
			json_kv_u64(j, "tid", call->tid);
			json_kv_i64(j, "entry_rel_ns", model__rel_ns(m, call->start_ns));
			json_kv_i64(j, "exit_rel_ns", model__rel_ns(m, call->end_ns));
			json_kv_u64(j, "duration_ns", d);
			json_kv_u64(j, "wait_ns", in->last_entry - call->start_ns);
			json_kv_u64(j, "bytes", call->bytes);
			json_kv_u64(j, "size_bytes", call->size_bytes);
			json_kv_double(j, "algbw_bytes_per_s", bw, 0);
			json_kv_double(j, "busbw_bytes_per_s", bw * in->busbw_factor, 0);
			json_kv_bool(j, "nonblocking", (call->flags & CORR_CALL_NONBLOCKING) != 0);
			json_kv_bool(j, "completed", !(call->flags & (CORR_CALL_OPEN | CORR_CALL_NO_COMPLETION)));
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}

static void j_collectives(struct json *j, const struct model *m, const struct corr *c,
			  const struct report_opts *o)
{
	size_t n = c->show_probes ? top_n(o, c->nby_span) : 0;
	size_t nst = 0;

	json_key(j, "collectives");
	json_object_begin(j);
	json_kv_u64(j, "instances", c->show_probes ? c->ninstances : 0);
	json_key(j, "verdicts");
	json_object_begin(j);
	for (int v = 0; v < CORR_NVERDICTS; v++)
		json_kv_u64(j, corr__verdict_name((enum corr_verdict)v), c->show_probes ? c->verdicts[v] : 0);
	json_object_end(j);
	json_key(j, "by_op");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nopstats; i++) {
		const struct corr_opstat *g = &c->opstats[i];

		json_object_begin(j);
		json_kv_string(j, "op", corr__op_name(g->op));
		json_kv_u64(j, "nranks", g->nranks);
		json_kv_u64(j, "size_bytes", g->size_bytes);
		json_kv_bool(j, "enqueue_only", g->enqueue_only);
		json_kv_u64(j, "count", g->count);
		json_kv_u64(j, "duration_mean_ns", g->span_mean_ns);
		json_kv_u64(j, "duration_p50_ns", g->span_p50_ns);
		json_kv_u64(j, "duration_p99_ns", g->span_p99_ns);
		json_kv_u64(j, "duration_max_ns", g->span_max_ns);
		json_kv_u64(j, "all_arrived_mean_ns", g->all_arrived_mean_ns);
		json_kv_double(j, "algbw_mean_bytes_per_s", g->algbw_mean, 0);
		json_kv_double(j, "busbw_mean_bytes_per_s", g->busbw_mean, 0);
		json_kv_double(j, "busbw_factor", g->busbw_factor, 4);
		json_key(j, "verdicts");
		json_object_begin(j);
		for (int v = 0; v < CORR_NVERDICTS; v++)
			json_kv_u64(j, corr__verdict_name((enum corr_verdict)v), g->verdicts[v]);
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->ninstances; i++)
		j_instance(j, m, c, i, false);
	json_array_end(j);
	json_object_end(j);

	json_key(j, "slowest");
	json_object_begin(j);
	json_kv_u64(j, "total", c->show_probes ? c->nby_span : 0);
	json_kv_u64(j, "shown", n);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		j_instance(j, m, c, c->by_span[i], true);
	json_array_end(j);
	json_object_end(j);

	/* stragglers: ranks that entered last, most often first */
	json_key(j, "stragglers");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nranks; i++)
		nst += c->ranks[i].straggler_count > 0;
	if (nst) {
		uint32_t *v = malloc(nst * sizeof(*v));

		nst = 0;
		for (size_t i = 0; v && i < c->nranks; i++)
			if (c->ranks[i].straggler_count)
				v[nst++] = (uint32_t)i;
		for (size_t a = 1; v && a < nst; a++) { /* insertion sort: few ranks */
			uint32_t x = v[a];
			size_t b = a;

			while (b > 0 && (c->ranks[v[b - 1]].straggler_count < c->ranks[x].straggler_count ||
					 (c->ranks[v[b - 1]].straggler_count == c->ranks[x].straggler_count &&
					  c->ranks[v[b - 1]].late_ns < c->ranks[x].late_ns))) {
				v[b] = v[b - 1];
				b--;
			}
			v[b] = x;
		}
		for (size_t i = 0; v && i < nst; i++) {
			const struct corr_rank *r = &c->ranks[v[i]];

			json_object_begin(j);
			j_rank_ref(j, c, "", v[i]);
			json_kv_u64(j, "times_last", r->straggler_count);
			json_kv_u64(j, "late_ns", r->late_ns);
			json_kv_u64(j, "collectives", r->collectives);
			json_object_end(j);
		}
		free(v);
	}
	json_array_end(j);
}

static void j_steps(struct json *j, const struct model *m, const struct corr *c)
{
	char cm[40];

	json_key(j, "steps");
	json_object_begin(j);
	json_kv_u64(j, "total", c->show_probes ? c->nsteps : 0);
	json_kv_u64(j, "unmatched_ends", c->show_probes ? c->unmatched_ends : 0);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nsteps; i++) {
		const struct corr_step *st = &c->steps[i];

		json_object_begin(j);
		json_kv_u64(j, "step", st->step);
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, st->start_ns));
		json_kv_i64(j, "end_rel_ns", model__rel_ns(m, st->end_ns));
		json_kv_u64(j, "duration_ns", st->end_ns - st->start_ns);
		json_kv_u64(j, "rank_mean_ns", st->dur_mean_ns);
		json_kv_u64(j, "rank_max_ns", st->dur_max_ns);
		json_kv_u64(j, "ranks", st->nranks);
		json_kv_bool(j, "open", st->open);
		json_key(j, "collectives");
		json_array_begin(j);
		for (size_t k = 0; k < st->nchildren; k++) {
			size_t id = c->step_children[st->first_child + k];
			const struct corr_instance *in = &c->instances[id];

			json_object_begin(j);
			json_kv_u64(j, "id", id);
			json_kv_string(j, "op", corr__op_name(in->op));
			json_kv_u64(j, "seq", in->seq);
			json_kv_string(j, "comm", comm_str(in, cm, sizeof(cm)));
			json_kv_u64(j, "members", in->nmembers);
			json_kv_i64(j, "start_rel_ns", model__rel_ns(m, in->first_entry));
			json_kv_u64(j, "duration_ns", in->span_ns);
			json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "phases");
		json_array_begin(j);
		for (size_t k = 0; k < st->nphases; k++) {
			const struct corr_step_phase *ph = &c->step_phases[st->first_phase + k];

			json_object_begin(j);
			json_kv_string(j, "name", ph->name);
			json_kv_u64(j, "count", ph->count);
			json_kv_u64(j, "mean_ns", ph->total_ns / ph->count);
			json_kv_u64(j, "max_ns", ph->max_ns);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_key(j, "named_phases");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nmarks; i++) {
		const struct corr_mark *mk = &c->marks[i];

		json_object_begin(j);
		json_kv_string(j, "name", mk->name);
		json_kv_u64(j, "count", mk->count);
		json_kv_u64(j, "ranks", mk->nranks);
		json_kv_u64(j, "total_ns", mk->total_ns);
		json_kv_u64(j, "mean_ns", mk->total_ns / mk->count);
		json_kv_u64(j, "max_ns", mk->max_ns);
		json_kv_u64(j, "open", mk->open);
		json_object_end(j);
	}
	json_array_end(j);
}

static void j_inferred(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "inferred_phases");
	json_object_begin(j);
	json_kv_bool(j, "enabled", c->inferred_on);
	json_kv_string(j, "label", "inferred");
	json_kv_u64(j, "gap_ns", c->inferred_on ? c->infer_gap_ns : 0);
	json_kv_bool(j, "gap_auto", c->inferred_on && c->infer_gap_auto);
	json_kv_u64(j, "min_hosts", c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2);
	json_kv_u64(j, "min_bytes", c->opts.infer_min_bytes);
	json_key(j, "hosts");
	json_array_begin(j);
	for (size_t i = 0; i < c->nhosts; i++) {
		json_object_begin(j);
		json_kv_string(j, "host", c->hosts[i].name);
		json_kv_u64(j, "netns", c->hosts[i].netns);
		json_kv_u64(j, "active_intervals", c->hosts[i].nact);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < c->ninferred; i++) {
		const struct corr_inferred *p = &c->inferred[i];

		json_object_begin(j);
		json_kv_string(j, "label", "inferred");
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, p->start_ns));
		json_kv_i64(j, "end_rel_ns", model__rel_ns(m, p->end_ns));
		json_kv_u64(j, "duration_ns", p->end_ns - p->start_ns);
		json_kv_u64(j, "hosts", p->max_hosts);
		json_kv_u64(j, "tx_bytes", p->tx_bytes);
		if (c->compare.valid) {
			json_kv_u64(j, "matched_collectives", p->matched);
			if (p->matched) {
				json_kv_i64(j, "start_error_ns", p->start_err_ns);
				json_kv_i64(j, "end_error_ns", p->end_err_ns);
			} else {
				json_kv_string(j, "start_error_ns", NULL);
				json_kv_string(j, "end_error_ns", NULL);
			}
		} else {
			json_kv_string(j, "matched_collectives", NULL);
			json_kv_string(j, "start_error_ns", NULL);
			json_kv_string(j, "end_error_ns", NULL);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "comparison");
	if (!c->compare.valid) {
		json_null(j);
	} else {
		const struct corr_compare *x = &c->compare;

		json_object_begin(j);
		json_kv_u64(j, "real_windows", x->nreal);
		json_kv_u64(j, "inferred", x->ninferred);
		json_kv_u64(j, "inferred_matched", x->inferred_matched);
		json_kv_u64(j, "real_covered", x->real_covered);
		json_kv_u64(j, "one_to_one", x->one_to_one);
		json_kv_u64(j, "max_abs_start_error_ns", x->max_abs_start_err_ns);
		json_kv_u64(j, "max_abs_end_error_ns", x->max_abs_end_err_ns);
		json_kv_double(j, "mean_abs_start_error_ns", x->mean_abs_start_err_ns, 0);
		json_kv_double(j, "mean_abs_end_error_ns", x->mean_abs_end_err_ns, 0);
		json_object_end(j);
	}
	json_object_end(j);
}

static void write_json(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	struct json j;

	struct headline h;

	headline__build(&h, m, c, o->path);
	json_init(&j, f, o->pretty);
	json_object_begin(&j);
	if (o->brief) {
		json_kv_string(&j, "schema", REPORT_SCHEMA);
		headline__json(&j, &h, m, c);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	j_header(&j, m, o);
	headline__json(&j, &h, m, c);
	j_ifaces(&j, m);
	j_bursts(&j, m, o);
	j_queues(&j, m);
	j_retrans(&j, m, c);
	j_cong(&j, m, c);
	j_drops(&j, m);
	j_ce(&j, m, c);
	j_conserve(&j, m);
	j_lost(&j, m);
	report_ctr__json(&j, m);
	j_phases_head(&j, m, c);
	j_processes(&j, m, c);
	j_ranks(&j, c);
	j_collectives(&j, m, c, o);
	j_steps(&j, m, c);
	j_inferred(&j, m, c);
	report_hosts__json(&j, o->path, m, c); /* merged captures only */
	json_object_end(&j);
	json_finish(&j);
}

int report__write(FILE *out, const struct model *m, const struct report_opts *o)
{
	struct report_opts def = { .top = 10 };
	struct corr_opts co;
	struct corr *own = NULL;
	const struct corr *c;

	if (!out || !m || !m->finished)
		return -EINVAL;
	if (!o)
		o = &def;
	if (o->corr) {
		co = *o->corr;
	} else {
		corr_opts__init(&co);
		co.phases = o->phases;
	}
	c = o->built;
	if (!c) {
		int err = corr__build(m, &co, &own);

		if (err)
			return err;
		c = own;
	}
	if (o->json)
		write_json(out, m, c, o);
	else
		write_text(out, m, c, o);
	corr__free(own);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace report [OPTIONS] CAPTURE\n"
		"\n"
		"Summarise a capture.  The first screen is the answer: the verdict counts,\n"
		"where the blame falls (a link and its queue, or a rank), the worst\n"
		"collectives with cause, place and time, and whether the data is whole.\n"
		"Then the details: per-interface rates against link speed, microbursts,\n"
		"queue depth and sojourn time, retransmits, congestion-state changes, drops\n"
		"by reason, ECN CE marks, the conservation check (binned bytes vs interface\n"
		"counters) and lost events.  With phase probes (MPI, NCCL, Gloo, markers):\n"
		"collectives per op with bus bandwidth, ranks and the time they waited,\n"
		"steps, and the slowest collectives with a verdict and its evidence\n"
		"(network-bound: which link or queue and which events; rank-bound: which\n"
		"rank entered late on a clean network; unknown).  Without them, phases\n"
		"are inferred from synchronised traffic and labelled \"inferred\".\n"
		"Times are shown relative to the capture start (+seconds) and as UTC wall\n"
		"clock.\n"
		"\n"
		"Options:\n"
		"  -b, --brief           the answer alone: the first screen (verdicts, where the\n"
		"                        blame falls, the worst collectives, whether data is whole)\n"
		"  -j, --json            one JSON document (keys: docs/report-json.md)\n"
		"  -p, --pretty          indented JSON (implies --json)\n"
		"  -t, --threshold PCT   a bin is part of a burst at >= PCT %% of the line rate (default 50)\n"
		"  -g, --gap DURATION    merge bursts separated by less than this (default: one bin)\n"
		"  -n, --top N           show the N largest bursts and the N slowest collectives\n"
		"                        (default 10, 0 = all)\n"
		"  -s, --sort KEY        order bursts by bytes (default), peak or time\n"
		"      --tolerance PCT   conservation: extra allowed difference in %% of the counters (default 0: exact but for 2 frames in flight)\n"
		"      --phases MODE     auto (default: phase probes if the capture has any, else\n"
		"                        inferred), probes, or inferred (also compared with the\n"
		"                        probes' collective windows when the capture has them)\n"
		"      --queue-delay DURATION  verdict: a queue delaying packets this long on a\n"
		"                        rank's link is congestion (default 1ms)\n"
		"      --skew PCT        verdict: entry skew >= PCT %% of the span makes the last\n"
		"                        rank a straggler (default 50)\n"
		"      --skew-min DURATION  ... and at least this long (default 1ms)\n"
		"      --slow FACTOR     a collective is slow at >= FACTOR x the median of its\n"
		"                        op and size (default 2)\n"
		"      --infer-gap DURATION  inferred phases: merge activity across gaps shorter\n"
		"                        than this (default: chosen from the idle gaps in the\n"
		"                        traffic, at least max(1ms, 10 bins))\n"
		"      --spike-rate N    counters (RDMA, NIC): a congestion, pause, retransmission\n"
		"                        or discard counter growing at >= N per second is a spike\n"
		"                        (default 1000; docs/rdma.md)\n"
		"  -h, --help            this help\n"
		"\n"
		"Timelines (docs/timelines.md); several may be given at once, each FILE is\n"
		"written whole or not at all (mode 0600), - writes it to stdout:\n"
		"      --svg FILE        static flame-style timeline of one window (default: the\n"
		"                        slowest collective with context) for tickets and docs\n"
		"      --html FILE       interactive timeline, one self-contained page\n"
		"      --perfetto FILE   Chrome trace event JSON for ui.perfetto.dev / chrome://tracing\n"
		"      --speedscope FILE evented profile per rank for speedscope.app\n"
		"      --folded FILE     folded stacks rank;collective;phase;cause weight for\n"
		"                        flamegraph.pl: where the collective time went\n"
		"      --from T, --to T  window in seconds since the capture start (1.25, 1250ms,\n"
		"                        +1.25s); default: SVG the slowest collective, others all\n"
		"      --weight KEY      folded stacks weighted by time (ns, default) or bytes\n"
		"  -q, --quiet           with timelines: do not print the summary too\n"
		"\n"
		"Examples:\n"
		"  fabtrace report incident.ftr\n"
		"  fabtrace report --brief incident.ftr\n"
		"  fabtrace report --json incident.ftr | jq '.headline.lines[]'\n"
		"  fabtrace report --threshold 80 --top 20 --sort peak incident.ftr\n"
		"  fabtrace report --json incident.ftr | jq '.microbursts.items[0]'\n"
		"  fabtrace report --json incident.ftr | jq '.lost.total_lost'\n"
		"  fabtrace report --json run.ftr | jq '.slowest.items[] | {op, verdict, summary}'\n"
		"  fabtrace report --phases inferred --json run.ftr | jq '.inferred_phases.comparison'\n"
		"  fabtrace report --json roce.ftr | jq '.counter_spikes.spikes[] | {counter, growth}'\n"
		"  fabtrace report -q --svg slow.svg run.ftr\n"
		"  fabtrace report -q --from 12.5 --to 13.1 --svg w.svg --perfetto w.json run.ftr\n"
		"  fabtrace report -q --speedscope run.speedscope.json run.ftr\n"
		"  fabtrace report --folded - run.ftr | flamegraph.pl > where-time-went.svg\n"
		"\n"
		"Exit status: 0 (also for a truncated capture, with a warning), 1 when the\n"
		"capture cannot be read or is corrupt or an output cannot be written, 2 for\n"
		"usage errors.\n");
}

static int parse_pct(const char *s, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0) || v > max)
		return -EINVAL;
	*out = v / 100.0;
	return 0;
}

/* ---- timelines (viz/): --html, --svg, --perfetto, --speedscope, --folded ---- */

enum { TL_HTML, TL_SVG, TL_PERFETTO, TL_SPEEDSCOPE, TL_FOLDED, TL_N };

enum {
	OPT_TL = 0x100,             /* + TL_*: the output options */
	OPT_FROM = OPT_TL + TL_N,
	OPT_TO,
	OPT_WEIGHT,
};

static const struct {
	const char *opt, *what;
	int (*render)(const struct viz_ctx *v, FILE *f);
} tl_outputs[TL_N] = {
	[TL_HTML] = { "html", "HTML timeline", viz__html },
	[TL_SVG] = { "svg", "SVG timeline", viz__svg },
	[TL_PERFETTO] = { "perfetto", "Perfetto/Chrome trace", viz__perfetto },
	[TL_SPEEDSCOPE] = { "speedscope", "speedscope profile", viz__speedscope },
	[TL_FOLDED] = { "folded", "folded stacks", viz__folded },
};

struct timeline_opts {
	const char *out[TL_N];
	bool have_from, have_to, quiet;
	uint64_t from_rel, to_rel;  /* ns since the capture start */
	enum viz_weight weight;
};

/* "1.25" (seconds), "1250ms", "+1.25s" (as the report prints times), "0". */
static int parse_rel_time(const char *s, uint64_t *ns)
{
	const char *p;

	if (s[0] == '+')
		s++;
	if (!parse_duration(s, 1000000000ull, ns))
		return 0;
	/* parse_duration() refuses 0, a valid window edge here */
	for (p = s; *p == '0'; p++)
		;
	if (p == s && *p != '.')
		return -EINVAL;
	if (*p == '.')
		for (p++; *p == '0'; p++)
			;
	if (*p) {
		static const char *const units[] = { "s", "ms", "us", "ns", "m", "min", "h" };
		bool unit = false;

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			unit |= !strcmp(p, units[i]);
		if (!unit)
			return -EINVAL;
	}
	if (p == s || (p == s + 1 && s[0] == '.'))
		return -EINVAL;
	*ns = 0;
	return 0;
}

/* One of the timeline options; 0 or 2 (usage error, reported). */
static int timeline_opt(struct timeline_opts *t, int c, const char *arg)
{
	if (c >= OPT_TL && c < OPT_TL + TL_N) {
		if (t->out[c - OPT_TL]) {
			ft_err("report: --%s given twice; give one file per format", tl_outputs[c - OPT_TL].opt);
			return 2;
		}
		if (!arg[0]) {
			ft_err("report: --%s needs a file name (or - for stdout)", tl_outputs[c - OPT_TL].opt);
			return 2;
		}
		t->out[c - OPT_TL] = arg;
		return 0;
	}
	if (c == OPT_WEIGHT) {
		if (!strcmp(arg, "time"))
			t->weight = VIZ_WEIGHT_TIME;
		else if (!strcmp(arg, "bytes"))
			t->weight = VIZ_WEIGHT_BYTES;
		else {
			ft_err("report: --weight '%s': unknown; use time or bytes", arg);
			return 2;
		}
		return 0;
	}
	if (parse_rel_time(arg, c == OPT_FROM ? &t->from_rel : &t->to_rel)) {
		ft_err("report: --%s '%s': not a time; give seconds since the capture start, e.g. 1.25 or 1250ms",
		       c == OPT_FROM ? "from" : "to", arg);
		return 2;
	}
	if (c == OPT_FROM)
		t->have_from = true;
	else
		t->have_to = true;
	return 0;
}

static bool timeline_wanted(const struct timeline_opts *t)
{
	for (int k = 0; k < TL_N; k++)
		if (t->out[k])
			return true;
	return false;
}

/* Usage errors of the options together (before the capture is read); 0 or 2. */
static int timeline_check(struct timeline_opts *t)
{
	int nstdout = 0, nout = 0;

	for (int k = 0; k < TL_N; k++) {
		nout += t->out[k] != NULL;
		nstdout += t->out[k] && !strcmp(t->out[k], "-");
	}
	if (nstdout > 1) {
		ft_err("report: more than one output is - (stdout); write all but one to files");
		return 2;
	}
	if (nstdout)
		t->quiet = true;    /* the summary would corrupt the output on stdout */
	if (t->have_from && t->have_to && t->from_rel >= t->to_rel) {
		ft_err("report: --from (%" PRIu64 " ns) is not before --to (%" PRIu64 " ns); give a window with "
		       "from < to", t->from_rel, t->to_rel);
		return 2;
	}
	if (!nout && (t->have_from || t->have_to || t->weight != VIZ_WEIGHT_TIME)) {
		ft_err("report: --from, --to and --weight apply to the timeline outputs; add --svg, --html, "
		       "--perfetto, --speedscope or --folded");
		return 2;
	}
	return 0;
}

/*
 * Render every requested timeline: all temporaries are created first (a bad
 * path fails before any work), then rendered, then renamed into place.
 * 0, or 1/2 after a one-line error (no output file left half-written).
 */
static int write_timelines(const struct model *m, const struct corr_opts *co, const struct timeline_opts *t,
			   struct corr **out)
{
	struct viz_ctx v = { .m = m, .weight = t->weight };
	struct outfile of[TL_N];
	struct corr *c = NULL;
	char err[512];
	int ret = 0, k;

	*out = NULL;
	memset(of, 0, sizeof(of));
	if (t->have_from || t->have_to) {
		if (t->have_from && t->from_rel >= m->duration_ns) {
			char a[32];

			ft_err("report: --from is at or after the end of the capture (duration %s); give an earlier time",
			       fmt_ns(m->duration_ns, a, sizeof(a)));
			return 2;
		}
		v.from_ns = m->start_ns + (t->have_from ? t->from_rel : 0);
		v.to_ns = t->have_to && t->to_rel < m->duration_ns ? m->start_ns + t->to_rel : m->end_ns;
		if (v.to_ns <= v.from_ns)
			v.to_ns = v.from_ns + 1;
	}
	ret = corr__build(m, co, &c);
	if (ret) {
		ft_err("report: correlating the capture: %s; report a shorter capture", strerror(-ret));
		return 1;
	}
	v.c = c;
	for (k = 0; k < TL_N && !ret; k++)
		if (t->out[k] && outfile_open(&of[k], t->out[k], err, sizeof(err))) {
			ft_err("report: --%s %s", tl_outputs[k].opt, err);
			ret = 1;
		}
	for (k = 0; k < TL_N && !ret; k++) {
		int r;

		if (!t->out[k])
			continue;
		r = tl_outputs[k].render(&v, of[k].f);
		if (r) {
			ft_err("report: writing the %s to %s: %s; nothing was written", tl_outputs[k].what, t->out[k],
			       strerror(-r));
			ret = 1;
		}
	}
	for (k = 0; k < TL_N && !ret; k++) {
		if (!t->out[k])
			continue;
		if (outfile_commit(&of[k], err, sizeof(err))) {
			ft_err("report: --%s %s", tl_outputs[k].opt, err);
			ret = 1;
		} else if (!t->quiet && strcmp(t->out[k], "-") != 0) {
			fprintf(stderr, "fabtrace: report: wrote the %s to %s\n", tl_outputs[k].what, t->out[k]);
		}
	}
	for (k = 0; k < TL_N; k++)
		if (of[k].f)
			outfile_abort(&of[k]);
	/* the summary uses the same correlation: an hour-long capture is correlated once */
	*out = c;
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "threshold", required_argument, NULL, 't' },
		{ "gap", required_argument, NULL, 'g' },
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "tolerance", required_argument, NULL, 'T' },
		{ "phases", required_argument, NULL, 'P' },
		{ "queue-delay", required_argument, NULL, 'Q' },
		{ "skew", required_argument, NULL, 'K' },
		{ "skew-min", required_argument, NULL, 'M' },
		{ "slow", required_argument, NULL, 'S' },
		{ "infer-gap", required_argument, NULL, 'I' },
		{ "spike-rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "brief", no_argument, NULL, 'b' },
		{ "html", required_argument, NULL, OPT_TL + TL_HTML },
		{ "svg", required_argument, NULL, OPT_TL + TL_SVG },
		{ "perfetto", required_argument, NULL, OPT_TL + TL_PERFETTO },
		{ "speedscope", required_argument, NULL, OPT_TL + TL_SPEEDSCOPE },
		{ "folded", required_argument, NULL, OPT_TL + TL_FOLDED },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ NULL, 0, NULL, 0 },
	};
	struct timeline_opts tl = { .weight = VIZ_WEIGHT_TIME };
	struct corr *built = NULL;
	struct report_opts ro = { .top = 10, .sort = REPORT_SORT_BYTES };
	struct corr_opts co;
	struct model_opts mo;
	struct model *m = NULL;
	char err[512];
	int c, ret;

	model_opts__init(&mo);
	corr_opts__init(&co);
	ro.corr = &co;
	/* --json must take effect before any error is printed */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j") || !strcmp(argv[i], "--pretty") ||
		    !strcmp(argv[i], "-p"))
			util_set_json(true);
	optind = 0; /* glibc: full re-initialisation; 1 keeps a stopped call's state (freed argv) */
	opterr = 0;
	char ob[64]; /* the rejected option, fmt_bad_opt() */
	while ((c = getopt_long(argc, argv, ":jpt:g:n:s:hqb", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			ro.brief = true;
			break;
		case 'j':
			ro.json = true;
			break;
		case 'p':
			ro.json = ro.pretty = true;
			break;
		case 't':
			if (parse_pct(optarg, 1000, &mo.burst_threshold) || mo.burst_threshold <= 0) {
				ft_err("report: --threshold '%s': not a percentage; give e.g. 50 (%% of link capacity, > 0)",
				       optarg);
				return 2;
			}
			break;
		case 'g':
			if (parse_duration(optarg, 0, &mo.burst_gap_ns)) {
				ft_err("report: --gap '%s': not a duration; give e.g. 200us or 1ms", optarg);
				return 2;
			}
			break;
		case 'n': {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (!optarg[0] || *end || errno || v > 1000000 || optarg[0] == '-') {
				ft_err("report: --top '%s': not a count; give e.g. 10 (0 = all)", optarg);
				return 2;
			}
			ro.top = (unsigned)v;
			break;
		}
		case 's':
			if (!strcmp(optarg, "bytes"))
				ro.sort = REPORT_SORT_BYTES;
			else if (!strcmp(optarg, "peak"))
				ro.sort = REPORT_SORT_PEAK;
			else if (!strcmp(optarg, "time"))
				ro.sort = REPORT_SORT_TIME;
			else {
				ft_err("report: --sort '%s': unknown key; use bytes, peak or time", optarg);
				return 2;
			}
			break;
		case 'T':
			if (parse_pct(optarg, 100, &mo.conserve_tol_frac)) {
				ft_err("report: --tolerance '%s': not a percentage; give e.g. 0.1", optarg);
				return 2;
			}
			break;
		case 'P':
			if (!strcmp(optarg, "auto"))
				co.phases = CORR_PHASES_AUTO;
			else if (!strcmp(optarg, "probes"))
				co.phases = CORR_PHASES_PROBES;
			else if (!strcmp(optarg, "inferred"))
				co.phases = CORR_PHASES_INFERRED;
			else {
				ft_err("report: --phases '%s': unknown mode; use auto, probes or inferred", optarg);
				return 2;
			}
			ro.phases = co.phases;
			break;
		case 'Q':
			if (parse_duration(optarg, 0, &co.th.queue_delay_ns)) {
				ft_err("report: --queue-delay '%s': not a duration; give e.g. 1ms or 500us", optarg);
				return 2;
			}
			break;
		case 'M':
			if (parse_duration(optarg, 0, &co.th.skew_min_ns)) {
				ft_err("report: --skew-min '%s': not a duration; give e.g. 1ms or 500us", optarg);
				return 2;
			}
			break;
		case 'I':
			if (parse_duration(optarg, 0, &co.infer_gap_ns)) {
				ft_err("report: --infer-gap '%s': not a duration; give e.g. 1ms or 500us", optarg);
				return 2;
			}
			break;
		case 'K':
			if (parse_pct(optarg, 100, &co.th.skew_frac) || co.th.skew_frac <= 0) {
				ft_err("report: --skew '%s': not a percentage; give e.g. 50 (%% of the span, > 0)", optarg);
				return 2;
			}
			break;
		case 'S': {
			char *end;
			double v;

			errno = 0;
			v = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(v >= 1.0) || v > 1e6) {
				ft_err("report: --slow '%s': not a factor; give e.g. 2 (x the median, >= 1)", optarg);
				return 2;
			}
			co.th.slow_factor = v;
			break;
		}
		case 'R': {
			char *end;
			double v;

			errno = 0;
			v = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(v > 0) || v > 1e15) {
				ft_err("report: --spike-rate '%s': not a rate; give e.g. 1000 (counts per second, > 0)",
				       optarg);
				return 2;
			}
			mo.spike_rate = v;
			break;
		}
		case 'q':
			tl.quiet = true;
			break;
		case OPT_TL + TL_HTML:
		case OPT_TL + TL_SVG:
		case OPT_TL + TL_PERFETTO:
		case OPT_TL + TL_SPEEDSCOPE:
		case OPT_TL + TL_FOLDED:
		case OPT_FROM:
		case OPT_TO:
		case OPT_WEIGHT:
			if (timeline_opt(&tl, c, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			ft_err("report: option '%s' needs a value; see 'fabtrace report --help'",
			       fmt_bad_opt(optopt, argv[optind - 1], ob, sizeof(ob)));
			return 2;
		default:
			ft_err("report: unknown option '%s'; see 'fabtrace report --help'",
			       fmt_bad_opt(optopt, argv[optind - 1], ob, sizeof(ob)));
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("report: %s; usage: fabtrace report [--json] CAPTURE (see --help)",
		       optind >= argc ? "no capture file given" : "more than one capture file given");
		return 2;
	}
	ro.path = argv[optind];
	if (timeline_check(&tl))
		return 2;

	ret = model__load(ro.path, &mo, &m, err, sizeof(err));
	if (ret) {
		size_t pl = strlen(ro.path);
		const char *why = err[0] ? err : strerror(-ret);
		const char *todo = ret == -EIO ? "the capture is damaged there; re-record it or restore an intact copy"
					       : "check the path and that it is a fabtrace capture";

		/* the reader's messages may already start with the path */
		if (!strncmp(why, ro.path, pl) && why[pl] == ':')
			why += pl + 1 + (why[pl + 1] == ' ');
		if (strchr(why, ';'))
			ft_err("report: %s: %s", ro.path, why);
		else
			ft_err("report: %s: %s; %s", ro.path, why, todo);
		return 1;
	}
	if (m->truncated)
		ft_warn("report: %s: %s; reporting what is readable", ro.path,
			m->truncated_why[0] ? m->truncated_why : "capture truncated");
	ret = timeline_wanted(&tl) ? write_timelines(m, &co, &tl, &built) : 0;
	if (ret) {
		corr__free(built);
		model__free(m);
		return ret;
	}
	ro.built = built;
	if (!tl.quiet)
		ret = report__write(stdout, m, &ro);
	corr__free(built);
	model__free(m);
	if (ret == -ENOMEM) {
		ft_err("report: correlating the capture: out of memory; report a shorter capture");
		return 1;
	}
	if (ret) {
		ft_err("report: writing the report: %s; check the output destination", strerror(-ret));
		return 1;
	}
	return 0;
}
