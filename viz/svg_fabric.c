// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SVG timeline's fabric rows (viz/svg.h): per interface TX/RX
 * throughput, per qdisc backlog and sojourn, counters that grew (rate per
 * second), and per host the network events (retransmits, drops, CE marks,
 * counter spikes) and lost events, counted per pixel column.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "viz/common.h"
#include "viz/svg.h"

/* ---- fabric tracks ---- */

/* A step-function area over the pixel columns, scaled to YMAX. */
static void area(struct svg *s, const double *v, double ymax, double base, double h, const char *colour,
		 double opacity)
{
	double prev = base;

	fprintf(s->f, "<path fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\" stroke-width=\"1\" d=\"M%.1f,%.1f",
		colour, opacity, colour, LG, base);
	for (int c = 0; c < (int)NCOL; c++) {
		double y = ymax > 0 ? base - (v[c] > ymax ? ymax : v[c]) / ymax * h : base;

		y = round(y * 10.0) / 10.0;
		if (y != prev) {
			fprintf(s->f, "H%.1fV%.1f", LG + c, y);
			prev = y;
		}
	}
	fprintf(s->f, "H%.1fV%.1fZ\"/>\n", LG + PW, base);
}

static void track_frame(struct svg *s, double h, const char *l1, const char *l2)
{
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#F0F0F0\" fill-opacity=\"0.4\" stroke=\"#DDDDDD\"/>\n"
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", LG, s->y, PW, h, LG - 6, s->y + 12);
	svg_text_fit(s->f, l1, LG - 8);
	fprintf(s->f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" fill=\"#555555\">",
		LG - 6, s->y + 24);
	svg_text_fit(s->f, l2, LG - 8);
	fputs("</text>\n", s->f);
}

static size_t first_bin(const struct model_bin *b, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid].start_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fill_cols(struct svg *s, double *v, uint64_t t0, uint64_t t1, double val)
{
	int a, b;

	if (t1 <= s->from || t0 >= s->to)
		return;
	a = col_of(s, t0);
	b = col_of(s, t1 > t0 ? t1 - 1 : t0);
	for (int c = a; c <= b; c++)
		if (val > v[c])
			v[c] = val;
}

/* Add the rate BPS over [t0, t1) to the columns' means (weighted by the part of each column it covers). */
static void mean_cols(struct svg *s, double *v, uint64_t t0, uint64_t t1, double bps)
{
	double col_ns = (double)(s->to - s->from) / NCOL;
	int a, b;

	if (t1 <= s->from || t0 >= s->to)
		return;
	if (t0 < s->from)
		t0 = s->from;
	if (t1 > s->to)
		t1 = s->to;
	a = col_of(s, t0);
	b = col_of(s, t1 - 1);
	for (int c = a; c <= b; c++) {
		double c0 = c * col_ns, c1 = c0 + col_ns;
		double x0 = (double)(t0 - s->from), x1 = (double)(t1 - s->from);
		double ov = (x1 < c1 ? x1 : c1) - (x0 > c0 ? x0 : c0);

		if (ov > 0)
			v[c] += bps * ov / col_ns;
	}
}

/*
 * Per interface: TX and RX.  A column longer than a bin shows the busiest
 * bin in it (light) and the mean over the column (solid): in a long window
 * short bursts stay visible without hiding how busy the link was.
 */
