// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A static, self-contained SVG timeline of one window, for tickets and
 * documents (no script; tooltips are <title> elements):
 *
 *   title, window, warnings (lost events, truncated capture)
 *   time axis
 *   verdict labels of the slow collectives, and a row of the matched
 *     collectives coloured by verdict
 *   per host, per rank: steps > named phases > calls > wait/transfer,
 *     flame-style by depth, on one time axis so ranks line up; the
 *     straggler's lateness as a band under its row
 *   fabric: per interface TX/RX throughput, per qdisc backlog and sojourn,
 *     RDMA/NIC counters that grew (rate per second)
 *   network events per host: retransmits, drops (with reason), CE marks,
 *     counter spikes; lost events
 *   legend
 *
 * Default window: the slowest collective with one span of context each
 * side (viz__window).  Level of detail: everything is reduced to pixel
 * columns (counters: max per column; rectangles narrower than a pixel
 * merged; events counted per column), so an hour-long window stays small.
 * Colours: Okabe-Ito (viz/common.h); every colour also has a label or shape.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/base/util.h"
#include "viz/common.h"

#define W 1600.0
#define LG 210.0                /* label gutter */
#define PW (W - LG - 30.0)      /* plot width */
#define NCOL ((size_t)1360)      /* pixel columns of the plot (= PW) */
#define LEVEL_H 16.0
#define TRACK_H 40.0
#define CTR_TRACK_H 28.0
#define MAX_CTR_TRACKS 12

struct svg {
	FILE *f;                    /* the body (a memory stream) */
	const struct model *m;
	const struct corr *c;
	uint64_t from, to;
	double y;
	double axis_top, axis_bottom;
	double fabric_top;
};

static double xt(const struct svg *s, uint64_t t)
{
	if (t <= s->from)
		return LG;
	if (t >= s->to)
		return LG + PW;
	return LG + (double)(t - s->from) * PW / (double)(s->to - s->from);
}

static int col_of(const struct svg *s, uint64_t t)
{
	int c = (int)floor(xt(s, t) - LG);

	return c < 0 ? 0 : (size_t)c >= NCOL ? (int)NCOL - 1 : c;
}

/* Text of at most MAXCH characters (UTF-8 aware enough: cuts only ASCII-safe). */
static void text_fit(FILE *f, const char *s, double width)
{
	int maxch = (int)((width - 4.0) / 6.2);
	char buf[512];
	size_t n = strlen(s);

	if (maxch <= 0)
		return;
	if (n <= (size_t)maxch) {
		viz__xml(f, s);
		return;
	}
	if (maxch < 2)
		return;
	n = (size_t)maxch - 1;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* do not cut a UTF-8 sequence in half */
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	buf[n] = '\0';
	viz__xml(f, buf);
	fputs("\xe2\x80\xa6", f);
}

/* A count or rate with three significant digits: "950", "40.9k", "5.00M". */
static const char *fmt_count(double v, char *buf, size_t len)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T" };
	int i = 0;

	if (!(v >= 0))
		v = 0;
	if (v < 999.5) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	while (v >= 999.5 && i < 4) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, len, "%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, sfx[i]);
	return buf;
}

static void dur_str(uint64_t ns, char *buf, size_t len)
{
	fmt_ns(ns, buf, len);
}

/* ---- merging of sub-pixel rectangles ---- */

#define LOD_FILLS 8
#define LOD_RUN_PX 3.0          /* a merged run is at most this wide, so colours still vary along */

struct lod {
	bool on;
	bool worst;                 /* colour by the worst verdict (collectives row), else by the longest total */
	double x0, x1, y, h;
	unsigned count;
	const char *fill[LOD_FILLS];
	double w[LOD_FILLS];        /* summed widths per fill */
	int nf;
	unsigned verdicts[CORR_NVERDICTS];
};

static int verdict_rank(enum corr_verdict v)
{
	return v == CORR_NETWORK ? 3 : v == CORR_RANK ? 2 : v == CORR_UNKNOWN ? 1 : 0;
}

