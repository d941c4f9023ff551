// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The full-screen view of `fabtrace top` and its --once text snapshot
 * (userspace/top/top_view.h): the title and totals, the interface table
 * (columns dropped by priority when the screen is narrow, a sparkline of
 * the rate), the drop reasons, the processes and the slowest rank, RDMA
 * ports, the help screen and the footer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma/counters.h"
#include "userspace/correlate/correlate.h"
#include "userspace/live/metrics.h"
#include "userspace/top/top_frame.h"
#include "userspace/top/top_select.h"
#include "userspace/top/top_view.h"
#include "userspace/record/session.h"

/* Compact SI: "0", "950", "1.2k", "98.1M", "1.23G" (fits in 6 columns). */
static const char *si(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMGTP";
	int i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (v < 0.5) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (v >= 999.5 && i < 5) {
		v /= 1000.0;
		i++;
	}
	if (!i)
		snprintf(buf, len, "%.0f", v);
	else if (v < 9.995)
		snprintf(buf, len, "%.2f%c", v, suffix[i]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%c", v, suffix[i]);
	else
		snprintf(buf, len, "%.0f%c", v, suffix[i]);
	return buf;
}

/* A duration in ns: "850ns", "12us", "2.4ms", "1.20s"; "-" for 0. */
static const char *dur(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0fus", ns / 1e3);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.0fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/* Per second over the last period; "-" when nothing. */
static const char *per_s(const struct top_view *t, uint64_t n, char *buf, size_t len)
{
	return n ? si((double)n / live__period_s(t->l), buf, len) : strcpy(buf, "0");
}

/* ---- the interface table ---- */

enum col_id {
	C_IFACE, C_RX, C_TX, C_PEAK, C_UTIL, C_BURST, C_BACKLOG, C_SOJOURN, C_DROPS, C_RETX,
	C_CE, C_PAUSE, C_CNP, C_PEAKMAX, C_BKLGMAX, C_SPARK, C_N
};

struct col {
	const char *title;
	int width;
	int prio;          /* the highest go first when the screen is narrow */
	bool right;
};

static const struct col cols[C_N] = {
	[C_IFACE] = { "INTERFACE", 22, 0, false },
	[C_RX] = { "RX b/s", 6, 1, true },
	[C_TX] = { "TX b/s", 6, 1, true },
	[C_PEAK] = { "PEAKBIN", 7, 2, true },
	[C_UTIL] = { "UTIL%", 5, 3, true },
	[C_BURST] = { "BURST/s", 7, 3, true },
	[C_BACKLOG] = { "BACKLOG", 7, 4, true },
	[C_SOJOURN] = { "SOJOURN", 7, 5, true },
	[C_DROPS] = { "DROP/s", 6, 4, true },
	[C_RETX] = { "RETX/s", 6, 5, true },
	[C_CE] = { "CE/s", 5, 6, true },
	[C_PAUSE] = { "PAUSE/s", 7, 7, true },
	[C_CNP] = { "CNP/s", 5, 7, true },
	[C_PEAKMAX] = { "PEAKMAX", 7, 8, true },
	[C_BKLGMAX] = { "BKLGMAX", 7, 8, true },
	[C_SPARK] = { "HISTORY", 0, 9, false },   /* width: what is left, up to LIVE_HISTORY */
};

#define SPARK_MIN 12

/* Which columns fit in WIDTH; the sparkline's width in *spark (0: none). */
static void pick_cols(int width, bool spark, bool on[C_N], int *spark_w)
{
	int used = 0, maxprio = 9;

	for (int c = 0; c < C_N; c++) {
		on[c] = c != C_SPARK || spark;
		if (on[c] && c != C_SPARK)
			used += cols[c].width + 1;
	}
	if (on[C_SPARK])
		used += SPARK_MIN;
	while (width > 0 && used > width && maxprio > 0) {
		for (int c = C_N - 1; c >= 0; c--)
			if (on[c] && cols[c].prio == maxprio) {
				on[c] = false;
				used -= c == C_SPARK ? SPARK_MIN : cols[c].width + 1;
			}
		maxprio--;
	}
	*spark_w = 0;
	if (on[C_SPARK]) {
		int left = width - (used - SPARK_MIN);

		*spark_w = left > LIVE_HISTORY ? LIVE_HISTORY : left;
	}
}

static void sparkline(const struct top_view *t, struct top_line *ln, const struct live_iface *f, int w)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
					      "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#%@";
	const char *lang = getenv("LC_ALL");
	double rx[LIVE_HISTORY], tx[LIVE_HISTORY], max = 0;
	bool utf8;

	if (!lang || !*lang)
		lang = getenv("LC_CTYPE");
	if (!lang || !*lang)
		lang = getenv("LANG");
	utf8 = lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8") || strstr(lang, "UTF8"));
	live__history(t->l, &f->dir[0], rx, (unsigned)w);
	live__history(t->l, &f->dir[1], tx, (unsigned)w);
	for (int i = 0; i < w; i++)
		max = fmax(max, rx[i] + tx[i]);
	for (int i = 0; i < w; i++) {
		double v = max > 0 ? (rx[i] + tx[i]) / max : 0;
		int lvl = v > 0 ? 1 + (int)(v * 7.999) : 0;

		if (utf8) {
			top_line__put(ln, blocks[lvl]);
		} else {
			char c[2] = { ascii[lvl > 9 ? 9 : lvl], 0 };

			top_line__put(ln, c);
		}
	}
}

static void iface_row(const struct top_view *t, struct top_line *ln, const struct live_iface *f,
		      const bool on[C_N], int spark_w, bool ansi)
{
	char b[32];
	double util = fmax(isnan(f->dir[0].util) ? -1 : f->dir[0].util, isnan(f->dir[1].util) ? -1 : f->dir[1].util);
	uint64_t bursts = f->dir[0].p_bursts + f->dir[1].p_bursts;
	uint64_t pkmax = f->dir[0].max_peak_bin > f->dir[1].max_peak_bin ? f->dir[0].max_peak_bin
									  : f->dir[1].max_peak_bin;
	double binsec = (double)t->l->opts.bin_ns / 1e9;

	for (int c = 0; c < C_N; c++) {
		const char *v = "";

		if (!on[c])
			continue;
		switch (c) {
		case C_IFACE: v = f->label; break;
		case C_RX: v = si(f->dir[FT_DIR_RX].rate_bps, b, sizeof(b)); break;
		case C_TX: v = si(f->dir[FT_DIR_TX].rate_bps, b, sizeof(b)); break;
		case C_PEAK: v = si(top_view__if_peak(f), b, sizeof(b)); break;
		case C_UTIL:
			if (util < 0)
				v = "-";
			else
				snprintf(b, sizeof(b), "%.0f", util * 100), v = b;
			break;
		case C_BURST: v = per_s(t, bursts, b, sizeof(b)); break;
		case C_BACKLOG: v = f->qdisc[0] ? si((double)f->p_backlog, b, sizeof(b)) : "-"; break;
		case C_SOJOURN: v = f->qdisc[0] ? dur(f->p_sojourn, b, sizeof(b)) : "-"; break;
		case C_DROPS: v = per_s(t, f->p_drops, b, sizeof(b)); break;
		case C_RETX: v = per_s(t, f->p_rtx, b, sizeof(b)); break;
		case C_CE: v = per_s(t, f->dir[FT_DIR_RX].p_ce, b, sizeof(b)); break;
		case C_PAUSE: v = f->has_ctr ? per_s(t, f->p_ctr[FT_CLS_PAUSE], b, sizeof(b)) : "-"; break;
		case C_CNP: v = f->has_ctr ? per_s(t, f->p_ctr[FT_CLS_CONGESTION], b, sizeof(b)) : "-"; break;
		case C_PEAKMAX: v = si((double)pkmax * 8.0 / binsec, b, sizeof(b)); break;
		case C_BKLGMAX: v = f->qdisc[0] ? si((double)f->max_backlog, b, sizeof(b)) : "-"; break;
		case C_SPARK:
			sparkline(t, ln, f, spark_w);
			continue;
		default: break;
		}
		if (c == C_BURST && bursts)
			top_line__esc(ln, ansi, "\x1b[1m");
		top_line__field(ln, v, cols[c].width, cols[c].right);
		if (c == C_BURST && bursts)
			top_line__esc(ln, ansi, "\x1b[22m");
	}
}

static void iface_header(struct top_line *ln, const bool on[C_N], int spark_w)
{
	for (int c = 0; c < C_N; c++)
		if (on[c])
			top_line__field(ln, cols[c].title, c == C_SPARK ? spark_w : cols[c].width, cols[c].right);
}

/* ---- the other sections ---- */

static void procs_section(const struct top_view *t, struct top_frame *fr, int width, int max_rows)
{
	uint32_t idx[LIVE_MAX_PROCS];
	size_t n = top_view__select_procs(t, idx);
	struct top_line ln;
	char b[6][32];

	if (!n)
		return;
	top_line__init(&ln, width);
	top_frame__add(fr, &ln);
	top_line__init(&ln, width);
	top_line__esc(&ln, fr->ansi, "\x1b[1m");
	top_line__printf(&ln, "%-8s %5s %-14s %-12s %-14s %7s %8s %8s %8s %6s %6s", "PID", "RANK", "NETNS", "COMM",
		  "LAST", "COLL/s", "LASTDUR", "SIZE", "BUSBW", "LATE/s", "STEP");
	top_frame__add(fr, &ln);
	for (size_t i = 0; i < n; i++) {
		const struct live_proc *p = &t->l->procs[idx[i]];
		char comm[32], rank[16], ns[16];

		if (max_rows > 0 && (int)i >= max_rows) {
			top_line__init(&ln, width);
			top_line__printf(&ln, "  ... %zu more processes", n - i);
			top_frame__add(fr, &ln);
			break;
		}
		snprintf(rank, sizeof(rank), p->rank >= 0 ? "%d" : "-", p->rank);
		top_line__init(&ln, width);
		top_line__printf(&ln, "%-8u %5s %-14.14s %-12.12s %-14.14s %7s %8s %8s %8s %6s %6s", p->pid, rank,
			  top_view__ns_name(t->l, p->netns, ns, sizeof(ns)), top_view__proc_comm(p, comm, sizeof(comm)),
			  p->last_op ? corr__op_name(p->last_op) : "-",
			  per_s(t, p->p_colls, b[0], sizeof(b[0])), dur(p->last_dur_ns, b[1], sizeof(b[1])),
			  p->last_size ? si((double)p->last_size, b[2], sizeof(b[2])) : "-",
			  si(p->last_busbw_bps, b[3], sizeof(b[3])),
			  per_s(t, p->p_late, b[4], sizeof(b[4])),
			  p->step ? (snprintf(b[5], sizeof(b[5]), "%llu", (unsigned long long)p->step), b[5]) : "-");
		top_frame__add(fr, &ln);
	}
	top_line__init(&ln, width);
	if (t->l->slowest != LIVE_NONE) {
		const struct live_proc *p = &t->l->procs[t->l->slowest];
		char comm[32], ns[16];

		top_line__printf(&ln, "slowest rank: %d (pid %u %s on %s) entered last in %llu of %llu collectives, "
			  "the others waited %s", p->rank, p->pid, top_view__proc_comm(p, comm, sizeof(comm)),
			  top_view__ns_name(t->l, p->netns, ns, sizeof(ns)), (unsigned long long)p->p_late,
			  (unsigned long long)p->p_colls, dur(p->p_late_ns, b[0], sizeof(b[0])));
	} else {
		top_line__printf(&ln, "slowest rank: none in the last period");
	}
	top_frame__add(fr, &ln);
}

/* The drop reasons of the last period, most first, on one line (or a table when not ANSI). */
static void drops_section(const struct top_view *t, struct top_frame *fr, int width)
{
	uint32_t idx[LIVE_MAX_DROPS];
	size_t n = top_view__select_drops(t, idx, !fr->ansi);
	struct top_line ln;
	char b[32], rb[24];

	if (!n)
		return;
	top_line__init(&ln, width);
	if (fr->ansi) {
		top_line__printf(&ln, "drops/s:");
		for (size_t i = 0; i < n && i < 6; i++) {
			const struct live_drop *d = &t->l->drops[idx[i]];

			top_line__printf(&ln, " %s %s (%s)", top_view__reason_name(t->l, d->reason, rb, sizeof(rb)),
				  per_s(t, d->p, b, sizeof(b)),
				  d->iface != LIVE_NONE ? t->l->ifaces[d->iface].label : "no device");
		}
		top_frame__add(fr, &ln);
		return;
	}
	top_frame__add(fr, &ln);
	top_line__init(&ln, width);
	top_line__printf(&ln, "%-28s %-26s %8s %10s", "DROP REASON", "INTERFACE", "/s", "TOTAL");
	top_frame__add(fr, &ln);
	for (size_t i = 0; i < n; i++) {
		const struct live_drop *d = &t->l->drops[idx[i]];

		top_line__init(&ln, width);
		top_line__printf(&ln, "%-28s %-26s %8s %10llu", top_view__reason_name(t->l, d->reason, rb, sizeof(rb)),
			  d->iface != LIVE_NONE ? t->l->ifaces[d->iface].label : "-",
			  per_s(t, d->p, b, sizeof(b)), (unsigned long long)d->total);
		top_frame__add(fr, &ln);
	}
}

static void rdma_section(const struct top_view *t, struct top_frame *fr, int width)
{
	struct top_line ln;
	char b[5][32];

	if (!t->l->nports)
		return;
	top_line__init(&ln, width);
	top_frame__add(fr, &ln);
	top_line__init(&ln, width);
	top_line__printf(&ln, "%-16s %-10s %8s %8s %8s %9s %9s", "RDMA PORT", "NETDEV", "CNP/s", "PAUSE/s",
		  "RETX/s", "DISCARD/s", "DATA B/s");
	top_frame__add(fr, &ln);
	for (size_t i = 0; i < t->l->nports; i++) {
		const struct live_port *p = &t->l->ports[i];
		char name[48];

		snprintf(name, sizeof(name), "%s/%u", p->dev, p->port_num);
		top_line__init(&ln, width);
		top_line__printf(&ln, "%-16s %-10s %8s %8s %8s %9s %9s", name, p->netdev[0] ? p->netdev : "-",
			  per_s(t, p->p_ctr[FT_CLS_CONGESTION], b[0], sizeof(b[0])),
			  per_s(t, p->p_ctr[FT_CLS_PAUSE], b[1], sizeof(b[1])),
			  per_s(t, p->p_ctr[FT_CLS_RETRANS], b[2], sizeof(b[2])),
			  per_s(t, p->p_ctr[FT_CLS_DISCARD], b[3], sizeof(b[3])),
			  per_s(t, p->p_ctr[FT_CLS_DATA], b[4], sizeof(b[4])));
		top_frame__add(fr, &ln);
	}
}

static void title_lines(const struct top_view *t, struct top_frame *fr, int width)
{
	const struct live *l = t->l;
	struct top_line ln;
	char b[6][32];
	uint64_t bursts = 0, drops = 0, rtx = l->p_rtx_unrouted, ce = 0, colls = 0;
	size_t busy = 0;
	uint64_t up = l->period_start_ns - l->start_ns, skipped = 0, p_skipped = 0;

	for (size_t i = 0; i < l->nifaces; i++) {
		const struct live_iface *f = &l->ifaces[i];

		bursts += f->dir[0].p_bursts + f->dir[1].p_bursts;
		rtx += f->p_rtx;
		ce += f->dir[FT_DIR_RX].p_ce;
		busy += f->dir[0].p_bytes || f->dir[1].p_bytes;
	}
	drops = l->p_drops;
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		skipped += l->skipped[i];
		p_skipped += l->p_skipped[i];
	}
	for (size_t i = 0; i < l->nprocs; i++)
		colls += l->procs[i].p_colls;
	top_line__init(&ln, width);
	top_line__esc(&ln, fr->ansi, "\x1b[7m");
	top_line__printf(&ln, "fabtrace top  %s  up %llus  refresh %s  bin %s  sort %s", session__hostname(t->s),
		  (unsigned long long)(up / 1000000000ull), dur(t->refresh_ns, b[0], sizeof(b[0])),
		  dur(l->opts.bin_ns, b[1], sizeof(b[1])), top_sort_names[t->sort]);
	if (t->filter[0])
		top_line__printf(&ln, "  filter '%s'", t->filter);
	if (t->ms)
		top_line__printf(&ln, "  metrics %s", metrics_server__address(t->ms));
	if (t->recording)
		top_line__printf(&ln, "  recording %s", t->recording);
	if (fr->ansi) /* the bar across the whole width */
		while (ln.col < width)
			top_line__put(&ln, " ");
	top_frame__add(fr, &ln);
	top_line__init(&ln, width);
	top_line__printf(&ln, "interfaces %zu (%zu busy)  bursts %s/s  drops %s/s  retransmits %s/s  CE %s/s  "
		  "collectives %s/s  ", l->nifaces, busy, per_s(t, bursts, b[0], sizeof(b[0])),
		  per_s(t, drops, b[1], sizeof(b[1])), per_s(t, rtx, b[2], sizeof(b[2])),
		  per_s(t, ce, b[3], sizeof(b[3])), per_s(t, colls, b[4], sizeof(b[4])));
	/* lost events: always there, loud when not zero */
	if (l->lost_total)
		top_line__esc(&ln, fr->ansi, "\x1b[1;31m");
	top_line__printf(&ln, "lost %llu (+%llu)", (unsigned long long)l->lost_total,
		  (unsigned long long)l->p_lost);
	if (l->lost_total)
		top_line__esc(&ln, fr->ansi, "\x1b[0m");
	if (skipped) { /* the kernel did not run a probe: data missing without a lost count */
		top_line__esc(&ln, fr->ansi, "\x1b[1;31m");
		top_line__printf(&ln, "  skipped by the kernel %llu (+%llu)", (unsigned long long)skipped,
			  (unsigned long long)p_skipped);
		top_line__esc(&ln, fr->ansi, "\x1b[0m");
	}
	if (l->overflow_ifaces || l->overflow_drops || l->overflow_counters || l->overflow_procs)
		top_line__printf(&ln, "  untracked: %llu ifaces %llu drop series %llu counters %llu procs",
			  (unsigned long long)l->overflow_ifaces, (unsigned long long)l->overflow_drops,
			  (unsigned long long)l->overflow_counters, (unsigned long long)l->overflow_procs);
	top_frame__add(fr, &ln);
}

