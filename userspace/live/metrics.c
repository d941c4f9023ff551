// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * OpenMetrics text (or Prometheus text) for the live aggregator
 * (userspace/live/metrics.h); metrics_http.c serves it.
 *
 * Counters are the aggregator's totals, which never go down (interfaces,
 * drop series and ranks are never forgotten), so they stay monotonic
 * across scrapes; gauges are the last closed refresh period.  Series are
 * emitted in the aggregator's first-seen order, so the capped sets are the
 * same ones on every scrape.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/capture/probe_name.h"
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/live/metrics.h"
#include "lib/util.h"

/* ---- exposition ---- */

#define END ((const char *)NULL) /* ends the pairs of labels(): a pointer, not a bare 0 */

bool metrics__escape(char *dst, size_t len, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0, left = strlen(src);

	if (!len)
		return false;
	while (*p) {
		/* whole UTF-8 characters only: one bad byte would make scrapers refuse everything */
		size_t n = json_utf8_len(p, left), adv = n ? n : 1, rl = n;
		const char *rep = (const char *)p;

		if (*p == '\\')
			rep = "\\\\";
		else if (*p == '"')
			rep = "\\\"";
		else if (*p == '\n')
			rep = "\\n";
		else if (!n)
			rep = "\xef\xbf\xbd"; /* not UTF-8: U+FFFD */
		if (rep != (const char *)p)
			rl = strlen(rep);
		if (o + rl >= len) {
			dst[o] = '\0';
			return false;
		}
		memcpy(dst + o, rep, rl);
		o += rl;
		p += adv;
		left -= adv;
	}
	dst[o] = '\0';
	return true;
}

/* Labels as {k1="v1",k2="v2"} from NULL-terminated pairs of key, value. */
static const char *labels(char *buf, size_t len, ...)
{
	va_list ap;
	size_t o = 0;
	const char *k;

	va_start(ap, len);
	buf[o++] = '{';
	while ((k = va_arg(ap, const char *)) != NULL) {
		const char *v = va_arg(ap, const char *);
		char esc[256];
		int n;

		metrics__escape(esc, sizeof(esc), v ? v : "");
		n = snprintf(buf + o, len - o, "%s%s=\"%s\"", o > 1 ? "," : "", k, esc);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += (size_t)n;
	}
	va_end(ap);
	if (o + 2 > len)
		o = len - 2;
	buf[o++] = '}';
	buf[o] = '\0';
	return buf;
}

/*
 * The format being rendered: set by metrics__render() for the one exposition
 * it writes (the event loop is single-threaded), read by family().
 */
static enum metrics_format cur_format;

/*
 * The descriptor lines of one family (the unit, when given, ends its name).
 * OpenMetrics names a family without the samples' _total/_info suffix and
 * has the info type and # UNIT.  Prometheus text 0.0.4 names it as its
 * samples (name_total, name_info) and knows neither: an info is a gauge of 1.
 */
