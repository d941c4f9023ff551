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
 * This file: the document, its header lines, axis and legend; the rows
 * are drawn by viz/svg_ranks.c and viz/svg_fabric.c, and all of them use
 * the helpers of viz/svg_draw.c (viz/svg.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "viz/common.h"
#include "viz/svg.h"

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
		uint64_t t = s->m->capture_start_ns + r; /* r: model__rel_ns() */
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
		svg_text_fit(s->f, desc, 900);
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
	svg_collectives(s);
	err = svg_ranks(s, &hosts);
	if (!err) {
		fprintf(s->f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">fabric</text>\n", s->y + 12);
		s->y += 18;
		s->fabric_top = s->y;
		svg_iface_tracks(s, cols);
		svg_qdisc_tracks(s, cols, cols + NCOL);
		svg_counter_tracks(s, cols);
		err = svg_event_rows(s, &hosts);
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

