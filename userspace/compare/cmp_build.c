// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmp__build: the comparison of runs A and runs B (compare.h), in order:
 * the jobs' shapes (refused when they differ, unless forced), the
 * configuration diff (cmp_config.c), the metrics paired with their
 * statistics (cmp_metrics.c), and with --aa the same between the two
 * halves of side A, the noise floor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/util.h"
#include "userspace/compare/compare.h"

/* "3 ranks; allreduce 1.0 MB x4, bcast 4.0 kB x4": a run's shape, for messages. */
static void shape_str(const struct cmp_run *r, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	str_appendf(buf, len, &k, "%u ranks", r->nranks);
	for (size_t i = 0; i < r->ngroups; i++)
		str_appendf(buf, len, &k, "%s%s", i ? ", " : "; ", r->groups[i].name);
}

static bool same_shape(const struct cmp_run *x, const struct cmp_run *y)
{
	if (x->nranks != y->nranks || x->ngroups != y->ngroups)
		return false;
	for (size_t i = 0; i < x->ngroups; i++)
		if (strcmp(x->groups[i].name, y->groups[i].name) != 0)
			return false;
	return true;
}

/* The runs of every side against A's first: differences are warned about; between the sides, refused unless forced. */
static int shapes(struct cmp *c, char *err, size_t errlen)
{
	const struct cmp_side *sides[2] = { &c->a, &c->b };
	const struct cmp_run *ref = &c->a.runs[0];
	char s1[512], s2[512];

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nruns; i++) {
			const struct cmp_run *r = &sides[s]->runs[i];

			if (same_shape(ref, r))
				continue;
			shape_str(ref, s1, sizeof(s1));
			shape_str(r, s2, sizeof(s2));
			if (s == 1 && !c->shape_differs && !c->opts.force) {
				const struct cmp_run *cut = r->truncated ? r : ref->truncated ? ref : NULL;

				snprintf(err, errlen, "the jobs differ in shape: %s has %s, %s has %s%s%s%s; compare "
					 "runs of one job, or --force to pair the groups both sides have", ref->path, s1,
					 r->path, s2, cut ? " (" : "", cut ? cut->path : "",
					 cut ? " is truncated: it may hold fewer of them)" : "");
				return -EMLINK;
			}
			if (cmp__warn(c, "the jobs differ in shape%s: %s has %s, %s has %s", s ? "" : " within side A",
				      ref->path, s1, r->path, s2))
				return -ENOMEM;
			c->shape_differs = true;
		}
	return 0;
}

/* --aa: the metrics between the even and the odd runs of side A. */
static int aa(struct cmp *c)
{
	size_t n = c->a.nruns, nh[2] = { 0, 0 }, nm = 0;
	struct cmp_run *half[2];
	struct cmp_metric *m = NULL;
	int ret = 0;

	if (n < CMP_AA_MIN_RUNS)
		return cmp__warn(c, "--aa needs at least %d runs on side A (it has %zu): no noise floor",
				 CMP_AA_MIN_RUNS, n);
	half[0] = calloc(n, sizeof(**half));
	half[1] = calloc(n, sizeof(**half));
	if (!half[0] || !half[1])
		ret = -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++)
		half[i % 2][nh[i % 2]++] = c->a.runs[i]; /* shallow: the runs stay A's */
	if (!ret && stats_mw_least_p(nh[0], nh[1]) >= c->opts.alpha)
		ret = cmp__warn(c, "--aa: halves of %zu and %zu runs cannot differ significantly (the least p is "
				"%.2f, alpha %.2f), so its floor of 0 says nothing; record 8 or more runs on side A",
				nh[0], nh[1], stats_mw_least_p(nh[0], nh[1]), c->opts.alpha);
	if (!ret)
		ret = cmp_metrics__pair(half[0], nh[0], half[1], nh[1], &c->opts, &m, &nm);
	for (size_t i = 0; i < c->nmetrics && !ret; i++) {
		struct cmp_metric *x = &c->metrics[i];

		for (size_t k = 0; k < nm; k++)
			if (!strcmp(m[k].name, x->name) && !strcmp(m[k].group, x->group) && m[k].tested) {
				x->aa_p = m[k].p;
				x->aa_significant = m[k].significant;
				c->aa_tested++;
				c->aa_significant += m[k].significant;
				break;
			}
	}
	if (!ret)
		c->aa_done = true;
	cmp_metrics__free(m, nm);
	free(half[0]);
	free(half[1]);
	return ret;
}

int cmp__build(const struct cmp_opts *o, struct cmp_run *a, size_t na, struct cmp_run *b, size_t nb,
	       struct cmp **out, char *err, size_t errlen)
{
	struct cmp *c = calloc(1, sizeof(*c));
	int ret = 0;

	err[0] = 0;
	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->opts = *o;
	c->a.runs = a;
	c->a.nruns = na;
	c->b.runs = b;
	c->b.nruns = nb;
	if (!na || !nb) {
		snprintf(err, errlen, "a side has no runs");
		cmp__free(c);
		return -EINVAL;
	}
	ret = shapes(c, err, errlen);
	for (size_t i = 0; i < na + nb && !ret; i++) {
		const struct cmp_run *r = i < na ? &a[i] : &b[i - na];

		if (r->truncated)
			ret = cmp__warn(c, "%s is truncated: its values cover what was recorded", r->path);
	}
	if (!ret)
		ret = cmp_config__diff(c);
	/* said, not left to a silent "0 significant": 3 against 3 can reach p 0.1 at best */
	if (!ret && stats_mw_least_p(na, nb) >= o->alpha)
		ret = cmp__warn(c, "%zu and %zu runs: a metric measured once per run cannot differ significantly (the "
				"least p is %.2f, alpha %.2f); record more runs (4 and 4 can reach 0.03)", na, nb,
				stats_mw_least_p(na, nb), o->alpha);
	if (!ret)
		ret = cmp_metrics__pair(a, na, b, nb, o, &c->metrics, &c->nmetrics);
	for (size_t i = 0; i < c->nmetrics; i++) {
		c->significant += c->metrics[i].significant;
		c->better += c->metrics[i].direction > 0;
		c->worse += c->metrics[i].direction < 0;
	}
	if (!ret && o->aa)
		ret = aa(c);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ret) {
		cmp__free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void cmp__free(struct cmp *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->a.nruns && c->a.runs; i++)
		cmp__run_free(&c->a.runs[i]);
	for (size_t i = 0; i < c->b.nruns && c->b.runs; i++)
		cmp__run_free(&c->b.runs[i]);
	free(c->a.runs);
	free(c->b.runs);
	for (size_t i = 0; i < c->ndiffs; i++) {
		free(c->diffs[i].object);
		free(c->diffs[i].cls);
		free(c->diffs[i].key);
		free(c->diffs[i].a);
		free(c->diffs[i].b);
	}
	free(c->diffs);
	for (size_t i = 0; i < c->nknobs; i++) {
		free(c->knobs[i].cls);
		free(c->knobs[i].key);
		free(c->knobs[i].a);
		free(c->knobs[i].b);
		free(c->knobs[i].objects);
	}
	free(c->knobs);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	cmp_metrics__free(c->metrics, c->nmetrics);
	free(c);
}
