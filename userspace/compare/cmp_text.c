// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare's text (docs/compare.md, "Text"): the first screen is the
 * answer -- the configuration diff, the verdict on the knob, what got
 * better and what got worse, the warnings -- then every metric in
 * benchstat's idiom: the sides' medians, the difference, its interval and
 * p, and "~" where it is not significant.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/compare/compare.h"

/* A setting's value for people: sizes also as bytes ("30 kB (30720)"). */
static const char *setting_value(const char *key, const char *v, char *buf, size_t len)
{
	size_t kl = strlen(key);
	char *end;
	double x = strtod(v, &end);

	if (kl > 6 && !strcmp(key + kl - 6, "_bytes") && end != v && !*end) {
		char b[32];

		snprintf(buf, len, "%s (%s)", fmt_bytes(x, b, sizeof(b)), v);
	} else
		snprintf(buf, len, "%s", v);
	return buf;
}

static void knob_line(FILE *f, const struct cmp_knob *k, const char *indent)
{
	char a[96], b[96];

	fprintf(f, "%s%s%s %s on %s: %s -> %s\n", indent, k->derived ? "(follows) " : "", k->cls, k->key, k->objects,
		setting_value(k->key, k->a, a, sizeof(a)), setting_value(k->key, k->b, b, sizeof(b)));
}

/* "+24.0%", "+3.1 pp" (shares), "+2.00 ms" (from 0). */
static const char *delta_str(const struct cmp_metric *m, char *buf, size_t len)
{
	char b[48];

	if (!isfinite(m->delta))
		snprintf(buf, len, "-");
	else if (!strcmp(m->unit, "share"))
		snprintf(buf, len, "%+.1f pp", 100 * m->delta);
	else if (isfinite(m->delta_pct))
		snprintf(buf, len, "%+.1f%%", m->delta_pct);
	else
		snprintf(buf, len, "%s%s", m->delta >= 0 ? "+" : "", cmp__fmt(m->unit, m->delta, b, sizeof(b)));
	return buf;
}

static void metric_line(FILE *f, const struct cmp_metric *m)
{
	char a[48], b[48], d[48], ci[120], p[48];

	if (m->tested) {
		char lo[48], hi[48];

		snprintf(ci, sizeof(ci), "[%s, %s]", cmp__fmt(m->unit, m->ci_lo, lo, sizeof(lo)),
			 cmp__fmt(m->unit, m->ci_hi, hi, sizeof(hi)));
		snprintf(p, sizeof(p), "p=%.3g n=%zu+%zu", m->p, m->na, m->nb);
	} else {
		snprintf(ci, sizeof(ci), "-");
		snprintf(p, sizeof(p), "n=%zu+%zu", m->na, m->nb);
	}
	fprintf(f, "  %-26s %11s %11s %9s  %-25s %s%s\n", cmp__metric_label(m->name),
		cmp__fmt(m->unit, m->a_med, a, sizeof(a)), cmp__fmt(m->unit, m->b_med, b, sizeof(b)),
		m->significant ? delta_str(m, d, sizeof(d)) : "~", ci, p, m->aa_significant ? " (A/A too)" : "");
}

/* Only nonzero somewhere: a metric that is 0 in every run of both sides says nothing. */
static bool has_data(const struct cmp_metric *m)
{
	for (size_t i = 0; i < m->na; i++)
		if (m->a[i] != 0)
			return true;
	for (size_t i = 0; i < m->nb; i++)
		if (m->b[i] != 0)
			return true;
	return false;
}