static void family(FILE *f, const char *name, const char *type, const char *unit, const char *help)
{
	if (cur_format == METRICS_TEXT) {
		const char *suffix = !strcmp(type, "counter") ? "_total" : !strcmp(type, "info") ? "_info" : "";

		fprintf(f, "# HELP %s%s %s\n", name, suffix, help);
		fprintf(f, "# TYPE %s%s %s\n", name, suffix, !strcmp(type, "info") ? "gauge" : type);
		return;
	}
	fprintf(f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

static void counter_u64(FILE *f, const char *name, const char *lbl, uint64_t v)
{
	fprintf(f, "%s_total%s %llu\n", name, lbl, (unsigned long long)v);
}

static void counter_dbl(FILE *f, const char *name, const char *lbl, double v)
{
	fprintf(f, "%s_total%s %.17g\n", name, lbl, v);
}

static void gauge(FILE *f, const char *name, const char *lbl, double v)
{
	if (isnan(v))
		return;
	fprintf(f, "%s%s %.17g\n", name, lbl, v);
}

/* The netns label: its `ip netns` name, else its inode number (unique either way). */
static const char *ns_label(char *buf, size_t len, const char *name, uint32_t inum)
{
	if (name && name[0])
		return name;
	snprintf(buf, len, "%u", inum);
	return buf;
}

static const char *if_label(char *buf, size_t len, const struct live_iface *f)
{
	if (f->known && f->name[0])
		return f->name;
	snprintf(buf, len, "ifindex %u", f->ifindex);
	return buf;
}

static size_t n_ifaces(const struct live *l)
{
	return l->nifaces < METRICS_MAX_IFACES ? l->nifaces : METRICS_MAX_IFACES;
}

static const char *const dir_name[2] = { "rx", "tx" };

/* {netns=,interface=} of X, with direction= when DIR >= 0. */
static const char *if_labels(char *buf, size_t len, const struct live_iface *x, int dir)
{
	char ns[16], ifn[32];

	if (dir < 0)
		return labels(buf, len, "netns", ns_label(ns, sizeof(ns), x->netns_name, x->netns),
			      "interface", if_label(ifn, sizeof(ifn), x), END);
	return labels(buf, len, "netns", ns_label(ns, sizeof(ns), x->netns_name, x->netns),
		      "interface", if_label(ifn, sizeof(ifn), x), "direction", dir_name[dir], END);
}

/*
 * REP[i]: the first exposed interface with interface i's labels (i itself
 * when it is the first), worked out once per scrape.  Two entries share
 * labels when an interface is deleted and made again under its name (or a
 * namespace under its name): one series each family, the counters summed,
 * the gauges their largest (duplicate series break OpenMetrics parsers, and
 * Prometheus keeps only one of them).
 */
static void label_reps(const struct live *l, uint32_t *rep)
{
	char keys[METRICS_MAX_IFACES][64]; /* "netns\x1finterface" */

	for (size_t i = 0; i < n_ifaces(l); i++) {
		char ns[16], ifn[32];

		snprintf(keys[i], sizeof(keys[i]), "%s\x1f%s",
			 ns_label(ns, sizeof(ns), l->ifaces[i].netns_name, l->ifaces[i].netns),
			 if_label(ifn, sizeof(ifn), &l->ifaces[i]));
		rep[i] = (uint32_t)i;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(keys[j], keys[i])) {
				rep[i] = rep[j];
				break;
			}
	}
}

/* The largest of two gauge values, NaN (unknown) only when both are. */
static double max_known(double a, double b)
{
	return isnan(a) || (!isnan(b) && b > a) ? b : a;
}

enum dir_value { DV_BYTES, DV_PKTS, DV_BURSTS, DV_SPEED, DV_PEAK_BIN, DV_PEAK_UTIL };

static double dir_value(const struct live_dir *d, enum dir_value v)
{
	switch (v) {
	case DV_BYTES: return (double)d->bytes;
	case DV_PKTS: return (double)d->pkts;
	case DV_BURSTS: return (double)d->bursts;
	case DV_SPEED: return d->capacity_bps > 0 ? d->capacity_bps / 8.0 : NAN;
	case DV_PEAK_BIN: return (double)d->p_peak_bin;
	default: return d->peak_util;
	}
}

/* One family with a series per exposed interface and direction. */
static void dir_family(const struct live *l, const uint32_t *rep, FILE *f, const char *name, const char *type,
		       const char *unit, const char *help, enum dir_value v)
{
	char lbl[512];

	family(f, name, type, unit, help);
	for (size_t i = 0; i < n_ifaces(l); i++) {
		if (rep[i] != i)
			continue;
		for (int d = 0; d < 2; d++) {
			uint64_t sum = 0;
			double max = NAN;

			for (size_t j = i; j < n_ifaces(l); j++) {
				const struct live_dir *x = &l->ifaces[j].dir[d];

				if (rep[j] != i)
					continue;
				sum += v == DV_BYTES ? x->bytes : v == DV_PKTS ? x->pkts : x->bursts;
				max = max_known(max, dir_value(x, v));
			}
			if_labels(lbl, sizeof(lbl), &l->ifaces[i], d);
			if (!strcmp(type, "counter"))
				counter_u64(f, name, lbl, sum);
			else
				gauge(f, name, lbl, max);
		}
	}
}

/* The per-interface value GET of interface I and those sharing its labels: summed, or the largest. */
static uint64_t sum_same(const struct live *l, const uint32_t *rep, size_t i,
			 uint64_t (*get)(const struct live_iface *))
{
	uint64_t v = 0;

	for (size_t j = i; j < n_ifaces(l); j++)
		if (rep[j] == i)
			v += get(&l->ifaces[j]);
	return v;
}

static double max_same(const struct live *l, const uint32_t *rep, size_t i,
		       double (*get)(const struct live_iface *))
{
	double v = NAN;

	for (size_t j = i; j < n_ifaces(l); j++)
		if (rep[j] == i)
			v = max_known(v, get(&l->ifaces[j]));
	return v;
}

static uint64_t get_ce(const struct live_iface *x) { return x->dir[FT_DIR_RX].ce_pkts; }
static uint64_t get_rtx(const struct live_iface *x) { return x->rtx; }
static double get_backlog(const struct live_iface *x) { return x->qdisc[0] ? (double)x->p_backlog : NAN; }
static double get_sojourn(const struct live_iface *x) { return x->qdisc[0] ? (double)x->p_sojourn / 1e9 : NAN; }

static void render_ifaces(const struct live *l, const uint32_t *rep, FILE *f)
{
	char lbl[512];

	dir_family(l, rep, f, "fabtrace_interface_bytes", "counter", "bytes",
		   "Bytes through the interface (binned by the kernel probes)", DV_BYTES);
	dir_family(l, rep, f, "fabtrace_interface_packets", "counter", NULL,
		   "Packets (skbs) through the interface", DV_PKTS);
	dir_family(l, rep, f, "fabtrace_microbursts", "counter", NULL,
		   "Microbursts: runs of bins at or above half the capacity, counted when they start",
		   DV_BURSTS);
	dir_family(l, rep, f, "fabtrace_interface_speed_bytes", "gauge", "bytes",
		   "Capacity in bytes per second: link speed, or the root tbf/htb rate for tx when lower",
		   DV_SPEED);
	dir_family(l, rep, f, "fabtrace_interface_peak_bin_bytes", "gauge", "bytes",
		   "Bytes in the fullest bin of the last refresh period (per-CPU parts summed)",
		   DV_PEAK_BIN);
	dir_family(l, rep, f, "fabtrace_interface_peak_utilization_ratio", "gauge", "ratio",
		   "Rate of the fullest bin of the last refresh period over the capacity", DV_PEAK_UTIL);
	family(f, "fabtrace_ce_packets", "counter", NULL, "Received packets marked ECN CE");
	for (size_t i = 0; i < n_ifaces(l); i++)
		if (rep[i] == i)
			counter_u64(f, "fabtrace_ce_packets", if_labels(lbl, sizeof(lbl), &l->ifaces[i], -1),
				    sum_same(l, rep, i, get_ce));
	family(f, "fabtrace_qdisc_backlog_max_bytes", "gauge", "bytes",
	       "Largest qdisc backlog on the interface in the last refresh period");
	for (size_t i = 0; i < n_ifaces(l); i++) {
		double v = rep[i] == i ? max_same(l, rep, i, get_backlog) : NAN;

		if (!isnan(v))
			gauge(f, "fabtrace_qdisc_backlog_max_bytes", if_labels(lbl, sizeof(lbl), &l->ifaces[i], -1), v);
	}
	family(f, "fabtrace_qdisc_sojourn_max_seconds", "gauge", "seconds",
	       "Longest time a packet spent in the qdisc (enqueue to dequeue) in the last refresh period");
	for (size_t i = 0; i < n_ifaces(l); i++) {
		double v = rep[i] == i ? max_same(l, rep, i, get_sojourn) : NAN;

		if (!isnan(v))
			gauge(f, "fabtrace_qdisc_sojourn_max_seconds", if_labels(lbl, sizeof(lbl), &l->ifaces[i], -1), v);
	}
	family(f, "fabtrace_tcp_retransmits", "counter", NULL,
	       "TCP segments retransmitted on flows routed through the interface (interface empty: no route)");
	for (size_t i = 0; i < n_ifaces(l); i++)
		if (rep[i] == i)
			counter_u64(f, "fabtrace_tcp_retransmits", if_labels(lbl, sizeof(lbl), &l->ifaces[i], -1),
				    sum_same(l, rep, i, get_rtx));
	counter_u64(f, "fabtrace_tcp_retransmits", labels(lbl, sizeof(lbl), "netns", "", "interface", "", END),
		    l->rtx_unrouted);
}

/* A drop series' interface as exposed: LIVE_NONE for none or one over the cap. */
static uint32_t drop_iface(const struct live_drop *d)
{
	return d->iface < METRICS_MAX_IFACES ? d->iface : LIVE_NONE;
}

static void render_drops(const struct live *l, const uint32_t *rep, FILE *f)
{
	char lbl[512], ns[16], ifn[32], rbuf[24];

	family(f, "fabtrace_drops", "counter", NULL,
	       "Packets dropped (kfree_skb) by reason; reason other: series over the cap");
	for (size_t i = 0; i < l->ndrops; i++) {
		const struct live_drop *d = &l->drops[i];
		uint32_t k = drop_iface(d);
		const struct live_iface *x = k != LIVE_NONE ? &l->ifaces[k] : NULL;
		const char *reason = d->reason == LIVE_NONE ? "other" : live__reason_name(l, d->reason);
		uint64_t v = 0;
		bool first = true;

		/* series whose interface is not exposed share labels: one series, summed */
		for (size_t j = 0; j < l->ndrops; j++) {
			const struct live_drop *e = &l->drops[j];

			uint32_t ke = drop_iface(e);

			if (e->reason != d->reason ||
			    (ke != k && (ke == LIVE_NONE || k == LIVE_NONE || rep[ke] != rep[k])))
				continue;
			if (j < i)
				first = false;
			v += e->total;
		}
		if (!first)
			continue;
		if (!reason) {
			snprintf(rbuf, sizeof(rbuf), "reason %u", d->reason);
			reason = rbuf;
		}
		labels(lbl, sizeof(lbl), "netns", x ? ns_label(ns, sizeof(ns), x->netns_name, x->netns) : "",
		       "interface", x ? if_label(ifn, sizeof(ifn), x) : "", "reason", reason, END);
		counter_u64(f, "fabtrace_drops", lbl, v);
	}
}

static void render_counters(const struct live *l, FILE *f, uint64_t *dropped)
{
	char lbl[512], ns[16], ifn[32], port[16];
	size_t n = 0;

	family(f, "fabtrace_rdma_stat", "counter", NULL,
	       "Growth of an RDMA port counter (counters/ and hw_counters/, wraps handled, x4 for *_data)");
	for (size_t i = 0; i < l->ncounters; i++) {
		const struct live_counter *c = &l->counters[i];
		const struct live_group *g = &l->groups[c->group];
		const struct live_port *p = g->port != LIVE_NONE ? &l->ports[g->port] : NULL;

		if (g->kind == FT_CTR_ETHTOOL || !p || c->cls == FT_CLS_OTHER || !c->name[0])
			continue;
		if (n++ >= METRICS_MAX_COUNTERS) {
			(*dropped)++;
			continue;
		}
		snprintf(port, sizeof(port), "%u", p->port_num);
		labels(lbl, sizeof(lbl), "device", p->dev, "port", port, "counter", c->name,
		       "class", ctr__class_name(c->cls), END);
		counter_u64(f, "fabtrace_rdma_stat", lbl, c->total);
	}
	n = 0;
	family(f, "fabtrace_nic_stat", "counter", NULL,
	       "Growth of a NIC ethtool statistic of a traced interface (pause, discard, buffer, ECN)");
	for (size_t i = 0; i < l->ncounters; i++) {
		const struct live_counter *c = &l->counters[i];
		const struct live_group *g = &l->groups[c->group];
		const struct live_iface *x = g->iface != LIVE_NONE ? &l->ifaces[g->iface] : NULL;

		if (g->kind != FT_CTR_ETHTOOL || !x || c->cls == FT_CLS_OTHER || !c->name[0])
			continue;
		if (n++ >= METRICS_MAX_COUNTERS || g->iface >= METRICS_MAX_IFACES) {
			(*dropped)++;
			continue;
		}
		labels(lbl, sizeof(lbl), "netns", ns_label(ns, sizeof(ns), x->netns_name, x->netns),
		       "interface", if_label(ifn, sizeof(ifn), x), "counter", c->name,
		       "class", ctr__class_name(c->cls), END);
		counter_u64(f, "fabtrace_nic_stat", lbl, c->total);
	}
}

/* The labels of one rank's series: its rank and its namespace. */
static const char *rank_labels(const struct live *l, const struct live_rank *r, char *lbl, size_t len)
{
	char rank[16], ns[16];

	snprintf(rank, sizeof(rank), "%d", r->rank);
	return labels(lbl, len, "rank", rank, "netns",
		      ns_label(ns, sizeof(ns), live__netns_name(l, r->netns), r->netns), END);
}

static void render_phases(const struct live *l, FILE *f)
{
	char lbl[512];

	family(f, "fabtrace_collectives", "counter", NULL, "Collective calls completed, by operation");
	for (unsigned op = 0; op < FT_OP_MAX; op++)
		if (l->ops[op].calls)
			counter_u64(f, "fabtrace_collectives",
				    labels(lbl, sizeof(lbl), "op", corr__op_name(op), END), l->ops[op].calls);
	family(f, "fabtrace_collective_seconds", "counter", "seconds",
	       "Time spent in collective calls, summed over processes, by operation");
	for (unsigned op = 0; op < FT_OP_MAX; op++)
		if (l->ops[op].calls)
			counter_dbl(f, "fabtrace_collective_seconds",
				    labels(lbl, sizeof(lbl), "op", corr__op_name(op), END),
				    (double)l->ops[op].ns / 1e9);
	family(f, "fabtrace_collective_bytes", "counter", "bytes",
	       "Collective sizes (nccl-tests definition), summed over processes, by operation");
	for (unsigned op = 0; op < FT_OP_MAX; op++)
		if (l->ops[op].calls)
			counter_u64(f, "fabtrace_collective_bytes",
				    labels(lbl, sizeof(lbl), "op", corr__op_name(op), END), l->ops[op].bytes);
	family(f, "fabtrace_rank_collectives", "counter", NULL, "Collectives completed by a rank");
	for (size_t i = 0; i < l->nranks; i++)
		counter_u64(f, "fabtrace_rank_collectives", rank_labels(l, &l->ranks[i], lbl, sizeof(lbl)),
			    l->ranks[i].colls);
	family(f, "fabtrace_rank_late_collectives", "counter", NULL,
	       "Collectives a rank entered last, so the other ranks waited for it");
	for (size_t i = 0; i < l->nranks; i++)
		counter_u64(f, "fabtrace_rank_late_collectives", rank_labels(l, &l->ranks[i], lbl, sizeof(lbl)),
			    l->ranks[i].late);
	family(f, "fabtrace_rank_late_seconds", "counter", "seconds",
	       "Entry skew of the collectives a rank entered last (how long the others waited)");
	for (size_t i = 0; i < l->nranks; i++)
		counter_dbl(f, "fabtrace_rank_late_seconds", rank_labels(l, &l->ranks[i], lbl, sizeof(lbl)),
			    (double)l->ranks[i].late_ns / 1e9);
}

int metrics__render(const struct live *l, const struct metrics_info *info, FILE *f)
{
	static const char *const src[FT_SRC_MAX] = { "net", "tcp", "user", "phase" };
	char lbl[512], nb[32];
	uint64_t dropped_ctr = 0;
	uint32_t rep[METRICS_MAX_IFACES] = { 0 }; /* label_reps() fills the exposed ones */

	cur_format = info ? info->format : METRICS_OPENMETRICS;
	family(f, "fabtrace_build", "info", NULL, "fabtrace version and host");
	fprintf(f, "fabtrace_build_info%s 1\n",
		labels(lbl, sizeof(lbl), "version", FT_VERSION, "hostname",
		       info && info->hostname ? info->hostname : "", END));
	family(f, "fabtrace_bin_width_seconds", "gauge", "seconds", "Width of a microburst bin");
	gauge(f, "fabtrace_bin_width_seconds", "", (double)l->opts.bin_ns / 1e9);
	family(f, "fabtrace_refresh_period_seconds", "gauge", "seconds",
	       "Length of the last refresh period, over which the gauges are taken");
	gauge(f, "fabtrace_refresh_period_seconds", "",
	      l->last_period_ns ? live__period_s(l) : (info ? info->refresh_s : 1.0));
	label_reps(l, rep);
	render_ifaces(l, rep, f);
	render_drops(l, rep, f);
	family(f, "fabtrace_lost_events", "counter", NULL,
	       "Events lost because a ring buffer was full, by source; never hidden");
	for (int s = 0; s < FT_SRC_MAX; s++)
		counter_u64(f, "fabtrace_lost_events", labels(lbl, sizeof(lbl), "source", src[s], END),
			    l->lost_by_source[s]);
	family(f, "fabtrace_probe_skipped_runs", "counter", NULL,
	       "Tracepoint hits a probe's program did not see (the kernel skipped it): data missing "
	       "without a lost count; only probes whose hits can be counted");
	for (int p = 0; p < FT_PROBE_MAX; p++)
		if (l->skipped_known[p])
			counter_u64(f, "fabtrace_probe_skipped_runs",
				    labels(lbl, sizeof(lbl), "probe",
					   capture__probe_name((uint32_t)p, NULL, nb, sizeof(nb)), END),
				    l->skipped[p]);
	render_counters(l, f, &dropped_ctr);
	render_phases(l, f);
	family(f, "fabtrace_overflow", "counter", NULL,
	       "Things the live aggregator could not track within its bounds, by kind");
	counter_u64(f, "fabtrace_overflow", labels(lbl, sizeof(lbl), "kind", "interfaces", END),
		    l->overflow_ifaces);
	counter_u64(f, "fabtrace_overflow", labels(lbl, sizeof(lbl), "kind", "drop_series", END),
		    l->overflow_drops);
	counter_u64(f, "fabtrace_overflow", labels(lbl, sizeof(lbl), "kind", "counters", END),
		    l->overflow_counters);
	counter_u64(f, "fabtrace_overflow", labels(lbl, sizeof(lbl), "kind", "processes", END),
		    l->overflow_procs);
	family(f, "fabtrace_series_dropped", "counter", NULL,
	       "Series left out of this exposition by its caps, by family");
	counter_u64(f, "fabtrace_series_dropped",
		    labels(lbl, sizeof(lbl), "family", "interface", END),
		    l->nifaces > METRICS_MAX_IFACES ? l->nifaces - METRICS_MAX_IFACES : 0);
	counter_u64(f, "fabtrace_series_dropped", labels(lbl, sizeof(lbl), "family", "counter", END),
		    dropped_ctr);
	if (cur_format == METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}