static void lod_flush(struct svg *s, struct lod *l, const char *what)
{
	const char *fill = VIZ_C_GREY;

	if (!l->on)
		return;
	if (l->worst) {
		int r = -1;

		for (int v = 0; v < CORR_NVERDICTS; v++)
			if (l->verdicts[v] && verdict_rank((enum corr_verdict)v) > r) {
				r = verdict_rank((enum corr_verdict)v);
				fill = viz__verdict_colour((enum corr_verdict)v);
			}
	} else {
		double best = -1;

		for (int i = 0; i < l->nf; i++)
			if (l->w[i] > best) {
				best = l->w[i];
				fill = l->fill[i];
			}
	}
	fprintf(s->f, "<rect class=\"dense\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
		"<title>%u %s here", l->x0, l->y, l->x1 - l->x0 < 1.0 ? 1.0 : l->x1 - l->x0, l->h, fill, l->count, what);
	if (l->worst)
		fprintf(s->f, ": network %u, rank %u, unknown %u, ok %u", l->verdicts[CORR_NETWORK],
			l->verdicts[CORR_RANK], l->verdicts[CORR_UNKNOWN], l->verdicts[CORR_OK]);
	fputs(" (zoom in with --from/--to)</title></rect>\n", s->f);
	l->on = false;
}

/* True when the rectangle [x0, x1] is merged into L (then not drawn by the caller). */
static bool lod_take(struct svg *s, struct lod *l, double x0, double x1, double y, double h, const char *fill,
		     const char *what)
{
	int i;

	if (x1 - x0 >= 1.0) {
		lod_flush(s, l, what);
		return false;
	}
	if (!(l->on && x0 <= l->x1 + 1.0 && l->y == y && x1 - l->x0 <= LOD_RUN_PX)) {
		bool worst = l->worst;

		lod_flush(s, l, what);
		*l = (struct lod){ .on = true, .worst = worst, .x0 = x0, .x1 = x1, .y = y, .h = h };
	}
	if (x1 > l->x1)
		l->x1 = x1;
	l->count++;
	for (i = 0; i < l->nf && strcmp(l->fill[i], fill) != 0; i++)
		;
	if (i == l->nf && l->nf < LOD_FILLS)
		l->fill[l->nf++] = fill;
	if (i < l->nf)
		l->w[i] += x1 - x0 > 0 ? x1 - x0 : 0.01;
	return true;
}

/* ---- header, axis ---- */

static void nice_step(uint64_t span, uint64_t *step, int *decimals)
{
	uint64_t raw = span / 10 ? span / 10 : 1, p = 1;
	int k = 0;

	while (p <= raw / 10) {
		p *= 10;
		k++;
	}
	*step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
	if (*step == 10 * p)
		k++;
	*decimals = k >= 9 ? 0 : 9 - k;
}

static void fmt_tick(int64_t rel, int decimals, char *buf, size_t len)
{
	uint64_t a = rel < 0 ? (uint64_t)(-rel) : (uint64_t)rel, div = 1;

	for (int i = 0; i < 9 - decimals; i++)
		div *= 10;
	if (decimals)
		snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, rel < 0 ? "-" : "+", a / 1000000000u, decimals,
			 (a % 1000000000u) / div);
	else
		snprintf(buf, len, "%s%" PRIu64, rel < 0 ? "-" : "+", a / 1000000000u);
}

static void axis(struct svg *s, double top, double bottom)
{
	uint64_t step, first;
	int dec;
	int64_t rel0 = model__rel_ns(s->m, s->from), rel_to = model__rel_ns(s->m, s->to);

	nice_step(s->to - s->from, &step, &dec);
	first = rel0 <= 0 ? 0 : ((uint64_t)rel0 + step - 1) / step * step;
	fprintf(s->f, "<g class=\"axis\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", LG,
		top, LG + PW, top, VIZ_C_BLACK);
	/* unsigned: near INT64_MAX, (int64_t)r would turn negative and the ticks never end */
	for (uint64_t r = first; rel_to >= 0 && r <= (uint64_t)rel_to; r += step) {
		uint64_t t = s->m->start_ns + r;
		double x = xt(s, t);
		char lab[48];

		if (t < s->from)
			continue;
		fmt_tick((int64_t)r, dec, lab, sizeof(lab));
		fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#EEEEEE\"/>"
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, top, x, bottom, x, top - 4, x, top, VIZ_C_BLACK, x, top - 7, lab);
	}
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">seconds since capture start</text>\n</g>\n",
		LG - 30, top - 7);
}

