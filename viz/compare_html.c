// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare --html (docs/compare.md, "The page"): one self-contained page,
 * no script to run: the comparison's text (the first screen and every
 * metric), and for each distribution (a collective group's durations, a
 * queue's sojourn) its CDF with side A and side B pooled over their runs,
 * beside its time series, one line per run, drawn as inline SVG.  The
 * comparison's JSON (compare --json) is embedded for tools.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/compare/compare.h"
#include "viz/common.h"
#include "viz/viz.h"

#define CW 460.0                /* a chart's width and height, its margins */
#define CH 240.0
#define ML 70.0
#define MR 12.0
#define MT 14.0
#define MB 34.0
#define MAX_POINTS 1500         /* points of one line */

static const char *const side_colour[2] = { "#1f6fb4", "#d9731a" };

struct axis {
	double lo, hi;
	bool log;
};

static double ax_pos(const struct axis *a, double v, double from, double to)
{
	double f;

	if (a->log)
		f = (log10(v > a->lo ? v : a->lo) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	return from + (f < 0 ? 0 : f > 1 ? 1 : f) * (to - from);
}

static void axis_fit(struct axis *a, bool may_log)
{
	if (!(a->hi > a->lo)) {
		a->hi = a->lo + (a->lo > 0 ? a->lo : 1);
		a->lo = a->lo > 0 ? 0 : a->lo;
	}
	a->log = may_log && a->lo > 0 && a->hi / a->lo > 100;
}

/* The frame, the x axis's ends labelled in UNIT, the y axis's in YUNIT (NULL: 0 and 1). */
static void frame(FILE *f, const struct axis *x, const struct axis *y, const char *unit, const char *yunit,
		  const char *title)
{
	char a[48], b[48];

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
		"%.0f\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>",
		CW, CH, CW, CH, ML, MT, CW - ML - MR, CH - MT - MB);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%s</text>", ML, CH - MB + 14,
		cmp__fmt(unit, x->lo, a, sizeof(a)));
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%s%s</text>", CW - MR,
		CH - MB + 14, cmp__fmt(unit, x->hi, b, sizeof(b)), x->log ? " (log)" : "");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">", (ML + CW - MR) / 2,
		CH - 6);
	viz__xml(f, title);
	fprintf(f, "</text>");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%s</text>", ML - 4, MT + 10,
		yunit ? cmp__fmt(yunit, y->hi, a, sizeof(a)) : "1");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%s</text>", ML - 4, CH - MB,
		yunit ? cmp__fmt(yunit, y->lo, b, sizeof(b)) : "0");
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The values of distribution (GROUP, NAME) over the runs of side S, sorted; *N of them. */
static double *pooled(const struct cmp_side *s, const struct cmp_dist *d, size_t *n)
{
	size_t total = 0, k = 0;
	double *v;

	for (size_t i = 0; i < s->nruns; i++)
		for (size_t j = 0; j < s->runs[i].ndists; j++)
			if (!strcmp(s->runs[i].dists[j].group, d->group) && !strcmp(s->runs[i].dists[j].name, d->name))
				total += s->runs[i].dists[j].n;
	v = calloc(total ? total : 1, sizeof(*v)); /* zeroed: the analyzer cannot tell the copies below fill all TOTAL */
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->nruns; i++)
		for (size_t j = 0; j < s->runs[i].ndists; j++) {
			const struct cmp_dist *x = &s->runs[i].dists[j];

			if (!strcmp(x->group, d->group) && !strcmp(x->name, d->name)) {
				memcpy(v + k, x->x, x->n * sizeof(*v));
				k += x->n;
			}
		}
	if (total)
		qsort(v, total, sizeof(*v), by_value);
	*n = total;
	return v;
}

static void cdf_line(FILE *f, const double *v, size_t n, const struct axis *x, const struct axis *y, int side)
{
	size_t step = n > MAX_POINTS ? n / MAX_POINTS : 1;

	if (!n)
		return;
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"", side_colour[side]);
	for (size_t i = 0; i < n; i += step) {
		double px = ax_pos(x, v[i], ML, CW - MR);

		fprintf(f, "%.1f,%.1f %.1f,%.1f ", px, ax_pos(y, (double)i / (double)n, CH - MB, MT), px,
			ax_pos(y, (double)(i + 1) / (double)n, CH - MB, MT));
	}
	fprintf(f, "%.1f,%.1f\"/>", ax_pos(x, v[n - 1], ML, CW - MR), MT);
}

static void cdf(FILE *f, const double *const v[2], const size_t n[2], const struct cmp_dist *d)
{
	struct axis x = { INFINITY, -INFINITY, false }, y = { 0, 1, false };
	char title[200];

	for (int s = 0; s < 2; s++)
		if (n[s]) {
			x.lo = fmin(x.lo, v[s][0]);
			x.hi = fmax(x.hi, v[s][n[s] - 1]);
		}
	if (!isfinite(x.lo))
		x.lo = x.hi = 0;
	axis_fit(&x, true);
	snprintf(title, sizeof(title), "CDF of %s (A %zu, B %zu samples)", d->name, n[0], n[1]);
	frame(f, &x, &y, d->unit, NULL, title);
	for (int s = 0; s < 2; s++)
		cdf_line(f, v[s], n[s], &x, &y, s);
	fprintf(f, "</svg>\n");
}

