// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run's store (compare.h): its observations, samples and settings
 * appended, and freed; compare's options' defaults.  The extractors fill it
 * (cmp_run.c drives them), the pairing and the diff read it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/compare/compare.h"

void cmp_opts__init(struct cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = CMP_DEF_ALPHA;
	o->nboot = CMP_DEF_BOOT;
	o->seed = CMP_DEF_SEED;
	o->level = CMP_DEF_LEVEL;
	o->burst_share = CMP_DEF_BURST_SHARE;
}

int cmp_run__obs(struct cmp_run *r, const char *group, const char *name, const char *unit, unsigned better,
		 bool zero_fill, double v)
{
	struct cmp_obs *x;

	if (grow_array((void **)&r->obs, &r->cap_obs, r->nobs + 1, sizeof(*r->obs)))
		return -ENOMEM;
	x = &r->obs[r->nobs++];
	memset(x, 0, sizeof(*x));
	str_copy(x->group, group, sizeof(x->group));
	str_copy(x->name, name, sizeof(x->name));
	x->unit = unit;
	x->better = better;
	x->zero_fill = zero_fill;
	x->v = v;
	return 0;
}

int cmp_run__sample(struct cmp_run *r, const char *group, const char *name, const char *unit, double t, double x)
{
	struct cmp_dist *d = NULL;

	for (size_t i = r->ndists; i-- > 0;)
		if (!strcmp(r->dists[i].group, group) && !strcmp(r->dists[i].name, name)) {
			d = &r->dists[i];
			break;
		}
	if (!d) {
		if (grow_array((void **)&r->dists, &r->cap_dists, r->ndists + 1, sizeof(*r->dists)))
			return -ENOMEM;
		d = &r->dists[r->ndists++];
		memset(d, 0, sizeof(*d));
		str_copy(d->group, group, sizeof(d->group));
		str_copy(d->name, name, sizeof(d->name));
		d->unit = unit;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		double *t2 = realloc(d->t, cap * sizeof(double)), *x2;

		if (!t2)
			return -ENOMEM;
		d->t = t2;
		x2 = realloc(d->x, cap * sizeof(double));
		if (!x2)
			return -ENOMEM;
		d->x = x2;
		d->cap = cap;
	}
	d->t[d->n] = t;
	d->x[d->n++] = x;
	return 0;
}

int cmp_run__setting(struct cmp_run *r, const char *object, const char *cls, const char *key, const char *value,
		     bool set, bool changed)
{
	struct cmp_setting *s;

	if (grow_array((void **)&r->settings, &r->cap_settings, r->nsettings + 1, sizeof(*r->settings)))
		return -ENOMEM;
	s = &r->settings[r->nsettings];
	memset(s, 0, sizeof(*s));
	s->object = strdup(object);
	s->cls = strdup(cls);
	s->key = strdup(key);
	s->value = strdup(value);
	s->set = set;
	s->changed = changed;
	r->nsettings++;
	if (!s->object || !s->cls || !s->key || !s->value)
		return -ENOMEM;
	return 0;
}

void cmp__run_free(struct cmp_run *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->obs);
	for (size_t i = 0; i < r->ndists; i++) {
		free(r->dists[i].t);
		free(r->dists[i].x);
	}
	free(r->dists);
	for (size_t i = 0; i < r->nsettings; i++) {
		free(r->settings[i].object);
		free(r->settings[i].cls);
		free(r->settings[i].key);
		free(r->settings[i].value);
	}
	free(r->settings);
	free(r->groups);
	memset(r, 0, sizeof(*r));
}