int svg_iface_tracks(struct svg *s, double *cols)
{
	const struct model *m = s->m;
	uint64_t bin = m->hdr.bin_ns;

	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];
		double peak = 0, cap = 0, ymax;
		char l1[96], l2[96], a[32], b[32];
		bool any = false;

		memset(cols, 0, 4 * NCOL * sizeof(*cols));
		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &f->dir[d];
			double *mx = cols + (d == FT_DIR_TX ? 0 : 2) * NCOL, *mean = mx + NCOL;
			size_t k = first_bin(x->bins, x->nbins, s->from > bin ? s->from - bin : 0);

			for (; k < x->nbins && x->bins[k].start_ns < s->to; k++) {
				double bps = model__bin_bps(m, x->bins[k].bytes);

				if (x->bins[k].start_ns + bin <= s->from)
					continue;
				fill_cols(s, mx, x->bins[k].start_ns, x->bins[k].start_ns + bin, bps);
				mean_cols(s, mean, x->bins[k].start_ns, x->bins[k].start_ns + bin, bps);
				if (bps > peak)
					peak = bps;
				any = true;
			}
			if (x->capacity_bps > cap)
				cap = x->capacity_bps;
		}
		if (!any)
			continue;
		ymax = cap > peak ? cap : peak;
		snprintf(l1, sizeof(l1), "%s throughput", f->label);
		snprintf(l2, sizeof(l2), "peak %s, scale %s", fmt_rate_bps(peak, a, sizeof(a)),
			 fmt_rate_bps(ymax, b, sizeof(b)));
		fprintf(s->f, "<g class=\"track iface\">\n");
		track_frame(s, TRACK_H, l1, l2);
		if ((double)(s->to - s->from) / NCOL > (double)bin) {
			area(s, cols, ymax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_BLUE, 0.15);
			area(s, cols + 2 * NCOL, ymax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_ORANGE, 0.0);
		}
		area(s, cols + NCOL, ymax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_BLUE, 0.45);
		area(s, cols + 3 * NCOL, ymax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_ORANGE, 0.0);
		fputs("</g>\n", s->f);
		s->y += TRACK_H + 6;
	}
	return 0;
}

void svg_qdisc_tracks(struct svg *s, double *bl, double *sj)
{
	const struct model *m = s->m;
	uint64_t bin = m->hdr.bin_ns;

	for (size_t q = 0; q < m->nqdiscs; q++) {
		const struct model_qdisc *qd = &m->qdiscs[q];
		double bmax = 0, smax = 0;
		char l1[128], l2[96], a[32], b[32], h[24];
		bool any = false;

		memset(bl, 0, NCOL * sizeof(*bl));
		memset(sj, 0, NCOL * sizeof(*sj));
		for (size_t k = 0; k < qd->nbins; k++) {
			const struct model_qbin *x = &qd->bins[k];

			if (x->start_ns + bin <= s->from || x->start_ns >= s->to)
				continue;
			fill_cols(s, bl, x->start_ns, x->start_ns + bin, (double)x->max_backlog);
			fill_cols(s, sj, x->start_ns, x->start_ns + bin, (double)x->sojourn_max_ns);
			if ((double)x->max_backlog > bmax)
				bmax = (double)x->max_backlog;
			if ((double)x->sojourn_max_ns > smax)
				smax = (double)x->sojourn_max_ns;
			any = true;
		}
		if (!any)
			continue;
		if (qd->handle & 0xffff)
			snprintf(h, sizeof(h), "%x:%x", qd->handle >> 16, qd->handle & 0xffff);
		else
			snprintf(h, sizeof(h), "%x:", qd->handle >> 16);
		snprintf(l1, sizeof(l1), "%s %s %s queue", qd->iface < m->nifaces ? m->ifaces[qd->iface].label : "?",
			 qd->kind[0] ? qd->kind : "qdisc", h);
		snprintf(l2, sizeof(l2), "backlog max %s, sojourn max %s", fmt_bytes(bmax, a, sizeof(a)),
			 fmt_ns(smax < 0x1p64 ? (uint64_t)smax : UINT64_MAX, b, sizeof(b))); /* 2^64: no UB */
		fprintf(s->f, "<g class=\"track qdisc\">\n");
		track_frame(s, TRACK_H, l1, l2);
		area(s, bl, bmax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_VERMILION, 0.35);
		area(s, sj, smax, s->y + TRACK_H, TRACK_H - 4, VIZ_C_PURPLE, 0.0);
		fputs("</g>\n", s->f);
		s->y += TRACK_H + 6;
	}
}

