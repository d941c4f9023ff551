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

#include "commands.h"
#include "json.h"
#include "model.h"
#include "report.h"
#include "util.h"

#define REPORT_SCHEMA "fabtrace-report/1"

/* ---- formatting helpers ---- */

/* "+1.234567" seconds relative to the capture start (exact, from integers). */
static const char *fmt_rel(int64_t ns, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%c%" PRIu64 ".%06" PRIu64, ns < 0 ? '-' : '+',
		 a / 1000000000u, (a % 1000000000u) / 1000u);
	return buf;
}

/* ISO 8601 UTC with microseconds: "2024-05-01T12:00:00.123456Z". */
static const char *fmt_wall(int64_t ns, char *buf, size_t len)
{
	int64_t sec = ns / 1000000000;
	int64_t rem = ns % 1000000000;
	struct tm tm;
	time_t t;
	char d[40];

	if (rem < 0) {
		rem += 1000000000;
		sec--;
	}
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	strftime(d, sizeof(d), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06lldZ", d, (long long)(rem / 1000));
	return buf;
}

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

/* "10.0.0.1:40000 -> 10.0.0.2:5201" ([v6]:port for IPv6). */
static const char *flow_str(const struct ft_flow *f, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	addr_str(f, f->saddr, s, sizeof(s));
	addr_str(f, f->daddr, d, sizeof(d));
	if (f->family == 6)
		snprintf(buf, len, "[%s]:%u -> [%s]:%u", s, f->sport, d, f->dport);
	else
		snprintf(buf, len, "%s:%u -> %s:%u", s, f->sport, d, f->dport);
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

static const char *stop_reason_name(uint32_t r)
{
	switch (r) {
	case FT_STOP_DURATION: return "duration";
	case FT_STOP_SIGNAL: return "signal";
	case FT_STOP_COMMAND: return "command";
	case FT_STOP_ERROR: return "error";
	default: return "unknown";
	}
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

/* ---- text ---- */

static void text_header(FILE *f, const struct model *m, const struct report_opts *o)
{
	char a[64], b[64], c[64];

	fprintf(f, "fabtrace report: %s\n", o->path ? o->path : "(model)");
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
			stop_reason_name(m->end.stop_reason), m->records);
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
	if (m->lost_total || m->skipped_runs || m->truncated || count_conserve(m, MODEL_CONSERVE_MISMATCH))
		fputc('\n', f);
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

static void text_ifaces(FILE *f, const struct model *m)
{
	char cap[32], by[32], mean[32], busy[32], peak[32], sus[32], u1[16], u2[16], u3[16];

	fprintf(f, "\nInterfaces (mean over the capture, busy = over non-empty bins, peak = busiest bin,\n"
		   "  sustained = busiest 100 ms; %% of capacity)\n");
	if (!m->nifaces) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-24s %-3s %12s %10s %10s %16s %16s %16s %12s %6s %8s\n", "INTERFACE", "DIR", "CAPACITY",
		"BYTES", "PKTS", "MEAN", "BUSY", "PEAK", "SUSTAINED", "BURSTS", "CE");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];
			char mean_s[48], busy_s[48], peak_s[48];

			if (x->capacity_bps > 0)
				fmt_rate_bps(x->capacity_bps, cap, sizeof(cap));
			else
				snprintf(cap, sizeof(cap), "unknown");
			fmt_bytes((double)x->bytes, by, sizeof(by));
			snprintf(mean_s, sizeof(mean_s), "%s %s",
				 fmt_rate_bps(x->mean_bps, mean, sizeof(mean)), fmt_pct(x->mean_util, u1, sizeof(u1)));
			snprintf(busy_s, sizeof(busy_s), "%s %s",
				 fmt_rate_bps(x->busy_mean_bps, busy, sizeof(busy)), fmt_pct(x->busy_util, u2, sizeof(u2)));
			snprintf(peak_s, sizeof(peak_s), "%s %s",
				 fmt_rate_bps(x->peak_bps, peak, sizeof(peak)), fmt_pct(x->peak_util, u3, sizeof(u3)));
			fprintf(f, "  %-24s %-3s %12s %10s %10" PRIu64 " %16s %16s %16s %12s %6zu %8" PRIu64 "\n",
				d == 0 ? it->label : "", dir_name(d), cap, by, x->pkts, mean_s, busy_s, peak_s,
				fmt_rate_bps(x->sustained_bps, sus, sizeof(sus)), x->nbursts, x->ce_pkts);
		}
	}
}

