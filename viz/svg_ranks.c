// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SVG timeline's phase rows (viz/svg.h): the row of matched
 * collectives coloured by verdict with the labels of the slow ones, and
 * per host, per rank, steps > named phases > calls > wait/transfer,
 * flame-style by depth, with the straggler's lateness as a band.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "viz/common.h"
#include "viz/svg.h"

/* ---- collectives row ---- */

void svg_collectives(struct svg *s)
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
		if (svg_lod_take(s, &l, x0, x1, row_y, 16, viz__verdict_colour(in->verdict), "collectives")) {
			l.verdicts[in->verdict < CORR_NVERDICTS ? in->verdict : CORR_UNKNOWN]++;
			continue;
		}
		shown++;
		if (in->verdict != CORR_OK || in->slow)
			corr__describe(c, i, desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "ok");
		svg_dur_str(in->span_ns, a, sizeof(a));
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
			svg_text_fit(s->f, nm, x1 - x0);
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
				svg_text_fit(s->f, full, maxw < 700 ? maxw : 700);
				lane_end[lane] = x0 + (double)strlen(full) * 6.2 + 10;
			}
			fputs("</text>\n", s->f);
		}
	}
	svg_lod_flush(s, &l, "collectives");
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
	svg_dur_str(it->end - it->start, d, sizeof(d));
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

		if (svg_lod_take(s, &l[lv], x0, x1, y + 1, LEVEL_H - 2, fill, "intervals"))
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
			svg_text_fit(s->f, nm, x1 - x0);
			fputs("</text>\n", s->f);
		}
	}
	for (uint32_t lv = 0; lv < levels; lv++)
		svg_lod_flush(s, &l[lv], "intervals");
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
		if (svg_lod_take(s, &l[0], x0, x1, top + levels * LEVEL_H + 1, 5, VIZ_C_PURPLE, "late entries"))
			continue;
		svg_dur_str(in->skew_ns, d, sizeof(d));
		fprintf(s->f, "<rect class=\"late\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"5\" fill=\"url(#late)\" "
			"stroke=\"%s\"><title>%s #%" PRIu64 ": entered %s after the first rank</title></rect>\n",
			x0, top + levels * LEVEL_H + 1, x1 - x0 < 1.0 ? 1.0 : x1 - x0, VIZ_C_PURPLE,
			corr__op_name(in->op), in->seq, d);
	}
	svg_lod_flush(s, &l[0], "late entries");
	fputs("</g>\n", s->f);
	s->y = top + levels * LEVEL_H + 10;
	free(l);
	free(it);
	return 0;
}

int svg_ranks(struct svg *s, const struct viz_hosts *hosts)
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