/* The verdict: the knob, the collectives' times, the rest counted. */
static void verdict(FILE *f, const struct cmp *c)
{
	size_t faster = 0, slower = 0, times = 0;

	fprintf(f, "Verdict: ");
	if (c->nknobs_counted == 1) {
		for (size_t i = 0; i < c->nknobs; i++)
			if (!c->knobs[i].derived)
				fprintf(f, "B's %s %s (%s -> %s)", c->knobs[i].cls, c->knobs[i].key, c->knobs[i].a,
					c->knobs[i].b);
	} else if (c->config_unknown) {
		fprintf(f, "B (the configuration diff is unknown)");
	} else if (!c->nknobs_counted) {
		fprintf(f, "B (no configuration difference recorded)");
	} else {
		fprintf(f, "B (%zu knobs differ: not one knob's effect)", c->nknobs_counted);
	}
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (strcmp(m->name, "time_p50") != 0 || !m->tested)
			continue;
		times++;
		faster += m->direction > 0;
		slower += m->direction < 0;
	}
	if (!times)
		fprintf(f, ": no collectives to compare");
	else if (!faster && !slower)
		fprintf(f, ": collectives as fast as in A (no group's time p50 differs significantly)");
	else
		fprintf(f, ": collectives %s (%zu of %zu groups faster, %zu slower by time p50)",
			faster && slower ? "mixed" : faster ? "faster" : "slower", faster, times, slower);
	fprintf(f, "; %zu metrics better, %zu worse, %zu of %zu significant", c->better, c->worse, c->significant,
		c->nmetrics);
	if (c->aa_done)
		fprintf(f, " (A/A noise floor: %zu of %zu)", c->aa_significant, c->aa_tested);
	fprintf(f, ".\n");
}

static void direction_list(FILE *f, const struct cmp *c, int dir, const char *title)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nmetrics; i++)
		n += c->metrics[i].direction == dir;
	if (!n)
		return;
	fprintf(f, "\n%s (%zu):\n", title, n);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (m->direction == dir) {
			char a[48], b[48], d[48];

			fprintf(f, "  %s: %s %s -> %s (%s, p=%.3g)\n", m->group, cmp__metric_label(m->name),
				cmp__fmt(m->unit, m->a_med, a, sizeof(a)), cmp__fmt(m->unit, m->b_med, b, sizeof(b)),
				delta_str(m, d, sizeof(d)), m->p);
		}
	}
}

int cmp__text(const struct cmp *c, FILE *f, bool all)
{
	size_t hidden = 0;
	const char *group = NULL;

	fprintf(f, "fabtrace compare: A %zu run%s, B %zu run%s\n", c->a.nruns, c->a.nruns > 1 ? "s" : "", c->b.nruns,
		c->b.nruns > 1 ? "s" : "");
	fprintf(f, "\nConfiguration, A -> B:\n");
	if (c->config_unknown)
		fprintf(f, "  unknown (%s no configuration records)\n", c->config_unknown);
	else if (!c->nknobs)
		fprintf(f, "  the same (no recorded setting differs)\n");
	for (size_t i = 0; i < c->nknobs; i++)
		knob_line(f, &c->knobs[i], "  ");
	fprintf(f, "\n");
	verdict(f, c);
	direction_list(f, c, 1, "Better in B");
	direction_list(f, c, -1, "Worse in B");
	if (c->nwarnings) {
		fprintf(f, "\nWarnings:\n");
		for (size_t i = 0; i < c->nwarnings; i++)
			fprintf(f, "  %s\n", c->warnings[i]);
	}
	fprintf(f, "\nMetrics: the medians of the runs; the difference B - A where significant (p < %g and the "
		"%.0f%% interval excludes 0), else ~\n", c->opts.alpha, 100 * c->opts.level);
	fprintf(f, "  %-26s %11s %11s %9s  %-25s %s\n", "", "A", "B", "delta", "interval", "Mann-Whitney");
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (!all && !has_data(m)) {
			hidden++;
			continue;
		}
		if (!group || strcmp(group, m->group) != 0) {
			group = m->group;
			fprintf(f, "%s\n", group);
		}
		metric_line(f, m);
	}
	if (hidden)
		fprintf(f, "(%zu metrics are 0 in every run of both sides; --all shows them)\n", hidden);
	fprintf(f, "\nRuns:\n");
	for (size_t i = 0; i < c->a.nruns; i++)
		fprintf(f, "  A %s\n", c->a.runs[i].path);
	for (size_t i = 0; i < c->b.nruns; i++)
		fprintf(f, "  B %s\n", c->b.runs[i].path);
	return ferror(f) ? -EIO : 0;
}