static void text_bursts(FILE *f, const struct model *m, const struct report_opts *o)
{
	size_t n;
	const struct model_burst **v = top_bursts(m, o, &n);
	char rel[32], wall[40], dur[32], by[32], pk[32], u[16];

	fprintf(f, "\nMicrobursts (bins at >= %.1f%% of capacity, merged across gaps < %s): %zu",
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
			 fmt_pct(b->peak_util, u, sizeof(u)));
		fprintf(f, "  %-24s %-3s %12s %-27s %10s %10s %8" PRIu64 " %18s\n", m->ifaces[b->iface].label,
			dir_name((int)b->dir), fmt_rel(model__rel_ns(m, b->start_ns), rel, sizeof(rel)),
			fmt_wall(model__wall_ns(m, b->start_ns), wall, sizeof(wall)),
			fmt_ns(b->duration_ns, dur, sizeof(dur)), fmt_bytes((double)b->bytes, by, sizeof(by)),
			b->pkts, peak_s);
	}
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

		if (q->sojourn_cnt)
			fmt_ns((uint64_t)(q->sojourn_mean_ns + 0.5), sm, sizeof(sm));
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

static void text_retrans(FILE *f, const struct model *m)
{
	char fl[128], ns[48], r1[32], r2[32];

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
	fprintf(f, "  %-48s %-16s %-8s %8s %12s %12s\n", "FLOW", "NETNS", "TRIGGER", "COUNT", "FIRST", "LAST");
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
			unsigned k = t % MODEL_NTRIGGER;

			if (!w->rtx[k])
				continue;
			fprintf(f, "  %-48s %-16s %-8s %8" PRIu64 " %12s %12s\n", flow_str(&w->key, fl, sizeof(fl)),
				netns_str(m, w->key.netns, ns, sizeof(ns)), model__trigger_name(k), w->rtx[k],
				fmt_rel(model__rel_ns(m, w->rtx_first_ns[k]), r1, sizeof(r1)),
				fmt_rel(model__rel_ns(m, w->rtx_last_ns[k]), r2, sizeof(r2)));
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
		fprintf(f, "    %-48s %-16s %8" PRIu64 "\n", flow_str(&w->key, fl, sizeof(fl)),
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
		fprintf(f, "  %-48s %-16s %8" PRIu64 " %26s %20s\n", flow_str(&w->key, fl, sizeof(fl)),
			netns_str(m, w->key.netns, ns, sizeof(ns)), w->samples, srtt, cw);
	}
}

static void text_drops(FILE *f, const struct model *m)
{
	char nm[64], r1[32], r2[32];

	fprintf(f, "\nDrops by reason: %" PRIu64 "\n", m->drops_total);
	if (!m->ndrops) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-32s %-24s %8s %12s %12s\n", "REASON", "INTERFACE", "COUNT", "FIRST", "LAST");
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct model_drop *d = &m->drops[i];

		fprintf(f, "  %-32s %-24s %8" PRIu64 " %12s %12s\n", d->name,
			iface_str(m, d->iface, d->netns, d->ifindex, nm, sizeof(nm)), d->count,
			fmt_rel(model__rel_ns(m, d->first_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, d->last_ns), r2, sizeof(r2)));
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
		fprintf(f, "  %-48s %-16s %10" PRIu64 " CE packets, %s .. %s\n", flow_str(&w->key, fl, sizeof(fl)),
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

	fprintf(f, "\nConservation (binned bytes vs the interface counters' change from start to stop)\n");
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];

			if (x->conserve != MODEL_CONSERVE_OK && x->conserve != MODEL_CONSERVE_MISMATCH)
				continue;
			if (!any)
				fprintf(f, "  %-24s %-3s %14s %14s %12s %10s %10s  %s\n", "INTERFACE", "DIR", "BINNED",
					"COUNTERS", "DIFF", "TOLERANCE", "DIFF PKTS", "STATUS");
			any = true;
			fprintf(f, "  %-24s %-3s %14" PRIu64 " %14" PRIu64 " %+12" PRId64 " %10" PRIu64 " %+10" PRId64 "  %s\n",
				it->label, dir_name(d), x->bytes, x->counter_bytes, x->diff_bytes, x->tol_bytes,
				x->diff_pkts, x->conserve == MODEL_CONSERVE_OK ? "OK" : "MISMATCH");
		}
	}
	if (!any)
		fprintf(f, "  no interface has both start and stop counters\n");
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