/* ---- collectives row ---- */

static void collectives(struct svg *s)
{
	const struct corr *c = s->c;
	double lab_y = s->y, row_y = s->y + 30.0;
	double lane_end[2] = { 0, 0 };
	struct lod l = { .worst = true };
	size_t shown = 0;

	fprintf(s->f, "<g class=\"collectives\">\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
		"font-weight=\"bold\">collectives</text>\n", LG - 6, row_y + 12);
	for (size_t i = 0; c && i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		double x0, x1;
		char nm[64], desc[1024], a[32];

		if (!viz__visible(in->first_entry, in->last_exit, s->from, s->to))
			continue;
		x0 = xt(s, in->first_entry);
		x1 = xt(s, in->last_exit);
		snprintf(nm, sizeof(nm), "%s #%" PRIu64, corr__op_name(in->op), in->seq);
		if (lod_take(s, &l, x0, x1, row_y, 16, viz__verdict_colour(in->verdict), "collectives")) {
			l.verdicts[in->verdict < CORR_NVERDICTS ? in->verdict : CORR_UNKNOWN]++;
			continue;
		}
		shown++;
		if (in->verdict != CORR_OK || in->slow)
			corr__describe(c, i, desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "ok");
		dur_str(in->span_ns, a, sizeof(a));
		fprintf(s->f, "<rect class=\"coll\" data-seq=\"%" PRIu64 "\" data-verdict=\"%s\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"16\" fill=\"%s\" stroke=\"%s\"><title>",
			in->seq, corr__verdict_name(in->verdict), x0, row_y, x1 - x0 < 1.0 ? 1.0 : x1 - x0,
			viz__verdict_colour(in->verdict), VIZ_C_BLACK);
		viz__xml(s->f, nm);
		fprintf(s->f, ", %u ranks, span %s: ", in->nranks, a);
		viz__xml(s->f, desc);
		fputs("</title></rect>\n", s->f);
		if (x1 - x0 > 30) {
			fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x0 + 3, row_y + 12,
				in->verdict == CORR_OK ? VIZ_C_BLACK : "#FFFFFF");
			text_fit(s->f, nm, x1 - x0);
			fputs("</text>\n", s->f);
		}
		if (in->slow || in->verdict == CORR_NETWORK || in->verdict == CORR_RANK) {
			/* the verdict above it, in the first label lane free at x0 */
			int lane = lane_end[0] <= x0 ? 0 : lane_end[1] <= x0 ? 1 : -1;
			char head[32];
			double maxw = LG + PW - x0;

			if (lane < 0)
				continue;
			snprintf(head, sizeof(head), "%s", in->verdict == CORR_OK ? "slow, ok: " :
				 in->verdict == CORR_UNKNOWN ? "unknown: " : "");
			fprintf(s->f, "<text class=\"verdict\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">",
				x0, lab_y + 11 + lane * 14, viz__verdict_colour(in->verdict));
			{
				char full[1100];

				snprintf(full, sizeof(full), "%s#%" PRIu64 " %s", head, in->seq, desc);
				text_fit(s->f, full, maxw < 700 ? maxw : 700);
				lane_end[lane] = x0 + (double)strlen(full) * 6.2 + 10;
			}
			fputs("</text>\n", s->f);
		}
	}
	lod_flush(s, &l, "collectives");
	if (!shown && !l.count)
		fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">no matched collectives in this window</text>\n",
			LG + 4, row_y + 12, VIZ_C_GREY);
	fputs("</g>\n", s->f);
	s->y = row_y + 24;
}

/* ---- rank rows ---- */

static const char *item_fill(const struct corr *c, const struct viz_item *it, const char **text)
{
	char cause[96];

	*text = VIZ_C_BLACK;
	switch (it->kind) {
	case VIZ_STEP:
		return VIZ_C_LIGHT;
	case VIZ_MARK:
		return VIZ_C_SKY;
	case VIZ_CALL:
		if (c->calls[it->ref].instance == CORR_NONE)
			return VIZ_C_GREY;
		*text = "#FFFFFF";
		return VIZ_C_BLUE;
	case VIZ_WAIT:
		if (!strcmp(viz__cause(c, &c->calls[it->ref], it->kind, cause, sizeof(cause)), "rank-late"))
			return VIZ_C_ORANGE;
		*text = "#FFFFFF";
		return VIZ_C_VERMILION;
	default:
		if (!strcmp(viz__cause(c, &c->calls[it->ref], it->kind, cause, sizeof(cause)), "clean"))
			return VIZ_C_GREEN;
		*text = "#FFFFFF";
		return VIZ_C_VERMILION;
	}
}