/* One line per run of both sides: the samples of D's distribution against their time. */
static void series(FILE *f, const struct cmp *c, const struct cmp_dist *d)
{
	const struct cmp_side *sides[2] = { &c->a, &c->b };
	struct axis x = { 0, -INFINITY, false }, y = { INFINITY, -INFINITY, false };
	char title[200];

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nruns; i++)
			for (size_t j = 0; j < sides[s]->runs[i].ndists; j++) {
				const struct cmp_dist *r = &sides[s]->runs[i].dists[j];

				if (strcmp(r->group, d->group) != 0 || strcmp(r->name, d->name) != 0)
					continue;
				for (size_t k = 0; k < r->n; k++) {
					x.hi = fmax(x.hi, r->t[k]);
					y.lo = fmin(y.lo, r->x[k]);
					y.hi = fmax(y.hi, r->x[k]);
				}
			}
	if (!isfinite(y.lo))
		y.lo = y.hi = 0;
	if (!isfinite(x.hi))
		x.hi = 1;
	y.lo = fmin(y.lo, 0);
	axis_fit(&x, false);
	axis_fit(&y, false);
	snprintf(title, sizeof(title), "%s over time (s since each run's start), one line per run", d->name);
	frame(f, &x, &y, "count", d->unit, title);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nruns; i++)
			for (size_t j = 0; j < sides[s]->runs[i].ndists; j++) {
				const struct cmp_dist *r = &sides[s]->runs[i].dists[j];
				size_t step = r->n > MAX_POINTS ? r->n / MAX_POINTS : 1;

				if (strcmp(r->group, d->group) != 0 || strcmp(r->name, d->name) != 0 || !r->n)
					continue;
				fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-opacity=\"0.7\" points=\"",
					side_colour[s]);
				for (size_t k = 0; k < r->n; k += step)
					fprintf(f, "%.1f,%.1f ", ax_pos(&x, r->t[k], ML, CW - MR),
						ax_pos(&y, r->x[k], CH - MB, MT));
				fprintf(f, "\"/>");
			}
	fprintf(f, "</svg>\n");
}

/* Has a distribution of this name been drawn already (one chart per group and name)? */
static bool drawn_before(const struct cmp *c, size_t side, size_t run, size_t j)
{
	const struct cmp_dist *d = &(side ? &c->b : &c->a)->runs[run].dists[j];

	for (size_t s = 0; s <= side; s++) {
		const struct cmp_side *sd = s ? &c->b : &c->a;

		for (size_t i = 0; i < sd->nruns; i++)
			for (size_t k = 0; k < sd->runs[i].ndists; k++) {
				if (s == side && i == run && k == j)
					return false;
				if (!strcmp(sd->runs[i].dists[k].group, d->group) &&
				    !strcmp(sd->runs[i].dists[k].name, d->name))
					return true;
			}
	}
	return false;
}

static int charts(FILE *f, const struct cmp *c)
{
	for (size_t s = 0; s < 2; s++) {
		const struct cmp_side *sd = s ? &c->b : &c->a;

		for (size_t i = 0; i < sd->nruns; i++)
			for (size_t j = 0; j < sd->runs[i].ndists; j++) {
				const struct cmp_dist *d = &sd->runs[i].dists[j];
				double *v[2];
				size_t n[2] = { 0, 0 };

				if (drawn_before(c, s, i, j))
					continue;
				v[0] = pooled(&c->a, d, &n[0]);
				v[1] = pooled(&c->b, d, &n[1]);
				if (!v[0] || !v[1]) {
					free(v[0]);
					free(v[1]);
					return -ENOMEM;
				}
				fprintf(f, "<h3>");
				viz__xml(f, d->group);
				fprintf(f, ": %s</h3>\n<div class=\"row\">", d->name);
				cdf(f, (const double *const *)v, n, d);
				series(f, c, d);
				fprintf(f, "</div>\n");
				free(v[0]);
				free(v[1]);
			}
	}
	return 0;
}

/* The comparison's text, escaped, in a <pre>. */
static int text(FILE *f, const struct cmp *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = cmp__text(c, m, false);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret) {
		fprintf(f, "<pre>");
		viz__xml(f, buf);
		fprintf(f, "</pre>\n");
	}
	free(buf);
	return ret;
}

int viz__compare_html(const struct cmp *c, FILE *f)
{
	int ret;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>fabtrace compare</title>\n<style>body{font:14px sans-serif;margin:1.5em}"
		"pre{font:12px monospace;background:#f6f6f6;padding:1em;overflow-x:auto}"
		".row{display:flex;flex-wrap:wrap;gap:1em}.a{color:%s}.b{color:%s}svg{background:#fff}"
		"</style></head><body>\n<h1>fabtrace compare</h1>\n", side_colour[0], side_colour[1]);
	fprintf(f, "<p><b class=\"a\">A</b>: %zu run%s, <b class=\"b\">B</b>: %zu run%s. Lines: "
		"<span class=\"a\">A</span> and <span class=\"b\">B</span>.</p>\n", c->a.nruns,
		c->a.nruns > 1 ? "s" : "", c->b.nruns, c->b.nruns > 1 ? "s" : "");
	ret = text(f, c);
	if (!ret) {
		fprintf(f, "<h2>Distributions: CDFs (each side's runs pooled) and time series (one line per run)</h2>\n");
		ret = charts(f, c);
	}
	if (!ret) {
		fprintf(f, "<script type=\"application/json\" id=\"compare-data\">");
		ret = cmp__json(c, f, false, true);
		fprintf(f, "</script>\n</body></html>\n");
	}
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}