static void text_lost(FILE *f, const struct model *m)
{
	fprintf(f, "\nLost events: %" PRIu64 " lost", m->lost_total);
	fprintf(f, " (net %" PRIu64 ", tcp %" PRIu64 ", user %" PRIu64, m->lost_by_source[FT_SRC_NET],
		m->lost_by_source[FT_SRC_TCP], m->lost_by_source[FT_SRC_USER]);
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

static void write_text(FILE *f, const struct model *m, const struct report_opts *o)
{
	text_header(f, m, o);
	text_ifaces(f, m);
	text_bursts(f, m, o);
	text_queues(f, m);
	text_retrans(f, m);
	text_cong(f, m);
	text_drops(f, m);
	text_ce(f, m);
	text_conserve(f, m);
	text_lost(f, m);
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

static void j_flow(struct json *j, const struct model *m, const struct model_flow *w)
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
	json_kv_string(j, "stop_reason", m->have_end ? stop_reason_name(m->end.stop_reason) : "");
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

static void j_retrans(struct json *j, const struct model *m)
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
			j_flow(j, m, w);
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

static void j_cong(struct json *j, const struct model *m)
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
		j_flow(j, m, &m->flows[i]);
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
		j_flow(j, m, w);
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
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct model_drop *d = &m->drops[i];

		json_object_begin(j);
		json_kv_string(j, "reason", d->name);
		json_kv_u64(j, "reason_id", d->reason);
		j_iface_ref(j, m, d->iface, d->netns, d->ifindex);
		json_kv_u64(j, "count", d->count);
		json_kv_i64(j, "first_rel_ns", model__rel_ns(m, d->first_ns));
		json_kv_i64(j, "last_rel_ns", model__rel_ns(m, d->last_ns));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void j_ce(struct json *j, const struct model *m)
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
		j_flow(j, m, w);
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
			bool checked = x->conserve == MODEL_CONSERVE_OK || x->conserve == MODEL_CONSERVE_MISMATCH;

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
			} else {
				json_kv_string(j, "counter_bytes", NULL);
				json_kv_string(j, "counter_pkts", NULL);
				json_kv_string(j, "diff_bytes", NULL);
				json_kv_string(j, "diff_pkts", NULL);
				json_kv_string(j, "tolerance_bytes", NULL);
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

static void write_json(FILE *f, const struct model *m, const struct report_opts *o)
{
	struct json j;

	json_init(&j, f, o->pretty);
	json_object_begin(&j);
	j_header(&j, m, o);
	j_ifaces(&j, m);
	j_bursts(&j, m, o);
	j_queues(&j, m);
	j_retrans(&j, m);
	j_cong(&j, m);
	j_drops(&j, m);
	j_ce(&j, m);
	j_conserve(&j, m);
	j_lost(&j, m);
	json_object_end(&j);
	json_finish(&j);
}

int report__write(FILE *out, const struct model *m, const struct report_opts *o)
{
	struct report_opts def = { .top = 10 };

	if (!out || !m || !m->finished)
		return -EINVAL;
	if (!o)
		o = &def;
	if (o->json)
		write_json(out, m, o);
	else
		write_text(out, m, o);
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
		"Summarise a capture: per-interface rates against link speed, microbursts,\n"
		"queue depth and sojourn time, retransmits, congestion-state changes, drops\n"
		"by reason, ECN CE marks, the conservation check (binned bytes vs interface\n"
		"counters) and lost events.  Times are shown relative to the capture start\n"
		"(+seconds) and as UTC wall clock.\n"
		"\n"
		"Options:\n"
		"  -j, --json            one JSON document (keys: docs/report-json.md)\n"
		"  -p, --pretty          indented JSON (implies --json)\n"
		"  -t, --threshold PCT   a bin is part of a burst at >= PCT %% of capacity (default 50)\n"
		"  -g, --gap DURATION    merge bursts separated by less than this (default: one bin)\n"
		"  -n, --top N           show the N largest bursts (default 10, 0 = all)\n"
		"  -s, --sort KEY        order bursts by bytes (default), peak or time\n"
		"      --tolerance PCT   conservation: extra allowed difference in %% of the counters (default 0: exact but for 2 frames in flight)\n"
		"  -h, --help            this help\n"
		"\n"
		"Examples:\n"
		"  fabtrace report incident.ftr\n"
		"  fabtrace report --threshold 80 --top 20 --sort peak incident.ftr\n"
		"  fabtrace report --json incident.ftr | jq '.microbursts.items[0]'\n"
		"  fabtrace report --json incident.ftr | jq '.lost.total_lost'\n"
		"\n"
		"Exit status: 0 (also for a truncated capture, with a warning), 1 when the\n"
		"capture cannot be read or is corrupt, 2 for usage errors.\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts ro = { .top = 10, .sort = REPORT_SORT_BYTES };
	struct model_opts mo;
	struct model *m = NULL;
	char err[512];
	int c, ret;

	model_opts__init(&mo);
	/* --json must take effect before any error is printed */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j") || !strcmp(argv[i], "--pretty") ||
		    !strcmp(argv[i], "-p"))
			util_set_json(true);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jpt:g:n:s:h", lopts, NULL)) != -1) {
		switch (c) {
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
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			ft_err("report: option '%s' needs a value; see 'fabtrace report --help'", argv[optind - 1]);
			return 2;
		default:
			ft_err("report: unknown option '%s'; see 'fabtrace report --help'", argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("report: %s; usage: fabtrace report [--json] CAPTURE (see --help)",
		       optind >= argc ? "no capture file given" : "more than one capture file given");
		return 2;
	}
	ro.path = argv[optind];

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
	ret = report__write(stdout, m, &ro);
	model__free(m);
	if (ret) {
		ft_err("report: writing the report: %s; check the output destination", strerror(-ret));
		return 1;
	}
	return 0;
}
