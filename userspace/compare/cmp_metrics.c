// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Metrics paired across the runs of both sides, and their statistics
 * (docs/compare.md, "Statistics"): one value per run and metric; the
 * difference of the sides' medians (B - A); its percentile-bootstrap
 * interval (lib/stats, a fixed seed); the two-sided Mann-Whitney p; and
 * significant when p < alpha and the interval excludes 0.  A metric a run
 * does not have is left out of that run's values, except the shares and
 * counter times (zero_fill), which are 0 in a run that has their group.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "userspace/compare/compare.h"

static const struct cmp_obs *find_obs(const struct cmp_run *r, const char *group, const char *name)
{
	for (size_t i = 0; i < r->nobs; i++)
		if (!strcmp(r->obs[i].name, name) && !strcmp(r->obs[i].group, group))
			return &r->obs[i];
	return NULL;
}

/* Does run R have GROUP (or, for "G via LINK", G)? */
static bool has_group(const struct cmp_run *r, const char *group)
{
	const char *via = strstr(group, " via ");
	size_t len = via ? (size_t)(via - group) : strlen(group);

	for (size_t i = 0; i < r->nobs; i++)
		if (!strncmp(r->obs[i].group, group, len) && !r->obs[i].group[len])
			return true;
	return false;
}

/* The values of metric M over RUNS into *V (*N of them). */
static int values(const struct cmp_metric *m, bool zero_fill, const struct cmp_run *runs, size_t nruns,
		  double **v, size_t *n)
{
	*v = calloc(nruns ? nruns : 1, sizeof(double));
	*n = 0;
	if (!*v)
		return -ENOMEM;
	for (size_t i = 0; i < nruns; i++) {
		const struct cmp_obs *o = find_obs(&runs[i], m->group, m->name);

		if (o && isfinite(o->v))
			(*v)[(*n)++] = o->v;
		else if (!o && zero_fill && has_group(&runs[i], m->group))
			(*v)[(*n)++] = 0;
	}
	return 0;
}

int cmp_metrics__stats(struct cmp_metric *m, const struct cmp_opts *o)
{
	struct stats_ci ci;
	struct stats_mw mw;
	int ret;

	m->a_med = m->na ? stats_median(m->a, m->na) : NAN;
	m->b_med = m->nb ? stats_median(m->b, m->nb) : NAN;
	m->delta = m->b_med - m->a_med;
	m->delta_pct = m->a_med != 0 ? 100 * m->delta / fabs(m->a_med) : NAN;
	m->ci_lo = m->ci_hi = m->p = NAN;
	m->tested = m->significant = false;
	m->direction = 0;
	if (!m->na || !m->nb)
		return 0;
	ret = stats_mann_whitney(m->a, m->na, m->b, m->nb, STATS_MW_AUTO, &mw);
	if (!ret)
		ret = stats_bootstrap_diff(m->a, m->na, m->b, m->nb, STATS_MEDIAN, o->nboot, o->level, o->seed, &ci);
	if (ret)
		return ret;
	m->tested = true;
	m->p = mw.p;
	m->ci_lo = ci.lo;
	m->ci_hi = ci.hi;
	m->significant = m->p < o->alpha && (ci.lo > 0 || ci.hi < 0);
	if (m->significant && m->better != CMP_NEUTRAL)
		m->direction = (m->delta < 0) == (m->better == CMP_LOWER) ? 1 : -1;
	return 0;
}

void cmp_metrics__free(struct cmp_metric *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].a);
		free(v[i].b);
	}
	free(v);
}

/* Is (GROUP, NAME) among V[0..N)? */
static bool listed(const struct cmp_metric *v, size_t n, const struct cmp_obs *o)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, o->name) && !strcmp(v[i].group, o->group))
			return true;
	return false;
}

/* Every metric of the runs of both sides, once, in the order they first appear. */
static int collect(const struct cmp_run *const *sides, const size_t *nruns, struct cmp_metric **out, size_t *nout,
		   bool **zero_fill)
{
	struct cmp_metric *v = NULL;
	bool *zf = NULL;
	size_t n = 0, cap = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nruns[s]; i++)
			for (size_t k = 0; k < sides[s][i].nobs; k++) {
				const struct cmp_obs *o = &sides[s][i].obs[k];

				if (listed(v, n, o))
					continue;
				if (n == cap) {
					struct cmp_metric *w;
					bool *z;

					cap = cap ? cap * 2 : 128;
					w = realloc(v, cap * sizeof(*v));
					if (w)
						v = w;
					z = w ? realloc(zf, cap * sizeof(*zf)) : NULL;
					if (!z) {
						free(v);
						free(zf);
						return -ENOMEM;
					}
					zf = z;
				}
				memset(&v[n], 0, sizeof(v[n]));
				memcpy(v[n].group, o->group, sizeof(v[n].group));
				memcpy(v[n].name, o->name, sizeof(v[n].name));
				v[n].unit = o->unit;
				v[n].better = o->better;
				zf[n++] = o->zero_fill;
			}
	*out = v;
	*nout = n;
	*zero_fill = zf;
	return 0;
}

int cmp_metrics__pair(const struct cmp_run *a, size_t na, const struct cmp_run *b, size_t nb,
		      const struct cmp_opts *o, struct cmp_metric **out, size_t *nout)
{
	const struct cmp_run *sides[2] = { a, b };
	const size_t nruns[2] = { na, nb };
	struct cmp_metric *v;
	bool *zf;
	size_t n;
	int ret = collect(sides, nruns, &v, &n, &zf);

	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = values(&v[i], zf[i], a, na, &v[i].a, &v[i].na);
		if (!ret)
			ret = values(&v[i], zf[i], b, nb, &v[i].b, &v[i].nb);
		if (!ret)
			ret = cmp_metrics__stats(&v[i], o);
	}
	free(zf);
	if (ret) {
		cmp_metrics__free(v, n);
		return ret;
	}
	*out = v;
	*nout = n;
	return 0;
}