static const char *const help_text[] = {
	"fabtrace top - keys",
	"",
	"  q        quit (Ctrl-C too); with --record the capture is closed cleanly",
	"  s        next sort key: rate, peak, bursts, backlog, drops, name",
	"  / or f   filter interfaces by a substring of NAME@NETNS; Enter applies,",
	"           an empty filter clears it, Esc cancels",
	"  r        reset the maxima (PEAKMAX, BKLGMAX)",
	"  h or ?   this help (any key closes it)",
	"",
	"Columns: RX/TX b/s the average of the last period; PEAKBIN the fullest bin",
	"(--bin) as bits/s, the rate a 1 s average hides; UTIL% the busier direction",
	"against the link speed or tbf/htb rate; BURST/s runs of bins at >= 50 % of",
	"capacity; BACKLOG/SOJOURN the largest qdisc queue and wait; DROP/s kfree_skb",
	"drops on the device; RETX/s TCP segments retransmitted through it; CE/s ECN",
	"CE marks received; PAUSE/s and CNP/s NIC/RDMA pause and congestion counters;",
	"PEAKMAX/BKLGMAX the maxima since the start or r; HISTORY the rate per refresh.",
	NULL,
};

/* The whole view into FR: WIDTH columns, FR->max_lines rows (UI) or everything. */
static void render(const struct top_view *t, struct top_frame *fr, int width)
{
	uint32_t *idx = calloc(t->l->nifaces ? t->l->nifaces : 1, sizeof(*idx));
	bool on[C_N];
	int spark_w, reserve, proc_rows = 0;
	size_t n, shown = 0;
	struct top_line ln;
	uint32_t pidx[LIVE_MAX_PROCS];
	size_t nprocs;

	if (!idx)
		return;
	title_lines(t, fr, width);
	if (t->help && fr->ansi) {
		for (int i = 0; help_text[i]; i++) {
			top_line__init(&ln, width);
			top_line__put(&ln, help_text[i]);
			top_frame__add(fr, &ln);
		}
		free(idx);
		return;
	}
	pick_cols(fr->ansi ? width : 0, fr->ansi, on, &spark_w);
	if (on[C_SPARK] && spark_w < SPARK_MIN)
		on[C_SPARK] = false;
	top_line__init(&ln, fr->ansi ? width : 0);
	top_line__esc(&ln, fr->ansi, "\x1b[1m");
	iface_header(&ln, on, spark_w);
	top_frame__add(fr, &ln);
	n = top_view__select_ifaces(t, idx);
	nprocs = top_view__select_procs(t, pidx);
	/* rows kept below the table: processes (up to 8), drops, the footer */
	reserve = 1;
	if (nprocs) {
		proc_rows = nprocs < 8 ? (int)nprocs : 8;
		reserve += 3 + proc_rows + (nprocs > 8);
	}
	reserve += 1;
	for (size_t i = 0; i < n; i++) {
		const struct live_iface *f = &t->l->ifaces[idx[i]];

		if (fr->ansi && top_frame__room(fr) - reserve <= 1 && i + 1 < n) {
			top_line__init(&ln, width);
			top_line__printf(&ln, "... %zu more interfaces (s sorts, / filters)", n - i);
			top_frame__add(fr, &ln);
			break;
		}
		top_line__init(&ln, fr->ansi ? width : 0);
		iface_row(t, &ln, f, on, spark_w, fr->ansi);
		top_frame__add(fr, &ln);
		shown++;
	}
	if (!n) {
		top_line__init(&ln, width);
		top_line__printf(&ln, t->l->nifaces ? "(no interface matches the filter '%s')" :
			  "(no interface seen yet%s)", t->filter);
		top_frame__add(fr, &ln);
	}
	(void)shown;
	drops_section(t, fr, fr->ansi ? width : 0);
	procs_section(t, fr, fr->ansi ? width : 0, fr->ansi ? proc_rows : 0);
	if (!fr->ansi)
		rdma_section(t, fr, 0);
	free(idx);
}

