// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SVG timeline's drawing helpers (viz/svg.h), used by the document
 * (viz/svg.c) and its rows (viz/svg_ranks.c, viz/svg_fabric.c) and calling
 * none of them: text cut to a width, counts and durations as short text,
 * and the merging of sub-pixel rectangles into one per run.
 */
#include <string.h>

#include "lib/util.h"
#include "viz/common.h"
#include "viz/svg.h"

/* Text of at most MAXCH characters (UTF-8 aware enough: cuts only ASCII-safe). */
void svg_text_fit(FILE *f, const char *s, double width)
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
const char *svg_fmt_count(double v, char *buf, size_t len)
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

void svg_dur_str(uint64_t ns, char *buf, size_t len)
{
	fmt_ns(ns, buf, len);
}

/* ---- merging of sub-pixel rectangles ---- */

static int verdict_rank(enum corr_verdict v)
{
	return v == CORR_NETWORK ? 3 : v == CORR_RANK ? 2 : v == CORR_UNKNOWN ? 1 : 0;
}

void svg_lod_flush(struct svg *s, struct lod *l, const char *what)
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
bool svg_lod_take(struct svg *s, struct lod *l, double x0, double x1, double y, double h,
		  const char *fill, const char *what)
{
	int i;

	if (x1 - x0 >= 1.0) {
		svg_lod_flush(s, l, what);
		return false;
	}
	if (!(l->on && x0 <= l->x1 + 1.0 && l->y == y && x1 - l->x0 <= LOD_RUN_PX)) {
		bool worst = l->worst;

		svg_lod_flush(s, l, what);
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