static void item_title(const struct svg *s, const struct viz_item *it, char *buf, size_t len)
{
	const struct corr *c = s->c;
	char nm[128], d[32], a[32], b[32], cause[96];

	viz__item_name(c, it, nm, sizeof(nm));
	dur_str(it->end - it->start, d, sizeof(d));
	viz__secs(s->m, it->start, a, sizeof(a));
	viz__secs(s->m, it->end, b, sizeof(b));
	if (it->kind == VIZ_CALL) {
		const struct corr_call *k = &c->calls[it->ref];
		char coll[96];

		viz__coll_name(c, k, coll, sizeof(coll));
		if (k->instance != CORR_NONE)
			snprintf(buf, len, "%s #%" PRIu64 ", +%s..+%s s (%s), verdict %s", coll, k->seq, a, b, d,
				 corr__verdict_name(c->instances[k->instance].verdict));
		else
			snprintf(buf, len, "%s, +%s..+%s s (%s)", coll, a, b, d);
	} else if (it->kind == VIZ_WAIT || it->kind == VIZ_XFER) {
		snprintf(buf, len, "%s %s (%s), +%s..+%s s", nm, d,
			 viz__cause(c, &c->calls[it->ref], it->kind, cause, sizeof(cause)), a, b);
	} else {
		snprintf(buf, len, "%s, +%s..+%s s (%s)", nm, a, b, d);
	}
}

static bool is_straggler_call(const struct corr *c, const struct corr_call *k)
{
	const struct corr_instance *in;

	if (k->instance == CORR_NONE)
		return false;
	in = &c->instances[k->instance];
	return in->straggler == k->rank && (in->why & CORR_WHY_STRAGGLER);
}