static const char *class_colour(unsigned cls)
{
	switch (cls) {
	case FT_CLS_CONGESTION: return VIZ_C_VERMILION;
	case FT_CLS_PAUSE: return VIZ_C_BLACK;
	case FT_CLS_RETRANS: return VIZ_C_PURPLE;
	case FT_CLS_DISCARD: return VIZ_C_SKY;
	case FT_CLS_DATA: return VIZ_C_BLUE;
	default: return VIZ_C_GREY;
	}
}

/* Spike classes first, then data, then the rest. */
static int class_order(unsigned cls)
{
	return model__ctr_spike_class(cls) ? 0 : cls == FT_CLS_DATA ? 1 : 2;
}

void svg_counter_tracks(struct svg *s, double *v)
{
	const struct model *m = s->m;
	size_t shown = 0, more = 0;

	for (int pass = 0; pass < 3; pass++) {
		for (size_t si = 0; si < m->nctr_series; si++) {
			const struct model_ctr_series *se = &m->ctr_series[si];
			double peak = 0;
			char l1[128], l2[96], pk[32];
			bool any = false;

			if (class_order(se->cls) != pass || !se->npts)
				continue;
			memset(v, 0, NCOL * sizeof(*v));
			for (size_t j = se->first_pt; j < se->first_pt + se->npts; j++) {
				const struct model_ctr_point *pt = &m->ctr_points[j];
				double rate;

				if (pt->end_ns <= s->from || pt->start_ns >= s->to || !pt->delta)
					continue;
				rate = model__ctr_point_rate(m, pt);
				fill_cols(s, v, pt->start_ns, pt->end_ns, rate);
				if (rate > peak)
					peak = rate;
				any = true;
			}
			if (!any)
				continue;
			if (shown >= MAX_CTR_TRACKS) {
				more++;
				continue;
			}
			shown++;
			snprintf(l1, sizeof(l1), "%s", se->name);
			snprintf(l2, sizeof(l2), "%s, peak %s/s", m->ctr_groups[se->group].label,
				 svg_fmt_count(peak, pk, sizeof(pk)));
			fprintf(s->f, "<g class=\"track counter\">\n");
			track_frame(s, CTR_TRACK_H, l1, l2);
			area(s, v, peak, s->y + CTR_TRACK_H, CTR_TRACK_H - 4, class_colour(se->cls), 0.5);
			fputs("</g>\n", s->f);
			s->y += CTR_TRACK_H + 6;
		}
	}
	if (more) {
		fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555555\">%zu more counters grew in this window "
			"(all of them: --perfetto)</text>\n", LG, s->y + 10, more);
		s->y += 16;
	}
}

/* ---- events ---- */

struct evcols {
	unsigned rtx[NCOL], drops[NCOL], ce[NCOL];
	uint32_t reason[NCOL];      /* first drop reason seen in the column */
	bool mixed[NCOL];
};

static void marker(struct svg *s, int kind, int c, double y, const char *tip)
{
	double x = LG + c + 0.5;

	switch (kind) {
	case 0:     /* retransmit: triangle */
		fprintf(s->f, "<path d=\"M%.1f,%.1fl-4,7h8z\" fill=\"%s\">", x, y, VIZ_C_BLUE);
		break;
	case 1:     /* drop: cross */
		fprintf(s->f, "<path d=\"M%.1f,%.1fl6,6m0,-6l-6,6\" stroke=\"%s\" stroke-width=\"2\">", x - 3, y,
			VIZ_C_VERMILION);
		break;
	default:    /* CE: circle */
		fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\">", x, y + 3.5, VIZ_C_ORANGE);
		break;
	}
	fputs("<title>", s->f);
	viz__xml(s->f, tip);
	fputs(kind == 0 ? "</title></path>\n" : kind == 1 ? "</title></path>\n" : "</title></circle>\n", s->f);
}