void top_view__draw(const struct top_view *t)
{
	struct top_frame fr = { .max_lines = t->rows, .ansi = true };
	struct top_line ln;
	size_t off = 0;

	fr.max_lines = t->rows - 1; /* the last row is the footer */
	render(t, &fr, t->cols);
	fr.max_lines = t->rows;
	while (fr.lines < t->rows - 1) { /* clear what an earlier, longer frame left */
		top_line__init(&ln, t->cols);
		top_frame__add(&fr, &ln);
	}
	top_line__init(&ln, t->cols - 1); /* never the last cell: some terminals scroll */
	if (t->editing) {
		top_line__printf(&ln, "filter: %s", t->edit);
		top_line__esc(&ln, true, "\x1b[7m \x1b[27m");
		top_line__printf(&ln, "   (Enter applies, empty clears, Esc cancels)");
	} else {
		top_line__esc(&ln, true, "\x1b[7m");
		top_line__printf(&ln, "q quit  s sort (%s)  / filter  r reset maxima  h help", top_sort_names[t->sort]);
		top_line__esc(&ln, true, "\x1b[27m");
	}
	top_frame__add(&fr, &ln);
	while (off < fr.len) {
		ssize_t w = write(STDOUT_FILENO, fr.buf + off, fr.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(fr.buf);
}

/* ---- snapshots for scripts ---- */

int top_view__print_text(const struct top_view *t)
{
	struct top_frame fr = { .max_lines = 0, .ansi = false };
	int ret = 0;

	render(t, &fr, 0);
	if (fr.buf && (fwrite(fr.buf, 1, fr.len, stdout) != fr.len || fflush(stdout)))
		ret = -1;
	free(fr.buf);
	return ret;
}