static int rank_row(struct svg *s, uint32_t r, uint32_t levels)
{
	const struct corr *c = s->c;
	struct viz_item *it;
	size_t n;
	struct lod *l;
	char label[128], tip[512];
	bool late = false;
	double top = s->y;
	int err = viz__rank_items(c, r, s->from, s->to, &it, &n);

	if (err)
		return err;
	l = calloc(levels, sizeof(*l));
	if (!l) {
		free(it);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->ninstances && !late; i++) {
		const struct corr_instance *in = &c->instances[i];

		late = in->straggler == r && (in->why & CORR_WHY_STRAGGLER) &&
		       viz__visible(in->first_entry, in->last_entry, s->from, s->to);
	}
	viz__rank_label(c, r, label, sizeof(label));
	fprintf(s->f, "<g class=\"rank\" data-rank=\"%d\" data-host=\"", c->ranks[r].rank);
	viz__xml(s->f, c->ranks[r].host);
	fprintf(s->f, "\">\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"%s>", LG - 6, top + 12,
		late ? " fill=\"" VIZ_C_PURPLE "\" font-weight=\"bold\"" : "");
	viz__xml(s->f, label);
	fputs("</text>\n", s->f);
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" fill=\"#555555\">pid %u%s</text>\n",
		LG - 6, top + 23, c->ranks[r].pid, late ? ", straggler" : "");
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#F0F0F0\" "
		"fill-opacity=\"0.4\"/>\n", LG, top, PW, levels * LEVEL_H + 6);
	for (size_t i = 0; i < n; i++) {
		const struct viz_item *x = &it[i];
		uint32_t lv = x->depth < levels ? x->depth : levels - 1;
		double x0 = xt(s, x->start), x1 = xt(s, x->end), y = top + lv * LEVEL_H;
		const char *tc, *fill = item_fill(c, x, &tc);
		bool strag = x->kind == VIZ_CALL && is_straggler_call(c, &c->calls[x->ref]);

		if (lod_take(s, &l[lv], x0, x1, y + 1, LEVEL_H - 2, fill, "intervals"))
			continue;
		item_title(s, x, tip, sizeof(tip));
		fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s><title>", x0, y + 1,
			x1 - x0 < 1.0 ? 1.0 : x1 - x0, LEVEL_H - 2, fill,
			strag ? " stroke=\"" VIZ_C_PURPLE "\" stroke-width=\"2\"" : " stroke=\"#FFFFFF\" stroke-width=\"0.5\"");
		viz__xml(s->f, tip);
		fputs("</title></rect>\n", s->f);
		if (x1 - x0 > 24) {
			char nm[128];

			fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-size=\"10\">", x0 + 2, y + 12, tc);
			if (x->kind == VIZ_CALL)
				viz__coll_name(c, &c->calls[x->ref], nm, sizeof(nm));
			else
				viz__item_name(c, x, nm, sizeof(nm));
			text_fit(s->f, nm, x1 - x0);
			fputs("</text>\n", s->f);
		}
	}
	for (uint32_t lv = 0; lv < levels; lv++)
		lod_flush(s, &l[lv], "intervals");
	/* the straggler's lateness: from the first entry to its own, under its row */
	memset(&l[0], 0, sizeof(l[0]));
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		double x0, x1;
		char d[32];

		if (in->straggler != r || !(in->why & CORR_WHY_STRAGGLER) ||
		    !viz__visible(in->first_entry, in->last_entry, s->from, s->to))
			continue;
		x0 = xt(s, in->first_entry);
		x1 = xt(s, in->last_entry);
		if (lod_take(s, &l[0], x0, x1, top + levels * LEVEL_H + 1, 5, VIZ_C_PURPLE, "late entries"))
			continue;
		dur_str(in->skew_ns, d, sizeof(d));
		fprintf(s->f, "<rect class=\"late\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"5\" fill=\"url(#late)\" "
			"stroke=\"%s\"><title>%s #%" PRIu64 ": entered %s after the first rank</title></rect>\n",
			x0, top + levels * LEVEL_H + 1, x1 - x0 < 1.0 ? 1.0 : x1 - x0, VIZ_C_PURPLE,
			corr__op_name(in->op), in->seq, d);
	}
	lod_flush(s, &l[0], "late entries");
	fputs("</g>\n", s->f);
	s->y = top + levels * LEVEL_H + 10;
	free(l);
	free(it);
	return 0;
}

static int ranks(struct svg *s, const struct viz_hosts *hosts)
{
	const struct corr *c = s->c;
	uint32_t levels = 1;

	if (!c || !c->nranks) {
		fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">no collective phases in this capture "
			"(record with the phase probes, see docs/phases.md)</text>\n", LG, s->y + 12, VIZ_C_GREY);
		s->y += 24;
		return 0;
	}
	/* one depth for every row, so rows line up */
	for (uint32_t r = 0; r < c->nranks; r++) {
		struct viz_item *it;
		size_t n;
		int err = viz__rank_items(c, r, s->from, s->to, &it, &n);

		if (err)
			return err;
		for (size_t i = 0; i < n; i++)
			if (it[i].depth + 1 > levels)
				levels = it[i].depth + 1;
		free(it);
	}
	if (levels > 8)
		levels = 8;
	for (size_t h = 0; h < hosts->n; h++) {
		bool any = false;

		for (uint32_t r = 0; r < c->nranks && !any; r++)
			any = !strcmp(c->ranks[r].host, hosts->name[h]);
		if (!any)
			continue;
		fprintf(s->f, "<g class=\"host\"><text x=\"8\" y=\"%.1f\" font-weight=\"bold\">host ", s->y + 11);
		viz__xml(s->f, hosts->name[h]);
		fprintf(s->f, "</text><line x1=\"8\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#BBBBBB\"/></g>\n",
			s->y + 14, LG + PW, s->y + 14);
		s->y += 18;
		for (uint32_t r = 0; r < c->nranks; r++) {
			int err;

			if (strcmp(c->ranks[r].host, hosts->name[h]) != 0)
				continue;
			err = rank_row(s, r, levels);
			if (err)
				return err;
		}
	}
	return 0;
}

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
	text_fit(s->f, l1, LG - 8);
	fprintf(s->f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"9\" fill=\"#555555\">",
		LG - 6, s->y + 24);
	text_fit(s->f, l2, LG - 8);
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
static int iface_tracks(struct svg *s, double *cols)
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