int svg_event_rows(struct svg *s, const struct viz_hosts *hosts)
{
	const struct model *m = s->m;
	struct evcols *e = malloc(sizeof(*e));
	struct lod sl;
	char buf[64];

	if (!e)
		return -ENOMEM;
	/* hosts.n = events on no host (drops without a device, node-wide counters) */
	for (size_t h = 0; h <= hosts->n; h++) {
		bool any = false;
		size_t nspikes = 0;

		memset(e, 0, sizeof(*e));
		for (size_t i = 0; i < m->nflows; i++) {
			const struct model_flow *w = &m->flows[i];

			if (!w->nrtx || viz__host_index(hosts, model__host_name(m, w->key.netns, buf, sizeof(buf))) != h)
				continue;
			for (size_t j = w->first_rtx; j < w->first_rtx + w->nrtx; j++)
				if (m->rtx_events[j].ts_ns >= s->from && m->rtx_events[j].ts_ns < s->to) {
					e->rtx[col_of(s, m->rtx_events[j].ts_ns)]++;
					any = true;
				}
		}
		for (size_t j = 0; j < m->ndrop_events; j++) {
			const struct model_drop_ev *d = &m->drop_events[j];
			size_t dh = d->iface < m->nifaces ?
				    viz__host_index(hosts, model__host_name(m, m->ifaces[d->iface].netns, buf, sizeof(buf))) :
				    hosts->n;
			int c;

			if (dh != h || d->ts_ns < s->from || d->ts_ns >= s->to)
				continue;
			c = col_of(s, d->ts_ns);
			if (e->drops[c]++ && e->reason[c] != d->reason)
				e->mixed[c] = true;
			if (e->drops[c] == 1)
				e->reason[c] = d->reason;
			any = true;
		}
		for (size_t i = 0; h < hosts->n && i < m->nifaces; i++) {
			const struct model_dir *x = &m->ifaces[i].dir[FT_DIR_RX];

			if (!x->ce_pkts ||
			    viz__host_index(hosts, model__host_name(m, m->ifaces[i].netns, buf, sizeof(buf))) != h)
				continue;
			for (size_t k = first_bin(x->bins, x->nbins, s->from); k < x->nbins && x->bins[k].start_ns < s->to;
			     k++)
				if (x->bins[k].ce_pkts) {
					e->ce[col_of(s, x->bins[k].start_ns)] += x->bins[k].ce_pkts;
					any = true;
				}
		}
		for (size_t j = 0; j < m->nctr_events; j++) {
			const struct model_ctr_event *x = &m->ctr_events[j];
			uint32_t fi = m->ctr_groups[m->ctr_series[x->series].group].iface;
			size_t eh = fi < m->nifaces ?
				    viz__host_index(hosts, model__host_name(m, m->ifaces[fi].netns, buf, sizeof(buf))) : hosts->n;

			if (eh == h && x->end_ns >= s->from && x->start_ns < s->to)
				nspikes++;
		}
		if (!any && !nspikes)
			continue;
		fprintf(s->f, "<g class=\"events\">\n");
		track_frame(s, 44, h < hosts->n ? "network events" : "network events (no host)",
			    h < hosts->n ? hosts->name[h] : "no device / node-wide");
		for (int c = 0; c < (int)NCOL; c++) {
			char tip[160];

			if (e->rtx[c]) {
				snprintf(tip, sizeof(tip), "%u retransmit%s", e->rtx[c], e->rtx[c] > 1 ? "s" : "");
				marker(s, 0, c, s->y + 2, tip);
			}
			if (e->drops[c]) {
				const char *rn = model__drop_reason_name(m, e->reason[c]);
				char rb[24];

				if (!rn || !rn[0]) {
					snprintf(rb, sizeof(rb), "reason %u", e->reason[c]);
					rn = rb;
				}
				snprintf(tip, sizeof(tip), "%u drop%s: %s%s", e->drops[c], e->drops[c] > 1 ? "s" : "", rn,
					 e->mixed[c] ? " and others" : "");
				marker(s, 1, c, s->y + 12, tip);
			}
			if (e->ce[c]) {
				snprintf(tip, sizeof(tip), "%u CE-marked packet%s received", e->ce[c], e->ce[c] > 1 ? "s" : "");
				marker(s, 2, c, s->y + 22, tip);
			}
		}
		memset(&sl, 0, sizeof(sl));
		for (size_t j = 0; j < m->nctr_events; j++) {
			const struct model_ctr_event *x = &m->ctr_events[j];
			const struct model_ctr_series *se = &m->ctr_series[x->series];
			uint32_t fi = m->ctr_groups[se->group].iface;
			size_t eh = fi < m->nifaces ?
				    viz__host_index(hosts, model__host_name(m, m->ifaces[fi].netns, buf, sizeof(buf))) : hosts->n;
			double x0, x1;
			char pk[32];

			if (eh != h || x->end_ns < s->from || x->start_ns >= s->to)
				continue;
			x0 = xt(s, x->start_ns);
			x1 = xt(s, x->end_ns);
			/* spikes are sorted by start: sub-pixel ones merge into short runs */
			if (svg_lod_take(s, &sl, x0, x1 - x0 < 2.0 ? x0 + 0.5 : x1, s->y + 33, 6, class_colour(se->cls),
				     "counter spikes"))
				continue;
			fprintf(s->f, "<rect class=\"spike\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"%s\">"
				"<title>", x0, s->y + 33, x1 - x0 < 2.0 ? 2.0 : x1 - x0, class_colour(se->cls));
			viz__xml(s->f, m->ctr_groups[se->group].label);
			fputc(' ', s->f);
			viz__xml(s->f, se->name);
			fprintf(s->f, " spike: +%" PRIu64 ", peak %s/s</title></rect>\n", x->delta,
				svg_fmt_count(x->peak_rate, pk, sizeof(pk)));
		}
		svg_lod_flush(s, &sl, "counter spikes");
		fputs("</g>\n", s->f);
		s->y += 50;
	}
	free(e);
	if (m->lost_total) {
		double top = s->y;
		size_t shown = 0;

		fprintf(s->f, "<g class=\"lost\">\n");
		track_frame(s, 20, "lost events", "ring buffer full");
		for (size_t i = 0; i < m->nlost_evs; i++) {
			const struct model_lost_ev *g = &m->lost_evs[i];
			double x0, x1;
			char a[32], b[32];

			if (!viz__visible(g->from_ns, g->ts_ns, s->from, s->to))
				continue;
			x0 = xt(s, g->from_ns);
			x1 = xt(s, g->ts_ns);
			viz__secs(m, g->from_ns, a, sizeof(a));
			viz__secs(m, g->ts_ns, b, sizeof(b));
			/* a gap in the data, not idle time: hatched over every track above it too */
			fprintf(s->f, "<rect class=\"gap\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"url(#lost)\" fill-opacity=\"0.5\" stroke=\"%s\"><title>%" PRIu64 " %s events lost on "
				"cpu %u in +%s..+%s s (ring buffer full): data is missing here, counts are lower bounds"
				"</title></rect>\n", x0, s->fabric_top, x1 - x0 < 2 ? 2 : x1 - x0, top + 18 - s->fabric_top,
				VIZ_C_GREY, g->lost, model__source_name(g->source), g->cpu, a, b);
			shown++;
		}
		if (!shown)
			fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555555\">%" PRIu64 " events lost outside this "
				"window</text>\n", LG + 4, top + 14, m->lost_total);
		fputs("</g>\n", s->f);
		s->y += 26;
	}
	return 0;
}