static void qdisc_tracks(struct svg *s, double *bl, double *sj)
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

static void counter_tracks(struct svg *s, double *v)
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
				 fmt_count(peak, pk, sizeof(pk)));
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

static int event_rows(struct svg *s, const struct viz_hosts *hosts)
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
			if (lod_take(s, &sl, x0, x1 - x0 < 2.0 ? x0 + 0.5 : x1, s->y + 33, 6, class_colour(se->cls),
				     "counter spikes"))
				continue;
			fprintf(s->f, "<rect class=\"spike\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"%s\">"
				"<title>", x0, s->y + 33, x1 - x0 < 2.0 ? 2.0 : x1 - x0, class_colour(se->cls));
			viz__xml(s->f, m->ctr_groups[se->group].label);
			fputc(' ', s->f);
			viz__xml(s->f, se->name);
			fprintf(s->f, " spike: +%" PRIu64 ", peak %s/s</title></rect>\n", x->delta,
				fmt_count(x->peak_rate, pk, sizeof(pk)));
		}
		lod_flush(s, &sl, "counter spikes");
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

/* ---- legend ---- */

static void legend(struct svg *s)
{
	static const struct { const char *fill, *label; } sw[] = {
		{ VIZ_C_LIGHT, "step" }, { VIZ_C_SKY, "named phase" }, { VIZ_C_BLUE, "collective call" },
		{ VIZ_C_GREY, "other call / unknown" }, { VIZ_C_ORANGE, "wait: a rank entered late" },
		{ VIZ_C_GREEN, "transfer: network clean / verdict ok" },
		{ VIZ_C_VERMILION, "network evidence / verdict network / backlog" },
		{ VIZ_C_PURPLE, "late rank (straggler) / verdict rank / sojourn" },
		{ VIZ_C_BLUE, "TX" }, { VIZ_C_ORANGE, "RX" },
	};
	double x = LG, y = s->y + 6;

	fprintf(s->f, "<g class=\"legend\">\n<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">legend</text>\n", y + 10);
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		double w = 22 + (double)strlen(sw[i].label) * 6.2 + 12;

		if (x + w > LG + PW) {
			x = LG;
			y += 18;
		}
		fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\" stroke=\"#555555\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, y, sw[i].fill, x + 18, y + 10, sw[i].label);
		x += w;
	}
	y += 20;
	fprintf(s->f, "<path d=\"M%.1f,%.1fl-4,7h8z\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">retransmit</text>\n",
		LG + 4, y, VIZ_C_BLUE, LG + 12, y + 8);
	fprintf(s->f, "<path d=\"M%.1f,%.1fl6,6m0,-6l-6,6\" stroke=\"%s\" stroke-width=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">drop</text>\n", LG + 90, y + 1, VIZ_C_VERMILION, LG + 102, y + 8);
	fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">CE mark</text>\n",
		LG + 150, y + 4, VIZ_C_ORANGE, LG + 158, y + 8);
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"6\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">counter spike</text>\n", LG + 220, y + 1, VIZ_C_VERMILION, LG + 238, y + 8);
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"url(#lost)\" stroke=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">events lost</text>\n", LG + 330, y - 1, VIZ_C_GREY, LG + 348, y + 8);
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"6\" fill=\"url(#late)\" stroke=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">straggler lateness</text>\n", LG + 430, y + 1, VIZ_C_PURPLE, LG + 448, y + 8);
	fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">intervals narrower than a pixel, merged</text>\n", LG + 570, y - 1,
		VIZ_C_GREY, LG + 588, y + 8);
	fputs("</g>\n", s->f);
	s->y = y + 20;
}

/* ---- the document ---- */

static int body(struct svg *s, const struct viz_ctx *v, bool focused)
{
	const struct model *m = s->m;
	struct viz_hosts hosts;
	double *cols, top;
	char a[32], b[32], d[32];
	int err = viz__hosts(v, &hosts);

	if (err)
		return err;
	cols = calloc(4 * NCOL, sizeof(*cols));
	if (!cols) {
		viz__hosts_free(&hosts);
		return -ENOMEM;
	}
	fprintf(s->f, "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">fabtrace timeline: ");
	viz__xml(s->f, m->hdr.hostname[0] ? m->hdr.hostname : "capture");
	fprintf(s->f, ", +%s .. +%s s (%s)</text>\n", viz__secs(m, s->from, a, sizeof(a)),
		viz__secs(m, s->to, b, sizeof(b)), fmt_ns(s->to - s->from, d, sizeof(d)));
	s->y = 38;
	if (focused && s->c && s->c->nby_span) {
		const struct corr_instance *in = &s->c->instances[s->c->by_span[0]];
		char desc[1024];

		corr__describe(s->c, s->c->by_span[0], desc, sizeof(desc));
		fprintf(s->f, "<text x=\"8\" y=\"%.1f\">slowest collective: %s #%" PRIu64 " (%s), with context; "
			"choose another window with --from/--to: ", s->y, corr__op_name(in->op), in->seq,
			fmt_ns(in->span_ns, d, sizeof(d)));
		text_fit(s->f, desc, 900);
		fputs("</text>\n", s->f);
		s->y += 16;
	}
	if (m->lost_total) {
		fprintf(s->f, "<text x=\"8\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">!! %" PRIu64 " events were lost "
			"(ring buffer full): counts are lower bounds</text>\n", s->y, VIZ_C_VERMILION, m->lost_total);
		s->y += 16;
	}
	if (m->truncated) {
		fprintf(s->f, "<text x=\"8\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">!! capture truncated: ", s->y,
			VIZ_C_VERMILION);
		viz__xml(s->f, m->truncated_why[0] ? m->truncated_why : "no end record");
		fputs("</text>\n", s->f);
		s->y += 16;
	}
	s->y += 24;
	top = s->y;
	s->y += 4;
	collectives(s);
	err = ranks(s, &hosts);
	if (!err) {
		fprintf(s->f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">fabric</text>\n", s->y + 12);
		s->y += 18;
		s->fabric_top = s->y;
		iface_tracks(s, cols);
		qdisc_tracks(s, cols, cols + NCOL);
		counter_tracks(s, cols);
		err = event_rows(s, &hosts);
	}
	if (!err) {
		/* the axis is drawn first but placed last: its grid lines span the rows */
		s->axis_top = top;
		s->axis_bottom = s->y;
		legend(s);
	}
	free(cols);
	viz__hosts_free(&hosts);
	return err;
}

int viz__svg(const struct viz_ctx *v, FILE *f)
{
	struct svg s = { 0 };
	char *buf = NULL, *abuf = NULL;
	size_t len = 0, alen = 0;
	FILE *body_f, *axis_f;
	int err;

	if (!v || !v->m || !f)
		return -EINVAL;
	s.m = v->m;
	s.c = v->c;
	viz__window(v, true, &s.from, &s.to);
	body_f = open_memstream(&buf, &len);
	if (!body_f)
		return -ENOMEM;
	s.f = body_f;
	err = body(&s, v, !v->from_ns && !v->to_ns);
	if (fclose(body_f) && !err)
		err = -ENOMEM;
	if (!err) {
		/* the axis and its grid go first in the document, under the rows */
		axis_f = open_memstream(&abuf, &alen);
		if (!axis_f) {
			err = -ENOMEM;
		} else {
			s.f = axis_f;
			axis(&s, s.axis_top, s.axis_bottom);
			if (fclose(axis_f))
				err = -ENOMEM;
		}
	}
	if (!err) {
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
			"font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">\n"
			"<defs><pattern id=\"late\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
			"patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" fill=\"%s\"/></pattern>"
			"<pattern id=\"lost\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
			"patternTransform=\"rotate(-45)\"><rect width=\"2\" height=\"6\" fill=\"%s\"/></pattern></defs>\n"
			"<rect width=\"100%%\" height=\"100%%\" fill=\"#FFFFFF\"/>\n",
			W, ceil(s.y), W, ceil(s.y), VIZ_C_PURPLE, VIZ_C_GREY);
		fwrite(abuf, 1, alen, f);
		fwrite(buf, 1, len, f);
		fputs("</svg>\n", f);
		err = fflush(f) || ferror(f) ? -EIO : 0;
	}
	free(buf);
	free(abuf);
	return err;
}
